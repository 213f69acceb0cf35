"""Semantic tagging (WCAG 2.2 SC 1.3.1; PDF/UA-1 §7.1–7.4): is the tag tree a faithful outline?"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from common import geometry
from common.list_labels import GLYPH_STYLES, NUMBERED_STYLES, is_bullet, label_styles
from judges.base import Issue, PageJudgment
from judges.criteria import SPEC
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.catalog import finding
from judges.rules.common import FAILED, NA, PASSED, cannot_tell, verdict
from judges.rules.document import document_checks
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


def _parents(element: dict[str, Any], by_id: dict[int, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The element's ancestors in the tag tree, nearest first."""
    node = by_id.get(element.get("parent"))  # type: ignore[arg-type]
    while node is not None:
        yield node
        node = by_id.get(node.get("parent"))  # type: ignore[arg-type]


def _inside(element: dict[str, Any], by_id: dict[int, dict[str, Any]], kinds: set[str]) -> bool:
    return any(node["type"] in kinds for node in _parents(element, by_id))


# Only running-text blocks can be headings in disguise: table cells are bold by convention, and text
# in annotations, forms, figures, notes and lists has its own structure.
BLOCK_TYPES = {"P", "Span", "Div", "NonStruct", "Part", "Sect", "Art"}
NOT_BODY = {"Table", "TR", "TH", "TD", "THead", "TBody", "TFoot", "Annot", "Link", "Form", "Figure", "Formula",
            "Note", "L", "LI", "Lbl", "LBody", "TOC", "TOCI", "Caption", "Reference", "BibEntry", "Index"}
HEADED_CHARS = 20  # a heading heads something: the page needs other text of at least this length
HEAD_GAP = 3.0  # the text a heading heads starts within this many of the heading's type sizes below it


def _heads_text(element: dict[str, Any], page_elements: list[dict[str, Any]],
                by_id: dict[int, dict[str, Any]]) -> bool:
    """Does ``element`` sit where a heading sits: a block of its own (not a word inside a paragraph), with the
    text read next starting just below it, under it, in smaller or lighter type? A stamp or watermark laid
    beside or over the text is not. Without the boxes to tell, it is not claimed. (Overlap with other
    elements' boxes says nothing: a paragraph that flows across columns has a box over half the page.)"""
    parent = by_id.get(element.get("parent"))  # type: ignore[arg-type]
    if parent is not None and parent["type"] not in GROUPING:
        return False  # inline: a bold or large word inside a paragraph, a list item, a cell
    box, size = element.get("bbox"), float(element.get("size") or 0)
    if not box or not size:
        return False
    after = sorted((e for e in page_elements if e.get("text") and e.get("bbox") and e["id"] > element["id"]
                    and not _descends(e, element["id"], by_id)), key=lambda e: e["id"])
    if not after:
        return False  # nothing read after it: it heads nothing
    following = after[0]
    o = following["bbox"]
    below = -0.3 * size <= o[1] - box[3] <= HEAD_GAP * size
    under = min(box[2], o[2]) > max(box[0], o[0])
    lighter = (following.get("size") or size) < size * 0.95 or \
        (following.get("bold") or 0) < (element.get("bold") or 0) - 0.3
    return below and under and lighter


def visual_headings(page_elements: list[dict[str, Any]], by_id: dict[int, dict[str, Any]],
                    body: float | None) -> list[dict[str, Any]]:
    """Running-text blocks that look like headings and sit where headings sit, on a page where they have
    something to head."""
    found = [e for e in page_elements if e["type"] in BLOCK_TYPES and not _inside(e, by_id, NOT_BODY)
             and looks_like_heading(e, body) and _heads_text(e, page_elements, by_id)]
    ids = {e["id"] for e in found}
    rest = sum(len(e.get("text") or "") for e in page_elements if e["id"] not in ids)
    return found if rest >= HEADED_CHARS else []


