"""Decision rules of the rules judge for table structure: a failing and a passing case per sub-criterion."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pikepdf
import pytest

from extractors.structure.records import extract_struct_elements
from extractors.tables import extract_tables
from judges.evidence import DocEvidence, PageBundle, build_bundles
from judges.labels import Label
from judges.rules.tables import judge_tables
from tests.extractors.conftest import compile_typst
from tests.judges import test_defect_classes_tables_links as twins

BOX = [50.0, 100.0, 350.0, 200.0]


def cell(row: int, col: int, kind: str | None, text: str, scope: str | None = None,
         headers: list[str] | None = None) -> dict[str, Any]:
    return {"row": row, "col": col, "kind": kind, "scope": scope, "text": text, "rowspan": 1, "colspan": 1,
            "headers": headers or []}


GOOD_CELLS = [cell(0, 0, "TH", "Site", "Column"), cell(0, 1, "TH", "Visits", "Column"),
              cell(1, 0, "TD", "North", headers=["Site"]), cell(1, 1, "TD", "40", headers=["Visits"]),
              cell(2, 0, "TD", "South", headers=["Site"]), cell(2, 1, "TD", "22", headers=["Visits"])]


def table(**kw: Any) -> dict[str, Any]:
    """One tagged 3×2 table with a scoped header row, as the table_tags evidence carries it."""
    return {"table_id": 7, "rows": 3, "cols": 2, "header_rows": 1, "header_cols": 0, "th_count": 2, "td_count": 4,
            "has_scope": 1.0, "has_headers_attr": 0.0, "spans": 0, "tagged": True, "source": "tags", "issues": [],
            "cells": GOOD_CELLS, **kw}


def page(*tables: dict[str, Any], tagged: bool = True, caption: str | None = "Table 1: Visits per site.",
         regions: list[list[float]] | None = None, **evidence: Any) -> PageBundle:
    crops = {"tables": [{"table": t["table_id"], "bbox": BOX, "caption": caption} for t in tables],
             "layout_table_regions": regions or [], "document_tables": len(tables)}
    return PageBundle("table_structure", 2, {"table_crops": crops, "table_tags": {"tables": list(tables),
                                                                                   "tagged": tagged}, **evidence})


def failed_sub(result: Any) -> set[str]:
    return {s for s, v in result.sub_criteria.items() if v == "failed"}


# --------------------------------------------------------------------------- labels


def test_well_formed_table_passes_with_a_justification() -> None:
    result = judge_tables(page(table()))
    assert result.label is Label.PASSED and "scoped headers" in result.summary


def test_no_tables_or_an_untagged_document_is_not_present() -> None:
    assert judge_tables(page()).label is Label.NOT_PRESENT
    drawn = table(tagged=False, source="visual", issues=["untagged_table"], cells=[])
    assert judge_tables(page(drawn, tagged=False)).label is Label.NOT_PRESENT


def test_withheld_table_tags_cannot_tell_only_where_tables_are() -> None:
    crops = {"tables": [{"table": 7, "bbox": BOX}], "layout_table_regions": []}
    assert judge_tables(PageBundle("table_structure", 1, {"table_crops": crops})).label is Label.CANNOT_TELL
    empty: dict[str, Any] = {"tables": [], "layout_table_regions": []}
    assert judge_tables(PageBundle("table_structure", 1, {"table_crops": empty})).label is Label.NOT_PRESENT
    assert judge_tables(PageBundle("table_structure", 1, {})).label is Label.CANNOT_TELL


# --------------------------------------------------------------------------- tagging


def test_drawn_table_without_table_tags_fails_in_a_tagged_document() -> None:
    drawn = table(table_id=-1, tagged=False, source="visual", issues=["untagged_table"], cells=[])
    result = judge_tables(page(drawn))
    assert result.label is Label.FAILED and failed_sub(result) == {"tagging"}
    assert result.issues[0].location == "Page 2, table 1 (“Table 1: Visits per site.” caption)"
    assert "TR" in result.issues[0].remediation


def test_drawn_grid_that_is_tagged_elsewhere_or_looks_like_layout_is_not_held_against_the_page() -> None:
    continued = table(table_id=-1, tagged=False, source="visual", issues=["untagged_table"], tagged_cells_inside=6)
    assert judge_tables(page(continued)).label is Label.NOT_PRESENT
    boxed = table(table_id=-1, rows=1, tagged=False, source="visual", issues=["untagged_table",
                                                                              "layout_table_suspect"])
    assert judge_tables(page(boxed)).label is Label.NOT_PRESENT
    uncaptioned = table(table_id=-1, tagged=False, source="visual", issues=["untagged_table"])
    assert judge_tables(page(uncaptioned, caption=None)).label is Label.NOT_PRESENT
    assert judge_tables(page(uncaptioned, caption=None, regions=[BOX])).label is Label.FAILED


def test_table_element_without_cells_fails_tagging() -> None:
    result = judge_tables(page(table(rows=0, cols=0, issues=["no_cells"], cells=[])))
    assert failed_sub(result) == {"tagging"}


# --------------------------------------------------------------------------- header semantics


def test_header_cells_tagged_td_fail() -> None:
    cells = [{**c, "kind": "TD", "scope": None} for c in GOOD_CELLS]
    result = judge_tables(page(table(th_count=0, issues=["no_th"], cells=cells)))
    assert failed_sub(result) == {"header_semantics"} and "Scope=Column" in result.issues[0].remediation


def test_header_cells_without_scope_fail_unless_only_an_empty_corner_lacks_it() -> None:
    unscoped = [{**c, "scope": None} if c["kind"] == "TH" else c for c in GOOD_CELLS]
    result = judge_tables(page(table(has_scope=0.0, issues=["th_without_scope"], cells=unscoped)))
    assert failed_sub(result) == {"header_semantics"} and "“Site”" in result.issues[0].problem
    corner = [cell(0, 0, "TH", ""), *GOOD_CELLS[1:]]
    assert judge_tables(page(table(issues=["th_without_scope", "empty_header_cell"], cells=corner))).label \
        is Label.PASSED


def test_headers_pointing_at_wrong_or_missing_cells_fail() -> None:
    for code in ("headers_mismatch", "headers_id_missing"):
        result = judge_tables(page(table(issues=[code])))
        assert failed_sub(result) == {"header_semantics"}, code


def test_data_cells_no_header_reaches_fail() -> None:
    cells = [*GOOD_CELLS[:5], cell(2, 1, "TD", "22")]
    result = judge_tables(page(table(issues=["data_cell_without_header"], cells=cells)))
    assert failed_sub(result) == {"header_semantics"} and "“22”" in result.issues[0].problem
    # An empty data cell has nothing to announce: no header needed.
    empty = [*GOOD_CELLS[:5], cell(2, 1, "TD", "")]
    assert judge_tables(page(table(issues=["data_cell_without_header"], cells=empty))).label is Label.PASSED


# --------------------------------------------------------------------------- appropriate usage, navigability


def test_layout_grid_tagged_as_table_fails_appropriate_usage() -> None:
    row = [cell(0, 0, "TD", "A long paragraph of running text set in a box."), cell(0, 1, "TD", "Another one.")]
    result = judge_tables(page(table(rows=1, th_count=0, issues=["no_th", "layout_table_suspect"], cells=row)))
    assert failed_sub(result) == {"appropriate_usage"}


def test_cells_outside_rows_fail_navigability() -> None:
    result = judge_tables(page(table(issues=["no_tr"])))
    assert failed_sub(result) == {"navigability"} and "TR" in result.issues[0].remediation


# --------------------------------------------------------------------------- complex tables


def test_lost_spans_that_shift_headers_fail_but_a_short_section_row_alone_passes() -> None:
    result = judge_tables(page(table(spans=0, issues=["ragged_rows", "headers_mismatch"])))
    assert {"complex_tables", "header_semantics"} == failed_sub(result)
    # A one-cell section row without ColSpan leaves the row short but every data cell keeps its headers.
    assert judge_tables(page(table(issues=["ragged_rows"]))).label is Label.PASSED


# --------------------------------------------------------------------------- real path: typst → extractors → judge

SOURCE = """#set document(title: "Clinic visits")
#set text(lang: "en", size: 11pt)
#set page(width: 420pt, height: 595pt)
= Results
#figure(table(columns: 3, table.header([Site], [Before], [After]),
              [North], [10], [12], [South], [20], [22]),
        caption: [Visits per site.])
