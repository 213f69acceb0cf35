"""semantic_tagging mutations.

Failed: heading levels skip, the document starts at H3, paragraphs lose their ``P`` role, list
structure is broken, or headings become plain paragraphs. Not present: the document is untagged
(no structure tree, no marked content).
"""

from __future__ import annotations

import random
from typing import Any

import pikepdf
from pikepdf import Dictionary, Name

from corpus.mutations.structure import (
    HEADING_TYPES,
    NotApplicable,
    PdfObject,
    iter_struct_elements,
    rebuild_parent_tree,
    stype,
    unwrap,
)


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
