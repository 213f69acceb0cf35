"""Evidence bundles: what a judge may see for one (document, criterion, page).

The evidence per criterion follows the paper's Table 2. Items marked `withheld_for_cannot_tell`
are dropped for the benchmark's Cannot Tell items — the runner applies that protocol from the
manifest; the judge only notices that the evidence is absent. Evidence that could not be
extracted is absent in the same way. Nothing here carries file paths, manifest fields, PDF
dates or producer: bundles are built from extracted records only.
"""

from __future__ import annotations

import bisect
import functools
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from common import geometry
from common.thresholds import BODY_FLOOR_PT
from judges.conformance import CARRIER, evidence_failures
from judges.criteria import SPEC
from judges.language import detect_language

# criterion → [(evidence name, withheld for Cannot Tell items)], from the criterion spec
EVIDENCE: dict[str, tuple[tuple[str, bool], ...]] = {
    name: tuple((item.name, item.starred) for item in spec.evidence) for name, spec in SPEC.items()
}

# Columns of the upstream tables that no evidence builder reads: the inputs stage leaves them out of the rows it
# turns into Python objects (a document's rows as dicts were a large share of the stage's CPU, issue 56). Links
# are not here: a link's whole row is evidence (`_strip`). tests/judges/test_evidence.py checks that this module
# names none of them.
UNREAD_COLUMNS: dict[str, tuple[str, ...]] = {
    "struct_elements": ("elem_key", "mcids", "objr_annots", "subtree_bbox", "obj_num"),
    "text_spans": ("italic", "superscript", "alpha", "clipped", "invisible_reason"),
    "reading_order": ("mupdf_block",),
    "transcripts": ("element",),
}

T = TypeVar("T")
TEXT_LIMIT = 80  # characters of element text a bundle carries: enough to recognise, cheap to send


@dataclass
class DocEvidence:
    """Extracted records of one document, grouped for bundle building."""

    doc_id: str
    pages: list[dict[str, Any]] = field(default_factory=list)
    struct_elements: list[dict[str, Any]] = field(default_factory=list)
    doc_structure: list[dict[str, Any]] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    fonts: list[dict[str, Any]] = field(default_factory=list)
    text_spans: list[dict[str, Any]] = field(default_factory=list)
    reading_order: list[dict[str, Any]] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)
    table_cells: list[dict[str, Any]] = field(default_factory=list)
    figures: list[dict[str, Any]] = field(default_factory=list)
    transcripts: list[dict[str, Any]] = field(default_factory=list)
    order_agreement: dict[int, dict[str, Any]] = field(default_factory=dict)  # page → statistics
    layout_regions: list[dict[str, Any]] = field(default_factory=list)
    conformance: list[dict[str, Any]] = field(default_factory=list)  # the PDF/UA-1 validator's rows (failures)
    extract_failed: bool = False
    transcript_failed: bool = False
    # Values computed from the rows above once (`_page_rows`, `_once`): building a page's evidence read every
    # row of the document again for each page (a document's bundles cost pages x rows). Rows are not changed
    # once the evidence is built.
    _memo: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)


def _once(ev: DocEvidence, key: Any, make: Callable[[], T]) -> T:
    """A value of the document's evidence, computed on first use."""
    if key not in ev._memo:
        ev._memo[key] = make()
    return ev._memo[key]


def _page_rows(ev: DocEvidence, table: str, page: int) -> list[dict[str, Any]]:
    """The rows of `table` (a list field) on `page`, in their order (what `_on` gives, indexed once)."""
    return _once(ev, ("page_rows", table), lambda: _by_page(getattr(ev, table))).get(page, [])


def _by_page(rows: list[dict[str, Any]]) -> dict[Any, list[dict[str, Any]]]:
    by_page: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        by_page.setdefault(row.get("page"), []).append(row)
    return by_page


@dataclass
class PageBundle:
    """The evidence of one page for one criterion, as a judge receives it."""

    criterion: str
    page: int
    evidence: dict[str, Any]
    image_path: str | None = None
    # Opaque reference to the document (its doc_id) for caching and the call log; never shown to a judge.
    doc_ref: str | None = None
    # A checker judge's run on the whole document (judges.checkers: the judge stage runs the checker once per
    # document and hands the run to each page's bundle); None for every other judge, and where the protocol
    # withheld what the checker reads.
    checker_run: Any = None

    def has(self, name: str) -> bool:
        return self.evidence.get(name) is not None


def _strip(row: dict[str, Any], *drop: str) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in {"run_id", "doc_id", *drop} and v not in (None, [], "")}


def _short(text: str | None) -> str | None:
    if text is None:
        return None
    text = " ".join(text.split())
    return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 1] + "…"


def body_size(spans: Iterable[dict[str, Any]]) -> float | None:
    """The dominant text size of a document, weighted by characters."""
    weights: dict[float, int] = {}
    for span in spans:
        size = round(float(span["size"]), 1)
        weights[size] = weights.get(size, 0) + int(span.get("char_count") or 0)
    return max(weights, key=weights.__getitem__) if weights else None


def text_style(bbox: list[float] | None, spans: list[dict[str, Any]]) -> dict[str, Any]:
    """How the text inside a box looks: dominant size and share of bold characters."""
    if not bbox:
        return {}
    sizes: dict[float, int] = {}
    faces: dict[str, int] = {}
    bold = total = 0
    for chars, size, face, heavy in _span_index(spans).styles_within(bbox, slack=1.0):
        sizes[size] = sizes.get(size, 0) + chars
        faces[face] = faces.get(face, 0) + chars
        total += chars
        bold += chars if heavy else 0
    if not total:
        return {}
    face = max(faces, key=faces.__getitem__)
    style: dict[str, Any] = {"size": max(sizes, key=sizes.__getitem__), "bold": round(bold / total, 2)}
    return style | ({"font": face} if face else {})