"""


def _judge_pdf(pdf: Path) -> Label:
    elements = extract_struct_elements(pdf, doc_id="d")
    tables, cells = extract_tables(pdf, doc_id="d", elements=elements)
    evidence = DocEvidence("d", pages=[{"page": 1, "has_text": True}], struct_elements=elements,
                           doc_structure=[{"tagged": bool(elements)}], tables=tables, table_cells=cells)
    [(bundle, _)] = build_bundles("table_structure", evidence, withhold=False)
    return judge_tables(bundle).label


def test_real_pdf_passes_then_fails_once_its_headers_become_td(tmp_path: Path) -> None:
    pdf = compile_typst(SOURCE, tmp_path / "visits.pdf")
    assert _judge_pdf(pdf) is Label.PASSED
    demoted = tmp_path / "demoted.pdf"
    with pikepdf.open(pdf) as doc:
        for obj in doc.objects:
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/S") == "/TH":
                obj.S = pikepdf.Name.TD
        doc.save(demoted)
    assert _judge_pdf(demoted) is Label.FAILED


# --------------------------------------------------------------------------- rule ids; the header defect classes

ALONE_CELLS = [cell(0, 0, "TH", "Name", "Column"), cell(0, 1, "TH", "Spring", "Column"),
               cell(0, 2, "TH", "Autumn", "Column"), cell(1, 0, "TH", "Alice", "Row"),
               cell(2, 0, "TD", "12", headers=["Name"]), cell(2, 1, "TD", "14", headers=["Spring"])]


def test_a_row_header_alone_in_its_row_fails_navigability_once() -> None:
    alone = table(rows=3, cols=3, issues=["ragged_rows", "misaligned_rows", "row_header_alone"], cells=ALONE_CELLS)
    result = judge_tables(page(alone))
    assert failed_sub(result) == {"navigability"}
    assert [i.rule_id for i in result.issues] == ["table_structure.navigability.row_header_alone"]
    assert "“Alice”" in result.issues[0].problem and "same TR" in result.issues[0].remediation


def test_every_table_finding_carries_its_rule_id() -> None:
    codes = ["no_tr", "th_without_scope", "headers_id_missing", "headers_mismatch", "data_cell_without_header",
             "span_missing"]
    unscoped = [{**c, "scope": None} if c["kind"] == "TH" else {**c, "headers": []} for c in GOOD_CELLS]
    result = judge_tables(page(table(issues=codes, cells=unscoped),
                               table(table_id=8, issues=["no_th", "layout_table_suspect"]),
                               table(table_id=9, issues=["misaligned_rows"]),
                               table(table_id=-1, tagged=False, source="visual", issues=["untagged_table"])))
    ids = [i.rule_id for i in result.issues]
    assert all(ids) and len(ids) == len(set(ids)) == 9, ids
    assert all(i.sub_criterion == i.rule_id.split(".")[1] for i in result.issues)


def _judged(pdf: Path) -> Any:
    elements = extract_struct_elements(pdf, doc_id="d")
    tables, cells = extract_tables(pdf, doc_id="d", elements=elements)
    evidence = DocEvidence("d", pages=[{"page": 1, "has_text": True}], struct_elements=elements,
                           doc_structure=[{"tagged": bool(elements)}], tables=tables, table_cells=cells)
    [(bundle, _)] = build_bundles("table_structure", evidence, withhold=False)
    return judge_tables(bundle)


@pytest.mark.parametrize("name", ["header_rows", "row_headers", "section_rows"])
def test_header_defect_classes_from_typst(name: str, tmp_path: Path) -> None:
    case = next(c for c in twins.CASES if c.name == name)
    passed = twins._compile(case, tmp_path / "pass.pdf")
    assert _judged(passed).label is Label.PASSED, _judged(passed).issues
    if case.edit is None:
        return
    with pikepdf.open(passed) as doc:
        case.edit(doc)
        doc.save(tmp_path / "fail.pdf")
    result = _judged(tmp_path / "fail.pdf")
    assert result.label is Label.FAILED and case.rule_id in {i.rule_id for i in result.issues}, result.issues
