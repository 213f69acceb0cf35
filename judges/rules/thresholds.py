"""Every threshold the rules judge uses, in one place, each with the standard it comes from.

Sources: WCAG 2.2 success criteria (1.1.1 non-text content, 1.3.1 info and relationships,
1.3.2 meaningful sequence, 1.4.3 contrast, 1.4.11 non-text contrast, 2.4.4 link purpose), its
PDF techniques (PDF1, PDF4, PDF6, PDF20) and failures (F30), PDF/UA-1 (ISO 14289-1) with the
Matterhorn Protocol checkpoints, and the benchmark's own floor for body text (9 pt). Where a
standard gives no number (how many words make an alt text descriptive, how much out-of-order
text a page may have) the value is a tolerance chosen for the principle, and says so.
Change a line here and every stage that depends on the judge re-runs (its code is hashed).
"""

from __future__ import annotations

from dataclasses import dataclass

from common.thresholds import BODY_FLOOR_PT, GRAPHIC_RATIO, LARGE_TEXT_RATIO, NORMAL_TEXT_RATIO

# Semantic tagging (WCAG 1.3.1; PDF/UA-1 §7.1-7.6)
# Text at least this many times the body size reads as a heading (typical H1/H2 are 1.4-2.5×).
HEADING_SIZE_RATIO = 1.4
# A heading is a label, not a sentence: longer lines are paragraphs, however they are set.
MAX_HEADING_WORDS = 15
# Bare Span blocks directly under a grouping element, as a share of the page's top-level text
# blocks, above which paragraphs are taken to be untagged as P (a stray Span or two is tolerated).
MAX_BARE_SPAN_SHARE = 0.3

# Alt Text
@dataclass(frozen=True)
class AltThresholds:
    """Where a rule draws its line, and the standard or principle behind each line."""

    # WCAG 2.2 SC 1.1.1 and failure F30: a text alternative must convey what the image does,
    # which takes a subject and what is shown of it; one or two words ("Stuart, Florida",
    # "Three panels") name at most the subject. (Technique PDF1: /Alt on Figure elements.)
    min_words: int = 3
    # W3C WAI Images Tutorial, "Complex images": a chart's or diagram's short alternative still
    # identifies the kind of graphic and its subject ("Bar chart of visits by site"), which
    # takes about five words; anything shorter only labels it.
    complex_min_words: int = 5
    # A figure its authors need more than a couple of sentences to caption carries detail a
    # title cannot convey (multi-panel plots, annotated charts): treat it as complex.
    complex_caption_words: int = 25
    # Contextual appropriateness (WCAG 1.1.1 "equivalent purpose"): an alt text that shares no
    # word with its caption and whose subject words the document hardly uses (under 30%: fewer
    # than one in three) describes something else. Needs three subject words to be judged at all.
    mismatch_min_subject_words: int = 3
    mismatch_max_known_share: float = 0.3


ALT_TEXT = AltThresholds()


# Tables
@dataclass(frozen=True)
class TableThresholds:
    """Where a rule draws its line, and the standard or principle behind each line."""

    # A drawn table must have at least two rows and two columns to be a data table needing
    # Table/TR/TH/TD tags (WCAG 2.2 SC 1.3.1; PDF/UA-1 §7.5); a single row or column of ruled
    # boxes is a layout device (a framed equation, a boxed note), so it is not held against the page.
    min_drawn_rows: int = 2
    min_drawn_cols: int = 2
    # Scope is required on TH in tables that do not use Headers/IDs (PDF/UA-1 §7.5, Matterhorn
    # checkpoint 15-003; WCAG technique PDF6). An empty corner TH heads nothing, so a table whose
    # only unscoped headers are empty is not failed for it.
    max_unscoped_headers: int = 0
    # Every non-empty data cell must reach at least one header (WCAG 1.3.1; technique PDF6).
    max_orphan_data_cells: int = 0


TABLES = TableThresholds()


# Reading Order
@dataclass(frozen=True)
class OrderThresholds:
    """Where the rules draw their lines, and why.

    - ``max_out_of_sequence``: SC 1.3.2 asks for *a* correct reading sequence, and the visual
      order is itself an estimate (two are tried: the geometric segment order and plain column
      order). Pull quotes, sidebars, marginal notes and floats read after the main text, or an
      author block read before its affiliations, are acceptable sequences that neither estimate
      predicts; on published pages they move up to about a fifth of the running text. A page
      fails when more than 30% of its running text (by characters) would have to move to follow
      the page: the main text itself is shuffled.
    - ``min_coverage``: PDF/UA-1 §7.1 puts all real content in the structure tree. Watermarks,
      cover notes and figure labels are legitimately artifacts, and a paragraph continued
      from the previous page is sometimes not matched to its element, so a page fails only when
      less than half of its running text (by characters) is reachable in the tree: then the body
      itself is hidden from assistive technology.
    - ``min_text_chars``: a page with less running text than this (a figure page, a title page
      stub) has too little text to measure coverage on.
    - ``min_unit_chars``: order is judged between units of running text; chart labels, table
      cells and page furniture shorter than this have no sentence flow to break (tables and
      figures have their own criteria). Headings count whatever their length.
    - ``max_column_switches``: reading order may change column this many times more than the
      visual order does before the columns count as interleaved (the extractor's default);
      counted on running text only, since a table straddling the gutter is read row by row.
    - Headings have no tolerance: a heading must be read after the text printed just above it,
      before the text printed just below it, and the text printed under it in its column must be
      heard after it and before the next heading. These compare geometric neighbours only, so
      they hold whatever order a page's stories or columns are read in.
    """

    max_out_of_sequence: float = 0.3
    min_coverage: float = 0.5
    min_text_chars: int = 200
    max_column_switches: int = 3
    min_unit_chars: int = 20