# Lines the heading, list and figure checks draw, and why (WCAG 2.2 SC 1.3.1; PDF/UA-1 7.3, 7.4, 7.6).
# - TITLE_RATIO 1.15: an H1 set at least 15% larger than the H1 after it on the same page is the
#   document's title outranking the sections (LaTeX and typst set titles at 1.2× the section size); H1s
#   of one style (chapters, sections) are peers and pass.
# - Heading style: a block of HEADING_STYLE_RATIO × body size or more whose size (within STYLE_SLACK pt)
#   and weight match the document's headings of one type, short (at most MAX_HEADING_WORDS words) and not
#   a sentence, is a heading of that kind tagged as a paragraph.
# - SPLIT_GAP 0.6: two lines of one heading sit at most about half a line apart (leading); headings of
#   their own are separated by block spacing, well over a line.
# - PARAGRAPH_WORDS 12 / PARAGRAPH_CHARS 80: a "heading" in body size and weight that is a sentence of
#   twelve words or more, or longer than the 80 characters a bundle keeps, is a paragraph.
# - Text drawn as a figure: one line tall (at most TEXT_LINE_HEIGHT body sizes), at least TEXT_LINE_ASPECT
#   times wider than tall, and an alternative text that reads as running text (FIGURE_TEXT_WORDS words or
#   more, or a sentence of at least FIGURE_SENTENCE_WORDS words) and not as a description.
TITLE_RATIO = 1.15
HEADING_STYLE_RATIO = 1.15
# Candidates for the hybrid judge's reader of meaning (they fail nothing alone): a heading that is a
# sentence of CANDIDATE_SENTENCE_WORDS words or more, a bold block of at most CANDIDATE_HEADING_WORDS words.
CANDIDATE_SENTENCE_WORDS = 6
CANDIDATE_HEADING_WORDS = 10
CAPTIONED = {"Figure", "Table", "Formula", "L", "TOC"}
STYLE_SLACK = 0.3
SPLIT_GAP = 0.6
PARAGRAPH_WORDS = 12
PARAGRAPH_CHARS = 80
TEXT_LINE_HEIGHT = 2.6
TEXT_LINE_ASPECT = 5.0
FIGURE_TEXT_WORDS = 8
FIGURE_SENTENCE_WORDS = 4
# ListNumbering values (PDF 1.7 Table 347, PDF 2.0 adds Ordered/Unordered): which promise numbers, which bullets.
ORDERED = {"Decimal", "UpperRoman", "LowerRoman", "UpperAlpha", "LowerAlpha", "Ordered"}
UNORDERED = {"Disc", "Circle", "Square", "Unordered"}  # "None" promises no scheme at all, so it contradicts nothing
NUMBER_LABEL = re.compile(r"^\(?([0-9]{1,3}|[ivxlcdm]{1,6}|[IVXLCDM]{1,6}|[a-zA-Z])([.)\]:]|\.[0-9]+\.?)?\)?$")
TABLE_PARTS = {"Table", "TR", "THead", "TBody", "TFoot"}
HEADINGS = {"H", "H1", "H2", "H3", "H4", "H5", "H6", "Title"}
SENTENCE_END = (".", "!", "?", ":", ";")
DESCRIBING = re.compile(r"\b(logo|image|photo|photograph|picture|diagram|chart|graph|plot|figure|icon|map|"
                        r"illustration|screenshot|drawing|shows?|showing|depicts?|depicting)\b", re.IGNORECASE)
MATH = re.compile(r"[=+^_\\<>∑∫√±×÷≤≥]")
# Labels of figures and tables start like this: set apart in bold or large type, they are captions, not headings.
CAPTION_START = re.compile(r"^(fig(ure)?|table|tab|chart|plate|exhibit|listing|algorithm)\.?\s*[0-9ivx]", re.I)
DIGITS = re.compile(r"^\(?([0-9]{1,3})[.)\]:]?\)?$")


def _clip(text: str | None, limit: int = 40) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _label(element: dict[str, Any]) -> str:
    return _clip(element.get("text") or element["type"])


