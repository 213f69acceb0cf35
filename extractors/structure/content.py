"""Content attribution: each element's own text and content box, from running the page through MuPDF.

Coordinates are PDF points, top-left origin, in the unrotated page space that
PyMuPDF's get_text() uses (text_spans and links use the same space).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pikepdf
import pymupdf
from pymupdf import mupdf

from common import geometry
from extractors.structure.tree import PDF17_TYPES, Box, StructNode

# Text device flags: our one-level structure blocks, text as drawn, nothing off-page.
STRUCTURE_TEXT_FLAGS = (
    pymupdf.TEXT_COLLECT_STRUCTURE
    | pymupdf.TEXT_PRESERVE_WHITESPACE
    | pymupdf.TEXT_PRESERVE_LIGATURES
    | pymupdf.TEXT_MEDIABOX_CLIP
)
STRUCT_BLOCK = 2  # the type of a structure block in MuPDF's text dict


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
class Content:
    parts: list[str] = field(default_factory=list)
    boxes: dict[int, Box] = field(default_factory=dict)  # page -> union of own content

    def add_box(self, page: int, box: Any) -> None:
        x0, y0, x1, y1 = (float(v) for v in box)
        if not (x1 > x0 and y1 > y0) or x1 - x0 > 1e6 or y1 - y0 > 1e6:
            return  # empty, or infinite (unbounded paths)
        current = self.boxes.get(page)
        self.boxes[page] = [x0, y0, x1, y1] if current is None else list(geometry.union(current, (x0, y0, x1, y1)))


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

    def __init__(self, resolver: _Resolver, text_device: Any, page: int, content: dict[int, Content]) -> None:
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
        # An element's ActualText or Alt. A PDF string that is not valid UTF-8 once decoded (a lone UTF-16
        # surrogate) reaches Python as surrogate escapes, which cannot go back to C: the call would raise
        # inside MuPDF's page run and the whole tag tree would be lost as "corrupt". Pass U+FFFD instead.
        if isinstance(text, str) and not text.isascii():
            try:
                raw = text.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                raw = text.encode("utf-8", "replace")
            text = raw.decode("utf-8", "replace")
        mupdf.ll_fz_begin_metatext(self.text_device, meta, text)

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
    for raw_type in {n.raw_type for n in nodes} - PDF17_TYPES - {""}:
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


def collect_content(doc: pymupdf.Document, qpdf: pikepdf.Pdf, nodes: list[StructNode]) -> dict[int, Content]:
    """Own text and content boxes of each element, page by page."""
    content: dict[int, Content] = defaultdict(Content)
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


def _add_text(own: Content, page: int, blocks: list[dict]) -> None:
    for block in blocks:
        for line in block.get("lines", ()):
            own.parts.append("".join(span["text"] for span in line["spans"]))
            for span in line["spans"]:
                if span["text"].strip():
                    own.add_box(page, span["bbox"])

