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
from judges.rules.catalog import finding
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


def row_headers_alone(table: Table) -> list[dict[str, Any]]:
    """Row headers (TH) that sit alone in a TR, their data cells in the next TR (see extractors/tables.py)."""
    if "row_header_alone" not in table.issues:
        return []
    by_row: dict[int, list[dict[str, Any]]] = {}
    for cell in table.cells:
        by_row.setdefault(cell.get("row") or 0, []).append(cell)
    found = [row[0] for r, row in sorted(by_row.items()) if r > 0 and all(c.get("kind") == "TH" for c in row)
             and any(c.get("kind") == "TD" for c in by_row.get(r + 1, ())) and len(row) == 1]
    return found or [{"text": None}]


Report = Callable[..., None]


def _check(table: Table, report: Report, thresholds: TableThresholds) -> None:
    """Apply the tag rules to one tagged table; ``report(rule_id, **values)`` records a finding."""
    codes = table.issues
    if "no_cells" in codes:
        report("table_structure.tagging.no_cells")
        return
    if "no_tr" in codes:
        report("table_structure.navigability.no_tr")
    alone = row_headers_alone(table)
    if alone:
        report("table_structure.navigability.row_header_alone", count=len(alone),
               example=_clip(alone[0].get("text") or "?", 20))
    if "no_th" in codes:
        if "layout_table_suspect" in codes:
            report("table_structure.appropriate_usage.layout_table")
        else:
            report("table_structure.header_semantics.no_th")
    unscoped = unscoped_headers(table)
    if len(unscoped) > thresholds.max_unscoped_headers:
        names = ", ".join(f"“{_clip(c.get('text'), 20)}”" for c in unscoped[:3] if c.get("text"))
        report("table_structure.header_semantics.th_without_scope", count=len(unscoped),
               names=f"{names} " if names else "")
    if "headers_id_missing" in codes:
        report("table_structure.header_semantics.headers_id_missing")
    if "headers_mismatch" in codes:
        report("table_structure.header_semantics.headers_mismatch")
    orphans = orphan_data_cells(table)
    if len(orphans) > thresholds.max_orphan_data_cells:
        report("table_structure.header_semantics.data_cell_without_header", count=len(orphans),
               example=_clip(orphans[0].get("text"), 20))
    if "span_missing" in codes:
        report("table_structure.complex_tables.span_missing")
    elif not alone and ("misaligned_rows" in codes or (
            "ragged_rows" in codes and codes & {"headers_mismatch", "data_cell_without_header", "no_tr"})):
        # (rows a lone row header leaves short are that finding, not a second one)
        report("table_structure.complex_tables.misaligned_rows")


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
        box = boxes.get(table.info.get("table_id"))

        def report(rule_id: str, at: str = at, box: Any = box, **values: Any) -> None:
            issue = finding(rule_id, at, bbox=box, **values)
            subs[issue.sub_criterion] = FAILED  # a warning is set aside by judges.rules.apply_catalog
            issues.append(issue)

        if not table.info.get("tagged"):
            if is_untagged_data_table(table, regions, box, thresholds):
                judged += 1
                report("table_structure.tagging.untagged_table", rows=table.info.get("rows"),
                       cols=table.info.get("cols"))
            continue
        judged += 1
        _check(table, report, thresholds)
    if not judged:
        return PageJudgment(Label.NOT_PRESENT, {s: NA for s in SUBS}, summary=f"{where}: no tables on this page.")
    return verdict(bundle, subs, issues,
                   f"{judged} table(s) tagged Table/TR/TH/TD with scoped headers; every data cell reaches its "
                   "headers.")