def _heading_checks(tags: dict[str, Any], page_elements: list[dict[str, Any]], by_id: dict[int, dict[str, Any]],
                    where: str) -> list[Issue]:
    issues: list[Issue] = []
    headings = [e for e in page_elements if is_heading_type(e["type"])]
    # Headings must not skip levels going down (H1 → H3), and the outline starts at H1; PDF/UA-1 7.4.2.
    previous = tags.get("prior_heading_level")
    for element in headings:
        level = _level(element["type"])
        if level is None:
            continue
        at = f"{where}, heading “{_label(element)}”"
        if previous is not None and level > previous + 1:
            issues.append(finding("semantic_tagging.heading_nesting.level_skip", at, previous=previous, level=level,
                                  expected=previous + 1, bbox=element.get("bbox")))
        elif previous is None and level > 1:
            issues.append(finding("semantic_tagging.heading_nesting.first_not_h1", at, level=level,
                                  bbox=element.get("bbox")))
        previous = level
    # One scheme of headings: H (structured by nesting) or H1-H6 (numbered), never both; PDF/UA-1 7.4.4.
    counts = tags.get("type_counts") or {}
    numbered = sum(n for kind, n in counts.items() if _level(kind) is not None)
    unnumbered = [e for e in headings if e["type"] == "H"]
    if numbered and unnumbered:
        issues.append(finding("semantic_tagging.heading_nesting.mixed_h_and_hn",
                              f"{where}, heading “{_label(unnumbered[0])}”", h_count=counts.get("H", 0),
                              hn_count=numbered))
    # The title and the sections it heads at one level: an H1 set much larger than the next H1 of the page.
    first_h1 = [e for e in headings if e["type"] == "H1"]
    if len(first_h1) >= 2 and tags.get("prior_heading_level") is None and headings[0] is first_h1[0]:
        title, section = first_h1[0], first_h1[1]
        if title.get("size") and section.get("size") and title["size"] >= TITLE_RATIO * section["size"]:
            issues.append(finding("semantic_tagging.heading_nesting.title_and_section_h1",
                                  f"{where}, headings “{_label(title)}” and “{_label(section)}”",
                                  title=_clip(title.get("text"), 50), title_size=title["size"],
                                  heading=_clip(section.get("text"), 50), size=section["size"]))
    title_h1, page = tags.get("title_h1"), next((e.get("page") for e in page_elements), None)
    if isinstance(title_h1, dict) and title_h1.get("page") != page and tags.get("h1_before") == 1 and first_h1:
        # The same across pages: the title H1 alone on an earlier page, the first section H1 here.
        section = first_h1[0]
        if title_h1.get("size") and section.get("size") and title_h1["size"] >= TITLE_RATIO * section["size"]:
            issues.append(finding("semantic_tagging.heading_nesting.title_and_section_h1",
                                  f"{where}, heading “{_label(section)}” (title on page {title_h1['page']})",
                                  title=_clip(title_h1.get("text"), 50), title_size=title_h1["size"],
                                  heading=_clip(section.get("text"), 50), size=section["size"]))
    issues += _split_headings(headings, page_elements, by_id, where)
    return issues


def _next_in_order(element: dict[str, Any], page_elements: list[dict[str, Any]],
                   by_id: dict[int, dict[str, Any]]) -> dict[str, Any] | None:
    """The page's next element in tag order that is not inside ``element``."""
    for other in page_elements:
        if other["id"] > element["id"] and not _descends(other, element["id"], by_id):
            return other
    return None


def _descends(element: dict[str, Any], ancestor: int, by_id: dict[int, dict[str, Any]]) -> bool:
    return any(node["id"] == ancestor for node in _parents(element, by_id))


def _split_headings(headings: list[dict[str, Any]], page_elements: list[dict[str, Any]],
                    by_id: dict[int, dict[str, Any]], where: str) -> list[Issue]:
    """Two headings of one level and style, one line under the other, nothing between: one heading in two."""
    issues = []
    ordered = sorted(page_elements, key=lambda e: e["id"])
    for first in headings:
        second = _next_in_order(first, ordered, by_id)
        if second is None or second["type"] != first["type"] or second.get("parent") != first.get("parent"):
            continue
        a, b = first.get("bbox"), second.get("bbox")
        text = (first.get("text") or "").strip()
        if not a or not b or not text or not second.get("text") or text.endswith(SENTENCE_END):
            continue
        size = first.get("size") or 0
        if not size or abs(size - (second.get("size") or 0)) > 0.3 or \
                abs((first.get("bold") or 0) - (second.get("bold") or 0)) > 0.3:
            continue
        gap = b[1] - a[3]
        if -0.2 * size <= gap <= SPLIT_GAP * size and abs(a[0] - b[0]) <= 2 * size:
            issues.append(finding("semantic_tagging.heading_nesting.split_heading",
                                  f"{where}, headings “{_label(first)}” and “{_label(second)}”",
                                  first=_clip(first.get("text")), second=_clip(second.get("text")),
                                  kind=first["type"], bbox=geometry.union(a, b)))
    return issues


