"""Semantic tagging (WCAG 2.2 SC 1.3.1; PDF/UA-1 §7.1–7.4): is the tag tree a faithful outline?"""

from __future__ import annotations

import re
from typing import Any

from judges.base import Issue, PageJudgment
from judges.criteria import SPEC
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.common import FAILED, NA, PASSED, cannot_tell, verdict
from judges.rules.thresholds import HEADING_SIZE_RATIO, MAX_BARE_SPAN_SHARE, MAX_HEADING_WORDS

SUBS = SPEC["semantic_tagging"].sub_names
GROUPING = {"Document", "Part", "Art", "Sect", "Div", "NonStruct", "Private", "DocumentFragment", "Aside"}
# PDF 2.0 lets Lbl label notes, captions and bibliography entries too; LBody only lives in LI.
LIST_PARTS = {"LBody"}
# A line that starts like a list item: "1.", "2)", "(a)", "•", "–".
LIST_MARKER = re.compile(r"^\s*(\(?[0-9a-zA-Z]{1,3}[.)]|[•▪◦‣●■–\-*])\s+\S")


def _level(kind: str) -> int | None:
    if len(kind) == 2 and kind[0] == "H" and kind[1].isdigit():
        return int(kind[1])
    return None


def is_heading_type(kind: str) -> bool:
    return kind == "H" or _level(kind) is not None


def looks_like_heading(element: dict[str, Any], body: float | None) -> bool:
    """Short text set visibly apart from the body (much larger, or bold at body size)."""
    text = (element.get("text") or "").strip()
    size, bold = element.get("size"), element.get("bold") or 0
    if not text or not size or not body or len(text) < 3 or "@" in text:
        return False
    words = len(text.split())
    if words > MAX_HEADING_WORDS or len(text) > 100 or not any(c.isalpha() for c in text):
        return False
    if size >= body * HEADING_SIZE_RATIO:
        # A large sentence is a standfirst or pull quote, unless it is very large.
        return not text.endswith((".", ",", ";")) or size >= body * 2
    return bold >= 0.8 and size >= body * 0.95 and not text.endswith((".", ",", ";", ":"))


