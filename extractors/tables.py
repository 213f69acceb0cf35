"""Tables: one record per table (tagged or only drawn) and one per cell, with header associations.

Tagged tables come from the struct elements: a Table element's rows (TR) and cells (TH/TD)
are laid on a grid the way HTML does it (a cell takes the next free slot of its row and
occupies RowSpan x ColSpan slots), and every data cell is associated with its headers as a
screen reader would: through Headers/ID when present, else through Scope (column headers
above, row headers to the left; a TH without Scope counts as a column header in a header row
and as a row header elsewhere). What a table does wrong is listed in ``issues`` as stable codes:

- ``no_cells``: a Table element with no TR, TH or TD inside;
- ``no_th``: no header cell at all;
- ``th_without_scope``: header cells without Scope in a table that does not use Headers;
- ``data_cell_without_header``: a data cell no header applies to (the table has TH);
- ``headers_id_missing``: Headers names an ID no element has;
- ``headers_mismatch``: Headers names a header cell in neither the cell's row nor its column;
- ``empty_header_cell``: a TH without text;
- ``no_tr``: cells not grouped in TR rows (rows were rebuilt from the cells' positions);
- ``ragged_rows``: rows of different widths once spans are applied (spans missing or wrong);
- ``misaligned_rows``: a ragged row of two or more cells — its cells sit under the wrong columns
  (a lone cell across a row, such as a group label, is not counted);
- ``span_missing``: cells had to be moved under the columns their boxes sit in, leaving a slot
  below a header cell empty — a RowSpan (or an empty cell) is missing, so a screen reader's grid
  is off by a column even though the extractor re-aligned it for header association; also a
  header row (a second header row, even of one cell) drawn right of its grid column below a
  header cell that ends above it (the first header row's cell lost its RowSpan);
- ``row_header_alone``: a TR holding only row headers (TH, Scope Row or none) followed by a TR of
  data cells without a row header, the two together one row wide — the header split off its data;
- ``layout_table_suspect``: one row or one column, or no header and long prose in the cells;
- ``untagged_table``: a table drawn on the page that no Table element covers.

Drawn tables are found with PyMuPDF's ``page.find_tables()`` (line-based). It costs about
0.1 to 0.5 s a page, so it runs only where a table is likely to hide: pages with more
"Table N" captions than tagged tables, pages of untagged files that draw three or more
horizontal rules with the same ends, and pages with a layout ``table`` region no tagged table
covers. Coordinates are PDF points, top-left origin, unrotated page space.
"""

from __future__ import annotations

import inspect
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymupdf
import pymupdf.table

from common import captions, geometry
from extractors.errors import reading
from extractors.pages import _folder_name
from extractors.source import PdfSource, pdf_source, save_png
from extractors.structure.records import extract_struct_elements, record_attributes

MAX_CELL_TEXT = 500
_CAPTION_DISTANCE = 60.0  # points between a table and a caption found by its text
_PROSE_CHARS = 80  # mean characters per cell of a header-less table that reads like running text
_CELL_TYPES = ("TH", "TD")


# --------------------------------------------------------------------------- tagged tables


@dataclass
class _Cell:
    elem: dict
    kind: str
    rowspan: int
    colspan: int
    headers: list[str]
    scope: str | None
    text: str
    row: int = 0
    col: int = 0
    associated: list[str] = field(default_factory=list)


