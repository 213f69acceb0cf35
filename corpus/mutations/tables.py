"""table_structure mutations: the table still looks the same, its tags stop describing it.

typst tags a table as Table > (Caption, THead, TBody) > TR > TH/TD; header cells carry the
table attributes ``/Scope /Column`` and an ``/ID``, data cells carry ``/Headers`` listing
those IDs, and spanning cells ``/ColSpan``/``/RowSpan``. One table (chosen by the seed) is
edited:

* header cells demoted to TD (no header semantics left);
* header associations removed (no Scope on TH, no Headers on TD);
* Headers pointing at the wrong column's header cells;
* rows flattened (TR removed, cells hang directly under THead/TBody);
* table tags replaced by Div/P/Span (a visual table with no table structure);
* span attributes dropped, so the tagged grid no longer matches the drawn one.

Not present is a re-rendered document without tables (see the registry).
"""

from __future__ import annotations

import random
from typing import Any

import pikepdf
from pikepdf import Array, Dictionary, Name

from corpus.mutations.structure import (
    NotApplicable,
    PdfObject,
    elements_of,
    iter_struct_elements,
    rebuild_parent_tree,
    stype,
    unwrap,
)

CELL_TYPES = ("/TH", "/TD")


def _tables(pdf: pikepdf.Pdf) -> list[PdfObject]:
    tables = elements_of(pdf, "/Table")
    if not tables:
        raise NotApplicable("no Table elements")
    return tables


def cells(pdf: pikepdf.Pdf, table: PdfObject, *types: str) -> list[PdfObject]:
    return [e for e in iter_struct_elements(pdf, table) if stype(e) in (types or CELL_TYPES)]


def table_attributes(elem: PdfObject) -> PdfObject | None:
    """The attribute dictionary owned by /Table (Scope, Headers, spans), if any."""
    attrs = elem.get("/A")
    candidates = list(attrs) if isinstance(attrs, Array) else [attrs]
    return next((a for a in candidates if isinstance(a, Dictionary) and a.get("/O") == Name.Table), None)


def _drop_keys(elem: PdfObject, *keys: str) -> None:
    attrs = table_attributes(elem)
    for key in keys:
        if attrs is not None and key in attrs:
            del attrs[key]


def _pick(pdf: pikepdf.Pdf, rng: random.Random, wanted: str | None = None) -> PdfObject:
    """A seeded choice among tables that have ``wanted`` cells (TH) or attributes (spans)."""
    def qualifies(table: PdfObject) -> bool:
        if wanted == "TH":
            return bool(cells(pdf, table, "/TH"))
        if wanted == "spans":
            return any(_spans(c) for c in cells(pdf, table))
        if wanted == "Headers":
            return any(len(_headers(c)) > 0 for c in cells(pdf, table, "/TD"))
        return True

    tables = [t for t in _tables(pdf) if qualifies(t)]
    if not tables:
        raise NotApplicable(f"no table with {wanted}")
    return rng.choice(tables)


def _spans(cell: PdfObject) -> bool:
    attrs = table_attributes(cell)
    return attrs is not None and any(int(attrs.get(k, 1)) > 1 for k in ("/ColSpan", "/RowSpan"))


def _headers(cell: PdfObject) -> list[Any]:
    attrs = table_attributes(cell)
    return list(attrs.get("/Headers", Array())) if attrs is not None else []


def th_demoted(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Every header cell of one table becomes TD; Scope and the Headers that named them go too."""
    table = _pick(pdf, rng, "TH")
    for cell in cells(pdf, table):
        if stype(cell) == "/TH":
            cell.S = Name.TD
        _drop_keys(cell, "/Scope", "/Headers")


def header_associations_removed(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Header cells stay TH but lose Scope, and data cells lose Headers: nothing links data to headers."""
    table = _pick(pdf, rng, "TH")
    for cell in cells(pdf, table):
        _drop_keys(cell, "/Scope", "/Headers")


def headers_misassigned(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Data cells' Headers name another column's header cells (and Scope no longer says otherwise)."""
    table = _pick(pdf, rng, "Headers")
    distinct: list[tuple[str, ...]] = []
    for cell in cells(pdf, table, "/TD"):
        key = tuple(str(h) for h in _headers(cell))
        if key and key not in distinct:
            distinct.append(key)
    if len(distinct) < 2:
        raise NotApplicable("all data cells share the same headers")
    shift = {key: distinct[(i + 1) % len(distinct)] for i, key in enumerate(distinct)}
    for cell in cells(pdf, table):
        attrs = table_attributes(cell)
        key = tuple(str(h) for h in _headers(cell))
        if stype(cell) == "/TD" and attrs is not None and key in shift:
            attrs.Headers = Array([pikepdf.String(h) for h in shift[key]])
        _drop_keys(cell, "/Scope")


def rows_flattened(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Every TR of one table is unwrapped: cells sit directly in THead/TBody, rows are lost."""
    table = _pick(pdf, rng)
    rows = [e for e in iter_struct_elements(pdf, table) if stype(e) == "/TR"]
    if not rows:
        raise NotApplicable("table has no TR")
    for row in rows:
        unwrap(row)
    rebuild_parent_tree(pdf)


def table_as_text(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """One table's tags become generic: Table/THead/TBody -> Div, TR -> P, TH/TD -> Span."""
    table = _pick(pdf, rng)
    renames = {"/Table": Name.Div, "/THead": Name.Div, "/TBody": Name.Div, "/TFoot": Name.Div, "/TR": Name.P,
               "/TH": Name.Span, "/TD": Name.Span}
    for elem in [table, *iter_struct_elements(pdf, table)]:
        if stype(elem) in renames:
            elem.S = renames[stype(elem)]
            if "/A" in elem:
                del elem["/A"]  # table and table-layout attributes make no sense on Div/P/Span


def spans_dropped(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """ColSpan/RowSpan removed from one table's spanning cells: the tagged grid loses cells."""
    table = _pick(pdf, rng, "spans")
    for cell in cells(pdf, table):
        _drop_keys(cell, "/ColSpan", "/RowSpan")