def _untagged_lists(page_elements: list[dict[str, Any]], by_id: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs of ≥ 2 sibling paragraphs that start with list markers and sit outside any list."""
    found: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []
    for element in page_elements + [{"id": -1, "type": "", "parent": None}]:
        marked = element["type"] in {"P", "Span", "Div"} and LIST_MARKER.match(element.get("text") or "")
        if marked and (not run or run[-1].get("parent") == element.get("parent")) and not _in_list(element, by_id):
            run.append(element)
            continue
        if len(run) >= 2:
            found += run
        run = [element] if marked and not _in_list(element, by_id) else []
    return found


def _in_list(element: dict[str, Any], by_id: dict[int, dict[str, Any]]) -> bool:
    return _inside(element, by_id, {"L", "LI", "LBody", "TOC", "TOCI"})


def _inside(element: dict[str, Any], by_id: dict[int, dict[str, Any]], kinds: set[str]) -> bool:
    node = by_id.get(element.get("parent"))  # type: ignore[arg-type]
    while node is not None:
        if node["type"] in kinds:
            return True
        node = by_id.get(node.get("parent"))  # type: ignore[arg-type]
    return False


# Only running-text blocks can be headings in disguise: table cells are bold by convention, and text
# in annotations, forms, figures, notes and lists has its own structure.
BLOCK_TYPES = {"P", "Span", "Div", "NonStruct", "Part", "Sect", "Art"}
NOT_BODY = {"Table", "TR", "TH", "TD", "THead", "TBody", "TFoot", "Annot", "Link", "Form", "Figure", "Formula",
            "Note", "L", "LI", "Lbl", "LBody", "TOC", "TOCI", "Caption", "Reference", "BibEntry", "Index"}
HEADED_CHARS = 20  # a heading heads something: the page needs other text of at least this length


def visual_headings(page_elements: list[dict[str, Any]], by_id: dict[int, dict[str, Any]],
                    body: float | None) -> list[dict[str, Any]]:
    """Running-text blocks that look like headings, on a page where they have something to head."""
    found = [e for e in page_elements if e["type"] in BLOCK_TYPES and not _inside(e, by_id, NOT_BODY)
             and looks_like_heading(e, body)]
    ids = {e["id"] for e in found}
    rest = sum(len(e.get("text") or "") for e in page_elements if e["id"] not in ids)
    return found if rest >= HEADED_CHARS else []


def judge_tagging(bundle: PageBundle) -> PageJudgment:
    tags = bundle.evidence.get("tag_structure")
    if tags is None:
        return cannot_tell(bundle, "tag structure", SUBS)
    page = bundle.evidence.get("page_image") or {}
    if not tags.get("tagged") and page.get("has_text") is False:
        # A scanned page without a text layer: whether it *should* be tagged cannot be seen here.
        return cannot_tell(bundle, "text layer (the page is an image without text)", SUBS)
    if not tags.get("tagged") or not tags.get("element_count"):
        return PageJudgment(Label.NOT_PRESENT, {s: NA for s in SUBS},
                            summary=f"Page {bundle.page}: the document has no tag structure.")
    elements: list[dict[str, Any]] = tags["elements"]
    page_elements = [e for e in elements if e.get("page") == bundle.page]
    by_id = {e["id"]: e for e in elements}
    subs = {s: PASSED for s in SUBS}
    subs["artifacts"] = NA  # artifact marking is judged from content, which the tag tree alone does not show
    issues: list[Issue] = []
    where = f"Page {bundle.page}"

    # Headings must not skip levels going down (H1 → H3); PDF/UA-1 7.4.2.
    previous = tags.get("prior_heading_level")
    for element in page_elements:
        level = _level(element["type"])
        if level is None:
            continue
        if previous is not None and level > previous + 1:
            subs["heading_nesting"] = FAILED
            issues.append(Issue("heading_nesting", f"{where}, heading “{element.get('text') or element['type']}”",
                                f"heading level jumps from H{previous} to H{level}",
                                f"retag it as H{previous + 1} (or insert the missing level) so levels never skip"))
        elif previous is None and level > 2:
            subs["heading_nesting"] = FAILED
            issues.append(Issue("heading_nesting", f"{where}, heading “{element.get('text') or element['type']}”",
                                f"the first heading of the document is H{level}",
                                "start the outline at H1 (the title or first section) and nest from there"))
        previous = level

    # Text that looks like a heading must be tagged as one; WCAG 1.3.1 / PDF/UA-1 7.4.
    counts = tags.get("type_counts") or {}
    if not any(is_heading_type(kind) for kind in counts):
        visual = visual_headings(page_elements, by_id, tags.get("body_size"))
        if visual:
            subs["heading_nesting"] = FAILED
            subs["structural_hierarchy"] = FAILED
            names = ", ".join(f"“{e['text'][:40]}”" for e in visual[:3])
            issues.append(Issue("structural_hierarchy", f"{where}, {names}",
                                f"{len(visual)} visual heading(s) are tagged {visual[0]['type']} and the document "
                                "has no heading tags at all",
                                "tag the title as H1 and section headings as H2/H3… following the visual outline"))

    # Paragraphs that start like list items belong in L/LI/Lbl/LBody (PDF/UA-1 7.6).
    loose = _untagged_lists(page_elements, by_id)
    if loose:
        subs["list_structure"] = FAILED
        issues.append(Issue("list_structure", f"{where}, items “{loose[0]['text'][:40]}” …",
                            f"{len(loose)} list items are tagged {loose[0]['type']} outside any L element",
                            "tag the list as L with one LI per item (Lbl for the marker, LBody for the text)"))

    # Lists: LI only inside L, LBody only inside LI (PDF/UA-1 7.6).
    for element in page_elements:
        parent = by_id.get(element.get("parent"))
        parent_type = parent["type"] if parent else None
        if element["type"] == "LI" and parent_type != "L":
            subs["list_structure"] = FAILED
            issues.append(Issue("list_structure", f"{where}, list item “{element.get('text') or ''}”",
                                f"LI is a child of {parent_type or 'the root'}, not of an L element",
                                "wrap the list items in one L element"))
        elif element["type"] in LIST_PARTS and parent_type != "LI":
            subs["list_structure"] = FAILED
            issues.append(Issue("list_structure", f"{where}, {element['type']} “{element.get('text') or ''}”",
                                f"{element['type']} is outside an LI element", "put the LBody inside an LI of an L"))

    # Every type must be standard, directly or through the RoleMap (PDF/UA-1 7.1; Matterhorn 02-001):
    # assistive technology cannot interpret a private type.
    private = [e for e in page_elements if e.get("nonstandard")]
    if private:
        subs["proper_tag_usage"] = FAILED
        kinds = sorted({str(e.get("raw_type") or e["type"]) for e in private})
        issues.append(Issue("proper_tag_usage", f"{where}, {len(private)} element(s) of type {', '.join(kinds[:4])}",
                            "the structure type is not standard and the RoleMap does not map it to a standard type, "
                            "so assistive technology cannot tell what the element is",
                            f"add a RoleMap entry mapping /{kinds[0]} to the standard type it stands for (e.g. P, H2, "
                            "Figure), or retag the elements with standard types"))

    # Body text must be in block-level tags, not bare Span directly under a grouping element.
    top_level = [e for e in page_elements if e.get("text")
                 and (by_id.get(e.get("parent")) or {}).get("type", "Document") in GROUPING]
    bare = [e for e in top_level if e["type"] == "Span"]
    paragraphs = [e for e in top_level if e["type"] == "P"]
    if len(bare) >= 2 and len(bare) >= MAX_BARE_SPAN_SHARE * (len(bare) + len(paragraphs)):
        subs["proper_tag_usage"] = FAILED
        issues.append(Issue("proper_tag_usage", f"{where}, {len(bare)} text blocks (“{bare[0]['text'][:40]}” …)",
                            "paragraph text is tagged as Span directly under a grouping element",
                            "tag each paragraph as P (Span is for inline runs inside a block)"))

    headings = [e for e in page_elements if _level(e["type"]) is not None or e["type"] == "H"]
    if not page_elements:
        subs = {s: NA for s in SUBS}
        return PageJudgment(Label.PASSED, subs, [], f"{where}: no tagged content on this page to misuse")
    return verdict(bundle, subs, issues,
                   f"{len(page_elements)} tagged elements, {len(headings)} headings nested without gaps, "
                   "lists and paragraphs use proper tags.")