class StructIndex:
    """Children, /ID lookup and subtree text of struct element records (preorder ``elem_id``)."""

    def __init__(self, elements: Sequence[dict]) -> None:
        self.by_id = {e["elem_id"]: e for e in elements}
        self.kids: dict[int, list[int]] = defaultdict(list)
        for e in elements:
            if e["parent_id"] is not None:
                self.kids[e["parent_id"]].append(e["elem_id"])
        self.by_key = {e["elem_key"]: e for e in elements if e["elem_key"]}

    def descendants(self, elem_id: int, stop: tuple[str, ...] = ()) -> list[dict]:
        """Descendants in preorder; those of type ``stop`` are listed but not entered."""
        out: list[dict] = []
        stack = list(reversed(self.kids.get(elem_id, [])))
        while stack:
            e = self.by_id[stack.pop()]
            out.append(e)
            if e["type"] not in stop:
                stack.extend(reversed(self.kids.get(e["elem_id"], [])))
        return out

    def caption_element(self, elem_id: int) -> dict | None:
        """The element's Caption kid, or a Caption right before or after it."""
        for kid in self.kids.get(elem_id, []):
            if self.by_id[kid]["type"] == "Caption":
                return self.by_id[kid]
        parent = self.by_id[elem_id]["parent_id"]
        siblings = self.kids.get(parent, []) if parent is not None else []
        if elem_id in siblings:
            i = siblings.index(elem_id)
            for j in (i - 1, i + 1):
                if 0 <= j < len(siblings) and self.by_id[siblings[j]]["type"] == "Caption":
                    return self.by_id[siblings[j]]
        return None

    def caption(self, elem_id: int) -> str | None:
        """Text of the element's caption (see :meth:`caption_element`)."""
        caption = self.caption_element(elem_id)
        return (self.text(caption["elem_id"]) or None) if caption is not None else None

    def text(self, elem_id: int) -> str:
        e = self.by_id[elem_id]
        parts = [e["text"] or (e["actual_text"] or "")]
        parts += [d["text"] for d in self.descendants(elem_id) if d["text"]]
        return " ".join(" ".join(parts).split())


def _span(value: Any) -> int:
    try:
        return max(1, min(int(value), 1000))  # a corrupt span must not allocate a huge grid
    except (TypeError, ValueError):
        return 1


def _tagged_table(table: dict, tree: StructIndex, doc_id: str) -> tuple[dict, list[dict]]:
    issues: list[str] = []
    inside = tree.descendants(table["elem_id"], stop=("Table",))
    rows = [e for e in inside if e["type"] == "TR"]
    row_ids = {e["elem_id"] for e in rows}
    grouped: list[list[_Cell]] = [[_cell(c, tree) for c in inside if c["parent_id"] == r["elem_id"]
                                   and c["type"] in _CELL_TYPES] for r in rows]
    loose = [_cell(c, tree) for c in inside if c["type"] in _CELL_TYPES and c["parent_id"] not in row_ids]
    if not rows and not loose:
        issues.append("no_cells")  # a Table element around paragraphs or an image
    if loose:
        issues.append("no_tr")
        grouped = [g for g in grouped if g] + _rows_by_position(loose)
    grouped = [g for g in grouped if g]
    cells = [c for row in grouped for c in row]
    slots, n_rows, n_cols, ragged = _layout(grouped)
    if ragged:
        issues.append("ragged_rows")
        if any(len(row) >= 2 and sum(c.colspan for c in row) < n_cols for row in grouped):
            issues.append("misaligned_rows")
    if _span_missing(grouped, slots, n_cols):
        issues.append("span_missing")
    if _row_header_alone(grouped, slots, n_cols):
        issues.append("row_header_alone")
    header_rows, header_cols = _header_extent(slots, n_rows, n_cols)
    th = [c for c in cells if c.kind == "TH"]
    td = [c for c in cells if c.kind == "TD"]
    uses_headers = any(c.headers for c in td)
    if not th and cells:
        issues.append("no_th")
    elif not uses_headers and any(c.scope is None for c in th):
        issues.append("th_without_scope")
    if any(not c.text for c in th):
        issues.append("empty_header_cell")
    issues += _associate(cells, th, tree, header_rows, header_cols)
    if _layout_suspect(n_rows, n_cols, th, cells):
        issues.append("layout_table_suspect")
    record = {
        "doc_id": doc_id,
        "table_id": table["elem_id"],
        "page": table["page"],
        "bbox": table["subtree_bbox"],
        "rows": n_rows,
        "cols": n_cols,
        "header_rows": header_rows,
        "header_cols": header_cols,
        "th_count": len(th),
        "td_count": len(td),
        "has_scope": round(sum(1 for c in th if c.scope) / len(th), 4) if th else None,
        "has_headers_attr": round(sum(1 for c in td if c.headers) / len(td), 4) if td else None,
        "spans": sum(1 for c in cells if c.rowspan > 1 or c.colspan > 1),
        "tagged": True,
        "source": "tags",
        "caption": tree.caption(table["elem_id"]),
        "issues": issues,
    }
    return record, [_cell_record(c, doc_id, table["elem_id"]) for c in cells]