def _heading_usage(page_elements: list[dict[str, Any]], elements: list[dict[str, Any]],
                   by_id: dict[int, dict[str, Any]], body: float | None, where: str) -> list[Issue]:
    issues: list[Issue] = []
    for element in page_elements:
        if not is_heading_type(element["type"]):
            continue
        parent = by_id.get(element.get("parent"))  # type: ignore[arg-type]
        # A heading among a table's rows or as a cell's content in a table without any TH: the header
        # cells were tagged as headings (PDF/UA-1 7.5: TR holds TH and TD only).
        container = parent["type"] if parent and parent["type"] in TABLE_PARTS else None
        if container is None and _inside(element, by_id, {"TD"}):
            table = _ancestor(element, by_id, "Table")
            if table is not None and not any(e["type"] == "TH" and _descends(e, table["id"], by_id) for e in elements):
                container = "data cell (the table has no TH)"
        if container:
            issues.append(finding("semantic_tagging.proper_tag_usage.heading_as_table_header",
                                  f"{where}, heading “{_label(element)}”", kind=element["type"],
                                  text=_clip(element.get("text")), container=container,
                                  bbox=element.get("bbox")))
            continue
        # A sentence at body size and weight announced as a heading.
        text = " ".join((element.get("text") or "").split())
        words = len(text.split())
        size, bold = element.get("size"), element.get("bold") or 0
        long = len(text) >= PARAGRAPH_CHARS or (text.endswith((".", "!", "?", "…")) and words >= PARAGRAPH_WORDS)
        body_style = bool(size and body and size <= body * 1.05 and bold < 0.5)
        if long and words >= PARAGRAPH_WORDS and body_style:
            issues.append(finding("semantic_tagging.proper_tag_usage.paragraph_as_heading",
                                  f"{where}, {element['type']} “{_clip(text)}”", kind=element["type"],
                                  text=_clip(text), words=f"{words}+" if text.endswith("…") else words, size=size,
                                  bbox=element.get("bbox")))
        elif text and (body_style or long or (text.endswith((".", "!", "?")) and words >= CANDIDATE_SENTENCE_WORDS)):
            # Looks like running text in some way, not clearly: a reader of meaning decides (hybrid judge).
            issues.append(finding("semantic_tagging.proper_tag_usage.heading_text_candidate",
                                  f"{where}, {element['type']} “{_clip(text)}”",
                                  facts=_facts(element, page_elements, by_id, body), kind=element["type"],
                                  text=_clip(text, 60), size=size or "?", body=body or "?",
                                  bbox=element.get("bbox")))
    return issues


def _facts(element: dict[str, Any], page_elements: list[dict[str, Any]], by_id: dict[int, dict[str, Any]],
           body: float | None) -> dict[str, Any]:
    """What a reader of meaning needs to settle a candidate: the element, its style against the body text,
    and the blocks read just before and after it."""
    ordered = [e for e in sorted(page_elements, key=lambda e: e["id"]) if e.get("text")
               and not _descends(e, element["id"], by_id) and e["id"] != element["id"]
               and not _descends(element, e["id"], by_id)]
    before = [e for e in ordered if e["id"] < element["id"]][-2:]
    after = [e for e in ordered if e["id"] > element["id"]][:2]

    def brief(e: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in {"type": e["type"], "text": _clip(e.get("text"), 80), "size": e.get("size"),
                                   "bold": e.get("bold")}.items() if v is not None}

    parent = by_id.get(element.get("parent"))  # type: ignore[arg-type]
    return {"element": brief(element), "parent": parent["type"] if parent else None, "body_text_size": body,
            "read_before": [brief(e) for e in before], "read_after": [brief(e) for e in after]}


def _ancestor(element: dict[str, Any], by_id: dict[int, dict[str, Any]], kind: str) -> dict[str, Any] | None:
    return next((node for node in _parents(element, by_id) if node["type"] == kind), None)


def _label_kind(text: str) -> str | None:
    text = text.strip()
    if not text:
        return None
    if is_bullet(text):
        return "bullets"
    if NUMBER_LABEL.match(text):
        return "numbers"
    return None


# The glyphs of each bulleted ListNumbering (a bullet outside these, such as a dash or a check mark, promises none).
def _style_mismatch(declared: str, labels: list[str]) -> str | None:
    """The style the labels all show, where it is not the declared one (Square declared, • shown: Disc)."""
    if declared not in GLYPH_STYLES and declared not in NUMBERED_STYLES:
        return None  # Ordered, Unordered, None: no particular glyph promised
    shown = [label_styles(label) for label in labels if label.strip()]
    if len(shown) < 2 or not all(shown):
        return None
    common = set.intersection(*shown)
    if not common or declared in common:
        return None
    return " or ".join(sorted(common))


