"""The seven criteria, each described once: labels, sub-criteria, evidence, references, and everything
else a stage knows about one criterion.

Every part of AccessBench that needs to know about a criterion reads it here: the rules judge
(its sub-criteria names and its rule function), the LLM prompts (task, guidelines, checklist, Not Present
definition, references), the hybrid judge (which sub-criteria are semantic), evidence bundles (which
evidence, which is ★ — withheld for the benchmark's Cannot Tell items — and which is an image, which tags
to keep when a tree is cut), corpus sampling (which documents are eligible), the report (the paper's names,
the outlines of failing regions) and the CLI (criteria names). A new criterion is one more entry in SPECS;
tests/judges/test_criteria.py checks that no per-criterion table is written anywhere else.

Sub-criteria follow the paper's appendix tables (WCAG 2.2 / PDF/UA-1). A sub-criterion is *semantic*
when deciding it needs an understanding of meaning (does this alt text say what the chart shows)
rather than a check of structure or values; the hybrid judge asks its LLM tier only about those.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from common.thresholds import (
    BODY_FLOOR_PT,
    LARGE_BOLD_TEXT_PT,
    LARGE_TEXT_PT,
    LARGE_TEXT_RATIO,
    NORMAL_TEXT_RATIO,
    contrast_rule,
)
from judges.labels import Label


@dataclass(frozen=True)
class SubCriterion:
    name: str
    description: str  # what to check, phrased for a checklist
    semantic: bool = False


@dataclass(frozen=True)
class EvidenceItem:
    name: str
    starred: bool  # ★ in the paper's Table 2: withheld for Cannot Tell items
    image: bool = False  # sent as image parts (page image, crops), not as text


@dataclass(frozen=True)
class CriterionPrompt:
    """The prose of one criterion's LLM prompt; its checklist and label meanings come from the spec."""

    task: str
    guidelines: tuple[str, ...]


@dataclass(frozen=True)
class CriterionSpec:
    name: str
    title: str
    sub_criteria: tuple[SubCriterion, ...]
    evidence: tuple[EvidenceItem, ...]
    references: tuple[str, ...]  # WCAG 2.2 success criteria and PDF/UA-1 clauses
    not_present: str | None  # what Not Present means; None: the label does not exist for this criterion
    needs_layout: bool = False  # evidence uses layout regions (table regions, drawn tables the tags miss)
    # Everything else a stage knows about the criterion, each read from here (tests/judges/test_criteria.py).
    paper_name: str = field(kw_only=True)  # as Kumar et al. 2025's tables name it (flows.report.paper_numbers)
    prompt: CriterionPrompt = field(kw_only=True)  # the LLM judge's task and guidelines (judges.llm.prompts)
    rule: str = field(kw_only=True)  # the rules judge's function, "module:function" (judges.rules.RULES)
    # The screening feature a document needs to be sampled for the criterion (corpus.sampling.ELIGIBLE) and
    # the one that makes it preferred (corpus.sampling.PREFERRED).
    sample_when: str = field(kw_only=True)
    sample_prefers: str | None = field(default=None, kw_only=True)
    # Tag types cut last when a tag tree must be shortened for a prompt (judges.llm.render.FOCUS).
    focus_tags: frozenset[str] = field(default=frozenset(), kw_only=True)
    # The evidence through which a judge sees the structure tree, if the criterion evaluates the tree
    # (tasks.benchmark.aggregate: an untagged document's judgment there is about the missing tree).
    tree_evidence: str | None = field(default=None, kw_only=True)
    # The ★ evidence that carries the PDF/UA-1 validator's failures folded into the criterion to the rules judge
    # (judges.conformance; withheld with the rest of the ★ evidence for a benchmark Cannot Tell item).
    conformance_evidence: str | None = field(default=None, kw_only=True)
    # The report's outlines: evidence rows (doc_id, page, bbox, what) whose boxes show where a Failed page
    # fails, in PDF points from the top left, for run `$run` (flows.report.data.REGION_SQL).
    outline_sql: str | None = field(default=None, kw_only=True)
    # Where the criterion's outlines come among a page's (lower first, so the few large boxes of tables and
    # figures are numbered before the many small ones of links, text spans and reading-order blocks).
    outline_rank: int = field(default=0, kw_only=True)

    @property
    def labels(self) -> tuple[Label, ...]:
        if self.not_present is None:
            return (Label.PASSED, Label.FAILED, Label.CANNOT_TELL)
        return tuple(Label)

    @property
    def sub_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.sub_criteria)

    @property
    def semantic(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.sub_criteria if s.semantic)

    @property
    def evidence_names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.evidence)

    @property
    def starred(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.evidence if e.starred)