def _cell(e: dict, tree: StructIndex) -> _Cell:
    attrs = record_attributes(e)
    headers = attrs.get("Headers")
    scope = attrs.get("Scope")
    return _Cell(
        elem=e,
        kind=e["type"],
        rowspan=_span(attrs.get("RowSpan", 1)),
        colspan=_span(attrs.get("ColSpan", 1)),
        headers=[str(h) for h in headers] if isinstance(headers, list) else ([str(headers)] if headers else []),
        scope=scope if isinstance(scope, str) else None,
        text=tree.text(e["elem_id"])[:MAX_CELL_TEXT],
    )


def _rows_by_position(cells: list[_Cell]) -> list[list[_Cell]]:
    """Rows rebuilt from cell boxes (top to bottom, left to right) when TR elements are missing."""
    placed = [c for c in cells if c.elem["subtree_bbox"]]
    placed.sort(key=lambda c: (c.elem["subtree_bbox"][1], c.elem["subtree_bbox"][0]))
    rows: list[list[_Cell]] = []
    top = bottom = 0.0
    for c in placed:
        y0, y1 = c.elem["subtree_bbox"][1], c.elem["subtree_bbox"][3]
        # Same row when it starts within the row's shortest cell (a tall cell must not swallow the next row).
        if not rows or y0 >= bottom - 0.5 * min(y1 - y0, bottom - top):
            rows.append([c])
            top, bottom = y0, y1
        else:
            rows[-1].append(c)
            bottom = min(bottom, y1)
    for row in rows:
        row.sort(key=lambda c: c.elem["subtree_bbox"][0])
    unplaced = [c for c in cells if not c.elem["subtree_bbox"]]
    return rows + ([unplaced] if unplaced else [])


def _layout(rows: list[list[_Cell]]) -> tuple[dict[tuple[int, int], _Cell], int, int, int]:
    """Grid slots, row and column counts, and how many rows are short or long.

    Cells are placed as HTML places them. When that leaves rows of different widths, the
    cells of the short rows are moved under the columns their boxes sit in (an omitted
    empty corner cell is common and harmless); the move is kept if fewer rows stay ragged.
    A slot left empty in a row of data cells (a RowSpan lost above it), or under a cell's text
    (a header meant to span two columns that lost its ColSpan), still makes its row ragged.
    """
    slots, gaps = _place(rows, None)
    n_rows, n_cols, ragged = _extent(rows, slots, gaps, None)
    if ragged:
        centres = _column_centres(rows, slots, n_cols)
        if centres is not None:
            placed = [(c.row, c.col) for row in rows for c in row]
            moved, moved_gaps = _place(rows, centres)
            moved_extent = _extent(rows, moved, moved_gaps, centres)
            if moved_extent[2] < ragged:
                return (moved, *moved_extent)
            for (r, c), cell in zip(placed, (c for row in rows for c in row), strict=True):
                cell.row, cell.col = r, c  # undo
    return slots, n_rows, n_cols, ragged


