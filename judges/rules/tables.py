"""Table structure (WCAG 2.2 SC 1.3.1; PDF/UA-1 §7.5): can a screen reader walk each table cell by cell?

The table tags come with the extractor's issue codes (see ``extractors/tables.py``); the rules
decide which of them break a table for assistive technology and say where and how to fix it.
Not Present means no table structure to judge: no table on the page, or an untagged document
(nothing is tagged, tables included). In a tagged document, a table drawn on the page that no
Table element covers fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common import geometry
from judges.base import Issue, PageJudgment
from judges.criteria import SPEC
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.common import FAILED, NA, PASSED, cannot_tell, verdict
from judges.rules.thresholds import TABLES, TableThresholds

SUBS = SPEC["table_structure"].sub_names


THRESHOLDS = TABLES  # see judges/rules/thresholds.py: every line and its source


@dataclass
class Table:
    """One table of the page: its tags (as in the ``table_tags`` evidence) and how to name it."""

    info: dict[str, Any]
    position: int
    caption: str | None

    @property
    def issues(self) -> set[str]:
        return set(self.info.get("issues") or ())

    @property
    def cells(self) -> list[dict[str, Any]]:
        return list(self.info.get("cells") or ())

    @property
    def where(self) -> str:
        label = f"“{_clip(self.caption, 50)}” caption" if self.caption else "no caption"
        return f"table {self.position} ({label})"


def _clip(text: str | None, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tables(bundle: PageBundle, tags: dict[str, Any]) -> list[Table]:
    crops = bundle.evidence.get("table_crops") or {}
    captions = {t.get("table"): t.get("caption") for t in crops.get("tables") or ()}
    return [Table(info, i + 1, captions.get(info.get("table_id"))) for i, info in enumerate(tags.get("tables") or ())]


def is_untagged_data_table(table: Table, regions: list[list[float]], bbox: list[float] | None,
                           thresholds: TableThresholds = THRESHOLDS) -> bool:
    """A drawn table no Table element covers, confidently a data table: a grid of at least 2×2 cells
    with a "Table N" caption or a layout-model table region over it, and no TH/TD tags inside."""
    info = table.info
    if info.get("tagged") or info.get("tagged_cells_inside"):
        return False
    if "layout_table_suspect" in table.issues:
        return False
    if (info.get("rows") or 0) < thresholds.min_drawn_rows or (info.get("cols") or 0) < thresholds.min_drawn_cols:
        return False
    in_region = bbox is not None and any(geometry.overlaps(bbox, r) for r in regions)
    return bool(table.caption) or in_region


def unscoped_headers(table: Table) -> list[dict[str, Any]]:
    """Non-empty TH cells without Scope (the extractor only flags them where Headers is not used)."""
    if "th_without_scope" not in table.issues:
        return []
    found = [c for c in table.cells if c.get("kind") == "TH" and not c.get("scope") and (c.get("text") or "").strip()]
    if not table.cells:  # no cells given: trust the extractor's code
        return [{"text": None}]
    return found


def orphan_data_cells(table: Table) -> list[dict[str, Any]]:
    if "data_cell_without_header" not in table.issues:
        return []
    return [c for c in table.cells if c.get("kind") == "TD" and (c.get("text") or "").strip() and not c.get("headers")]


def _check(table: Table, fail: Callable[[str, str, str], None], thresholds: TableThresholds) -> None:
    """Apply the tag rules to one tagged table; ``fail(sub, problem, fix)`` records a failure."""
    codes = table.issues
    if "no_cells" in codes:
        fail("tagging", "the Table element contains no TR, TH or TD cells, so the table cannot be navigated",
             "rebuild the table's tags as Table > TR > TH/TD, one TR per row and one cell per column")
        return
    if "no_tr" in codes:
        fail("navigability", "the cells are not grouped in TR rows: screen readers cannot move row by row",
             "wrap each row's cells in a TR element (inside THead/TBody if used)")
    if "no_th" in codes:
        if "layout_table_suspect" in codes:
            fail("appropriate_usage", "a Table without header cells that is a single row or column, or holds "
                 "running text, is layout rather than data", "tag layout content as P/L/Figure (or Artifact), "
                 "not as a Table")
        else:
            fail("header_semantics", "no cell is tagged TH: the header row or column is tagged TD",
                 "tag the header cells TH with Scope=Column (header row) or Scope=Row (header column)")
    unscoped = unscoped_headers(table)
    if len(unscoped) > thresholds.max_unscoped_headers:
        names = ", ".join(f"“{_clip(c.get('text'), 20)}”" for c in unscoped[:3] if c.get("text"))
        fail("header_semantics", f"{len(unscoped)} header cell(s) {names} have no Scope and the table does not "
             "use Headers/IDs", "give every TH a Scope (Column for header rows, Row for header columns), or "
             "give data cells Headers that list their header cells' IDs")
    if "headers_id_missing" in codes:
        fail("header_semantics", "data cells' Headers name IDs that no header cell has",
             "give each TH an ID and list those IDs in the data cells' Headers")
    if "headers_mismatch" in codes:
        fail("header_semantics", "data cells' Headers point at header cells outside their own row and column",
             "make each data cell's Headers list the TH of its own column (and row)")
    orphans = orphan_data_cells(table)
    if len(orphans) > thresholds.max_orphan_data_cells:
        fail("header_semantics", f"{len(orphans)} data cell(s) (e.g. “{_clip(orphans[0].get('text'), 20)}”) have "
             "no header that applies to them", "add TH cells (with Scope) for their row or column, or Headers/IDs")
    if "span_missing" in codes:
        fail("complex_tables", "cells of a row sit one or more columns left of where they are drawn: a RowSpan "
             "(or an empty cell) is missing above them, so a screen reader announces them under the wrong headers",
             "give the header cell above its RowSpan (or add the empty cell) so every row lines up with its headers")
    elif "misaligned_rows" in codes or ("ragged_rows" in codes
                                        and codes & {"headers_mismatch", "data_cell_without_header", "no_tr"}):
        fail("complex_tables", "rows have different widths once spans are applied: RowSpan/ColSpan are missing "
             "or wrong, which shifts cells under the wrong headers",
             "set ColSpan/RowSpan on merged cells so every row covers the same number of columns")


def judge_tables(bundle: PageBundle, thresholds: TableThresholds = THRESHOLDS) -> PageJudgment:
    """Label one page: Cannot Tell without table tags where tables are, Not Present without tables
    or in an untagged document, else Failed if any table breaks a sub-criterion."""
    crops = bundle.evidence.get("table_crops")
    tags = bundle.evidence.get("table_tags")
    where = f"Page {bundle.page}"
    if crops is None and tags is None:
        return cannot_tell(bundle, "table evidence", SUBS)
    regions = list((crops or {}).get("layout_table_regions") or ())
    if tags is None:
        if (crops or {}).get("tables") or regions:
            return cannot_tell(bundle, "table tag structure", SUBS)
        return PageJudgment(Label.NOT_PRESENT, {s: NA for s in SUBS}, summary=f"{where}: no tables on this page.")
    if not tags.get("tagged"):
        if (bundle.evidence.get("page_image") or {}).get("has_text") is False:
            return cannot_tell(bundle, "text layer (the page is a scanned image)", SUBS)
        return PageJudgment(Label.NOT_PRESENT, {s: NA for s in SUBS},
                            summary=f"{where}: the document is untagged, so it has no table structure to assess.")
    boxes = {t.get("table"): t.get("bbox") for t in (crops or {}).get("tables") or ()}
    subs = {s: PASSED for s in SUBS}
    # A caption helps but is not required (WCAG 1.3.1 is met by the header structure): not judged here.
    subs["contextual_clarity"] = NA
    issues: list[Issue] = []
    judged = 0
    for table in _tables(bundle, tags):
        at = f"{where}, {table.where}"

        def fail(sub: str, problem: str, fix: str, at: str = at) -> None:
            subs[sub] = FAILED
            issues.append(Issue(sub, at, problem, fix))

        if not table.info.get("tagged"):
            if is_untagged_data_table(table, regions, boxes.get(table.info.get("table_id")), thresholds):
                judged += 1
                fail("tagging", f"a {table.info.get('rows')}×{table.info.get('cols')} table is drawn on the page but "
                     "not tagged as a Table: screen readers read its cells as loose text",
                     "tag it as Table > TR > TH/TD, with the header row TH Scope=Column")
            continue
        judged += 1
        _check(table, fail, thresholds)
    if not judged:
        return PageJudgment(Label.NOT_PRESENT, {s: NA for s in SUBS}, summary=f"{where}: no tables on this page.")
    return verdict(bundle, subs, issues,
                   f"{judged} table(s) tagged Table/TR/TH/TD with scoped headers; every data cell reaches its "
                   "headers.")