def _numbering_checks(page_elements: list[dict[str, Any]], by_id: dict[int, dict[str, Any]],
                      where: str) -> list[Issue]:
    """A list's declared ListNumbering against the labels a reader sees (PDF/UA-1 7.6)."""
    issues = []
    for lst in (e for e in by_id.values() if e["type"] == "L" and e.get("list_numbering")):
        declared = str(lst["list_numbering"]).lstrip("/")
        if declared not in ORDERED | UNORDERED:
            continue
        labels = [e.get("text") or "" for e in page_elements if e["type"] == "Lbl"
                  and (by_id.get(e.get("parent")) or {}).get("type") == "LI"  # type: ignore[arg-type]
                  and (by_id.get(e.get("parent")) or {}).get("parent") == lst["id"]]  # type: ignore[arg-type]
        kinds = [k for k in map(_label_kind, labels) if k]
        if len(kinds) < 2:
            continue
        actual = max(set(kinds), key=kinds.count)
        if kinds.count(actual) < 0.8 * len(kinds):
            continue
        ordered = declared in ORDERED
        if (ordered and actual == "bullets") or (not ordered and actual == "numbers"):
            shown = ", ".join(dict.fromkeys(label.strip() for label in labels[:4]))
            issues.append(finding("semantic_tagging.list_structure.numbering_mismatch",
                                  f"{where}, list with items “{_clip(labels[0], 10)} …”", declared=declared,
                                  declared_kind="numbered" if ordered else "bulleted",
                                  actual=actual, labels=shown,
                                  expected="Disc (or Circle, Square)" if actual == "bullets" else "Decimal "
                                  "(or the Roman or alphabetic style the labels use)"))
            continue
        style = _style_mismatch(declared, labels)
        if style is not None:  # the right kind of list, the wrong glyphs announced (• read out as a square)
            issues.append(finding("semantic_tagging.list_structure.numbering_style_mismatch",
                                  f"{where}, list with items “{_clip(labels[0], 10)} …”", declared=declared,
                                  shown=style, labels=", ".join(dict.fromkeys(label.strip() for label in labels[:4]))))
    return issues


def _inconsistent_headings(tags: dict[str, Any], page_elements: list[dict[str, Any]],
                           by_id: dict[int, dict[str, Any]], body: float | None, where: str) -> list[Issue]:
    """Similar content tagged inconsistently: a block styled exactly like the document's headings of one
    type (size and weight, clearly apart from the body) but tagged as a paragraph, so it drops out of the
    outline its peers are in."""
    if not body:
        return []
    # [type, size, bold share] or, with the face, [type, size, bold share, font family]
    known = [(str(k), float(size), float(bold), str(rest[0]) if rest else "")
             for k, size, bold, *rest in tags.get("heading_styles") or ()]
    styles = [style for style in known if style[1] and style[1] >= HEADING_STYLE_RATIO * body]
    issues = []
    for element in page_elements:
        if element["type"] not in BLOCK_TYPES or _inside(element, by_id, NOT_BODY | HEADINGS):
            continue
        text = " ".join((element.get("text") or "").split())
        words = text.split()
        if not words or len(words) > MAX_HEADING_WORDS or text.endswith(SENTENCE_END + (",", "…")) \
                or sum(c.isalpha() for c in text) < 3 or CAPTION_START.match(text) or "@" in text:
            continue
        size, bold, face = element.get("size"), element.get("bold") or 0, str(element.get("font") or "")
        # Same size and weight, and the same face where both are known: a subtitle at the headings' size in
        # another face is a different kind of text, not a heading tagged as a paragraph.
        peer = next((k for k, s, b, f in styles if size and abs(size - s) <= STYLE_SLACK and abs(bold - b) <= 0.3
                     and (not face or not f or face == f)), None)
        if peer:
            issues.append(finding("semantic_tagging.structural_hierarchy.inconsistent_heading",
                                  f"{where}, {element['type']} “{_clip(text)}”", kind=element["type"],
                                  text=_clip(text), heading=peer, size=size))
            continue
        # Styled like headings that sit near the body size (bold run-in headings): bold labels, terms and
        # lead-ins look the same, so a reader of meaning decides (hybrid judge).
        near = next((k for k, s, b, f in known if size and b >= 0.5 and bold >= 0.5
                     and abs(size - float(s)) <= STYLE_SLACK and float(s) < HEADING_STYLE_RATIO * body
                     and (not face or not f or face == f)), None)
        if near and len(words) <= CANDIDATE_HEADING_WORDS:
            issues.append(finding("semantic_tagging.structural_hierarchy.heading_style_candidate",
                                  f"{where}, {element['type']} “{_clip(text)}”",
                                  facts=_facts(element, page_elements, by_id, body), kind=element["type"],
                                  text=_clip(text, 60), heading=near))
    return issues[:3]


