"""Tag tree: one record per structure element, plus a document-level summary.

The tree is read with pikepdf (object level: /S, /A, /Alt, /Pg, MCID and OBJR
kids). Each element's own text and bounding box come from running the page
through MuPDF, which reports the structure element around each piece of marked
content (see the "page content" section). The traversal is iterative, visits
each indirect object once (cyclic or shared trees terminate) and stops after
``MAX_ELEMENTS`` elements.

Coordinates are PDF points, top-left origin, in the unrotated page space that
PyMuPDF's get_text() uses (text_spans and links use the same space).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pikepdf
import pyarrow as pa
import pymupdf
from pymupdf import mupdf

from extractors.errors import ExtractionError, open_pdf, reading
from extractors.source import PdfSource, pdf_source

MAX_ELEMENTS = 200_000

_BBOX = pa.list_(pa.float32())

STRUCT_ELEMENTS_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("elem_id", pa.int32(), nullable=False),  # preorder index, 0-based
        pa.field("parent_id", pa.int32()),  # null for kids of StructTreeRoot
        pa.field("depth", pa.int32(), nullable=False),
        pa.field("order", pa.int32(), nullable=False),  # index among sibling elements
        pa.field("raw_type", pa.string(), nullable=False),  # /S as written
        pa.field("type", pa.string(), nullable=False),  # after RoleMap; raw if unknown
        pa.field("standard", pa.bool_()),  # `type` is a standard structure type (PDF 1.7/2.0)
        pa.field("page", pa.int32()),  # 1-based + page_offset
        pa.field("alt", pa.string()),
        pa.field("actual_text", pa.string()),
        pa.field("lang", pa.string()),
        pa.field("title", pa.string()),  # /T
        pa.field("attributes", pa.string(), nullable=False),  # JSON object, /C then /A
        pa.field("scope", pa.string()),  # Scope attribute: Row, Column, Both
        pa.field("elem_key", pa.string()),  # /ID
        pa.field("mcid_count", pa.int32(), nullable=False),
        pa.field("mcids", pa.list_(pa.int32()), nullable=False),  # in /K order
        pa.field("objr_count", pa.int32(), nullable=False),
        pa.field("objr_annots", pa.list_(pa.int32()), nullable=False),  # index in page /Annots
        pa.field("text", pa.string()),  # own marked content, whitespace-normalised
        pa.field("bbox", _BBOX),  # own content on `page`; PDF points, top-left origin
        pa.field("subtree_bbox", _BBOX),  # own content and descendants' on `page`
        pa.field("obj_num", pa.int32()),  # object number; null for direct objects
    ]
)

STRUCT_SUMMARY_SCHEMA = pa.schema(  # one row per PDF file; callers add doc_id
    [
        pa.field("tagged", pa.bool_(), nullable=False),  # StructTreeRoot with kids
        pa.field("marked", pa.bool_()),  # /MarkInfo /Marked; null when absent
        pa.field("has_rolemap", pa.bool_(), nullable=False),
        pa.field("element_count", pa.int32(), nullable=False),
        pa.field("truncated", pa.bool_(), nullable=False),  # stopped at MAX_ELEMENTS
        pa.field("repeated_refs", pa.int32(), nullable=False),  # cycles or shared kids
        pa.field("orphan_mcids", pa.int32()),  # page-content MCIDs the tree never cites
        pa.field("lang", pa.string()),  # catalog /Lang
        pa.field("has_title", pa.bool_(), nullable=False),  # Info or XMP title present
        pa.field("display_doc_title", pa.bool_()),  # ViewerPreferences; null when absent
        pa.field("pages", pa.int32()),
        pa.field("error", pa.string()),  # "kind: message" when the file is unreadable
    ]
)

# PDF 1.7 standard structure types: RoleMap entries are followed until one of these.
_PDF17_TYPES = frozenset({
    "Document", "Part", "Art", "Sect", "Div", "BlockQuote", "Caption", "TOC", "TOCI", "Index",
    "NonStruct", "Private", "P", "H", "H1", "H2", "H3", "H4", "H5", "H6", "L", "LI", "Lbl", "LBody",
    "Table", "TR", "TH", "TD", "THead", "TBody", "TFoot", "Span", "Quote", "Note", "Reference",
    "BibEntry", "Code", "Link", "Annot", "Ruby", "RB", "RT", "RP", "Warichu", "WT", "WP",
    "Figure", "Formula", "Form",
})
# PDF 2.0 additions count as standard when nothing maps them further.
_STANDARD_TYPES = _PDF17_TYPES | {
    "DocumentFragment", "Aside", "Title", "FENote", "Sub", "Em", "Strong", "Artifact",
}
_HEADING_N = re.compile(r"H[1-9][0-9]*")

# Text device flags: our one-level structure blocks, text as drawn, nothing off-page.
STRUCTURE_TEXT_FLAGS = (
    pymupdf.TEXT_COLLECT_STRUCTURE
    | pymupdf.TEXT_PRESERVE_WHITESPACE
    | pymupdf.TEXT_PRESERVE_LIGATURES
    | pymupdf.TEXT_MEDIABOX_CLIP
)
STRUCT_BLOCK = 2  # the type of a structure block in MuPDF's text dict
_MAX_ATTR_DEPTH = 4
_MAX_ATTR_ITEMS = 256  # Headers of a big table stay whole; pathological arrays do not

Box = list[float]
ObjGen = tuple[int, int]


# --------------------------------------------------------------------------- tree walk


@dataclass(slots=True)
class StructNode:
    """One structure element as found by :func:`read_struct_tree`."""

    obj: pikepdf.Dictionary
    parent: int | None
    depth: int
    order: int
    k_index: int  # position in the parent's /K array (MuPDF reports this)
    raw_type: str
    page: int | None  # 0-based page from /Pg, inherited, else from the kids
    mcids: list[tuple[int, int | None]] = field(default_factory=list)  # (mcid, page)
    objrs: list[tuple[ObjGen | None, int | None]] = field(default_factory=list)


@dataclass
class StructTree:
    """The elements of a tag tree in preorder, with what is needed to read them."""

    nodes: list[StructNode]
    role_map: dict[str, str]
    class_map: pikepdf.Dictionary | None
    page_of: dict[ObjGen, int]  # page object -> 0-based index
    truncated: bool = False
    repeated_refs: int = 0
    _types: dict[str, str] = field(default_factory=dict)

    def type_of(self, raw_type: str) -> str:
        """Standard type for ``raw_type`` after following the RoleMap (cycle-safe)."""
        if raw_type not in self._types:
            self._types[raw_type] = resolve_role(raw_type, self.role_map)
        return self._types[raw_type]

    def elem_by_objgen(self) -> dict[ObjGen, int]:
        return {n.obj.objgen: i for i, n in enumerate(self.nodes) if n.obj.is_indirect}


def is_standard_type(kind: str) -> bool:
    """A type assistive technology knows: a PDF 1.7/2.0 standard structure type (or Hn)."""
    return kind in _STANDARD_TYPES or bool(_HEADING_N.fullmatch(kind))


def resolve_role(raw_type: str, role_map: dict[str, str]) -> str:
    """Follow RoleMap from ``raw_type`` to a standard type; unknown types stay raw.

    PDF 2.0 names (Title, Em, ...) are still followed when the map lists them,
    because producers map them for PDF 1.7 readers.
    """
    current, seen = raw_type, set()
    while current not in _PDF17_TYPES and current in role_map and current not in seen:
        seen.add(current)
        current = role_map[current]
    if current in _STANDARD_TYPES or _HEADING_N.fullmatch(current):
        return current
    return raw_type


def read_struct_tree(pdf: pikepdf.Pdf, *, limit: int = MAX_ELEMENTS) -> StructTree:
    """Walk the tag tree of an open pikepdf document, iteratively and in preorder."""
    page_of: dict[ObjGen, int] = {page.obj.objgen: i for i, page in enumerate(pdf.pages)}
    root = pdf.Root.get("/StructTreeRoot")
    if not isinstance(root, pikepdf.Dictionary):
        return StructTree([], {}, None, page_of)
    class_map = root.get("/ClassMap")
    tree = StructTree(
        nodes=[],
        role_map=_name_map(root.get("/RoleMap")),
        class_map=class_map if isinstance(class_map, pikepdf.Dictionary) else None,
        page_of=page_of,
    )
    visited: set[ObjGen] = {root.objgen}
    # (object, parent id, depth, order, k_index, page inherited from /Pg)
    stack: list[tuple[pikepdf.Dictionary, int | None, int, int, int, int | None]] = []
    _push_kids(stack, _element_kids(root.get("/K")), None, 0, None)
    while stack:
        obj, parent, depth, order, k_index, inherited = stack.pop()
        if obj.is_indirect:
            if obj.objgen in visited:
                tree.repeated_refs += 1
                continue
            visited.add(obj.objgen)
        if len(tree.nodes) >= limit:
            tree.truncated = True
            break
        page = _page_index(page_of, obj.get("/Pg"), inherited)
        node = StructNode(obj, parent, depth, order, k_index, _name(obj.get("/S")) or "", page)
        elem_id = len(tree.nodes)
        tree.nodes.append(node)
        element_kids = _read_kids(node, page_of)
        _push_kids(stack, element_kids, elem_id, depth + 1, page)
        if node.page is None:  # no /Pg anywhere above: take the page of the content
            node.page = next((p for _, p in node.mcids + node.objrs if p is not None), None)
    return tree


def _push_kids(stack: list, kids: list[tuple[pikepdf.Dictionary, int]], parent: int | None,
               depth: int, page: int | None) -> None:
    # Reversed so that popping yields the kids in document order (preorder ids).
    for order in range(len(kids) - 1, -1, -1):
        kid, k_index = kids[order]
        stack.append((kid, parent, depth, order, k_index, page))


def _element_kids(k: Any) -> list[tuple[pikepdf.Dictionary, int]]:
    return [(kid, i) for i, kid in enumerate(_as_list(k)) if _is_element(kid)]


def _read_kids(node: StructNode, page_of: dict[ObjGen, int]) -> list[tuple[pikepdf.Dictionary, int]]:
    """Record the node's MCID and OBJR kids; return its element kids with /K index."""
    elements = []
    for k_index, kid in enumerate(_as_list(node.obj.get("/K"))):
        if isinstance(kid, int) and not isinstance(kid, bool):
            node.mcids.append((kid, node.page))
        elif not isinstance(kid, pikepdf.Dictionary):
            continue
        elif kid.get("/Type") == "/OBJR":
            node.objrs.append((_objgen(kid.get("/Obj")), _page_index(page_of, kid.get("/Pg"), node.page)))
        elif "/MCID" in kid:  # MCR; one with /Stm marks content in a form XObject, not the page
            mcid = kid.get("/MCID")
            if isinstance(mcid, int):
                page = None if "/Stm" in kid else _page_index(page_of, kid.get("/Pg"), node.page)
                node.mcids.append((mcid, page))
        elif "/S" in kid:
            elements.append((kid, k_index))
    return elements


