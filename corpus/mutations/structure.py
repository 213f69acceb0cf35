"""Structure-tree and annotation helpers shared by the mutations.

They edit the real structures typst writes: elements under ``/StructTreeRoot`` (``/K`` kids,
``/P`` parents), the ``/ParentTree`` that maps marked content and annotations back to
elements, link annotations and the ``/Dests`` name tree.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pikepdf
from pikepdf import Array, Dictionary, Name

Mutation = Callable[[pikepdf.Pdf, random.Random], None]
# pikepdf's Dictionary/Array are runtime type tests; statically every PDF object is an Object.
PdfObject = pikepdf.Object

HEADING_TYPES = tuple(f"/H{n}" for n in range(1, 7))


class NotApplicable(Exception):
    """The document has none of the structures this mutation edits."""


def struct_root(pdf: pikepdf.Pdf) -> PdfObject:
    root = pdf.Root.get("/StructTreeRoot")
    if root is None:
        raise NotApplicable("document is untagged")
    return root


def kids(node: PdfObject) -> list[Any]:
    """The ``/K`` entry as a list (PDF allows a single kid without an array).

    Kids are structure elements, OBJR/MCR dictionaries or bare MCIDs (pikepdf gives ints).
    """
    k = node.get("/K")
    if k is None:
        return []
    return list(k) if isinstance(k, Array) else [k]


def set_kids(node: PdfObject, new_kids: list[Any]) -> None:
    if new_kids:
        node.K = Array(new_kids)
    elif "/K" in node:
        del node["/K"]


def stype(elem: PdfObject) -> str:
    """The element's structure type as a plain string, e.g. ``"/H1"``."""
    return str(elem.get("/S", ""))


def is_struct_elem(obj: object) -> bool:
    # OBJR and MCR dictionaries also live in /K; only structure elements carry /S.
    return isinstance(obj, Dictionary) and "/S" in obj


def iter_struct_elements(pdf: pikepdf.Pdf, top: PdfObject | None = None) -> Iterator[PdfObject]:
    """Structure elements in document (pre-)order, below ``top`` (default: the whole tree)."""
    stack = list(reversed(kids(top if top is not None else struct_root(pdf))))
    while stack:
        node = stack.pop()
        if is_struct_elem(node):
            yield node
            stack.extend(k for k in reversed(kids(node)) if is_struct_elem(k))


def elements_of(pdf: pikepdf.Pdf, *types: str) -> list[PdfObject]:
    return [e for e in iter_struct_elements(pdf) if stype(e) in types]


def document_element(pdf: pikepdf.Pdf) -> PdfObject:
    """The element whose kids are the document's top-level blocks (typst: a single Document)."""
    root = struct_root(pdf)
    top = [k for k in kids(root) if is_struct_elem(k)]
    if len(top) == 1 and stype(top[0]) == "/Document":
        return top[0]
    return root


def same(a: object, b: object) -> bool:
    return isinstance(a, pikepdf.Object) and isinstance(b, pikepdf.Object) and a.is_indirect \
        and b.is_indirect and a.objgen == b.objgen


def _as_movable(kid: Any, owner: PdfObject, new_parent: PdfObject) -> Any:
    """Prepare a kid for a move to ``new_parent``.

    A bare MCID is relative to its owner's /Pg; if the new parent sits on another page the
    MCID must become an explicit marked-content reference or it would point at the wrong page.
    """
    if isinstance(kid, int):
        page = owner.get("/Pg")
        if page is not None and not same(page, new_parent.get("/Pg")):
            return Dictionary(Type=Name.MCR, Pg=page, MCID=kid)
        return kid
    if is_struct_elem(kid):
        kid.P = new_parent
    return kid


def unwrap(elem: PdfObject, keep: Callable[[object], bool] = lambda _kid: True) -> None:
    """Replace ``elem`` in its parent by its kids (those ``keep`` accepts)."""
    parent = elem.P
    moved = [_as_movable(k, elem, parent) for k in kids(elem) if keep(k)]
    new_kids: list[Any] = []
    for kid in kids(parent):
        new_kids.extend(moved if same(kid, elem) else [kid])
    set_kids(parent, new_kids)


def is_objr(obj: object) -> bool:
    return isinstance(obj, Dictionary) and obj.get("/Type") == Name.OBJR


def rebuild_parent_tree(pdf: pikepdf.Pdf) -> None:
    """Recompute ``/ParentTree`` from the structure tree after elements moved or vanished.

    Readers resolve marked content and annotations to elements through this tree, so it has
    to agree with /K. Page keys map MCIDs to their owners; annotation keys map to the element
    holding the OBJR. Keys owned by neither (form XObjects) keep their old value.
    """
    root = struct_root(pdf)
    page_keys = {p.obj.objgen: int(p.obj.StructParents) for p in pdf.pages if "/StructParents" in p.obj}
    by_page: dict[int, dict[int, PdfObject]] = {key: {} for key in page_keys.values()}
    by_annot: dict[int, PdfObject] = {}
    for elem in iter_struct_elements(pdf):
        for kid in kids(elem):
            page, mcid = elem.get("/Pg"), kid
            if is_objr(kid):
                if "/StructParent" in kid.Obj:
                    by_annot[int(kid.Obj.StructParent)] = elem
                continue
            if isinstance(kid, Dictionary) and kid.get("/Type") == Name.MCR and "/Stm" not in kid:
                page, mcid = kid.get("/Pg", page), int(kid.MCID)
            if isinstance(mcid, int) and page is not None and page.objgen in page_keys:
                by_page[page_keys[page.objgen]][mcid] = elem
    old = pikepdf.NumberTree(root.ParentTree) if "/ParentTree" in root else {}
    entries: dict[int, object] = {k: v for k, v in old.items() if k not in by_page and k not in by_annot}
    entries.update(by_annot)
    for key, owners in by_page.items():
        entries[key] = Array([owners.get(m) for m in range(max(owners, default=-1) + 1)])
    nums: list[object] = []
    for key in sorted(entries):
        nums.extend([key, entries[key]])
    root.ParentTree = pdf.make_indirect(Dictionary(Nums=Array(nums)))


def link_annotations(pdf: pikepdf.Pdf) -> list[PdfObject]:
    return [a for page in pdf.pages for a in page.obj.get("/Annots", []) if a.get("/Subtype") == Name.Link]


def named_destinations(pdf: pikepdf.Pdf) -> set[str]:
    names = pdf.Root.get("/Names")
    if names is None or "/Dests" not in names:
        return set()
    return {str(k) for k in pikepdf.NameTree(names.Dests)}