def _misplaced_captions(page_elements: list[dict[str, Any]], by_id: dict[int, dict[str, Any]],
                        body: float | None, where: str) -> list[Issue]:
    """Real content tagged with the wrong type: a Caption that is neither inside nor beside what it could
    caption (a Figure, Table, Formula or list) is likely a paragraph in the wrong tag (hybrid judge)."""
    issues = []
    ordered = sorted(by_id.values(), key=lambda e: e["id"])
    for element in page_elements:
        if element["type"] != "Caption" or not element.get("text"):
            continue
        parent = by_id.get(element.get("parent"))  # type: ignore[arg-type]
        if parent and parent["type"] in CAPTIONED:
            continue
        siblings = [e for e in ordered if e.get("parent") == element.get("parent") and e["id"] != element["id"]]
        before = [e for e in siblings if e["id"] < element["id"]][-1:]
        after = [e for e in siblings if e["id"] > element["id"]][:1]
        if any(e["type"] in CAPTIONED for e in before + after):
            continue
        issues.append(finding("semantic_tagging.proper_tag_usage.caption_misplaced_candidate",
                              f"{where}, Caption “{_clip(element.get('text'))}”",
                              facts=_facts(element, page_elements, by_id, body),
                              text=_clip(element.get("text"), 60)))
    return issues[:3]


def _numbers(lst: dict[str, Any], elements: list[dict[str, Any]], by_id: dict[int, dict[str, Any]]) -> list[int]:
    """The item numbers a list's Lbl elements show ("3.", "(4)"), in tag order; [] if any label is no number."""
    found = []
    for element in elements:
        item = by_id.get(element.get("parent"))  # type: ignore[arg-type]
        if element["type"] == "Lbl" and item and item["type"] == "LI" and item.get("parent") == lst["id"]:
            match = DIGITS.match((element.get("text") or "").strip())
            if not match:
                return []
            found.append(int(match.group(1)))
    return found


def _split_lists(elements: list[dict[str, Any]], by_id: dict[int, dict[str, Any]], where: str) -> list[Issue]:
    """One semantic unit split across containers: a numbered list whose next sibling is another list that
    carries on its numbering (items 1–2, then 3–4) is one list tagged as two; a reader hears two lists."""
    issues = []
    ordered = sorted(elements, key=lambda e: e["id"])
    for lst in (e for e in ordered if e["type"] == "L"):
        siblings = [e for e in ordered if e.get("parent") == lst.get("parent") and e["id"] > lst["id"]]
        if not siblings or siblings[0]["type"] != "L":
            continue
        first, second = _numbers(lst, ordered, by_id), _numbers(siblings[0], ordered, by_id)
        if len(first) >= 1 and second and first == list(range(first[0], first[0] + len(first))) \
                and second[0] == first[-1] + 1:
            issues.append(finding("semantic_tagging.list_structure.list_split",
                                  f"{where}, lists numbered {first[0]}–{first[-1]} and {second[0]}–{second[-1]}",
                                  first=f"{first[0]}–{first[-1]}", second=f"{second[0]}–{second[-1]}",
                                  items=len(first) + len(second)))
    return issues


def _split_paragraphs(page_elements: list[dict[str, Any]], where: str) -> list[Issue]:
    """One semantic unit split across containers: a P that carries on the sentence of the P right before
    it, a line below it in the same column and type (the evidence's `continues_previous`), is one
    paragraph tagged as two; a screen reader pauses and announces a new paragraph mid-sentence."""
    ordered = sorted(page_elements, key=lambda e: e["id"])
    split = [e for e in ordered if e.get("continues_previous")]
    if not split:
        return []
    first = split[0]
    return [finding("semantic_tagging.structural_hierarchy.paragraph_split",
                    f"{where}, P “{_clip(first.get('text'))}”", text=_clip(first.get("text"), 60), count=len(split))]