def _is_element(obj: Any) -> bool:
    return isinstance(obj, pikepdf.Dictionary) and "/S" in obj and "/MCID" not in obj


def _as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, pikepdf.Array):
        return list(value)
    return [value]


def _page_index(page_of: dict[ObjGen, int], page: Any, default: int | None) -> int | None:
    """0-based index of the page object ``page`` (a /Pg value), else ``default``."""
    objgen = _objgen(page)
    return page_of.get(objgen, default) if objgen is not None else default


def _objgen(obj: Any) -> ObjGen | None:
    if isinstance(obj, pikepdf.Object) and obj.is_indirect:
        return obj.objgen
    return None


def _name(value: Any) -> str | None:
    if isinstance(value, pikepdf.Name):
        try:
            return str(value)[1:]
        except UnicodeDecodeError:  # a name with bytes that are not UTF-8: keep its #xx spelling
            return value.unparse()[1:].decode("ascii", "replace")
    return None


def _text(value: Any) -> str | None:
    """A PDF text string (or name) as str; '' stays '' because empty Alt means something."""
    if isinstance(value, pikepdf.String):
        try:
            return str(value)
        except UnicodeDecodeError:
            return bytes(value).decode("latin-1")
    return _name(value)


def _name_map(value: Any) -> dict[str, str]:
    if not isinstance(value, pikepdf.Dictionary):
        return {}
    out = {}
    for key, target in value.items():
        name = _name(target)
        if name is not None:
            out[key[1:]] = name
    return out


