"""Semantic tagging (WCAG 2.2 SC 1.3.1; PDF/UA-1 §7.1–7.4): is the tag tree a faithful outline?"""

from __future__ import annotations

from typing import Any

from judges.base import Issue, PageJudgment
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.common import FAILED, NA, PASSED, cannot_tell, verdict

SUBS = ("structural_hierarchy", "heading_nesting", "list_structure", "proper_tag_usage", "artifacts")
GROUPING = {"Document", "Part", "Art", "Sect", "Div", "NonStruct", "Private", "DocumentFragment", "Aside"}
LIST_PARTS = {"Lbl", "LBody"}


def _level(kind: str) -> int | None:
    if len(kind) == 2 and kind[0] == "H" and kind[1].isdigit():
        return int(kind[1])
    return None


def judge_tagging(bundle: PageBundle) -> PageJudgment:
    tags = bundle.evidence.get("tag_structure")
    if tags is None:
        return cannot_tell(bundle, "tag structure", SUBS)
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

    # Lists: LI only inside L, Lbl/LBody only inside LI (PDF/UA-1 7.6).
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
                                f"{element['type']} is outside an LI element", "put Lbl/LBody inside LI"))

    # Body text must be in block-level tags, not bare Span under a grouping element.
    text_blocks = [e for e in page_elements if e.get("text") and e["type"] not in GROUPING]
    bare = [
        e for e in text_blocks
        if e["type"] == "Span" and (by_id.get(e.get("parent")) or {}).get("type", "Document") in GROUPING
    ]
    if text_blocks and len(bare) >= max(2, 0.3 * len(text_blocks)):
        subs["proper_tag_usage"] = FAILED
        issues.append(Issue("proper_tag_usage", f"{where}, {len(bare)} text blocks",
                            "paragraph text is tagged as Span directly under a grouping element",
                            "tag each paragraph as P (Span is for inline runs inside a block)"))

    headings = [e for e in page_elements if _level(e["type"]) is not None or e["type"] == "H"]
    if not page_elements:
        subs = {s: NA for s in SUBS}
        return PageJudgment(Label.PASSED, subs, [], f"{where}: no tagged content on this page to misuse")
    return verdict(bundle, subs, issues,
                   f"{len(page_elements)} tagged elements, {len(headings)} headings nested without gaps, "
                   "lists and paragraphs use proper tags.")