def _subs(*items: tuple[str, str] | tuple[str, str, bool]) -> tuple[SubCriterion, ...]:
    return tuple(SubCriterion(*item) for item in items)


PAGE = EvidenceItem("page_image", False, image=True)

SPECS: tuple[CriterionSpec, ...] = (
    CriterionSpec(
        "alt_text_quality", "alternative text for images",
        _subs(
            ("descriptiveness", "the alt text says what the image shows and what it is there to convey", True),
            ("complexity_handling", "complex images (charts, diagrams) have their key data or message summarised",
             True),
            ("decorative_treatment", "decorative images are artifacts (or carry empty alt), not figures with "
                                     "filler text"),
            ("clarity", "plain, unambiguous wording without 'image of…' filler or unexplained jargon", True),
            ("conciseness", "short enough to listen to; long detail belongs in the caption or body text"),
            ("contextual_appropriateness", "the description matches the image's role in the surrounding text",
             True),
        ),
        (PAGE, EvidenceItem("tag_structure", True), EvidenceItem("figure_crops", False, image=True),
         EvidenceItem("alt_texts", True)),
        ("WCAG 2.2 SC 1.1.1", "PDF/UA-1 7.3"),
        not_present="the document's figures carry no alternative text at all (no /Alt or /ActualText on any "
                    "figure), or it has no meaningful images: there is no alternative text to evaluate",
        # No layout: figure crops and alt texts come from the tags, the images and the drawing log.
        paper_name="Alt Text Quality",
        prompt=CriterionPrompt(
            task="Decide whether each meaningful image on this page (figure, chart, diagram, photo, formula "
                 "rendered as an image) has a text alternative that gives a screen-reader user the information "
                 "a sighted reader takes from it.",
            guidelines=(
                "WCAG 2.2 SC 1.1.1 (Non-text Content): informative images need a text alternative that serves "
                "the same purpose as the image.",
                "PDF/UA-1 §7.3: a Figure structure element carries its description in /Alt (or /ActualText); "
                "images that carry no meaning are marked as artifacts rather than tagged as figures.",
                "Charts, plots and diagrams need more than a name: the alt text (or adjacent text it points "
                "to) should state the key trend, comparison or structure.",
                "File names, 'image', 'figure', 'picture 3' or a caption repeated word for word are "
                "placeholders, not descriptions.",
            ),
        ),
        rule="judges.rules.alt_text:judge_alt_text",
        conformance_evidence="alt_texts",
        sample_when="figures",
        focus_tags=frozenset({"Figure", "Formula", "Caption", "Artifact"}),
        tree_evidence="alt_texts",
        outline_sql=(
            "SELECT doc_id, page, bbox, 'figure ' || (figure_index + 1) || CASE WHEN is_artifact THEN "
            "' (marked as an artifact)' WHEN alt IS NULL OR trim(alt) = '' THEN ' (no alt text)' "
            "ELSE '' END AS what FROM figures WHERE run_id = $run AND bbox IS NOT NULL AND NOT small"),
        outline_rank=1,
    ),
    CriterionSpec(
        "semantic_tagging", "semantic tagging",
        _subs(
            ("structural_hierarchy", "the tree nests sensibly (Document → sections → blocks) with no orphaned "
                                     "or flattened content"),
            ("heading_nesting", "heading levels follow the outline without skipped levels"),
            ("list_structure", "lists use L/LI/LBody (Lbl for bullets or numbers)"),
            ("proper_tag_usage", "each element's type matches what the content is"),
            ("artifacts", "headers, footers, page numbers and decoration are artifacts, not tagged content"),
        ),
        (PAGE, EvidenceItem("tag_structure", True), EvidenceItem("transcript", True)),
        ("WCAG 2.2 SC 1.3.1", "PDF/UA-1 7.1", "PDF/UA-1 7.4", "PDF/UA-1 7.6"),
        not_present="the document has no structure tree at all (it is untagged), so there is no tagging to "
                    "evaluate",
        paper_name="Semantic Tagging",
        prompt=CriterionPrompt(
            task="Decide whether the content of this page is tagged with structure types that convey what each "
                 "part is (heading, paragraph, list, table, figure…), so assistive technology can present it.",
            guidelines=(
                "WCAG 2.2 SC 1.3.1 (Info and Relationships): structure shown visually is also available "
                "programmatically.",
                "PDF/UA-1 §7.1: all real content is inside the structure tree; running heads, page numbers and "
                "decorative rules are artifacts.",
                "PDF/UA-1 §7.4: headings use H1–H6 (or H) in a logical order; levels are not skipped going "
                "deeper (H1 → H3 without H2).",
                "PDF/UA-1 §7.6: a list is L containing LI elements, each with LBody (and optionally Lbl).",
                "Tags match the content: a visual heading is not tagged P, body text is not tagged as a heading, "
                "and non-standard types are role-mapped to standard ones.",
            ),
        ),
        rule="judges.rules.tagging:judge_tagging",
        conformance_evidence="tag_structure",
        sample_when="tagged",
        tree_evidence="tag_structure",
    ),
    CriterionSpec(
        "logical_reading_order", "logical reading order",
        _subs(
            ("visual_flow", "reading order follows the visual layout (top to bottom, left to right, by column)"),
            ("contextual_logic", "sentences and paragraphs continue where they should", True),
            ("element_positioning", "figures, tables and captions are read near where they are referenced", True),
            ("hierarchy", "headings come before the content they introduce"),
            ("no_disruptions", "nothing (headers, footnotes, floats) interrupts running text", True),
            ("multi_column", "columns are read in full, one after the other"),
            ("inline_elements", "inline items (links, formulas, emphasis) stay in their sentence"),
            ("hidden_content", "no invisible, off-page or duplicated text is read out"),
        ),
        (PAGE, EvidenceItem("reading_order", True), EvidenceItem("transcript", True)),
        ("WCAG 2.2 SC 1.3.2", "PDF/UA-1 7.2"),
        not_present=None,
        paper_name="Logical Reading Order",
        prompt=CriterionPrompt(
            task="Decide whether the order in which assistive technology reads this page (the structure order) "
                 "matches the order a sighted reader would follow.",
            guidelines=(
                "WCAG 2.2 SC 1.3.2 (Meaningful Sequence): when order affects meaning, the programmatic order "
                "preserves it.",
                "PDF/UA-1 §7.2: the logical structure order is the reading order; content stream order does not "
                "matter when the page is tagged.",
                "Multi-column text is read one column at a time; captions, footnotes and sidebars sit next to "
                "what they refer to without cutting sentences apart.",
                "Running heads and page numbers are artifacts; hidden or off-page text is not read out.",
            ),
        ),
        rule="judges.rules.reading_order:judge_reading_order",
        sample_when="text_chars",
        sample_prefers="two_column",
        outline_sql=(
            "SELECT doc_id, page, bbox, 'block read ' || (coalesce(struct_rank, content_rank) + 1) "
            "|| ' but printed ' || (visual_rank + 1) AS what FROM reading_order WHERE run_id = $run "
            "AND coalesce(struct_rank, content_rank) <> visual_rank"),
        outline_rank=4,
    ),
    CriterionSpec(
        "table_structure", "table structure",
        _subs(
            ("tagging", "Table/TR/TH/TD are used and spans are declared for merged cells"),
            ("header_semantics", "headers are TH with Scope, or Headers/ID for complex tables"),
            ("contextual_clarity", "the table has a caption or title that says what it holds", True),
            ("appropriate_usage", "table tags hold tabular data, not page layout"),
            ("navigability", "a regular grid a user can move through cell by cell"),
            ("complex_tables", "multi-level headers or irregular tables associate each cell with its headers"),
        ),
        (PAGE, EvidenceItem("table_crops", False, image=True), EvidenceItem("table_tags", True)),
        ("WCAG 2.2 SC 1.3.1", "PDF/UA-1 7.5"),
        not_present="the document has no data tables, so there is no table structure to evaluate",
        needs_layout=True,
        paper_name="Table Structure",
        prompt=CriterionPrompt(
            task="Decide whether the data tables on this page are tagged so that a screen-reader user can move "
                 "through cells and hear the headers that apply to each one.",
            guidelines=(
                "WCAG 2.2 SC 1.3.1 (Info and Relationships): row and column relationships are programmatic.",
                "PDF/UA-1 §7.5: a table is Table → TR → TH/TD (THead/TBody/TFoot allowed); header cells are TH "
                "with /Scope (Row, Column, Both), or cells reference headers with /Headers and /ID.",
                "Merged cells declare /RowSpan or /ColSpan so every row has the same number of columns.",
                "A table has a caption or a nearby title; tables are not used only to lay out text.",
            ),
        ),
        rule="judges.rules.tables:judge_tables",
        conformance_evidence="table_tags",
        sample_when="tables",
        focus_tags=frozenset({"Table", "THead", "TBody", "TFoot", "TR", "TH", "TD", "Caption"}),
        tree_evidence="table_tags",
        outline_sql=(
            "SELECT doc_id, page, bbox, 'table ' || (row_number() OVER (PARTITION BY doc_id, page ORDER BY table_id)) "
            "AS what FROM tables WHERE run_id = $run AND bbox IS NOT NULL"),
        outline_rank=0,
    ),
    CriterionSpec(
        "functional_hyperlinks", "functional hyperlinks",
        _subs(
            ("link_tagging", "each link annotation sits inside a Link structure element"),
            ("functionality", "internal destinations exist and external URIs are well formed"),
            ("descriptiveness", "link text or context tells where the link leads", True),
            ("structure_association", "Link elements reference their annotations through OBJR"),
            ("perceivability", "links are distinguishable and announced, not only coloured"),
        ),
        (PAGE, EvidenceItem("link_metadata", True), EvidenceItem("tag_structure", True)),
        ("WCAG 2.2 SC 2.4.4", "WCAG 2.2 SC 1.4.1", "PDF/UA-1 7.18.5"),
        not_present="the document has no links, so there are no hyperlinks to evaluate",
        paper_name="Functional Hyperlinks",
        prompt=CriterionPrompt(
            task="Decide whether the links on this page work, are tagged so assistive technology announces them, "
                 "and tell the user where they go.",
            guidelines=(
                "WCAG 2.2 SC 2.4.4 (Link Purpose in Context): the purpose of a link can be told from its text "
                "together with its context; in scholarly text, citation links ('[12]', 'Smith et al., 2020') and "
                "URLs in the reference list are acceptable.",
                "PDF/UA-1 §7.18.5: every link annotation belongs to a Link structure element that references it "
                "through an OBJR, and has a /Contents description.",
                "Internal links point to destinations that exist; external links are well-formed URIs "
                "(scheme and host).",
                "WCAG 2.2 SC 1.4.1 (Use of Color): links can be told apart from surrounding text by more than "
                "colour alone, or are otherwise perceivable.",
            ),
        ),
        rule="judges.rules.links:judge_links",
        conformance_evidence="link_metadata",
        sample_when="links",
        focus_tags=frozenset({"Link", "Annot", "Reference", "Note", "BibEntry"}),
        outline_sql=(
            "SELECT doc_id, page, rect AS bbox, 'link ' || CASE WHEN NOT has_link_element THEN "
            "'without a Link element' WHEN dest_valid = false THEN 'to a missing destination' "
            "WHEN uri_well_formed = false THEN 'with a malformed URI' ELSE '' END AS what "
            "FROM links WHERE run_id = $run AND rect IS NOT NULL AND (NOT has_link_element OR "
            "dest_valid = false OR uri_well_formed = false)"),
        outline_rank=2,
    ),
    CriterionSpec(
        "color_contrast", "colour contrast",
        _subs(
            ("small_text", f"normal-size text reaches {NORMAL_TEXT_RATIO:g}:1"),
            ("large_text", f"large text ({LARGE_TEXT_PT:g} pt or larger, or {LARGE_BOLD_TEXT_PT:g} pt bold) reaches "
                           f"{LARGE_TEXT_RATIO:g}:1"),
            ("graphics", "informative graphical elements reach 3:1"),
            ("decorative_exempt", "low-contrast content is only decorative or an artifact"),
            ("text_in_images", "text rendered inside images reaches the same ratios"),
        ),
        (PAGE, EvidenceItem("color_values", True)),
        ("WCAG 2.2 SC 1.4.3", "WCAG 2.2 SC 1.4.11"),
        not_present=None,
        paper_name="Color Contrast",
        prompt=CriterionPrompt(
            task="Decide whether text and informative graphics on this page have enough contrast against their "
                 "background to be read by people with low vision or colour deficiencies.",
            guidelines=(
                f"WCAG 2.2 SC 1.4.3 (Contrast, Minimum): {contrast_rule()}.",
                "WCAG 2.2 SC 1.4.11 (Non-text Contrast): lines, markers and legend keys needed to understand a "
                "graphic reach 3:1 against adjacent colours.",
                "Decorative text, logos and content marked as artifacts are exempt; text inside images is held "
                "to the same ratios as other text.",
                "The ratio is (L1 + 0.05) / (L2 + 0.05) from the relative luminance of the lighter (L1) and darker "
                "(L2) colour; use the ratios given in the evidence rather than estimating from the image.",
            ),
        ),
        rule="judges.rules.contrast:judge_contrast",
        sample_when="text_chars",
        outline_sql=(
            "SELECT doc_id, page, bbox, 'text at ' || round(contrast_ratio, 2) || ':1 (needs ' || "
            "threshold || ':1)' AS what FROM text_spans WHERE run_id = $run AND passes = false"),
        outline_rank=3,
    ),
    CriterionSpec(
        "fonts_readability", "fonts and readability",
        _subs(
            ("embedding", "all fonts are embedded"),
            ("legibility", "typefaces are readable for running text"),
            ("typography", "spacing, weight and style support reading"),
            ("size", f"body text is at least {BODY_FLOOR_PT:g} pt"),
            ("unicode_mapping", "glyphs map to Unicode so text can be extracted"),
            ("meaningful_font_changes", "font changes that carry meaning are consistent and sparing"),
            ("consistency", "each role (body, headings, captions) keeps one font and size"),
        ),
        (PAGE, EvidenceItem("font_metadata", True)),
        ("PDF/UA-1 7.21", "WCAG 2.2 SC 1.4.12", "WCAG 2.2 SC 1.4.8"),
        not_present=None,
        paper_name="Font Readability",
        prompt=CriterionPrompt(
            task="Decide whether the fonts on this page are embedded, map to Unicode and are set at sizes and "
                 "styles that people can read and assistive technology can extract.",
            guidelines=(
                "PDF/UA-1 §7.21: every font used to render text is embedded, and every glyph maps to a Unicode "
                "value (ToUnicode or a standard encoding) so text can be read aloud, searched and copied.",
                f"Body text is at least {BODY_FLOOR_PT:g} pt (AccessBench's floor); footnotes and captions may be "
                "smaller but stay legible.",
                "WCAG 2.2 SC 1.4.12 and 1.4.8: typefaces, spacing and styling support reading; decorative or "
                "condensed faces are not used for running text.",
                "Changes of font that carry meaning (bold warnings, italic terms, code) are consistent, and the "
                "same role uses the same font and size throughout.",
            ),
        ),
        rule="judges.rules.fonts:judge_fonts",
        conformance_evidence="font_metadata",
        sample_when="text_chars",
        outline_sql=(
            "SELECT s.doc_id, s.page, s.bbox, 'font ' || s.font_name || CASE WHEN NOT f.embedded THEN "
            "' not embedded' WHEN NOT f.has_tounicode THEN ' without Unicode mapping' ELSE ' at ' || "
            "round(s.size, 1) || ' pt' END AS what FROM text_spans s JOIN fonts f ON f.run_id = "
            "s.run_id AND f.doc_id = s.doc_id AND f.font_name = s.font_name WHERE s.run_id = $run AND "
            f"(NOT f.embedded OR NOT f.has_tounicode OR s.size < {BODY_FLOOR_PT:g})"),
        outline_rank=5,
    ),
)

SPEC: dict[str, CriterionSpec] = {spec.name: spec for spec in SPECS}
CRITERIA: tuple[str, ...] = tuple(SPEC)

# Reading order, contrast and fonts are properties of any page with text: never "not present".
NO_NOT_PRESENT = frozenset(spec.name for spec in SPECS if spec.not_present is None)


def spec(criterion: str) -> CriterionSpec:
    try:
        return SPEC[criterion]
    except KeyError:
        raise ValueError(f"unknown criterion {criterion!r}; choose from: {', '.join(CRITERIA)}") from None


def labels_for(criterion: str) -> tuple[Label, ...]:
    return spec(criterion).labels

