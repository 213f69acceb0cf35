"""pikepdf mutations that turn a tagged, passing base PDF into labelled variants.

Every mutation edits the real structures typst writes (the structure tree under
``/StructTreeRoot``, its ``/ParentTree``, link annotations and the ``/Dests`` name tree) and
never the visible page content, so a variant differs from its base only in the evidence the
criterion is about. The label is right by construction:

* ``semantic_tagging`` failed: heading levels skip, paragraphs lose their ``P`` role, list
  structure is broken, or headings become plain paragraphs. Not present: untagged.
* ``functional_hyperlinks`` failed: annotations detached from the tag tree, an internal
  destination that does not resolve, or a malformed external URI. Not present: no links.

A mutation raises :class:`NotApplicable` when the document lacks what it would edit; the
caller then tries another one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pikepdf
from pikepdf import Array, Dictionary, Name

Mutation = Callable[[pikepdf.Pdf, random.Random], None]
# pikepdf's Dictionary/Array are runtime type tests; statically every PDF object is an Object.
PdfObject = pikepdf.Object

HEADING_TYPES = tuple(f"/H{n}" for n in range(1, 7))


class NotApplicable(Exception):
    """The document has none of the structures this mutation edits."""


# --------------------------------------------------------------------------- struct tree helpers


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


def iter_struct_elements(pdf: pikepdf.Pdf) -> Iterator[PdfObject]:
    """All structure elements in document (pre-)order."""
    stack = [k for k in reversed(kids(struct_root(pdf)))]
    while stack:
        node = stack.pop()
        if is_struct_elem(node):
            yield node
            stack.extend(k for k in reversed(kids(node)) if is_struct_elem(k))


def _same(a: object, b: object) -> bool:
    return isinstance(a, pikepdf.Object) and isinstance(b, pikepdf.Object) and a.is_indirect \
        and b.is_indirect and a.objgen == b.objgen


def _as_movable(kid: Any, owner: PdfObject, new_parent: PdfObject) -> Any:
    """Prepare a kid for a move to ``new_parent``.

    A bare MCID is relative to its owner's /Pg; if the new parent sits on another page the
    MCID must become an explicit marked-content reference or it would point at the wrong page.
    """
    if isinstance(kid, int):
        page = owner.get("/Pg")
        if page is not None and not _same(page, new_parent.get("/Pg")):
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
        new_kids.extend(moved if _same(kid, elem) else [kid])
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


# --------------------------------------------------------------------------- annotation helpers


def link_annotations(pdf: pikepdf.Pdf) -> list[PdfObject]:
    return [a for page in pdf.pages for a in page.obj.get("/Annots", []) if a.get("/Subtype") == Name.Link]


def _internal_links(pdf: pikepdf.Pdf) -> list[PdfObject]:
    def is_goto(a: PdfObject) -> bool:
        action = a.get("/A")
        return "/Dest" in a or (action is not None and action.get("/S") == Name.GoTo)

    return [a for a in link_annotations(pdf) if is_goto(a)]


def _uri_links(pdf: pikepdf.Pdf) -> list[PdfObject]:
    return [a for a in link_annotations(pdf) if "/A" in a and a.A.get("/S") == Name.URI]


def named_destinations(pdf: pikepdf.Pdf) -> set[str]:
    names = pdf.Root.get("/Names")
    if names is None or "/Dests" not in names:
        return set()
    return {str(k) for k in pikepdf.NameTree(names.Dests)}


# --------------------------------------------------------------------------- semantic_tagging


def heading_level_skip(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Demote one H2 to H4, so the outline jumps from H1 to H4."""
    h2s = [e for e in iter_struct_elements(pdf) if stype(e) == "/H2"]
    if not h2s:
        raise NotApplicable("no H2")
    rng.choice(h2s).S = Name("/H4")