READING_ORDER = OrderThresholds()


# Contrast
@dataclass(frozen=True)
class ContrastThresholds:
    """Where the rules draw their lines, and why.

    - ``normal_ratio`` 4.5 and ``large_ratio`` 3.0: WCAG 2.2 SC 1.4.3 (large text: ≥ 18 pt, or
      ≥ 14 pt bold); the extractor applies them per span, these are quoted in reports. Declared in
      ``common.thresholds``, which the extractor reads too.
    - ``graphic_ratio`` 3.0: WCAG 2.2 SC 1.4.11, graphical objects needed to understand content.
    - ``min_run_chars`` 20: failing small text is judged by *runs* — spans read one after another,
      all failing. A run shorter than this (a one-word section label in a brand colour, a stray
      syllable) is a speck: a reader loses a word at most, and published pages that experts pass
      carry such labels. A failing phrase, line, caption or paragraph is a run of 20 characters
      or more and fails the page.
    - ``min_large_run_chars`` 4: large text is titles and headings, short by nature yet carrying
      the page's structure, so a failing word of large text already fails.
    - ``max_speck_share`` 0.05: specks still fail the page when together they exceed 5% of its
      visible characters (many faint labels add up to lost content).
    - ``min_mark_share`` 0.005 and ``figure_pad_pt`` 4: a figure passes SC 1.4.11 when at least
      0.5% of the pixels in its box (padded to take in the page around it) reach 3:1 against the
      box's lightest tone; any legible line, bar or label covers that much, while a washed-out
      image has none. The 99th percentile stands for the lightest tone, so a few bright specks
      do not set it.
    """

    normal_ratio: float = NORMAL_TEXT_RATIO
    large_ratio: float = LARGE_TEXT_RATIO
    graphic_ratio: float = GRAPHIC_RATIO
    min_run_chars: int = 20
    min_large_run_chars: int = 4
    max_speck_share: float = 0.05
    min_mark_share: float = 0.005
    figure_pad_pt: float = 4.0


CONTRAST = ContrastThresholds()


# Fonts
@dataclass(frozen=True)
class FontThresholds:
    """Where the rules draw their lines, and why.

    - ``body_floor_pt`` 9.0: the benchmark's floor for body text (``common.thresholds``). ``size_tolerance_pt`` 0.25:
      sizes are measured after the text matrix, and a nominal 9 pt face scaled by a layout tool
      measures 8.8–8.9 pt; below 8.75 pt the text is set smaller than the floor.
    - ``max_small_share`` 0.20: footnotes, superscripts, captions, affiliations and figure labels
      are legitimately smaller; on published pages they are up to about an eighth of the text.
      When more than a fifth of a page's characters sit below the floor, body text does.
    - ``min_page_chars`` 300: a page with less text (a figure page) has no body text to measure.
    - ``max_unmapped_share`` 0.05: PDF/UA-1 §7.21.7 asks every glyph to map to Unicode. A few
      unmapped glyphs (math extension pieces, icon fonts) garble a symbol; above 5% of the page's
      characters a font without a mapping is setting words, which a screen reader reads as garbage.
    - Embedding has no tolerance: PDF/UA-1 §7.21.4.1 requires every font used for visible text to
      be embedded, since a substitute font changes shapes, widths and legibility.
    - ``min_em_per_char`` 0.34: ordinary Latin text advances 0.40–0.50 em per character (spaces
      included); below 0.34 em letters touch or overlap, unless the face is condensed by design
      (its name says so: Condensed, Narrow, Compressed), which is judged on its own terms and
      skipped. Measured on body-size blocks in ``min_measured_chars`` characters or more.
    - ``min_family_share`` 0.10 and ``min_families`` 3: a page sets its running text in one
      face, often with a second for a distinct role (sidebars, code, display). Body-size
      paragraphs spread over three or more families, each carrying at least a tenth of them,
      change typeface without a meaning a reader could follow (math and symbol fonts excluded).
    """

    body_floor_pt: float = BODY_FLOOR_PT
    size_tolerance_pt: float = 0.25
    max_small_share: float = 0.20
    min_page_chars: int = 300
    max_unmapped_share: float = 0.05
    min_em_per_char: float = 0.34
    min_measured_chars: int = 200
    min_family_share: float = 0.10
    min_families: int = 3


FONTS = FontThresholds()
