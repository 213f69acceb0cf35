"""Tables: the tagged grid with spans, header associations, issue codes, drawn-but-untagged tables.

A typst table with two header rows (a rowspan and a colspan) and a row-spanning data cell
shows the grid and the associations; the synthetic generator's table mutations, applied
here to its passing documents, each produce their issue code.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pikepdf
import pytest
from PIL import Image

from corpus.mutations import tables as mutations
from corpus.synthetic import build_synthetic_benchmark
from extractors.errors import ExtractionError
from extractors.tables import extract_tables, render_table_crops
from tests.extractors.conftest import assert_fits, compile_typst, struct_elements_of
from tests.extractors.conftest import first_mutated as mutated
from warehouse.tables import TABLE_CELLS_SCHEMA, TABLES_SCHEMA

SPANNING_TABLE = """#set document(title: "Tables")
#set text(lang: "en", size: 10pt)
#set page(width: 420pt, height: 595pt)
= Results
Visits went up at every site.

#figure(
  table(columns: 4,
    table.header(table.cell(rowspan: 2)[Site], table.cell(colspan: 2)[Visits], [Share],
                 [Before], [After], [%]),
    table.cell(rowspan: 2)[North], [10], [12], [5],
    [11], [13], [6],
    [South], [20], [22], [7],
  ),
  caption: [Visits per site.],
)
"""


@pytest.fixture(scope="module")
def spanning(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_typst(SPANNING_TABLE, tmp_path_factory.mktemp("tables") / "spanning.pdf")


@pytest.fixture(scope="module")
def untagged_table(spanning: Path) -> Path:
    out = spanning.with_name("untagged.pdf")
    with pikepdf.open(spanning) as pdf:
        del pdf.Root["/StructTreeRoot"]
        pdf.save(out)
    return out


@pytest.fixture(scope="module")
def passed_papers(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("synthetic-tables")
    build_synthetic_benchmark(root, seed=0, base_docs=3, criteria=["table_structure"])
    return sorted((root / "data" / "processed" / "table_structure" / "passed").glob("*.pdf"))




def test_tagged_grid_places_spans_and_associates_headers(spanning: Path) -> None:
    tables, cells = extract_tables(spanning, doc_id="t")
    assert_fits(tables, TABLES_SCHEMA)
    assert_fits(cells, TABLE_CELLS_SCHEMA)
    [table] = tables
    assert (table["rows"], table["cols"], table["header_rows"], table["header_cols"]) == (5, 4, 2, 0)
    assert (table["th_count"], table["td_count"], table["spans"]) == (6, 11, 3)
    assert (table["has_scope"], table["has_headers_attr"]) == (1.0, 1.0)
    assert table["tagged"] and table["source"] == "tags" and table["issues"] == []
    assert table["caption"] == "Table 1: Visits per site."
    grid = {(c["row"], c["col"]): c for c in cells}
    assert (grid[(0, 1)]["text"], grid[(0, 1)]["colspan"]) == ("Visits", 2)
    assert (grid[(2, 0)]["text"], grid[(2, 0)]["rowspan"], grid[(2, 0)]["kind"]) == ("North", 2, "TD")
    # The row below the spanning "North" starts in column 1.
    assert grid[(3, 2)]["text"] == "13"
    assert grid[(3, 2)]["associated_headers"] == ["Visits", "After"]
    assert grid[(4, 0)]["associated_headers"] == ["Site"]
    assert all(c["headers"] for c in cells if c["kind"] == "TD")


def test_headers_follow_scope_when_there_is_no_headers_attribute(spanning: Path, tmp_path: Path) -> None:
    def drop_headers(pdf: pikepdf.Pdf) -> None:
        for elem in struct_elements_of(pdf):
            attrs = mutations.table_attributes(elem)
            if elem.get("/S") == "/TD" and attrs is not None and "/Headers" in attrs:
                del attrs["/Headers"]

    out = tmp_path / "scope-only.pdf"
    with pikepdf.open(spanning) as pdf:
        drop_headers(pdf)
        pdf.save(out)
    _, cells = extract_tables(out, doc_id="t")
    grid = {(c["row"], c["col"]): c for c in cells}
    assert grid[(3, 2)]["headers"] == []
    assert grid[(3, 2)]["associated_headers"] == ["Visits", "After"]  # column headers above, by Scope


def test_drawn_table_without_tags_is_found_on_the_page(untagged_table: Path) -> None:
    tables, cells = extract_tables(untagged_table, doc_id="u")
    assert_fits(tables, TABLES_SCHEMA)
    assert_fits(cells, TABLE_CELLS_SCHEMA)
    [table] = tables
    assert table["table_id"] < 0 and not table["tagged"] and table["source"] == "visual"
    assert (table["rows"], table["cols"]) == (5, 4)
    assert "untagged_table" in table["issues"]
    assert table["th_count"] is None and table["caption"] == "Table 1: Visits per site."
    assert {c["kind"] for c in cells} == {None}
    assert any(c["text"] == "Site" and c["rowspan"] == 2 for c in cells)
    assert extract_tables(untagged_table, doc_id="u", visual=False) == ([], [])


def test_passing_papers_have_no_issues(passed_papers: list[Path]) -> None:
    for paper in passed_papers:
        tables, _ = extract_tables(paper, doc_id=paper.stem)
        assert tables, paper.name
        assert all(t["tagged"] and t["issues"] == [] for t in tables), (paper.name, tables)


@pytest.mark.parametrize(
    ("mutation", "issue"),
    [
        (mutations.th_demoted, "no_th"),
        (mutations.header_associations_removed, "th_without_scope"),
        (mutations.headers_misassigned, "headers_mismatch"),
        (mutations.rows_flattened, "no_tr"),
        (mutations.spans_dropped, "ragged_rows"),
        (mutations.table_as_text, "untagged_table"),
    ],
    ids=lambda value: getattr(value, "__name__", value),
)
def test_each_mutation_yields_its_issue(passed_papers: list[Path], tmp_path: Path,
                                        mutation: Callable[[pikepdf.Pdf, random.Random], None], issue: str) -> None:
    tables, _ = extract_tables(mutated(passed_papers, mutation, tmp_path / "m.pdf"), doc_id="m")
    flagged = [t for t in tables if issue in t["issues"]]
    assert flagged, tables
    if issue == "no_th":
        assert flagged[0]["th_count"] == 0
    if issue == "untagged_table":
        assert not flagged[0]["tagged"] and flagged[0]["source"] == "visual"


def test_rows_are_rebuilt_from_positions_when_tr_is_missing(passed_papers: list[Path], tmp_path: Path) -> None:
    original = passed_papers[0]
    with pikepdf.open(original) as pdf:
        mutations.rows_flattened(pdf, random.Random(0))
        pdf.save(tmp_path / "flat.pdf")
    flat = extract_tables(tmp_path / "flat.pdf", doc_id="m")[0]
    assert any("no_tr" in t["issues"] for t in flat)
    for table in extract_tables(original, doc_id="m")[0]:
        rebuilt = next(t for t in flat if t["bbox"] == table["bbox"])
        assert (rebuilt["rows"], rebuilt["cols"], rebuilt["spans"]) == (table["rows"], table["cols"], table["spans"])


def test_layout_region_points_the_search_at_a_page(tmp_path: Path) -> None:
    # Tagged, but the table's tags are generic and it has no caption: nothing says "table"
    # except a layout region.
    plain = compile_typst(SPANNING_TABLE.replace("#figure(", "#box(").replace("caption: [Visits per site.],", ""),
                          tmp_path / "plain.pdf")
    with pikepdf.open(plain) as pdf:
        mutations.table_as_text(pdf, random.Random(0))
        pdf.save(tmp_path / "as-text.pdf")
    assert extract_tables(tmp_path / "as-text.pdf", doc_id="p") == ([], [])
    region = {"doc_id": "p", "page": 1, "kind": "table", "bbox": [0.0, 0.0, 420.0, 595.0]}
    [found] = extract_tables(tmp_path / "as-text.pdf", doc_id="p", regions=[region])[0]
    assert (found["source"], found["rows"], found["cols"], found["caption"]) == ("visual", 5, 4, None)


def test_table_crops_are_written(spanning: Path, untagged_table: Path, tmp_path: Path) -> None:
    tables = extract_tables(spanning, doc_id="doc/one")[0] + extract_tables(untagged_table, doc_id="doc/one")[0]
    paths = render_table_crops(spanning, tables, tmp_path, dpi=72)
    assert len(paths) == 2 and len(set(paths)) == 2
    for path, table in zip(paths, tables, strict=True):
        assert path is not None
        with Image.open(path) as image:
            width, height = image.size
        assert abs(width - (table["bbox"][2] - table["bbox"][0] + 8)) <= 2
        assert abs(height - (table["bbox"][3] - table["bbox"][1] + 8)) <= 2


def test_unreadable_pdf_raises(corrupt_pdf: Path) -> None:
    with pytest.raises(ExtractionError):
        extract_tables(corrupt_pdf, doc_id="bad", elements=[])


@pytest.mark.parametrize(("name", "code"), [("header_rows", "span_missing"), ("row_headers", "row_header_alone"),
                                            ("section_rows", None)])
def test_header_defect_classes_get_their_issue_codes(name: str, code: str | None, tmp_path: Path) -> None:
    from tests.judges import test_defect_classes_tables_links as twins

    case = next(c for c in twins.CASES if c.name == name)
    passed = twins._compile(case, tmp_path / "pass.pdf")
    [record], _ = extract_tables(passed, doc_id="d", visual=False)
    assert not {"span_missing", "row_header_alone", "misaligned_rows"} & set(record["issues"]), record["issues"]
    if code is None or case.edit is None:
        return
    with pikepdf.open(passed) as pdf:
        case.edit(pdf)
        pdf.save(tmp_path / "fail.pdf")
    [record], _ = extract_tables(tmp_path / "fail.pdf", doc_id="d", visual=False)
    assert code in record["issues"]