def _span_missing(rows: list[list[_Cell]], slots: dict[tuple[int, int], _Cell], n_cols: int) -> bool:
    """A row below the first whose cells skip a slot that a header cell with text sits above, or a
    header row (TH only) whose cell is drawn right of the column it takes in the grid, under a header
    cell with text that ends just above it: a RowSpan is missing (a two-row header whose first cell
    lost RowSpan=2 shifts the second row's cells one column left)."""
    centres = _column_centres(rows, slots, n_cols) if n_cols > 1 else None
    for r, row in enumerate(rows):
        if r == 0 or not row:
            continue
        header_row = all(c.kind == "TH" for c in row)
        if len(row) < 2 and not header_row:
            continue  # a lone cell across a row of data (a group label) is no shifted row
        cols = {c.col for c in row}
        for col in range(min(cols)):
            above = slots.get((r - 1, col))
            if (r, col) in slots or above is None or above.kind != "TH" or not above.text:
                continue
            # A lone header cell counts only where its box stays clear of the skipped column.
            box = row[0].elem["subtree_bbox"]
            if len(row) >= 2 or (centres is not None and box and box[0] > centres[col]):
                return True
        if header_row and centres is not None:
            for cell in row:
                box = cell.elem["subtree_bbox"]
                if not box or cell.colspan >= n_cols:
                    continue
                drawn = _nearest_start(centres, (box[0] + box[2]) / 2, cell.colspan)
                above = slots.get((r - 1, cell.col))
                if (drawn > cell.col and box[0] > centres[cell.col] and above is not None and above.kind == "TH"
                        and above.text and above.row + above.rowspan == r):
                    return True
    return False


def _row_header_alone(rows: list[list[_Cell]], slots: dict[tuple[int, int], _Cell], n_cols: int) -> bool:
    """A TR of row headers only (TH with Scope Row or none, narrower than the table) followed by a TR of
    data cells without a row header, the two together one row wide: the row header was split off its data.
    A section header row spanning the table's width (ColSpan) is not one."""
    width: dict[int, int] = defaultdict(int)
    for r, _ in slots:
        width[r] += 1
    for r in range(1, len(rows) - 1):
        row, data = rows[r], rows[r + 1]
        if not row or not all(c.kind == "TH" and c.scope in (None, "Row") for c in row):
            continue
        if not data or any(c.kind == "TH" for c in data) or not any(c.kind == "TD" for c in data):
            continue
        if width[r] < n_cols and width[r + 1] < n_cols and width[r] + width[r + 1] == n_cols:
            return True
    return False


def _place(rows: list[list[_Cell]], centres: list[float] | None) -> tuple[dict[tuple[int, int], _Cell],
                                                                        list[list[int]]]:
    """Each cell takes the next free slot of its row (or, with column ``centres``, the free slot
    under its box) and fills its span; returns the slots and the columns skipped per row."""
    slots: dict[tuple[int, int], _Cell] = {}
    gaps: list[list[int]] = [[] for _ in rows]
    for r, row in enumerate(rows):
        c = 0
        for cell in row:
            while (r, c) in slots:
                c += 1
            box = cell.elem["subtree_bbox"]
            if centres is not None and box:
                target = _nearest_start(centres, (box[0] + box[2]) / 2, cell.colspan)
                while c < target and (r, c) not in slots:
                    gaps[r].append(c)
                    c += 1
            cell.row, cell.col = r, c
            for dr in range(cell.rowspan):
                for dc in range(cell.colspan):
                    slots.setdefault((r + dr, c + dc), cell)
            c += cell.colspan
    return slots, gaps