RUNNING_TEXT = re.compile(r"[a-z][.!?;,] [A-Za-z]")


def _paragraph_figures(page_elements: list[dict[str, Any]], body: float | None, where: str) -> list[Issue]:
    """Real content tagged with the wrong type: a Figure whose own marked content is running text at the
    body size (words and sentences, not a chart's labels and numbers). A screen reader replaces a Figure by
    its alternative text or skips it, so the paragraph is lost to the reader."""
    issues = []
    for element in page_elements:
        text = " ".join((element.get("text") or "").split())
        if element["type"] != "Figure" or not body or not text or not element.get("size"):
            continue
        words = text.rstrip("…").split()
        wordy = [w for w in words if len(w) >= 2 and sum(c.isalpha() for c in w) >= 0.8 * len(w)]
        if len(words) >= FIGURE_TEXT_WORDS and len(wordy) >= 0.85 * len(words) and RUNNING_TEXT.search(text) \
                and abs(float(element["size"]) - body) <= 0.1 * body and not MATH.search(text):
            issues.append(finding("semantic_tagging.proper_tag_usage.paragraph_as_figure",
                                  f"{where}, Figure “{_clip(text)}”", text=_clip(text, 60),
                                  bbox=element.get("bbox")))
    return issues[:3]


def _figure_text(page_elements: list[dict[str, Any]], body: float | None, where: str) -> list[Issue]:
    """A Figure one text line tall whose alternative is running text: text drawn as a graphic."""
    issues = []
    for element in page_elements:
        if element["type"] != "Figure" or not element.get("bbox") or not body:
            continue
        alt = " ".join(str(element.get("alt") or element.get("actual_text") or "").split())
        words = len(alt.split())
        x0, y0, x1, y1 = element["bbox"]
        height, width = y1 - y0, x1 - x0
        one_line = 0 < height <= TEXT_LINE_HEIGHT * body and width >= TEXT_LINE_ASPECT * height
        running = words >= FIGURE_TEXT_WORDS or (alt.endswith((".", "!", "?")) and words >= FIGURE_SENTENCE_WORDS)
        if one_line and running and not DESCRIBING.search(alt) and not MATH.search(alt) \
                and sum(c.isalpha() for c in alt) >= 0.7 * len(alt.replace(" ", "")):
            issues.append(finding("semantic_tagging.proper_tag_usage.figure_as_text",
                                  f"{where}, Figure “{_clip(alt)}”", text=_clip(alt, 60), words=words,
                                  bbox=element["bbox"]))
    return issues


# Prose hidden as an artifact (PDF/UA-1 7.1: artifacts are content that is not real content): a block of at
# least PROSE_WORDS words, mostly letters (leader dots and page numbers are not), at PROSE_SIZE × body size
# or more, outside the running header and footer bands. Fewer words than PROSE_SENTENCE_WORDS must end
# like a sentence: a short artifacted label ("Draft", "Confidential") is decoration a reader may miss.
PROSE_WORDS = 8
PROSE_SENTENCE_WORDS = 12
PROSE_LETTERS = 0.6
PROSE_SIZE = 0.8
RUNNING_ROLES = {"header", "footer", "figure"}