def first_heading_demoted(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """The first heading becomes H3: the document starts two levels deep."""
    heading = next((e for e in iter_struct_elements(pdf) if stype(e) in HEADING_TYPES), None)
    if heading is None:
        raise NotApplicable("no headings")
    heading.S = Name("/H3")


def paragraphs_as_spans(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Every P becomes an inline Span: body text loses its block semantics."""
    paragraphs = [e for e in iter_struct_elements(pdf) if stype(e) == "/P"]
    if not paragraphs:
        raise NotApplicable("no P elements")
    for elem in paragraphs:
        elem.S = Name.Span


def _first_list(pdf: pikepdf.Pdf) -> PdfObject:
    # Pre-order puts the body's bulleted list before the reference list.
    lst = next((e for e in iter_struct_elements(pdf) if stype(e) == "/L"), None)
    if lst is None:
        raise NotApplicable("no L elements")
    return lst


def list_items_unwrapped(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """The first list's LI elements are moved out of their L, which disappears."""
    unwrap(_first_list(pdf))
    rebuild_parent_tree(pdf)


def list_as_paragraph(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """The first list's L is retagged P, so readers no longer announce a list."""
    lst = _first_list(pdf)
    lst.S = Name.P
    if "/A" in lst:  # the ListNumbering attribute only makes sense on L
        del lst["/A"]


def headings_as_paragraphs(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """All headings become P: no navigable document outline in the tags."""
    headings = [e for e in iter_struct_elements(pdf) if stype(e) in HEADING_TYPES]
    if not headings:
        raise NotApplicable("no headings")
    for elem in headings:
        elem.S = Name.P
        if "/T" in elem:  # typst stores the heading text as /T; a plain P would not have it
            del elem["/T"]


def _untagged_ops(ops: list[Any]) -> list[Any]:
    """Remove MCIDs and artifact markers, keeping /ActualText spans.

    typst wraps hyphens it inserts in ``/Span <</ActualText (soft hyphen)>> BDC``; that is not
    tagging (untagged PDFs use it too) and dropping it would change the extracted text.
    """
    kept: list[Any] = []
    open_sequences: list[bool] = []  # per open BMC/BDC: was it kept?
    for op in ops:
        operator = str(op.operator)
        if operator in {"BMC", "BDC"}:
            props: Any = op.operands[1] if operator == "BDC" else None
            keep = isinstance(props, Dictionary) and "/ActualText" in props
            open_sequences.append(keep)
            if keep:
                text = Dictionary(ActualText=props.ActualText)
                kept.append(pikepdf.ContentStreamInstruction([Name.Span, text], pikepdf.Operator("BDC")))
        elif operator == "EMC":
            if open_sequences and open_sequences.pop():
                kept.append(op)
        else:
            kept.append(op)
    return kept


def _strip_marked_content(pdf: pikepdf.Pdf, holder: PdfObject | pikepdf.Page,
                          seen: set[tuple[int, int]]) -> None:
    """Drop tagging marked content from a content stream (and nested forms); drawing stays."""
    data = pikepdf.unparse_content_stream(_untagged_ops(pikepdf.parse_content_stream(holder)))
    if isinstance(holder, pikepdf.Page):
        holder.obj.Contents = pdf.make_stream(data)
        resources = holder.obj.get("/Resources", Dictionary())
    else:
        holder.write(data)
        resources = holder.get("/Resources", Dictionary())
    for xobj in resources.get("/XObject", Dictionary()).values():
        for key in ("/StructParent", "/StructParents"):
            if key in xobj:
                del xobj[key]
        if xobj.get("/Subtype") == Name.Form and xobj.objgen not in seen:
            seen.add(xobj.objgen)
            _strip_marked_content(pdf, xobj, seen)


def untag(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Remove tagging entirely: no structure tree, no MarkInfo, no marked content."""
    for key in ("/StructTreeRoot", "/MarkInfo"):
        if key in pdf.Root:
            del pdf.Root[key]
    seen: set[tuple[int, int]] = set()
    for page in pdf.pages:
        for key in ("/StructParents", "/Tabs"):  # /Tabs /S means "structure order"
            if key in page.obj:
                del page.obj[key]
        for annot in page.obj.get("/Annots", []):
            if "/StructParent" in annot:
                del annot["/StructParent"]
        _strip_marked_content(pdf, page, seen)


# --------------------------------------------------------------------------- functional_hyperlinks


def links_detached(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Link elements keep their text but lose their OBJR; annotations lose /StructParent."""
    link_elems = [e for e in iter_struct_elements(pdf) if stype(e) == "/Link"]
    if not link_elems:
        raise NotApplicable("no Link elements")
    for elem in link_elems:
        set_kids(elem, [k for k in kids(elem) if not is_objr(k)])
    for annot in link_annotations(pdf):
        if "/StructParent" in annot:
            del annot["/StructParent"]
    rebuild_parent_tree(pdf)


def internal_dest_missing(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """A link to a named destination now names one the document does not define."""
    named = [a for a in _internal_links(pdf) if isinstance(a.get("/Dest"), pikepdf.String)]
    if not named:
        raise NotApplicable("no named-destination links")
    annot = rng.choice(named)
    existing = named_destinations(pdf)
    target = str(annot.Dest) + "-draft"
    while target in existing:
        target += "-old"
    annot.Dest = pikepdf.String(target)


def internal_dest_out_of_range(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """An internal link points at a page index past the end of the document."""
    links = _internal_links(pdf)
    if not links:
        raise NotApplicable("no internal links")
    annot = rng.choice(links)
    dest = Array([len(pdf.pages) + rng.randint(2, 20), Name.Fit])
    if "/A" in annot:
        del annot["/A"]
    annot.Dest = dest


def _break_uri(kind: str) -> Mutation:
    def mutate(pdf: pikepdf.Pdf, rng: random.Random) -> None:
        links = _uri_links(pdf)
        if not links:
            raise NotApplicable("no URI links")
        annot = rng.choice(links)
        old = str(annot.A.URI)
        new = malform_uri(old, kind)
        annot.A.URI = pikepdf.String(new)
        if str(annot.get("/Contents", "")) == old:  # typst mirrors the URI into /Contents
            annot.Contents = pikepdf.String(new)

    mutate.__doc__ = f"One external URI becomes malformed ({kind})."
    return mutate


def malform_uri(uri: str, kind: str) -> str:
    """Damage a URI the way hand-edited documents do."""
    scheme, sep, rest = uri.partition("://")
    if not sep:
        raise NotApplicable(f"not an absolute URI: {uri}")
    if kind == "scheme_typo":
        # Drop the second letter ("https" -> "htps"): not a scheme any browser knows. Dropping
        # the last one would turn https into http, which still works.
        return f"{scheme[0]}{scheme[2:]}://{rest}"
    if kind == "missing_colon":
        return f"{scheme}//{rest}"
    if kind == "embedded_space":
        host, slash, path = rest.partition("/")
        return f"{scheme}://{host.replace('.', ' ', 1)}{slash}{path}"
    raise ValueError(f"unknown malformation {kind!r}")


def links_removed(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """No hyperlinks at all: link annotations go, Link elements are unwrapped into their parent."""
    for page in pdf.pages:
        annots = page.obj.get("/Annots")
        if annots is None:
            continue
        remaining = [a for a in annots if a.get("/Subtype") != Name.Link]
        if remaining:
            page.obj.Annots = Array(remaining)
        else:
            del page.obj["/Annots"]
    if "/StructTreeRoot" in pdf.Root:
        for elem in [e for e in iter_struct_elements(pdf) if stype(e) == "/Link"]:
            unwrap(elem, keep=lambda kid: not is_objr(kid))
        rebuild_parent_tree(pdf)


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class CriterionMutations:
    """The mutations that produce each non-passing label for one criterion."""

    failed: Mapping[str, Mutation]
    not_present: tuple[str, Mutation]


CRITERION_MUTATIONS: Mapping[str, CriterionMutations] = {
    "semantic_tagging": CriterionMutations(
        failed={
            "heading_level_skip": heading_level_skip,
            "first_heading_demoted": first_heading_demoted,
            "paragraphs_as_spans": paragraphs_as_spans,
            "list_items_unwrapped": list_items_unwrapped,
            "list_as_paragraph": list_as_paragraph,
            "headings_as_paragraphs": headings_as_paragraphs,
        },
        not_present=("untagged", untag),
    ),
    "functional_hyperlinks": CriterionMutations(
        failed={
            "links_detached": links_detached,
            "internal_dest_missing": internal_dest_missing,
            "internal_dest_out_of_range": internal_dest_out_of_range,
            "uri_scheme_typo": _break_uri("scheme_typo"),
            "uri_missing_colon": _break_uri("missing_colon"),
            "uri_embedded_space": _break_uri("embedded_space"),
        },
        not_present=("links_removed", links_removed),
    ),
}


def apply_failed(criterion: str, pdf: pikepdf.Pdf, rng: random.Random) -> str:
    """Apply one seeded failure mutation for ``criterion``; return its name."""
    options = list(CRITERION_MUTATIONS[criterion].failed.items())
    rng.shuffle(options)
    for name, mutate in options:
        try:
            mutate(pdf, rng)
        except NotApplicable:
            continue
        return name
    raise NotApplicable(f"no {criterion} failure mutation applies to this document")