class _SpanIndex:
    """A page's spans by their top edge: `styles_within` gives the styles of the spans inside a box (as
    `geometry.inside` tests them) in their order without testing every span of the page (a page's elements times
    its spans, per page)."""

    def __init__(self, spans: list[dict[str, Any]]) -> None:
        self.spans = spans
        upright, self.odd = [], []  # odd: a box whose top is not above its bottom (or NaN), always tested
        for i, span in enumerate(spans):
            box = span.get("bbox")
            if box:
                if box[1] <= box[3]:
                    upright.append((box[1], i))
                else:
                    self.odd.append(i)
        upright.sort()
        self.tops = [top for top, _ in upright]
        self.order = [i for _, i in upright]
        # Per span, what `text_style` reads of it (characters, size, font family, bold), worked out on first use:
        # a span lies inside the boxes of an element and of each of its ancestors with text on the page.
        self.styles: list[tuple[int, float, str, bool] | None] = [None] * len(spans)

    def _found(self, bbox: Sequence[float], slack: float) -> list[int]:
        # Inside means top >= bbox top - slack and top <= bottom <= bbox bottom + slack.
        lo, hi = bisect.bisect_left(self.tops, bbox[1] - slack), bisect.bisect_right(self.tops, bbox[3] + slack)
        found = sorted([*self.order[lo:hi], *self.odd])
        # geometry.inside(span box, bbox, slack), its comparisons written out (a page's elements times its spans)
        left, top, right, bottom = bbox[0] - slack, bbox[1] - slack, bbox[2] + slack, bbox[3] + slack
        spans = self.spans
        return [i for i in found if (box := spans[i]["bbox"])[0] >= left and box[1] >= top and box[2] <= right
                and box[3] <= bottom]

    def styles_within(self, bbox: Sequence[float], slack: float) -> list[tuple[int, float, str, bool]]:
        """(characters, size rounded to 0.1 pt, font family, bold) of each span inside the box, in order."""
        out = []
        for i in self._found(bbox, slack):
            style = self.styles[i]
            if style is None:
                span = self.spans[i]
                style = self.styles[i] = (int(span.get("char_count") or 0), round(float(span["size"]), 1),
                                          font_family(span.get("font_name")), bool(span.get("bold")))
            out.append(style)
        return out


_INDEXES: dict[int, tuple[list[dict[str, Any]], _SpanIndex]] = {}  # by id of the spans list (kept alive here)


def _span_index(spans: list[dict[str, Any]]) -> _SpanIndex:
    held = _INDEXES.get(id(spans))
    if held is not None and held[0] is spans:
        return held[1]
    if len(_INDEXES) >= 64:  # a document's pages at a time
        _INDEXES.clear()
    index = _SpanIndex(spans)
    _INDEXES[id(spans)] = (spans, index)
    return index


@functools.lru_cache(maxsize=4096)  # a document's spans name a few fonts
def font_family(name: str | None) -> str:
    """A font's family: its name without the subset tag (ABCDEF+) and the style after '-' or ','
    (Helvetica-Bold → helvetica): two texts in one family differ in weight or style only."""
    base = str(name or "").partition("+")[2] or str(name or "")
    for cut in ("-", ","):
        base = base.split(cut)[0]
    return base.strip().lower()