# --------------------------------------------------------------------------- attributes


def element_attributes(obj: pikepdf.Dictionary, class_map: pikepdf.Dictionary | None,
                       class_cache: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Attributes of an element: ClassMap classes first, then /A (which wins)."""
    merged: dict[str, Any] = {}
    if class_map is not None:
        cache = {} if class_cache is None else class_cache
        for cls in _as_list(obj.get("/C")):
            name = _name(cls)
            if name is None:
                continue
            if name not in cache:  # a few classes are shared by thousands of elements
                cache[name] = {}
                for attrs in _attribute_dicts(class_map.get("/" + name)):
                    cache[name].update(_attribute_items(attrs))
            merged.update(cache[name])
    for attrs in _attribute_dicts(obj.get("/A")):
        merged.update(_attribute_items(attrs))
    return merged


def _attribute_dicts(value: Any) -> list[pikepdf.Dictionary]:
    # /A is a dict or an array of dicts, each optionally followed by a revision number.
    return [item for item in _as_list(value) if isinstance(item, pikepdf.Dictionary)]


def _attribute_items(attrs: pikepdf.Dictionary) -> dict[str, Any]:
    return {key[1:]: _jsonable(value, 0) for key, value in attrs.items() if key != "/O"}


def _jsonable(value: Any, depth: int) -> Any:
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (pikepdf.Name, pikepdf.String)):
        return _text(value)
    if isinstance(value, pikepdf.Object) and value.is_indirect:
        # A reference (a font in a CSS attribute, a page, another element):
        # name it rather than inline a whole object graph.
        return f"{value.objgen[0]} {value.objgen[1]} R"
    if depth >= _MAX_ATTR_DEPTH:
        return None
    if isinstance(value, pikepdf.Array):
        return [_jsonable(item, depth + 1) for item in list(value)[:_MAX_ATTR_ITEMS]]
    if isinstance(value, pikepdf.Dictionary):
        return {key[1:]: _jsonable(item, depth + 1) for key, item in list(value.items())[:_MAX_ATTR_ITEMS]}
    return None  # streams and anything exotic


# --------------------------------------------------------------------------- page content
#
# How text reaches its element: MuPDF's interpreter reports the structure element
# around each piece of marked content (begin_structure with the element's /S and
# its index in the parent's /K). _StructureDevice listens to those calls, resolves
# them to our element ids, and forwards every text call to a MuPDF text device
# wrapped in a one-level "structure" whose index is our element id. MuPDF's text
# device then groups the text per element for us (it merges blocks with the same
# index), and we never parse text or fonts ourselves. Images and vector paths are
# measured directly in the device.


@dataclass(slots=True)
class _Content:
    parts: list[str] = field(default_factory=list)
    boxes: dict[int, Box] = field(default_factory=dict)  # page -> union of own content

    def add_box(self, page: int, box: Any) -> None:
        x0, y0, x1, y1 = (float(v) for v in box)
        if not (x1 > x0 and y1 > y0) or x1 - x0 > 1e6 or y1 - y0 > 1e6:
            return  # empty, or infinite (unbounded paths)
        current = self.boxes.get(page)
        self.boxes[page] = [x0, y0, x1, y1] if current is None else _union(current, [x0, y0, x1, y1])


def _union(a: Box, b: Box) -> Box:
    return [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]


class _Resolver:
    """Maps MuPDF's (parent, /K index, /S) to our element ids.

    MuPDF finds elements through the ParentTree and climbs their /P links, so a
    tree whose /P and /K disagree shows elements we did not reach (reported with
    index -1) or under another parent. Their kids are then looked for among the
    descendants of the nearest resolved ancestor, preferring the next in preorder.
    """

    def __init__(self, nodes: list[StructNode]) -> None:
        self.nodes = nodes
        self.by_slot = {(n.parent, n.k_index): i for i, n in enumerate(nodes)}
        self.by_key: dict[tuple[int, str], list[int]] = defaultdict(list)
        for i, n in enumerate(nodes):
            self.by_key[(n.k_index, n.raw_type)].append(i)
        self.last = -1

    def child(self, parent: int | None, index: int, raw: str) -> int | None:
        found = self.by_slot.get((parent, index))
        if found is None or self.nodes[found].raw_type != raw:
            found = self._search(parent, index, raw)
        if found is not None:
            self.last = found
        return found

    def _search(self, parent: int | None, index: int, raw: str) -> int | None:
        candidates = [c for c in self.by_key.get((index, raw), [])[:512] if self._descends(c, parent)]
        if not candidates:
            return None
        return next((c for c in candidates if c > self.last), candidates[0])

    def _descends(self, elem: int, ancestor: int | None) -> bool:
        if ancestor is None:
            return True
        current = self.nodes[elem].parent
        while current is not None:
            if current == ancestor:
                return True
            current = self.nodes[current].parent
        return False


class _StructureDevice(mupdf.FzDevice2):
    """Attributes the page's text, images and paths to structure elements."""

    def __init__(self, resolver: _Resolver, text_device: Any, page: int, content: dict[int, _Content]) -> None:
        super().__init__()
        for call in ("begin_structure", "end_structure", "fill_text", "stroke_text", "clip_text",
                     "clip_stroke_text", "ignore_text", "begin_metatext", "end_metatext",
                     "fill_image", "fill_image_mask", "fill_path", "stroke_path"):
            getattr(self, "use_virtual_" + call)()
        self.resolver, self.text_device, self.page, self.content = resolver, text_device, page, content
        self.stack: list[tuple[int | None, int | None]] = []  # (element or None, nearest resolved)
        self.open: int | None = None  # element whose block is open in the text device

    def current(self) -> int | None:
        return self.stack[-1][0] if self.stack else None

    def begin_structure(self, ctx: Any, standard: Any, raw: str, idx: int) -> None:
        context = self.stack[-1][1] if self.stack else None
        elem = self.resolver.child(context, idx, raw)
        self.stack.append((elem, elem if elem is not None else context))

    def end_structure(self, ctx: Any) -> None:
        if self.stack:
            self.stack.pop()

    def _text(self, text: Any, ctm: Any) -> None:
        elem = self.current()
        if elem != self.open:
            if self.open is not None:
                mupdf.ll_fz_end_structure(self.text_device)
            if elem is not None:
                mupdf.ll_fz_begin_structure(self.text_device, mupdf.FZ_STRUCTURE_SPAN, "e", elem)
            self.open = elem
        # Visible or not, text is text: forward everything as ignore_text.
        mupdf.ll_fz_ignore_text(self.text_device, text, ctm)

    def close(self) -> None:
        if self.open is not None:
            mupdf.ll_fz_end_structure(self.text_device)
            self.open = None

    def fill_text(self, ctx: Any, text: Any, ctm: Any, *rest: Any) -> None:
        self._text(text, ctm)

    def stroke_text(self, ctx: Any, text: Any, stroke: Any, ctm: Any, *rest: Any) -> None:
        self._text(text, ctm)

    def clip_text(self, ctx: Any, text: Any, ctm: Any, scissor: Any) -> None:
        self._text(text, ctm)

    def clip_stroke_text(self, ctx: Any, text: Any, stroke: Any, ctm: Any, scissor: Any) -> None:
        self._text(text, ctm)

    def ignore_text(self, ctx: Any, text: Any, ctm: Any) -> None:
        self._text(text, ctm)

    def begin_metatext(self, ctx: Any, meta: Any, text: Any) -> None:
        mupdf.ll_fz_begin_metatext(self.text_device, meta, text)  # marked-content ActualText

    def end_metatext(self, ctx: Any) -> None:
        mupdf.ll_fz_end_metatext(self.text_device)

    def fill_image(self, ctx: Any, image: Any, ctm: Any, *rest: Any) -> None:
        self._image(ctm)

    def fill_image_mask(self, ctx: Any, image: Any, ctm: Any, *rest: Any) -> None:
        self._image(ctm)

    def _image(self, m: Any) -> None:
        elem = self.current()
        if elem is not None:  # an image fills the unit square mapped by its CTM
            xs = (m.e, m.a + m.e, m.c + m.e, m.a + m.c + m.e)
            ys = (m.f, m.b + m.f, m.d + m.f, m.b + m.d + m.f)
            self.content[elem].add_box(self.page, (min(xs), min(ys), max(xs), max(ys)))

    def fill_path(self, ctx: Any, path: Any, even_odd: Any, ctm: Any, *rest: Any) -> None:
        self._path(path, None, ctm)

    def stroke_path(self, ctx: Any, path: Any, stroke: Any, ctm: Any, *rest: Any) -> None:
        self._path(path, stroke, ctm)

    def _path(self, path: Any, stroke: Any, ctm: Any) -> None:
        elem = self.current()
        if elem is not None:
            r = mupdf.ll_fz_bound_path(path, stroke, ctm)
            self.content[elem].add_box(self.page, (r.x0, r.y0, r.x1, r.y1))


def _prepare_for_mupdf(doc: pymupdf.Document, qpdf: pikepdf.Pdf, nodes: list[StructNode]) -> None:
    """Edit our in-memory copy so that MuPDF reports structure the way we need it.

    Two MuPDF habits get in the way. It follows only one RoleMap step and reports
    nothing for elements whose type it then does not know, so their content lands
    in the parent: we map every non-standard type straight to NonStruct (we
    resolve types ourselves; MuPDF only has to report the element). And it changes
    the current element only when a new MCID sequence begins, so artifacts drawn
    after an EMC are reported inside the element before them (page footers end up
    in the last paragraph): after every EMC that closes the outermost MCID sequence
    we insert an empty sequence whose MCID points to an element of an unknown type
    under the root, which closes the open elements. The file is never written. All
    edits happen before any page runs, because MuPDF checks the tree only once.
    """
    pdf = mupdf.pdf_specifics(doc.this)
    root = mupdf.pdf_dict_getl(mupdf.pdf_trailer(pdf), _pdf_name("Root"), _pdf_name("StructTreeRoot"))
    if not mupdf.pdf_is_dict(root):
        return
    role_map = mupdf.pdf_dict_get(root, _pdf_name("RoleMap"))
    if not mupdf.pdf_is_dict(role_map):
        role_map = mupdf.pdf_dict_put_dict(root, _pdf_name("RoleMap"), 8)
    for raw_type in {n.raw_type for n in nodes} - _PDF17_TYPES - {""}:
        mupdf.pdf_dict_put(role_map, _pdf_name(raw_type), _pdf_name("NonStruct"))
    parent_tree = mupdf.pdf_dict_get(root, _pdf_name("ParentTree"))
    if not mupdf.pdf_is_dict(parent_tree):
        return
    for page_no, page in enumerate(qpdf.pages[: doc.page_count]):
        try:
            _mark_gaps(doc, pdf, root, parent_tree, page_no, page)
        except (pikepdf.PdfError, RuntimeError, ValueError):
            continue  # unparsable content: keep MuPDF's attribution on this page


def _mark_gaps(doc: pymupdf.Document, pdf: Any, root: Any, parent_tree: Any, page_no: int, page: pikepdf.Page) -> None:
    key = page.obj.get("/StructParents")
    if not isinstance(key, int):
        return
    kids = mupdf.pdf_lookup_number(parent_tree, key)
    if not mupdf.pdf_is_array(kids):
        return
    content = doc.load_page(page_no).read_contents()
    ends = _gap_offsets(page, content)
    if not ends:
        return
    # Edit MuPDF's own parent tree object in place; MuPDF only accepts an MCID
    # whose element lists it in /K.
    marker_mcid = mupdf.pdf_array_len(kids)
    marker = mupdf.pdf_add_new_dict(pdf, 3)
    mupdf.pdf_dict_put(marker, _pdf_name("S"), _pdf_name("AccessBenchUntagged"))
    mupdf.pdf_dict_put(marker, _pdf_name("P"), root)
    mupdf.pdf_dict_put_int(marker, _pdf_name("K"), marker_mcid)
    mupdf.pdf_array_push(kids, marker)
    sequence = b"\n/AccessBenchUntagged <</MCID %d>> BDC EMC\n" % marker_mcid
    pieces, start = [], 0
    for end in ends:
        pieces += [content[start:end], sequence]
        start = end
    pieces.append(content[start:])
    stream = doc.get_new_xref()  # a new stream: the old one may be shared with other pages
    doc.update_object(stream, "<<>>")
    doc.update_stream(stream, b"".join(pieces), new=True, compress=False)
    doc.xref_set_key(doc.page_xref(page_no), "Contents", f"{stream} 0 R")


def _pdf_name(name: str) -> Any:
    return mupdf.pdf_new_name(name)


# Marked-content operators in raw content. The quick pattern is right unless a
# string, comment or inline image spells "EMC"; the careful one skips those.
# Either is accepted only when it agrees with qpdf's own parse.
_MC_QUICK = re.compile(rb"(?<![^\s\]>)}])(BDC|BMC|EMC)(?![^\s\[/(<%])")
_MC_TOKENS = re.compile(
    rb"\((?:[^()\\]|\\.|\((?:[^()\\]|\\.|\([^()]*\))*\))*\)"  # literal string, nested twice
    rb"|<[0-9A-Fa-f\s]*>"  # hex string
    rb"|%[^\r\n]*"  # comment
    rb"|(?<![^\s\]>)])BI(?=\s).*?\sEI(?=\s|$)"  # inline image
    rb"|(?<![^\s\]>)}])(BDC|BMC|EMC)(?![^\s\[/(<%])",
    re.S,
)


def _gap_offsets(page: pikepdf.Page, content: bytes) -> list[int]:
    """Byte offsets just after each EMC that closes the outermost MCID sequence.

    qpdf parses the marked-content operators (robustly, with their property
    lists); a regex finds where they are. If the two disagree we mark nothing.
    """
    operators = pikepdf.parse_content_stream(page, "BDC BMC EMC")
    expected = [bytes(str(i.operator), "ascii") for i in operators]
    found = [(m.group(1), m.end()) for m in _MC_QUICK.finditer(content)]
    if [op for op, _ in found] != expected:
        found = [(m.group(1), m.end()) for m in _MC_TOKENS.finditer(content) if m.group(1)]
        if [op for op, _ in found] != expected:
            return []
    resources = page.obj.get("/Resources")
    properties = resources.get("/Properties") if isinstance(resources, pikepdf.Dictionary) else None
    ends, open_sequences = [], []  # does each open sequence carry an MCID?
    for instruction, (_, end) in zip(operators, found, strict=True):
        operator = str(instruction.operator)
        if operator == "BDC":
            open_sequences.append(_has_mcid(instruction.operands, properties))
        elif operator == "BMC":
            open_sequences.append(False)
        elif open_sequences and open_sequences.pop() and not any(open_sequences):
            ends.append(end)
    return ends


def _has_mcid(operands: Any, properties: Any) -> bool:
    if len(operands) < 2:
        return False
    props = operands[1]
    if isinstance(props, pikepdf.Name) and isinstance(properties, pikepdf.Dictionary):
        props = properties.get(props)  # /Tag /Name BDC: properties from the page resources
    return isinstance(props, pikepdf.Dictionary) and "/MCID" in props


def _collect_content(doc: pymupdf.Document, qpdf: pikepdf.Pdf, nodes: list[StructNode]) -> dict[int, _Content]:
    """Own text and content boxes of each element, page by page."""
    content: dict[int, _Content] = defaultdict(_Content)
    resolver = _Resolver(nodes)
    _prepare_for_mupdf(doc, qpdf, nodes)
    options = mupdf.FzStextOptions()
    options.flags = STRUCTURE_TEXT_FLAGS
    for page_no in range(min(doc.page_count, len(qpdf.pages))):
        resolver.last = -1
        page = doc.load_page(page_no)
        # Unrotated page space, as PyMuPDF's get_text() reports it for every other table.
        ctm = mupdf.FzMatrix(*page.derotation_matrix)
        text_page = mupdf.FzStextPage(mupdf.fz_transform_rect(mupdf.fz_bound_page(page.this), ctm))
        text_device = mupdf.fz_new_stext_device(text_page, options)
        device = _StructureDevice(resolver, text_device.m_internal, page_no, content)
        # Page contents only: annotation appearances carry no marked content.
        mupdf.fz_run_page_contents(page.this, device, ctm, mupdf.FzCookie())
        device.close()
        mupdf.fz_close_device(text_device)
        for block in pymupdf.TextPage(text_page).extractDICT()["blocks"]:
            if block["type"] == STRUCT_BLOCK:
                _add_text(content[block["index"]], page_no, block["blocks"])
    return content


def _add_text(own: _Content, page: int, blocks: list[dict]) -> None:
    for block in blocks:
        for line in block.get("lines", ()):
            own.parts.append("".join(span["text"] for span in line["spans"]))
            for span in line["spans"]:
                if span["text"].strip():
                    own.add_box(page, span["bbox"])


# --------------------------------------------------------------------------- records


def extract_struct_elements(pdf: str | Path | PdfSource, *, doc_id: str, page_offset: int = 0) -> list[dict]:
    """One record per structure element, in preorder; [] for an untagged PDF.

    Raises ExtractionError for unreadable input.
    """
    with pdf_source(pdf) as source, reading(source, "tag tree"):
        tree = source_struct_tree(source)
        if not tree.nodes:
            return []
        # A private PyMuPDF copy: _collect_content edits it in memory, other extractors must not see that.
        with open_pdf(source.path) as doc:
            content = _collect_content(doc, source.qpdf, tree.nodes)
        return _records(tree, content, source_annotation_index(source), doc_id, page_offset)


def source_struct_tree(source: PdfSource) -> StructTree:
    """The tag tree of ``source``, read once however many extractors ask for it."""
    return source.memo("struct_tree", lambda: read_struct_tree(source.qpdf))


def source_annotation_index(source: PdfSource) -> dict[ObjGen, tuple[int, int]]:
    """:func:`annotation_index` of ``source``, computed once."""
    return source.memo("annotation_index", lambda: annotation_index(source.qpdf))


def annotation_index(pdf: pikepdf.Pdf) -> dict[ObjGen, tuple[int, int]]:
    """Indirect annotation -> (0-based page, index in that page's /Annots)."""
    index: dict[ObjGen, tuple[int, int]] = {}
    for page_no, page in enumerate(pdf.pages):
        for i, annot in enumerate(_as_list(page.obj.get("/Annots"))):
            if isinstance(annot, pikepdf.Dictionary) and annot.is_indirect:
                index.setdefault(annot.objgen, (page_no, i))
    return index


def _records(tree: StructTree, content: dict[int, _Content], annot_index: dict[ObjGen, tuple[int, int]],
             doc_id: str, page_offset: int) -> list[dict]:
    pages = _element_pages(tree.nodes, content)
    own_boxes = [_own_box(content.get(i), pages[i]) for i in range(len(tree.nodes))]
    subtree_boxes = _subtree_boxes(tree.nodes, pages, own_boxes)
    records = []
    class_cache: dict[str, dict[str, Any]] = {}
    for i, node in enumerate(tree.nodes):
        obj = node.obj
        attributes = element_attributes(obj, tree.class_map, class_cache)
        scope = attributes.get("Scope")
        own = content.get(i)
        text = " ".join(" ".join(own.parts).split()) if own is not None else ""
        records.append(
            {
                "doc_id": doc_id,
                "elem_id": i,
                "parent_id": node.parent,
                "depth": node.depth,
                "order": node.order,
                "raw_type": node.raw_type,
                "type": tree.type_of(node.raw_type),
                "standard": is_standard_type(tree.type_of(node.raw_type)),
                "page": _numbered(pages[i], page_offset),
                "alt": _text(obj.get("/Alt")),
                "actual_text": _text(obj.get("/ActualText")),
                "lang": _text(obj.get("/Lang")),
                "title": _text(obj.get("/T")),
                "attributes": json.dumps(attributes, ensure_ascii=False, sort_keys=True),
                "scope": scope if isinstance(scope, str) else None,
                "elem_key": _text(obj.get("/ID")),
                "mcid_count": len(node.mcids),
                "mcids": [mcid for mcid, _ in node.mcids],
                "objr_count": len(node.objrs),
                "objr_annots": [annot_index[og][1] for og, _ in node.objrs if og in annot_index],
                "text": text or None,
                "bbox": _rounded(own_boxes[i]),
                "subtree_bbox": _rounded(subtree_boxes[i]),
                "obj_num": obj.objgen[0] if obj.is_indirect else None,
            }
        )
    return records


def _element_pages(nodes: list[StructNode], content: dict[int, _Content]) -> list[int | None]:
    """0-based page of each element: /Pg (own or inherited), else its MCRs/OBJRs,
    else the first page its own content is on, else the page of its first
    descendant that has one (a Table without /Pg is on the page of its first cell)."""
    pages: list[int | None] = []
    for i, node in enumerate(nodes):
        own = content.get(i)
        page = node.page
        if page is None and own is not None and own.boxes:
            page = min(own.boxes)
        pages.append(page)
    # Reverse preorder: every child is settled before its parent, and the earliest
    # child is seen last, so it wins.
    for i in range(len(nodes) - 1, -1, -1):
        parent = nodes[i].parent
        if parent is not None and nodes[parent].page is None and pages[i] is not None:
            first_own = content.get(parent)
            if first_own is None or not first_own.boxes:
                pages[parent] = pages[i]
    return pages


def _own_box(own: _Content | None, page: int | None) -> Box | None:
    if own is None or page is None:
        return None
    return own.boxes.get(page)


def _subtree_boxes(nodes: list[StructNode], pages: list[int | None], own: list[Box | None]) -> list[Box | None]:
    boxes = list(own)
    # Reverse preorder visits every child before its parent.
    for i in range(len(nodes) - 1, -1, -1):
        parent, box = nodes[i].parent, boxes[i]
        if parent is None or box is None or pages[parent] != pages[i]:
            continue
        boxes[parent] = box if boxes[parent] is None else _union(boxes[parent], box)  # type: ignore[arg-type]
    return boxes


def _numbered(page: int | None, page_offset: int) -> int | None:
    return None if page is None else page + 1 + page_offset


def _rounded(box: Box | None) -> Box | None:
    return None if box is None else [round(v, 2) for v in box]


# --------------------------------------------------------------------------- summary

_MCID_IN_CONTENT = re.compile(rb"/MCID\s+(\d+)")


def struct_summary(pdf: str | Path | PdfSource) -> dict:
    """Document-level tagging facts (one PDF file); never raises for bad input (see ``error``)."""
    summary: dict[str, Any] = {
        "tagged": False, "marked": None, "has_rolemap": False,
        "element_count": 0, "truncated": False, "repeated_refs": 0, "orphan_mcids": None,
        "lang": None, "has_title": False, "display_doc_title": None, "pages": None, "error": None,
    }
    try:
        with pdf_source(pdf) as source:
            tree = source_struct_tree(source)
            summary.update(_summarise(source.qpdf, tree))
            if tree.nodes:
                summary["orphan_mcids"] = _count_orphan_mcids(source, tree)
    except ExtractionError as exc:
        summary["error"] = str(exc)
    except (pikepdf.PdfError, mupdf.FzErrorBase) as exc:
        summary["error"] = str(ExtractionError("corrupt", f"cannot read the catalog ({exc})"))
    return summary


def _summarise(qpdf: pikepdf.Pdf, tree: StructTree) -> dict[str, Any]:
    catalog = qpdf.Root
    mark_info = catalog.get("/MarkInfo")
    marked = mark_info.get("/Marked") if isinstance(mark_info, pikepdf.Dictionary) else None
    prefs = catalog.get("/ViewerPreferences")
    display_title = prefs.get("/DisplayDocTitle") if isinstance(prefs, pikepdf.Dictionary) else None
    return {
        "tagged": bool(tree.nodes),
        "marked": marked if isinstance(marked, bool) else None,
        "has_rolemap": bool(tree.role_map),
        "element_count": len(tree.nodes),
        "truncated": tree.truncated,
        "repeated_refs": tree.repeated_refs,
        "lang": _text(catalog.get("/Lang")),
        "has_title": _has_title(qpdf),
        "display_doc_title": display_title if isinstance(display_title, bool) else None,
        "pages": len(qpdf.pages),
    }


def _has_title(qpdf: pikepdf.Pdf) -> bool:
    # Only presence: the title's value can leak a benchmark item's identity.
    title = qpdf.docinfo.get("/Title") if qpdf.trailer.get("/Info") is not None else None
    if _text(title):
        return True
    metadata = qpdf.Root.get("/Metadata")
    if isinstance(metadata, pikepdf.Stream):
        try:
            return b"<dc:title" in metadata.read_bytes()
        except pikepdf.PdfError:
            return False
    return False


def _count_orphan_mcids(source: PdfSource, tree: StructTree) -> int:
    """MCIDs in page content streams that no element cites for that page.

    A regex over the decoded content is enough here and costs well under a
    millisecond per page; MCIDs inside form XObjects are not counted.
    """
    cited: dict[int, set[int]] = defaultdict(set)
    for node in tree.nodes:
        for mcid, page_no in node.mcids:
            if page_no is not None:
                cited[page_no].add(mcid)
    orphans = 0
    for page in source.pages():
        used = {int(m) for m in _MCID_IN_CONTENT.findall(page.read_contents())}
        orphans += len(used - cited[page.number])
    return orphans


def record_attributes(record: dict) -> dict[str, Any]:
    """The attribute dict of a struct_elements record (its JSON `attributes`), {} when unreadable."""
    try:
        value = json.loads(record["attributes"] or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
