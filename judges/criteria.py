"""The seven criteria, each described once: labels, sub-criteria, evidence, references.

Every part of AccessBench that needs to know about a criterion reads it here: the rules judge
(its sub-criteria names), the LLM prompts (checklist, Not Present definition, references), the hybrid
judge (which sub-criteria are semantic), evidence bundles (which evidence, which is ★ — withheld
for the benchmark's Cannot Tell items — and which is an image), the report and the CLI (criteria names).

Sub-criteria follow the paper's appendix tables (WCAG 2.2 / PDF/UA-1). A sub-criterion is *semantic*
when deciding it needs an understanding of meaning (does this alt text say what the chart shows)
rather than a check of structure or values; the hybrid judge asks its LLM tier only about those.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.thresholds import BODY_FLOOR_PT, LARGE_BOLD_TEXT_PT, LARGE_TEXT_PT, LARGE_TEXT_RATIO, NORMAL_TEXT_RATIO
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
class CriterionSpec:
    name: str
    title: str
    sub_criteria: tuple[SubCriterion, ...]
    evidence: tuple[EvidenceItem, ...]
    references: tuple[str, ...]  # WCAG 2.2 success criteria and PDF/UA-1 clauses
    not_present: str | None  # what Not Present means; None: the label does not exist for this criterion
    needs_layout: bool = False  # evidence uses layout regions (table regions, drawn tables the tags miss)

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

