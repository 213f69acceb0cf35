"""Reading the tag tree with pikepdf (object level: /S, /A, /Alt, /Pg, MCID and OBJR kids).

The traversal is iterative, visits each indirect object once (cyclic or shared trees
terminate) and stops after ``MAX_ELEMENTS`` elements. Types are resolved through the
RoleMap here; attributes (ClassMap, then /A) are read as plain JSON values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pikepdf

from extractors.source import PdfSource

MAX_ELEMENTS = 200_000

# PDF 1.7 standard structure types: RoleMap entries are followed until one of these.
PDF17_TYPES = frozenset({
    "Document", "Part", "Art", "Sect", "Div", "BlockQuote", "Caption", "TOC", "TOCI", "Index",
    "NonStruct", "Private", "P", "H", "H1", "H2", "H3", "H4", "H5", "H6", "L", "LI", "Lbl", "LBody",
    "Table", "TR", "TH", "TD", "THead", "TBody", "TFoot", "Span", "Quote", "Note", "Reference",
    "BibEntry", "Code", "Link", "Annot", "Ruby", "RB", "RT", "RP", "Warichu", "WT", "WP",
    "Figure", "Formula", "Form",
})
# PDF 2.0 additions count as standard when nothing maps them further.
_STANDARD_TYPES = PDF17_TYPES | {
    "DocumentFragment", "Aside", "Title", "FENote", "Sub", "Em", "Strong", "Artifact",
}
_HEADING_N = re.compile(r"H[1-9][0-9]*")
_MAX_ATTR_DEPTH = 4
_MAX_ATTR_ITEMS = 256  # Headers of a big table stay whole; pathological arrays do not

Box = list[float]
ObjGen = tuple[int, int]


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
    while current not in PDF17_TYPES and current in role_map and current not in seen:
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
        node = StructNode(obj, parent, depth, order, k_index, pdf_name(obj.get("/S")) or "", page)
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


def pdf_name(value: Any) -> str | None:
    """A PDF name without its slash; None for anything else."""
    if isinstance(value, pikepdf.Name):
        try:
            return str(value)[1:]
        except UnicodeDecodeError:  # a name with bytes that are not UTF-8: keep its #xx spelling
            return value.unparse()[1:].decode("ascii", "replace")
    return None


def pdf_text(value: Any) -> str | None:
    """A PDF text string (or name) as str; '' stays '' because empty Alt means something."""
    if isinstance(value, pikepdf.String):
        try:
            return str(value)
        except UnicodeDecodeError:
            return bytes(value).decode("latin-1")
    return pdf_name(value)


def _name_map(value: Any) -> dict[str, str]:
    if not isinstance(value, pikepdf.Dictionary):
        return {}
    out = {}
    for key, target in value.items():
        name = pdf_name(target)
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
            name = pdf_name(cls)
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
        return pdf_text(value)
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