def _extent(rows: list[list[_Cell]], slots: dict[tuple[int, int], _Cell], gaps: list[list[int]],
            centres: list[float] | None) -> tuple[int, int, int]:
    cells = [c for row in rows for c in row]
    n_rows = max([len(rows)] + [c.row + c.rowspan for c in cells])
    n_cols = max([0] + [c.col + c.colspan for c in cells])
    ragged = 0
    for i in range(n_rows):
        skipped = gaps[i] if i < len(gaps) else []
        width = sum(1 for (r, _) in slots if r == i) + len(skipped)
        # A skipped slot is an omitted empty corner only among header cells, and only if no
        # cell's text runs over it (a header that lost its ColSpan).
        data_row = i < len(rows) and any(c.kind == "TD" for c in rows[i])
        covered = centres is not None and any(
            box and box[0] <= centres[g] <= box[2]
            for g in skipped for box in (c.elem["subtree_bbox"] for c in rows[i]))
        ragged += width != n_cols or bool(skipped and data_row) or covered
    return n_rows, n_cols, ragged if cells else 0


def _column_centres(rows: list[list[_Cell]], slots: dict[tuple[int, int], _Cell], n_cols: int) -> list[float] | None:
    """Median x-centre of each column's single-column cells in the full-width rows."""
    xs: list[list[float]] = [[] for _ in range(n_cols)]
    for r in range(len(rows)):
        if sum(1 for (i, _) in slots if i == r) != n_cols:
            continue
        for c in range(n_cols):
            cell = slots[(r, c)]
            box = cell.elem["subtree_bbox"]
            if cell.colspan == 1 and box:
                xs[c].append((box[0] + box[2]) / 2)
    if not all(xs):
        return None
    return [sorted(v)[len(v) // 2] for v in xs]


def _nearest_start(centres: list[float], x: float, span: int) -> int:
    starts = range(max(1, len(centres) - span + 1))
    return min(starts, key=lambda s: abs(sum(centres[s:s + span]) / len(centres[s:s + span]) - x))


def _header_extent(slots: dict[tuple[int, int], _Cell], n_rows: int, n_cols: int) -> tuple[int, int]:
    def all_th(positions: Iterable[tuple[int, int]]) -> bool:
        cells = [c for c in (slots.get(p) for p in positions) if c is not None]  # an empty corner is no data
        return bool(cells) and all(c.kind == "TH" for c in cells)

    header_rows = 0
    while header_rows < n_rows - 1 and all_th((header_rows, c) for c in range(n_cols)):
        header_rows += 1
    header_cols = 0
    while header_cols < n_cols - 1 and n_rows > header_rows and all_th(
            (r, header_cols) for r in range(header_rows, n_rows)):
        header_cols += 1
    return header_rows, header_cols


def _associate(cells: list[_Cell], th: list[_Cell], tree: StructIndex, header_rows: int, header_cols: int) -> list[str]:
    """Fill ``associated`` for every data cell; return the issues found on the way."""
    issues: set[str] = set()
    by_key = {c.elem["elem_key"]: c for c in cells if c.elem["elem_key"]}
    for cell in cells:
        if cell.kind != "TD":
            continue
        if cell.headers:
            for key in cell.headers:
                header = by_key.get(key)
                if header is None:
                    other = tree.by_key.get(key)
                    if other is None:
                        issues.add("headers_id_missing")
                    else:
                        cell.associated.append(tree.text(other["elem_id"]))
                    continue
                cell.associated.append(header.text)
                if not (_overlaps(header.col, header.colspan, cell.col, cell.colspan)
                        or _overlaps(header.row, header.rowspan, cell.row, cell.rowspan)):
                    issues.add("headers_mismatch")
        else:
            columns = [h for h in th if _scope(h, header_rows, header_cols) in ("Column", "Both")
                       and h.row < cell.row and _overlaps(h.col, h.colspan, cell.col, cell.colspan)]
            rows = [h for h in th if _scope(h, header_rows, header_cols) in ("Row", "Both")
                    and h.col < cell.col and _overlaps(h.row, h.rowspan, cell.row, cell.rowspan)]
            cell.associated = [h.text for h in sorted(columns, key=lambda h: h.row)]
            cell.associated += [h.text for h in sorted(rows, key=lambda h: h.col)]
        if th and not cell.associated:
            issues.add("data_cell_without_header")
    return sorted(issues)


def _scope(header: _Cell, header_rows: int, header_cols: int) -> str:
    if header.scope in ("Row", "Column", "Both"):
        return header.scope
    # No Scope: what assistive technology guesses from the position.
    return "Column" if header.row < max(header_rows, 1) else "Row"


def _overlaps(a: int, a_len: int, b: int, b_len: int) -> bool:
    return a < b + b_len and b < a + a_len


def _layout_suspect(n_rows: int, n_cols: int, th: list[_Cell], cells: list[_Cell]) -> bool:
    if cells and (n_rows == 1 or n_cols == 1):
        return True
    texts = [c.text for c in cells if c.text]
    return not th and bool(texts) and sum(map(len, texts)) / len(texts) > _PROSE_CHARS


def _cell_record(cell: _Cell, doc_id: str, table_id: int) -> dict:
    return {
        "doc_id": doc_id,
        "table_id": table_id,
        "row": cell.row,
        "col": cell.col,
        "kind": cell.kind,
        "scope": cell.scope,
        "text": cell.text,
        "rowspan": cell.rowspan,
        "colspan": cell.colspan,
        "headers": cell.headers,
        "associated_headers": cell.associated,
        "elem_id": cell.elem["elem_id"],
    }


# --------------------------------------------------------------------------- entry point


def extract_tables(pdf: str | Path | PdfSource, *, doc_id: str, page_offset: int = 0,
                   elements: Sequence[dict] | None = None, visual: bool = True,
                   regions: Sequence[dict] | None = None) -> tuple[list[dict], list[dict]]:
    """Table records (``TABLES_SCHEMA``) and cell records (``TABLE_CELLS_SCHEMA``) of ``pdf``.

    ``elements`` are this file's struct_elements records (extracted here when None).
    ``visual=False`` skips the search for drawn but untagged tables; ``regions`` (layout
    records of this file) point that search at pages with ``table`` regions. Raises
    ExtractionError for unreadable input.
    """
    with pdf_source(pdf) as source:
        if elements is None:
            elements = extract_struct_elements(source, doc_id=doc_id, page_offset=page_offset)
        tree = StructIndex(elements)
        tables: list[dict] = []
        cells: list[dict] = []
        for e in elements:
            if e["type"] == "Table":
                record, table_cells = _tagged_table(e, tree, doc_id)
                tables.append(record)
                cells.extend(table_cells)
        with reading(source, "tables"):
            for record in tables:
                page_no = record["page"] - 1 - page_offset if record["page"] is not None else -1
                if record["caption"] is None and 0 <= page_no < source.page_count and record["bbox"] is not None:
                    record["caption"] = _caption_nearby(_blocks(source, page_no), record["bbox"])
            if visual:
                found, found_cells = _visual_tables(source, tables, regions or (), doc_id, page_offset, not elements)
                tables.extend(found)
                cells.extend(found_cells)
    return tables, cells


# --------------------------------------------------------------------------- drawn tables


def _visual_tables(source: PdfSource, tagged: list[dict], regions: Iterable[dict], doc_id: str,
                   page_offset: int, untagged: bool) -> tuple[list[dict], list[dict]]:
    tagged_boxes: dict[int, list[Sequence[float]]] = defaultdict(list)
    for t in tagged:
        if t["page"] is not None and t["bbox"] is not None:
            tagged_boxes[t["page"] - 1 - page_offset].append(t["bbox"])
    hinted: dict[int, list[Sequence[float]]] = defaultdict(list)
    for region in regions:
        if region["kind"] == "table" and region["bbox"] is not None:
            hinted[region["page"] - 1 - page_offset].append(region["bbox"])
    tables: list[dict] = []
    cells: list[dict] = []
    for page in source.pages():
        boxes = tagged_boxes[page.number]
        uncovered = [b for b in hinted[page.number] if not any(geometry.covered(b, t) for t in boxes)]
        if not searches_page(source, page.number, len(boxes), untagged, hinted=bool(uncovered)):
            continue
        blocks = _blocks(source, page.number)
        for found in drawn_tables(source, page.number):
            bbox = [round(v, 2) for v in found.bbox]
            if any(geometry.covered(bbox, t) or geometry.covered(t, bbox) for t in boxes):
                continue
            table_id = -(len(tables) + 1)
            record, table_cells = _visual_table(found, bbox, page, blocks, doc_id, table_id, page_offset)
            tables.append(record)
            cells.extend(table_cells)
    return tables, cells


def searches_page(source: PdfSource, number: int, tagged_tables: int, untagged: bool, hinted: bool = False) -> bool:
    """Whether the search for drawn tables the tags miss looks at page ``number`` (0-based) of a file: where a layout
    ``table`` region lies outside every tagged table (``hinted``), where the page has more "Table N" captions than
    ``tagged_tables`` (the tagged table records on it), or, in an ``untagged`` file, where it draws three or more
    rules of one width. No other page gets a drawn-table record (the layout plan relies on it)."""
    if hinted or _caption_count(_blocks(source, number)) > tagged_tables:
        return True
    return untagged and _ruled(source.drawing_log(number))


def drawn_tables(source: PdfSource, number: int) -> list[Any]:
    """The tables PyMuPDF's line-based search finds on page ``number`` (0-based), covered by tags or not;
    searched once per page of a source (the layout plan and the table extractor both ask). Shared: do not
    modify them."""
    return source.page_memo(number, "drawn_tables",
                            lambda: list(source.page(number).find_tables(**_LINE_BASED).tables))


# Line-based only. With pymupdf-layout active in the process (after the layout stage in an in-process
# run) find_tables would rerun the layout model on the page (~0.7 s) and find other tables than in
# a worker process. PyMuPDF releases without the layout model lack the flag and are line-based anyway.
_LINE_BASED = {"use_layout": False} if "use_layout" in inspect.signature(pymupdf.table.find_tables).parameters else {}


def _ruled(drawing_log: list[tuple[str, tuple[float, float, float, float]]]) -> bool:
    """Three or more horizontal rules of one width (a table's top, header and bottom rules, or a grid)."""
    rules: dict[tuple[int, int], set[int]] = defaultdict(set)
    for kind, (x0, y0, x1, y1) in drawing_log:
        if kind in ("fill-path", "stroke-path") and y1 - y0 < 1.5 and x1 - x0 > 30:
            rules[(round(x0 / 4), round(x1 / 4))].add(round(y0))  # 4-point bins: one table's rules match
    return any(len(ys) >= 3 for ys in rules.values())


def _blocks(source: PdfSource, page_no: int) -> list[tuple[Any, ...]]:
    """The page's text blocks as ``page.get_text("blocks", flags=0)`` gives them (shared with figures)."""
    return source.text_blocks(page_no, 0)


def _caption_count(blocks: list[tuple[Any, ...]]) -> int:
    return sum(1 for block in blocks if block[6] == 0 and captions.is_table_caption(block[4]))


def _visual_table(found: Any, bbox: list[float], page: pymupdf.Page, blocks: list[tuple[Any, ...]], doc_id: str,
                  table_id: int,
                  page_offset: int) -> tuple[dict, list[dict]]:
    texts = found.extract()
    xs = sorted({round(c[0], 1) for c in found.cells if c} | {round(c[2], 1) for c in found.cells if c})
    ys = sorted({round(c[1], 1) for c in found.cells if c} | {round(c[3], 1) for c in found.cells if c})
    cells: list[dict[str, Any]] = []
    for r, row in enumerate(found.rows):
        for c, box in enumerate(row.cells):
            if box is None:
                continue  # covered by a spanning cell
            text = texts[r][c] if r < len(texts) and c < len(texts[r]) else None
            cells.append({
                "doc_id": doc_id,
                "table_id": table_id,
                "row": r,
                "col": c,
                "kind": None,
                "scope": None,
                "text": " ".join((text or "").split())[:MAX_CELL_TEXT],
                "rowspan": sum(1 for y in ys if box[1] + 1 < y < box[3] - 1) + 1,
                "colspan": sum(1 for x in xs if box[0] + 1 < x < box[2] - 1) + 1,
                "headers": [],
                "associated_headers": [],
                "elem_id": None,
            })
    issues = ["untagged_table"]
    if found.row_count == 1 or found.col_count == 1:
        issues.append("layout_table_suspect")
    record = {
        "doc_id": doc_id,
        "table_id": table_id,
        "page": page.number + 1 + page_offset,
        "bbox": bbox,
        "rows": found.row_count,
        "cols": found.col_count,
        "header_rows": None,
        "header_cols": None,
        "th_count": None,
        "td_count": None,
        "has_scope": None,
        "has_headers_attr": None,
        "spans": sum(1 for c in cells if c["rowspan"] > 1 or c["colspan"] > 1),
        "tagged": False,
        "source": "visual",
        "caption": _caption_nearby(blocks, bbox),
        "issues": issues,
    }
    return record, cells


def _caption_nearby(blocks: list[tuple[Any, ...]], bbox: Sequence[float]) -> str | None:
    """The nearest "Table N" text block above or below ``bbox`` within _CAPTION_DISTANCE points."""
    best: tuple[float, str] | None = None
    for x0, y0, x1, y1, text, *_ in blocks:
        if not captions.is_table_caption(text) or geometry.x_overlap((x0, y0, x1, y1), bbox) == 0:
            continue
        distance = max(bbox[1] - y1, y0 - bbox[3])
        if -2 <= distance <= _CAPTION_DISTANCE and (best is None or distance < best[0]):
            best = (distance, " ".join(text.split()))
    return best[1] if best else None


# --------------------------------------------------------------------------- crops


def render_table_crops(pdf: str | Path | PdfSource, tables: Sequence[dict], out_dir: Path, dpi: int = 110, *,
                       page_offset: int = 0) -> list[str | None]:
    """Write one PNG per table (its bbox plus a small margin); paths in ``tables`` order, None without a box."""
    return render_crops(pdf, tables, out_dir, dpi, page_offset=page_offset, prefix="table",
                        id_key="table_id")


def render_crops(pdf: str | Path | PdfSource, records: Sequence[dict], out_dir: Path, dpi: int, *, page_offset: int,
                 prefix: str, id_key: str, margin: float = 4.0) -> list[str | None]:
    """Crops of ``records``' boxes, written under ``out_dir/<doc folder>/`` (atomically, as page renders are)."""
    paths: list[str | None] = []
    with pdf_source(pdf) as source, reading(source, "page content"):
        for record in records:
            page_no = record["page"] - 1 - page_offset if record["page"] is not None else -1
            if record["bbox"] is None or not 0 <= page_no < source.page_count:
                paths.append(None)
                continue
            page = source.page(page_no)
            # Boxes are in unrotated page space; the clip wants displayed space.
            clip = (pymupdf.Rect(record["bbox"]) + (-margin, -margin, margin, margin)) * page.rotation_matrix
            clip &= page.rect
            if clip.is_empty:
                paths.append(None)
                continue
            folder = Path(out_dir).resolve() / _folder_name(record["doc_id"])
            folder.mkdir(parents=True, exist_ok=True)
            identifier = str(record[id_key]).replace("-", "m")
            path = folder / f"{prefix}-p{record['page']:04d}-{identifier}.png"
            scale = source.scale(page_no, dpi, clip)  # a huge crop is rendered at a lower dpi
            pixmap = source.pixmap(page_no, pymupdf.Matrix(scale, scale), clip)  # annotations included
            pixmap.set_dpi(round(scale * 72), round(scale * 72))
            save_png(pixmap, path)
            paths.append(str(path))
    return paths