def tag_structure(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    if ev.extract_failed:
        return None
    tagged = any(s.get("tagged") for s in ev.doc_structure)
    elements = ev.struct_elements
    page_spans = _page_rows(ev, "text_spans", page)
    by_id = _once(ev, "elements_by_id", lambda: {e["elem_id"]: e for e in elements})
    keep: set[int] = set()
    for element in _page_rows(ev, "struct_elements", page):
        node: dict[str, Any] | None = element
        while node is not None and node["elem_id"] not in keep:
            keep.add(node["elem_id"])
            parent = node.get("parent_id")
            node = by_id.get(parent) if parent is not None else None
    # The last heading (H1-H9) before this page, and how many H1 come before it: from the document's headings
    # with a page, in element order (found once), rather than from every element again per page.
    headings = _once(ev, "heading_pages", lambda: [(e["page"], e["type"]) for e in elements
                                                   if e.get("page") is not None
                                                   and _heading_level(e["type"]) is not None])
    prior = next((int(kind[1:]) for at, kind in reversed(headings) if at < page), None)
    compact = []
    siblings = _once(ev, "elements_by_order", lambda: {(e.get("parent_id"), e.get("order")): e for e in elements})
    positions = _once(ev, "element_positions", lambda: _positions(elements))
    for element in (elements[i] for i in sorted(i for elem_id in keep for i in positions[elem_id])):
        item = {
            "id": element["elem_id"], "parent": element.get("parent_id"), "type": element["type"],
            "raw_type": element.get("raw_type"), "depth": element.get("depth"), "page": element.get("page"),
            "text": _short(element.get("text")), "alt": element.get("alt"),
            "actual_text": element.get("actual_text"), "scope": element.get("scope"),
            "objr_count": element.get("objr_count"), "mcid_count": element.get("mcid_count"),
            "nonstandard": True if element.get("standard") is False else None,
        }
        if element.get("page") == page and element.get("text"):
            item.update(text_style(element.get("bbox"), page_spans))
        item.update(_layout_facts(element, page))
        if _continues_previous(element, siblings, page_spans, page):
            item["continues_previous"] = True
        compact.append({k: v for k, v in item.items() if v is not None})
    return {
        "tagged": tagged,
        "marked": any(s.get("marked") for s in ev.doc_structure),
        "element_count": len(elements),
        "root_types": list(_once(ev, "root_types",
                                 lambda: [e["type"] for e in elements if e.get("parent_id") is None])),
        "prior_heading_level": prior,
        "type_counts": dict(_once(ev, "type_counts", lambda: _type_counts(elements))),
        "body_size": _once(ev, "body_size", lambda: body_size(ev.text_spans)),
        "heading_styles": [list(s) for s in _once(ev, "heading_styles", lambda: _heading_styles(ev))],
        # Across pages: the document's title H1 (its first heading, with its size) and how many H1 come before
        # this page, so a title alone on page 1 and the first section H1 on page 2 can be compared.
        "title_h1": _title_h1(ev),
        "h1_before": sum(1 for at, kind in headings if kind == "H1" and at < page),
        "elements": compact,
        "artifact_text": artifact_text(ev, page),
    } | ({"document": document_facts(ev)} if page == _first_page(ev) else {})


ARTIFACT_UNITS = 20  # artifact text blocks a page's evidence keeps


def artifact_text(ev: DocEvidence, page: int) -> list[dict[str, Any]]:
    """The page's text drawn inside /Artifact marked content (PDF/UA-1 7.1): each block with where it sits
    (its reading-order role: header, footer or body), its words and its size, so a rule can tell running
    headers, page numbers and leader dots from prose a reader never hears."""
    out = []
    for unit in _page_rows(ev, "reading_order", page):
        text = " ".join(str(unit.get("text") or "").split())
        if unit.get("artifact") and text:
            out.append({"text": _short(text), "role": unit.get("role"), "words": len(text.split()),
                        "letters": sum(c.isalpha() for c in text), "chars": len(text),
                        "size": unit.get("font_size"), "bbox": unit.get("bbox")})
    return out[:ARTIFACT_UNITS]


# A sentence or clause ends here: the next block may start a new paragraph.
_CLOSED = (".", "!", "?", ":", ";", "…", '"', "”", "’", ")", "]")


def _continues_previous(element: dict[str, Any], siblings: dict[tuple[Any, Any], dict[str, Any]],
                        page_spans: list[dict[str, Any]], page: int) -> bool:
    """One paragraph tagged as two (PDF/UA-1 7.1, Matterhorn 01-006): this P and the P just before it
    among the same parent's kids are on this page, in one column, the earlier one's last line directly
    above this one's first (a line gap, not a paragraph gap), set in the same type, and the text runs on:
    the earlier one stops mid-sentence and this one starts in lower case."""
    if element.get("type") != "P" or element.get("page") != page or not element.get("order"):
        return False
    before = siblings.get((element.get("parent_id"), element["order"] - 1))
    if not before or before.get("type") != "P" or before.get("page") != page:
        return False
    first, last = (element.get("text") or "").strip(), (before.get("text") or "").strip()
    if not first or not last or not first[0].islower() or last.endswith(_CLOSED) or len(last.split()) < 4:
        return False
    word = first.split()[0].rstrip(",;:.")
    if len(word) < 2 or not word.isalpha():  # a symbol or abbreviation after a formula ("k.", "e.g."), not prose
        return False
    box, prior = element.get("bbox"), before.get("bbox")
    if not box or not prior:
        return False
    style, prior_style = text_style(box, page_spans), text_style(prior, page_spans)
    size = style.get("size")
    if not size or size != prior_style.get("size") or abs(style.get("bold", 0) - prior_style.get("bold", 0)) > 0.3:
        return False
    overlap = min(box[2], prior[2]) - max(box[0], prior[0])
    gap = box[1] - prior[3]
    return overlap > 0.5 * min(box[2] - box[0], prior[2] - prior[0]) and -0.2 * size <= gap <= 0.6 * size


def _first_page(ev: DocEvidence) -> int:
    return min((int(p["page"]) for p in ev.pages), default=1)


def _all(values: list[Any]) -> bool | None:
    """False if any file says False, True if all say True, None (not recorded) otherwise."""
    return False if False in values else True if values and all(v is True for v in values) else None


def document_facts(ev: DocEvidence) -> dict[str, Any]:
    """What PAC and veraPDF check once per document (PDF/UA-1 5, 7.1, 7.2, 7.16), over the document's tagged
    files: the catalog's /Lang, XMP dc:title present, /DisplayDocTitle, the PDF/UA claim, and whether the
    encryption permits content extraction for accessibility. Presence only for the title (its value can
    identify a benchmark item); no dates or producer."""
    rows = [s for s in ev.doc_structure if s.get("tagged")] or ev.doc_structure
    langs = [str(s.get("lang") or "").strip() for s in rows]
    return {"lang": langs[0] if langs and all(langs) else None,
            "xmp_title": _all([s.get("xmp_title") for s in rows]),
            # None here is the key's absence from ViewerPreferences (always recorded), not an unknown
            "display_doc_title": True if rows and all(s.get("display_doc_title") is True for s in rows)
            else False if any(s.get("display_doc_title") is False for s in rows) else None,
            "pdfua_part": next((s["pdfua_part"] for s in rows if s.get("pdfua_part")), None),
            "accessibility_permitted": _all([s.get("accessibility_permitted") for s in rows]),
            # PDF/UA-1 7.2 lets the language be set per structure element or marked-content sequence: the
            # validator found every piece of text's language declared somewhere (None: not validated).
            "lang_declared_for_all_text": _text_language_declared(ev.conformance),
            "text_lang": text_language(_language_spans(ev))}


def _language_spans(ev: DocEvidence) -> list[dict[str, Any]]:
    """The spans `text_language` reads (those of the first LANGUAGE_PAGES pages with text), by page: it orders them
    by page, block and line itself."""
    index = _once(ev, ("page_rows", "text_spans"), lambda: _by_page(ev.text_spans))
    pages = sorted({int(page) for page in index if page is not None})[:LANGUAGE_PAGES]
    return [span for page in pages for span in index[page]]


def _text_language_declared(rows: list[dict[str, Any]]) -> bool | None:
    statuses = {r.get("status") for r in rows if r.get("rule_id") == "PDFUA1-TEXT-LANGUAGE-001"}
    if not statuses or "not_checked" in statuses or any(r.get("status") == "not_checked" for r in rows):
        return None
    return "failed" not in statuses


def _title_h1(ev: DocEvidence) -> dict[str, Any] | None:
    """The document's first heading when it is an H1, as the title: its text, page and type size (worked out
    once per document)."""
    if "_title_h1" not in ev.__dict__:
        ev.__dict__["_title_h1"] = _find_title_h1(ev)
    found: dict[str, Any] | None = ev.__dict__["_title_h1"]
    return found


def _find_title_h1(ev: DocEvidence) -> dict[str, Any] | None:
    first = next((e for e in ev.struct_elements if _heading_level(e["type"]) is not None or e["type"] == "H"), None)
    if first is None or first["type"] != "H1" or first.get("page") is None:
        return None
    spans = _page_rows(ev, "text_spans", first["page"])
    size = text_style(first.get("bbox"), spans).get("size")
    return {"text": _short(first.get("text")), "page": first["page"], "size": size} if size else None


LANGUAGE_PAGES = 3  # the text the language is told from: the first pages (enough words, bounded work)


def text_language(spans: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The language of the text on the document's first pages when the stopword detector is confident
    (judges.language): {"lang", "share", "words"}; None when it cannot tell."""
    pages = sorted({int(s["page"]) for s in spans if s.get("page") is not None})[:LANGUAGE_PAGES]
    lines: dict[tuple[int, int, int], list[str]] = {}
    for span in spans:
        if span.get("page") in pages:
            lines.setdefault((span["page"], span.get("block") or 0, span.get("line") or 0), []).append(
                str(span.get("text") or ""))
    guess = detect_language(" ".join("".join(parts) for _, parts in sorted(lines.items())))
    return {"lang": guess.lang, "share": round(guess.share, 2), "words": guess.words} if guess.lang else None


def _positions(elements: list[dict[str, Any]]) -> dict[Any, list[int]]:
    """Where each element id occurs among the elements (in order)."""
    positions: dict[Any, list[int]] = {}
    for i, element in enumerate(elements):
        positions.setdefault(element["elem_id"], []).append(i)
    return positions


def _heading_styles(ev: DocEvidence) -> list[list[Any]]:
    """Each heading type's looks across the document ([type, size, bold share, font family], one entry per
    distinct style): a block elsewhere styled like them but tagged otherwise is a heading tagged inconsistently."""
    styles: set[tuple[str, float, float, str]] = set()
    for element in ev.struct_elements:
        if _heading_level(element["type"]) is None and element["type"] != "H":
            continue
        style = text_style(element.get("bbox"), _page_rows(ev, "text_spans", element.get("page")))  # type: ignore[arg-type]
        if style:
            styles.add((element["type"], style["size"], style["bold"], style.get("font", "")))
        if len(styles) >= 24:
            break
    return [list(s) for s in sorted(styles)]


def _layout_facts(element: dict[str, Any], page: int) -> dict[str, Any]:
    """What the rules need beyond type and text, kept to the few elements they judge: a list's declared
    ListNumbering, and where a figure or a text element sits on this page (split headings, text drawn as a
    figure, whether a heading-like block heads the text below it)."""
    kind = element["type"]
    if kind == "L":
        numbering = _attributes(element).get("ListNumbering")
        return {"list_numbering": numbering} if isinstance(numbering, str) else {}
    if element.get("page") == page and element.get("bbox") and (kind == "Figure" or element.get("text")):
        return {"bbox": [round(float(v), 1) for v in element["bbox"]]}
    return {}


def _attributes(element: dict[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads(element.get("attributes") or "{}")
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _type_counts(elements: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for element in elements:
        counts[element["type"]] = counts.get(element["type"], 0) + 1
    return dict(sorted(counts.items()))


def _heading_level(kind: str) -> int | None:
    if len(kind) == 2 and kind[0] == "H" and kind[1].isdigit():
        return int(kind[1])
    return None


def link_metadata(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    if ev.extract_failed:
        return None
    by_id = _once(ev, "elements_by_id", lambda: {e["elem_id"]: e for e in ev.struct_elements})
    links = []
    for link in _page_rows(ev, "links", page):
        claimed = by_id.get(link.get("element_id"))
        # What a screen reader can announce for the link besides /Contents: its element's text or Alt.
        spoken = claimed and (claimed.get("alt") or claimed.get("actual_text") or claimed.get("text"))
        links.append(_strip(link) | ({"element_text": _short(spoken)} if spoken else {}))
    link_elements = [
        {"id": e["elem_id"], "page": e.get("page"), "objr_count": e.get("objr_count", 0),
         "text": _short(e.get("text")), "alt": e.get("alt")}
        for e in _page_rows(ev, "struct_elements", page) if e["type"] == "Link"
    ]
    return {"links": links, "link_elements": link_elements,
            "tagged": any(s.get("tagged") for s in ev.doc_structure),
            # The document claims PDF/UA (XMP pdfuaid:part): PDF/UA-1 7.18.5 then binds its links.
            "pdfua_part": next((s["pdfua_part"] for s in ev.doc_structure if s.get("pdfua_part")), None)}


def font_metadata(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    if ev.extract_failed:
        return None
    spans = [s for s in _page_rows(ev, "text_spans", page) if not s.get("render_invisible")]
    used = {s["font_name"] for s in spans}
    fonts = [{k: f.get(k) for k in FONT_FIELDS} | {"sizes": list(sizes)}
             for f, sizes in _once(ev, "fonts_by_page", lambda: _fonts_by_page(ev.fonts)).get(page, [])
             if f["font_name"] in used]
    sizes: dict[float, int] = {}
    by_font: dict[str, int] = {}
    measured = []  # each span's characters and size (rounded), for its block too
    for span in spans:
        chars = int(span.get("char_count") or 0)
        size = round(float(span["size"]), 1)
        measured.append((chars, size))
        sizes[size] = sizes.get(size, 0) + chars
        by_font[span["font_name"]] = by_font.get(span["font_name"], 0) + chars
    total = sum(sizes.values())
    return {
        "fonts": fonts,
        "chars_by_size": sorted(sizes.items()),
        "chars_by_font": dict(sorted(by_font.items(), key=lambda kv: -kv[1])),
        "body_size": _once(ev, "body_size", lambda: body_size(ev.text_spans)),
        "page_chars": total,
        "small_chars": sum(n for size, n in sizes.items() if size < BODY_FLOOR_PT),
        "unmapped_chars": sum(int(s.get("unmapped_chars") or 0) for s in spans),
        "blocks": _font_blocks(spans, measured),
        # Visible characters in the whole document: none means a scan (an OCR layer is invisible text).
        "document_chars": _once(ev, "visible_chars", lambda: sum(int(s.get("char_count") or 0) for s in ev.text_spans
                                                                  if not s.get("render_invisible"))),
        **_glyph_checks(ev, page),
    }


FONT_FIELDS = ("font_name", "font_type", "embedded", "subset", "has_tounicode", "encoding", "char_count")


def _fonts_by_page(fonts: list[dict[str, Any]]) -> dict[Any, list[tuple[dict[str, Any], list[Any]]]]:
    """Each page's fonts (those whose `pages` name it), in order, each with its first 12 distinct sizes."""
    by_page: dict[Any, list[tuple[dict[str, Any], list[Any]]]] = {}
    for font in fonts:
        sizes = sorted(set(font.get("sizes") or []))[:12]
        for page in dict.fromkeys(font.get("pages") or []):
            by_page.setdefault(page, []).append((font, sizes))
    return by_page


def _glyph_pages(fonts: list[dict[str, Any]]) -> list[dict[Any, dict[str, Any]]]:
    """Per font (in order), its first glyph counts of each page."""
    out: list[dict[Any, dict[str, Any]]] = []
    for font in fonts:
        first: dict[Any, dict[str, Any]] = {}
        for counts in font.get("glyph_pages") or []:
            first.setdefault(counts.get("page"), counts)
        out.append(first)
    return out


def _glyph_checks(ev: DocEvidence, page: int) -> dict[str, Any]:
    """Visible glyphs drawn on the page, and per font that draws some the font contradicts the mapping
    of (wrong) or that map to no text (textless): extractors/fonts.py, glyph_pages."""
    drawn, checks = 0, []
    for font, pages in zip(ev.fonts, _once(ev, "glyph_pages", lambda: _glyph_pages(ev.fonts)), strict=True):
        counts = pages.get(page)
        if not counts:
            continue
        drawn += int(counts.get("glyphs") or 0)
        wrong, textless = int(counts.get("wrong") or 0), int(counts.get("textless") or 0)
        if wrong or textless:
            checks.append({"font": font["font_name"], "glyphs": int(counts.get("glyphs") or 0), "wrong": wrong,
                           "textless": textless, "textless_distinct": int(font.get("textless_distinct") or 0),
                           "conflict": _short(font.get("mapping_conflict"))})
    return {"page_glyphs": drawn, "glyph_checks": checks} if checks else {}  # nothing to report: nothing added


BLOCK_MIN_CHARS = 40  # text blocks shorter than this (labels, page numbers) say nothing about paragraph styling
ADVANCE_MIN_CHARS = 20  # spans this long average out the widths of individual letters


def _font_blocks(spans: list[dict[str, Any]], measured: list[tuple[int, float]]) -> list[dict[str, Any]]:
    """Per text block, in page order: its dominant font and size, and how wide its characters are set.

    ``em_per_char`` is the block's horizontal advance per character (spaces included) in ems of
    its type size, over horizontal spans of at least ``ADVANCE_MIN_CHARS`` characters: about 0.4–0.5
    for ordinary Latin text, less when letters are squeezed together or the face is condensed.
    `measured`: each span's characters and size rounded to 0.1 pt (font_metadata works them out).
    """
    blocks: dict[int, list[tuple[dict[str, Any], int, float]]] = {}
    for span, (chars, size) in zip(spans, measured, strict=True):
        blocks.setdefault(int(span.get("block") or 0), []).append((span, chars, size))
    out = []
    for number, members in blocks.items():
        fonts: dict[str, int] = {}
        sizes: dict[float, int] = {}
        width = ems = 0.0
        for span, chars, size in members:
            fonts[span["font_name"]] = fonts.get(span["font_name"], 0) + chars
            sizes[size] = sizes.get(size, 0) + chars
            box, text = span.get("bbox"), span.get("text") or ""
            if box and len(text.strip()) >= ADVANCE_MIN_CHARS and box[2] - box[0] > box[3] - box[1] \
                    and _wordy(text):
                width += box[2] - box[0]
                ems += len(text) * float(span["size"])
        chars = sum(fonts.values())
        if chars >= BLOCK_MIN_CHARS:
            out.append({"block": number, "font": max(fonts, key=fonts.__getitem__),
                        "size": max(sizes, key=sizes.__getitem__), "chars": chars,
                        "em_per_char": round(width / ems, 3) if ems else None})
    return out[:200]


def _wordy(text: str) -> bool:
    """Mostly letters and digits: leader dots ("Introduction ........ 1"), rules of underscores or
    dashes are set tight on purpose and say nothing about how text is spaced."""
    visible = "".join(text.split())  # the characters that are not white space (str.isspace), in order
    return sum(map(str.isalnum, visible)) >= 0.6 * len(visible) if visible else False


def _by_key(rows: list[dict[str, Any]], key: str) -> dict[Any, list[dict[str, Any]]]:
    """`rows` grouped by `row[key]`, in their order."""
    groups: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row[key], []).append(row)
    return groups


