"""Page content-stream helpers: which structure element owns each marked-content sequence,
where it is painted, and targeted edits of the operators inside it.

Edits that only touch operators inside chosen marked-content sequences keep the tag tree,
the text and the layout identical, so a variant differs from its base only in the property
the mutation is about (here: a fill colour).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pikepdf
from pikepdf import Dictionary, Name, Operator

from corpus.mutations.structure import PdfObject, iter_struct_elements, kids, struct_root

FILL_COLOUR_OPS = {"g", "rg", "k", "sc", "scn"}
PAINT_OPS = {"Tj", "TJ", "'", '"', "Do", "f", "F", "f*", "B", "B*", "b", "b*", "S", "s", "sh"}
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)

# Owner of a marked-content sequence -> True when the edit applies to it.
OwnerTest = Callable[[PdfObject], bool]
# (operator, operands) -> replacement instructions, for operators inside selected sequences.
Rewrite = Callable[[str, list[Any]], list[pikepdf.ContentStreamInstruction]]


@dataclass(frozen=True)
class Origin:
    """Where a marked-content sequence starts painting (PDF user space, y grows upwards)."""

    page: int
    x: float
    y: float


def instruction(operands: list[Any], operator: str) -> pikepdf.ContentStreamInstruction:
    return pikepdf.ContentStreamInstruction(operands, Operator(operator))


def _multiply(m: Matrix, n: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + b * c2, a * b2 + b * d2, c * a2 + d * c2, c * b2 + d * d2,
            e * a2 + f * c2 + e2, e * b2 + f * d2 + f2)


def page_owners(pdf: pikepdf.Pdf, page: pikepdf.Page) -> dict[int, PdfObject]:
    """MCID -> owning structure element for one page, from the ``/ParentTree``."""
    root = struct_root(pdf)
    if "/StructParents" not in page.obj or "/ParentTree" not in root:
        return {}
    entry = pikepdf.NumberTree(root.ParentTree).get(int(page.obj.StructParents))
    if entry is None:
        return {}
    return {mcid: owner for mcid, owner in enumerate(entry) if isinstance(owner, Dictionary)}


def _mcid(op: Any) -> int | None:
    if str(op.operator) != "BDC":
        return None
    props = op.operands[1]
    if isinstance(props, Dictionary) and "/MCID" in props:
        return int(props.MCID)
    return None


def rewrite_owned(pdf: pikepdf.Pdf, select: OwnerTest, rewrite: Rewrite, operators: set[str]) -> int:
    """Rewrite ``operators`` inside marked content whose owner ``select`` accepts; return how many."""
    changed = 0
    for page in pdf.pages:
        owners = page_owners(pdf, page)
        selected = {mcid for mcid, owner in owners.items() if select(owner)}
        if not selected:
            continue
        out: list[Any] = []
        depth: list[bool] = []  # per open marked-content sequence: is it (inside) a selected one?
        for op in pikepdf.parse_content_stream(page):
            name = str(op.operator)
            if name in {"BDC", "BMC"}:
                mcid = _mcid(op)
                depth.append(bool(depth and depth[-1]) or (mcid is not None and mcid in selected))
            elif name == "EMC" and depth:
                depth.pop()
            if depth and depth[-1] and name in operators:
                out.extend(rewrite(name, list(op.operands)))
                changed += 1
            else:
                out.append(op)
        page.obj.Contents = pdf.make_stream(pikepdf.unparse_content_stream(out))
    return changed


def recolour_fill(pdf: pikepdf.Pdf, select: OwnerTest, rgb: tuple[float, float, float]) -> int:
    """Set the fill colour (the colour text is painted with) of selected content to ``rgb``."""
    def rewrite(_name: str, _operands: list[Any]) -> list[pikepdf.ContentStreamInstruction]:
        # rg switches to DeviceRGB whatever space the original operator used (ICC grey or RGB).
        return [instruction([round(v, 4) for v in rgb], "rg")]

    return rewrite_owned(pdf, select, rewrite, FILL_COLOUR_OPS)


def _painted_origins(page: pikepdf.Page) -> Iterator[tuple[int, float, float]]:
    """(mcid, x, y) for the first painting operator inside each MCID sequence of a page."""
    ctm, stack = IDENTITY, []
    text_matrix = IDENTITY
    open_mcids: list[int | None] = []
    seen: set[int] = set()
    for op in pikepdf.parse_content_stream(page):
        name = str(op.operator)
        if name == "q":
            stack.append(ctm)
        elif name == "Q" and stack:
            ctm = stack.pop()
        elif name == "cm":
            ctm = _multiply(tuple(float(v) for v in op.operands), ctm)  # type: ignore[arg-type]
        elif name == "BT":
            text_matrix = IDENTITY
        elif name == "Tm":
            text_matrix = tuple(float(v) for v in op.operands)  # type: ignore[assignment]
        elif name in {"Td", "TD"}:
            tx, ty = (float(v) for v in op.operands)
            text_matrix = _multiply((1, 0, 0, 1, tx, ty), text_matrix)
        elif name in {"BDC", "BMC"}:
            open_mcids.append(_mcid(op))
        elif name == "EMC" and open_mcids:
            open_mcids.pop()
        elif name in PAINT_OPS:
            current = next((m for m in reversed(open_mcids) if m is not None), None)
            if current is not None and current not in seen:
                seen.add(current)
                start = _multiply(text_matrix, ctm) if name in {"Tj", "TJ", "'", '"'} else ctm
                yield current, start[4], start[5]


def element_origins(pdf: pikepdf.Pdf) -> dict[tuple[int, int], Origin]:
    """Structure element (by objgen) -> where its first marked content is painted.

    An element's position is its first MCID in tree order, searched through its descendants,
    so containers (L, Table, Div) get the position of their first visible content.
    """
    by_mcid: dict[tuple[tuple[int, int], int], Origin] = {}
    for index, page in enumerate(pdf.pages):
        for mcid, x, y in _painted_origins(page):
            by_mcid[(page.obj.objgen, mcid)] = Origin(index, x, y)
    origins: dict[tuple[int, int], Origin] = {}
    for elem in iter_struct_elements(pdf):
        origin = _first_origin(elem, by_mcid)
        if origin is not None:
            origins[elem.objgen] = origin
    return origins


def _first_origin(elem: PdfObject, by_mcid: dict[tuple[tuple[int, int], int], Origin]) -> Origin | None:
    stack = [(k, elem) for k in reversed(kids(elem))]
    while stack:
        kid, owner = stack.pop()
        page = owner.get("/Pg")
        if isinstance(kid, Dictionary) and kid.get("/Type") == Name.MCR:
            page, kid = kid.get("/Pg", page), int(kid.MCID)
        if isinstance(kid, int):
            if page is not None and (page.objgen, kid) in by_mcid:
                return by_mcid[(page.objgen, kid)]
        elif isinstance(kid, Dictionary) and "/S" in kid:
            stack.extend((k, kid) for k in reversed(kids(kid)))
    return None


def block_role(elem: PdfObject) -> str:
    """The nearest block-level structure type at or above ``elem`` (``"/P"`` for a Link in a P)."""
    inline = {"/Span", "/Link", "/Strong", "/Em", "/Lbl", "/Code", "/Quote", "/Reference", "/BibEntry"}
    node: PdfObject | None = elem
    while isinstance(node, Dictionary) and "/S" in node:
        if str(node.S) not in inline:
            return str(node.S)
        node = node.get("/P")
    return str(elem.get("/S", ""))


def within(elem: PdfObject, types: set[str]) -> bool:
    """Whether ``elem`` or one of its ancestors has one of ``types``."""
    node: PdfObject | None = elem
    while isinstance(node, Dictionary) and "/S" in node:
        if str(node.S) in types:
            return True
        node = node.get("/P")
    return False