def _artifacted_prose(blocks: list[dict[str, Any]], body: float | None, where: str) -> list[Issue]:
    prose = []
    for block in blocks:
        text, words = str(block.get("text") or ""), int(block.get("words") or 0)
        if block.get("role") in RUNNING_ROLES or words < PROSE_WORDS:
            continue
        if (block.get("letters") or 0) < PROSE_LETTERS * (block.get("chars") or len(text) or 1):
            continue
        if body and (block.get("size") or 0) < PROSE_SIZE * body:
            continue
        if words < PROSE_SENTENCE_WORDS and not text.rstrip("…").endswith(SENTENCE_END):
            continue
        prose.append(block)
    if not prose:
        return []
    return [finding("semantic_tagging.artifacts.prose_artifact", f"{where}, “{_clip(prose[0].get('text'))}”",
                    count=len(prose), words=sum(int(b.get("words") or 0) for b in prose),
                    text=_clip(prose[0].get("text"), 60))]


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
    body = tags.get("body_size")
    where = f"Page {bundle.page}"
    issues: list[Issue] = _heading_checks(tags, page_elements, by_id, where)

    # Text that looks like a heading must be tagged as one; WCAG 1.3.1 / PDF/UA-1 7.4.
    counts = tags.get("type_counts") or {}
    if not any(is_heading_type(kind) for kind in counts):
        visual = visual_headings(page_elements, by_id, body)
        if visual:
            names = ", ".join(f"“{e['text'][:40]}”" for e in visual[:3])
            issues.append(finding("semantic_tagging.structural_hierarchy.untagged_headings", f"{where}, {names}",
                                  count=len(visual), kind=visual[0]["type"]))

    # Paragraphs that start like list items belong in L/LI/Lbl/LBody (PDF/UA-1 7.6).
    loose = _untagged_lists(page_elements, by_id)
    if loose:
        issues.append(finding("semantic_tagging.list_structure.unwrapped_items",
                              f"{where}, items “{loose[0]['text'][:40]}” …", count=len(loose), kind=loose[0]["type"]))

    # Lists: LI only inside L, LBody only inside LI (PDF/UA-1 7.6).
    for element in page_elements:
        parent = by_id.get(element.get("parent"))
        parent_type = parent["type"] if parent else None
        if element["type"] == "LI" and parent_type != "L":
            issues.append(finding("semantic_tagging.list_structure.li_outside_l",
                                  f"{where}, list item “{element.get('text') or ''}”",
                                  parent=parent_type or "the root"))
        elif element["type"] in LIST_PARTS and parent_type != "LI":
            issues.append(finding("semantic_tagging.list_structure.lbody_outside_li",
                                  f"{where}, {element['type']} “{element.get('text') or ''}”", kind=element["type"]))
    issues += _numbering_checks(page_elements, by_id, where)
    issues += _split_lists(elements, by_id, where)
    issues += _split_paragraphs(page_elements, where)

    # Every type must be standard, directly or through the RoleMap (PDF/UA-1 7.1; Matterhorn 02-001):
    # assistive technology cannot interpret a private type.
    private = [e for e in page_elements if e.get("nonstandard")]
    if private:
        kinds = sorted({str(e.get("raw_type") or e["type"]) for e in private})
        issues.append(finding("semantic_tagging.proper_tag_usage.nonstandard_type",
                              f"{where}, {len(private)} element(s) of type {', '.join(kinds[:4])}", kind=kinds[0]))

    # Body text must be in block-level tags, not bare Span directly under a grouping element.
    top_level = [e for e in page_elements if e.get("text")
                 and (by_id.get(e.get("parent")) or {}).get("type", "Document") in GROUPING]
    bare = [e for e in top_level if e["type"] == "Span"]
    paragraphs = [e for e in top_level if e["type"] == "P"]
    if len(bare) >= 2 and len(bare) >= MAX_BARE_SPAN_SHARE * (len(bare) + len(paragraphs)):
        issues.append(finding("semantic_tagging.proper_tag_usage.paragraphs_as_spans",
                              f"{where}, {len(bare)} text blocks (“{bare[0]['text'][:40]}” …)"))
    issues += _heading_usage(page_elements, elements, by_id, body, where)
    issues += _figure_text(page_elements, body, where)
    issues += _paragraph_figures(page_elements, body, where)
    issues += _inconsistent_headings(tags, page_elements, by_id, body, where)
    issues += _misplaced_captions(page_elements, by_id, body, where)
    artifacts = tags.get("artifact_text") or []
    issues += _artifacted_prose(artifacts, body, where)

    headings = [e for e in page_elements if is_heading_type(e["type"])]
    document = document_checks(tags, where)  # Lang, title, PDF/UA claim, permissions: the first page only
    if not page_elements:
        subs = {s: NA for s in SUBS} | {i.sub_criterion: FAILED for i in document}
        if document:
            return verdict(bundle, subs, document, "no tagged content on this page to misuse")
        return PageJudgment(Label.PASSED, subs, [], f"{where}: no tagged content on this page to misuse")
    issues += document
    subs = {s: PASSED for s in SUBS}
    # Artifact marking is judged from the page's artifacted text (prose must not be hidden); with none, NA.
    subs["artifacts"] = PASSED if artifacts else NA
    for issue in issues:
        subs[issue.sub_criterion] = FAILED
    return verdict(bundle, subs, issues,
                   f"{len(page_elements)} tagged elements, {len(headings)} headings nested without gaps, "
                   "lists and paragraphs use proper tags.")