def _on(rows: list[dict[str, Any]], page: int) -> list[dict[str, Any]]:
    return [r for r in rows if r.get("page") == page]


def figure_crops(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    """Where the figures are (and their crops): what a sighted reviewer sees, without tags."""
    if ev.extract_failed:
        return None
    figures = [{"figure": f["figure_index"], "kind": f["kind"], "bbox": f.get("bbox"), "small": f.get("small"),
                "caption": _short(f.get("caption")), "crop_path": f.get("crop_path")}
               for f in _page_rows(ev, "figures", page)]
    return {"figures": figures, "document_figures": len(_meaningful(ev))}


CAPTION_LIMIT = 300  # alt text is read against its caption: keep more of a caption than of other texts


def alt_texts(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    """Each figure's alternative text beside its caption, plus what the rest of the document says.

    ``alt_words_not_in_text``: the alt text's words (four letters or more) that the document's
    visible text never uses (compared on their first five letters); ``same_alt_as``: other
    figures of the document with the identical alt text. Document counts cover figures that
    are not small (icons, inline glyphs).
    """
    if ev.extract_failed:
        return None
    meaningful = _meaningful(ev)
    vocabulary: set[str] | None = None
    figures = []
    for f in _page_rows(ev, "figures", page):
        caption = " ".join((f.get("caption") or "").split())
        item: dict[str, Any] = {
            "figure": f["figure_index"], "alt": f.get("alt"), "actual_text": f.get("actual_text"),
            "tagged_figure": f.get("elem_id") is not None, "is_artifact": f.get("is_artifact"), "kind": f["kind"],
            "small": f.get("small"), "caption": caption[:CAPTION_LIMIT] or None, "caption_words": len(caption.split())}
        alt = _squash(f.get("alt"))
        if alt:
            vocabulary = _once(ev, "vocabulary", lambda: _text_vocabulary(ev)) if vocabulary is None else vocabulary
            item["alt_words_not_in_text"] = sorted({w for w in alt_words(alt) if w[:5] not in vocabulary})
            item["same_alt_as"] = [{"figure": o["figure_index"], "page": o.get("page"),
                                    "caption": _short(o.get("caption"))}
                                   for o, other in zip(meaningful, _once(ev, "meaningful_alts", lambda: [
                                       _squash(o.get("alt")) for o in meaningful]), strict=True)
                                   if o is not f and other == alt]
        figures.append(item)
    return {"figures": figures, "tagged": any(s.get("tagged") for s in ev.doc_structure),
            "document_figures": len(meaningful),
            "document_figures_with_alt": _once(ev, "figures_with_alt", lambda: sum(
                1 for f in meaningful if f.get("alt") is not None or f.get("actual_text") is not None))}


def _meaningful(ev: DocEvidence) -> list[dict[str, Any]]:
    """The document's figures that are not small (icons, inline glyphs), in order (found once)."""
    return _once(ev, "meaningful_figures", lambda: [f for f in ev.figures if not f.get("small")])


def alt_words(text: str) -> list[str]:
    """Lower-case alphabetic words of four letters or more (shorter ones are mostly function words)."""
    letters = "".join(c if c.isalpha() else " " for c in text.lower())
    return [w for w in letters.split() if len(w) >= 4]


def _squash(text: str | None) -> str:
    """Text compared as a reader hears it: control characters dropped, spaces collapsed, case folded."""
    return " ".join("".join(c for c in (text or "") if c.isprintable()).split()).casefold()


def _text_vocabulary(ev: DocEvidence) -> set[str]:
    """Five-letter stems of every word the document shows (alt texts are not shown, captions are)."""
    return {w[:5] for span in ev.text_spans for w in alt_words(span.get("text") or "")}


def reading_order(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    if ev.extract_failed:
        return None
    # The element type tells a judge which units are headings; `chars` (of the first 200 the
    # record keeps) weighs units by how much text they hold; `bbox` says which share a line.
    types = _once(ev, "element_types", lambda: {e["elem_id"]: e["type"] for e in ev.struct_elements})
    units = [{k: r.get(k) for k in ("block_index", "struct_rank", "content_rank", "visual_rank", "column", "role",
                                    "marks", "bbox")}
             | {"text": _short(r.get("text")), "chars": len(r.get("text") or ""), "type": types.get(r.get("elem_id"))}
             # The order of an element's own marked-content sequences (lines), where it was measured.
             | {k: r[k] for k in MCID_ORDER_KEYS if r.get(k) is not None}
             for r in _page_rows(ev, "reading_order", page)]
    # Tab order of the page's annotations (PDF/UA-1 7.18.3): /Tabs and how many annotations there are.
    facts = next((p for p in ev.pages if p.get("page") == page), {})
    return {"units": units, "agreement": ev.order_agreement.get(page),
            "tagged": any(s.get("tagged") for s in ev.doc_structure),
            "document_units": len(ev.reading_order),
            "tabs": facts.get("tabs"), "annotation_count": facts.get("annotation_count")}


MCID_ORDER_KEYS = ("mcid_sequences", "mcid_back_steps", "mcid_column_switches")


def transcript(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    if ev.extract_failed or ev.transcript_failed:
        return None
    lines = [{"seq": t["seq"], "role": t["role"], "level": t.get("level"), "says": _short(t["announcement"])}
             for t in _page_rows(ev, "transcripts", page)]
    return {"announcements": lines[:300], "truncated": len(lines) > 300}


def table_crops(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    if ev.extract_failed:
        return None
    regions = [r.get("bbox") for r in _page_rows(ev, "layout_regions", page) if r.get("kind") == "table"]
    tables = [{"table": t["table_id"], "bbox": t.get("bbox"), "rows": t.get("rows"), "cols": t.get("cols"),
               "caption": _short(t.get("caption")), "crop_path": t.get("crop_path")}
              for t in _page_rows(ev, "tables", page)]
    return {"tables": tables, "layout_table_regions": regions, "document_tables": len(ev.tables)}


def table_tags(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    if ev.extract_failed:
        return None
    out = []
    page_cells = [e for e in _page_rows(ev, "struct_elements", page) if e["type"] in ("TH", "TD") and e.get("bbox")]
    for table in _page_rows(ev, "tables", page):
        cells = _once(ev, "cells_by_table", lambda: _by_key(ev.table_cells, "table_id")).get(table["table_id"], [])
        keep = ("table_id", "rows", "cols", "header_rows", "header_cols", "th_count", "td_count", "has_scope",
                "has_headers_attr", "spans", "tagged", "source", "issues")
        extra: dict[str, Any] = {}
        if not table.get("tagged") and table.get("bbox"):
            # A drawn table whose cells are TH/TD of a Table element on another page (a table
            # continued across pages) is tagged after all: count the cell tags inside its box.
            extra["tagged_cells_inside"] = sum(1 for e in page_cells
                                               if geometry.centre_inside(e["bbox"], table["bbox"]))
        out.append({**{k: table.get(k) for k in keep}, **extra, "cells": [
            {"row": c["row"], "col": c["col"], "kind": c.get("kind"), "scope": c.get("scope"),
             "text": _short(c.get("text")), "rowspan": c.get("rowspan"), "colspan": c.get("colspan"),
             "headers": c.get("associated_headers")} for c in cells[:200]]})
    return {"tables": out, "tagged": any(s.get("tagged") for s in ev.doc_structure)}


CONTRAST_FIELDS = ("text", "size", "bold", "color", "background_color", "contrast_ratio", "large_text", "threshold",
                   "passes", "char_count", "bbox")


def color_values(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    if ev.extract_failed:
        return None
    spans = [s for s in _page_rows(ev, "text_spans", page) if s.get("contrast_ratio") is not None]
    visible = [s for s in spans if not s.get("invisible")]
    chars = sum(int(s.get("char_count") or 0) for s in visible)
    failing = [s for s in visible if s.get("passes") is False]
    worst = sorted(visible, key=lambda s: s["contrast_ratio"])[:40]
    return {
        "spans": [{k: (round(s[k], 2) if isinstance(s.get(k), float) else s.get(k)) for k in CONTRAST_FIELDS}
                  | {"text": _short(s.get("text"))} for s in worst],
        "min_ratio": min((s["contrast_ratio"] for s in visible), default=None),
        "visible_chars": chars,
        "failing_chars": sum(int(s.get("char_count") or 0) for s in failing),
        "invisible_chars": sum(int(s.get("char_count") or 0) for s in spans if s.get("invisible")),
        "failing": _failing_runs(visible),
        # Figures, for the non-text contrast of graphics (measured on the page image by a judge).
        "figures": [{"figure": f["figure_index"], "bbox": f.get("bbox"), "kind": f.get("kind"),
                     "small": f.get("small"), "is_artifact": f.get("is_artifact"), "caption": _short(f.get("caption"))}
                    for f in _page_rows(ev, "figures", page)],
        "document_visible_chars": _once(ev, "measured_chars", lambda: sum(
            int(s.get("char_count") or 0) for s in ev.text_spans
            if s.get("contrast_ratio") is not None and not s.get("invisible"))),
    }


def _failing_runs(visible: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The failing spans in page order, each with ``run``: spans read one after another (no passing
    visible span between them) share a run, so a faint sentence is one run and a faint label its own."""
    out: list[dict[str, Any]] = []
    run, previous_failed = -1, False
    for span in sorted(visible, key=lambda s: s.get("span_index") or 0):
        failed = span.get("passes") is False
        if failed:
            run += 0 if previous_failed else 1
            out.append({k: (round(span[k], 2) if isinstance(span.get(k), float) else span.get(k))
                        for k in CONTRAST_FIELDS}
                       | {"text": _short(span.get("text")), "run": run,
                          "glyphs": len("".join((span.get("text") or "").split()))})  # letter-spacing aside
        previous_failed = failed
    return out[:300]


def page_image(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    for row in ev.pages:
        if row["page"] == page:
            return {"width_pt": row.get("width_pt"), "height_pt": row.get("height_pt"),
                    "has_text": row.get("has_text"), "image_count": row.get("image_count")}
    return None


BUILDERS: dict[str, Callable[[DocEvidence, int], dict[str, Any] | None]] = {
    "page_image": page_image,
    "tag_structure": tag_structure,
    "transcript": transcript,
    "figure_crops": figure_crops,
    "alt_texts": alt_texts,
    "reading_order": reading_order,
    "table_crops": table_crops,
    "table_tags": table_tags,
    "link_metadata": link_metadata,
    "color_values": color_values,
    "font_metadata": font_metadata,
}


def build_bundles(criterion: str, ev: DocEvidence, *, withhold: bool, screening: bool = False,
                  built: dict[tuple[str, int], Any] | None = None) -> list[tuple[PageBundle, list[str]]]:
    """One bundle per page, with the names of the evidence withheld by the protocol.

    The criterion's carrier item (judges.conformance.CARRIER) also says whether the document is screened
    (no expected label) and holds the PDF/UA-1 validator's failures folded into the criterion: findings, which
    the paper's models never see (FINDINGS). `built` keeps each evidence item of `ev` (by name and page) across
    calls for several criteria of the same evidence (a screened file is one document per criterion): an item
    depends on the evidence and the page only, and is never changed once built."""
    page_numbers: Iterable[int] = sorted({p["page"] for p in ev.pages}) or [1]
    carrier, first = CARRIER.get(criterion), _first_page(ev)
    image_paths = {p["page"]: p.get("image_path") for p in ev.pages}
    bundles = []
    for page in page_numbers:
        evidence: dict[str, Any] = {}
        withheld: list[str] = []
        for name, starred in EVIDENCE[criterion]:
            if withhold and starred:
                withheld.append(name)
                continue
            builder = BUILDERS.get(name)
            if built is not None and (name, page) in built:
                value = built[(name, page)]
            else:
                value = builder(ev, page) if builder else None
                if built is not None:
                    built[(name, page)] = value
            if isinstance(value, dict) and name == carrier:
                value = {**value, "screening": screening,
                         "conformance": evidence_failures(ev.conformance, criterion, page, first)}
            if value is not None:
                evidence[name] = value
        bundles.append((PageBundle(criterion, page, evidence, image_paths.get(page)), withheld))
    return bundles


# Keys that carry AccessBench's own findings (checks and verdicts computed from the evidence) rather
# than extracted facts. The rules judge reads them; the paper gave its models raw evidence only, so
# the LLM judge's `paper` mode shows a bundle through `paper_view`, which removes them.
FINDINGS: dict[str, frozenset[str]] = {
    # document: document-level facts (Lang, title, PDF/UA claim, permissions) the paper's models never saw
    # conformance: the PDF/UA-1 validator's failures; screening: a user's file, not a labelled item
    "tag_structure": frozenset({"nonstandard", "list_numbering", "bbox", "document", "continues_previous",
                                "conformance", "screening", "font", "title_h1", "h1_before", "artifact_text"}),
    "alt_texts": frozenset({"alt_words_not_in_text", "same_alt_as", "conformance", "screening"}),
    "reading_order": frozenset({"agreement", "visual_rank", "column", "mcid_back_steps", "mcid_column_switches"}),
    # headers: the cells our header algorithm associates
    "table_tags": frozenset({"issues", "headers", "conformance", "screening"}),
    "link_metadata": frozenset({"dest_valid", "uri_well_formed", "conformance", "screening"}),
    "color_values": frozenset({"passes", "threshold", "large_text", "failing", "failing_chars"}),
    "font_metadata": frozenset({"small_chars", "glyph_checks", "conformance", "screening"}),
}
EVIDENCE_MODES = ("paper", "enriched")


def _without(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def paper_view(name: str, value: Any) -> Any:
    """An evidence item as the paper gave it: extracted facts, none of our findings."""
    keys = FINDINGS.get(name)
    return _without(value, keys) if keys else value


def view(bundle: PageBundle, mode: str) -> dict[str, Any]:
    """The evidence of `bundle` in an evidence mode: `paper` (raw) or `enriched` (with our findings)."""
    if mode not in EVIDENCE_MODES:
        raise ValueError(f"unknown evidence mode {mode!r}; choose {' or '.join(EVIDENCE_MODES)}")
    if mode == "enriched":
        return bundle.evidence
    return {name: paper_view(name, value) for name, value in bundle.evidence.items()}
