"""A run whose judges read no layout region but a table's (rules, checkers) lays out fewer pages, with the
same labels and findings (extractors.layout.plan, RunConfig.layout_scope)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typst

from extractors.layout import layout_file
from tasks.engine.context import RunConfig
from tests.extractors.test_layout import PAGE_SOURCE, _chart_png, _retag
from tests.judges.twins import judge_file
from tests.tasks.test_honest_screening import _strip_tags

FIGURE_ONLY = """#set page(width: 400pt, height: 560pt, margin: 40pt)
#set text(size: 10pt)
= Results

The measurements below were collected over twelve weeks at four sites and summarised per site.

#figure(image("chart.png", width: 200pt, height: 120pt, alt: "Bar chart of the means per site"),
  caption: [Means per site])
"""


def _compile(root: Path, source: str, name: str) -> Path:
    (root / f"{name}.typ").write_text(source, encoding="utf-8")
    (root / "chart.png").write_bytes(_chart_png())
    path = root / f"{name}.pdf"
    path.write_bytes(typst.compile(str(root / f"{name}.typ"), root=str(root), format="pdf"))
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("scope")
    table_and_figure = _compile(root, PAGE_SOURCE, "table-and-figure")
    figure = _compile(root, FIGURE_ONLY, "figure")
    table_as_div = _retag(table_and_figure, root / "table-as-div.pdf", "Table")
    return {
        "figure as Div": _retag(figure, root / "figure-as-div.pdf", "Figure"),
        "figure as Div beside a tagged table": _retag(table_and_figure, root / "tagged-table.pdf", "Figure"),
        "table as Div": table_as_div,
        "untagged": _strip_tags(table_as_div, root / "untagged.pdf"),
        "tagged": table_and_figure,
    }


def _plan(path: Path, **kw: Any) -> list[tuple[bool, str]]:
    return [(p["ran"], p["reason"]) for p in layout_file(path, doc_id="S", **kw)[1]]


def test_an_untagged_picture_without_a_drawn_table_needs_no_model(files: dict[str, Path]) -> None:
    assert _plan(files["figure as Div"]) == [(True, "untagged_image")]
    regions, pages = layout_file(files["figure as Div"], doc_id="S", drawn_tables_only=True)
    assert regions == [] and [(p["ran"], p["reason"]) for p in pages] == [(False, "no_drawn_table")]


def test_a_page_with_a_drawn_table_is_laid_out_as_before(files: dict[str, Path]) -> None:
    everything = layout_file(files["table as Div"], doc_id="S")
    tables_only = layout_file(files["table as Div"], doc_id="S", drawn_tables_only=True)
    assert [(p["ran"], p["reason"]) for p in tables_only[1]] == [(True, "table_candidate")]
    assert tables_only == everything and any(r["kind"] == "table" for r in tables_only[0])


def test_a_page_whose_drawn_tables_are_all_tagged_needs_no_model(files: dict[str, Path]) -> None:
    from extractors.tables import extract_tables

    path = files["figure as Div beside a tagged table"]  # the picture is untagged, the drawn table a tagged Table
    everything = layout_file(path, doc_id="S")
    assert [(p["ran"], p["reason"]) for p in everything[1]] == [(True, "untagged_image")]
    assert any(r["kind"] == "table" for r in everything[0])
    regions, pages = layout_file(path, doc_id="S", drawn_tables_only=True)
    assert regions == [] and [(p["ran"], p["reason"]) for p in pages] == [(False, "drawn_tables_tagged")]
    tables = extract_tables(path, doc_id="S", regions=everything[0])
    assert extract_tables(path, doc_id="S", regions=regions) == tables
    assert [t["tagged"] for t in tables[0]] == [True]  # the drawn table is the tagged one: no untagged record


def test_an_untagged_document_needs_no_model_unless_another_file_of_it_is_tagged(files: dict[str, Path]) -> None:
    assert _plan(files["untagged"]) == [(True, "untagged_image")]
    assert _plan(files["untagged"], drawn_tables_only=True) == [(False, "untagged_document")]  # every page
    # One file of a document of several: the document is tagged if another file is, so its tables count.
    assert _plan(files["untagged"], drawn_tables_only=True, whole_document=False) == [(True, "untagged_image")]


def test_only_model_judges_see_every_region_and_the_scope_is_a_stage_key(tmp_path: Path) -> None:
    def scope(**kw: Any) -> str:
        return RunConfig(home=tmp_path, run_id="r", **kw).layout_scope

    assert scope() == "drawn_tables"
    assert scope(judges=["rules", "checker:page"]) == "drawn_tables"
    assert scope(judges=["rules", "llm:openai/gpt-4o"]) == "evidence"
    assert scope(judges=["hybrid:openai/gpt-4o"]) == "evidence"
    assert scope(tag_tree_backend="pdfix") == "evidence"  # the plan reads tags as the default reader does
    from tasks.benchmark.layout import LAYOUT

    assert "layout_scope" in LAYOUT.config_keys  # a rules run's regions are not reused by an LLM run


@pytest.mark.heavy  # seconds of CPU: make test runs it, make test-fast leaves it out
def test_the_rules_judge_labels_the_same_with_fewer_pages_laid_out(files: dict[str, Path], tmp_path: Path) -> None:
    criteria = ["table_structure", "alt_text_quality", "color_contrast"]
    for name, path in files.items():
        rules = RunConfig(home=tmp_path, run_id="a", crop_dpi=36)
        model = RunConfig(home=tmp_path, run_id="b", crop_dpi=36, judges=["llm:openai/gpt-4o"])
        assert (rules.layout_scope, model.layout_scope) == ("drawn_tables", "evidence")
        fewer = judge_file(path, criteria, rules, tmp_path / "a" / path.stem)
        every = judge_file(path, criteria, model, tmp_path / "b" / path.stem)
        assert fewer == every, name


def test_a_run_without_model_judges_makes_no_crops_and_nothing_else_changes(files: dict[str, Path],
                                                                            tmp_path: Path) -> None:
    from tasks.benchmark.extract import EXTRACT
    from tasks.benchmark.work.extract import extract_file

    def without_crops(rows: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
        return {name: [{k: v for k, v in r.items() if k != "crop_path"} for r in table] for name, table in rows.items()}

    for name, path in files.items():
        cropped = extract_file(path, "D", 0, 0, tmp_path / name, 72, [])
        plain = extract_file(path, "D", 0, 0, None, 72, [])
        assert without_crops(plain) == without_crops(cropped), name
        assert all(r.get("crop_path") is None for r in plain["figures"] + plain["tables"])
    assert any(r.get("crop_path") for r in cropped["figures"] + cropped["tables"])  # the tagged file's crops
    assert RunConfig(home=tmp_path, run_id="r").model_evidence is False
    assert RunConfig(home=tmp_path, run_id="r", judges=["hybrid:openai/gpt-4o"]).model_evidence is True
    assert "model_evidence" in EXTRACT.config_keys  # a rules run's evidence is not reused by an LLM run


@pytest.mark.heavy  # the layout model and the table search on several files: make test runs it
def test_regions_that_never_reach_the_search_leave_only_the_pages_it_looks_at_on_its_own(
        files: dict[str, Path]) -> None:
    from extractors.source import PdfSource
    from extractors.structure.records import extract_struct_elements
    from extractors.tables import extract_tables, searches_page

    path = files["table as Div"]  # an untagged drawn table, no "Table N" caption
    assert _plan(path, drawn_tables_only=True) == [(True, "table_candidate")]
    regions, pages = layout_file(path, doc_id="S", drawn_tables_only=True, regions_searched=False)
    assert regions == [] and [(p["ran"], p["reason"]) for p in pages] == [(False, "not_searched")]
    assert _plan(path, regions_searched=False) == _plan(path)  # a run whose model judges read every region
    # Without regions the search never looks at that page, so no drawn-table record can come from it.
    found = 0
    for name, pdf in files.items():
        tables, _ = extract_tables(pdf, doc_id="S", regions=[])
        with PdfSource(pdf) as source:
            untagged = not extract_struct_elements(source, doc_id="S")
            tagged = [t for t in tables if t["tagged"]]
            for number in {t["page"] - 1 for t in tables if not t["tagged"]}:
                count = sum(1 for t in tagged if t["page"] == number + 1 and t["bbox"] is not None)
                assert searches_page(source, number, count, untagged), name
                found += 1
    assert found  # the untagged file's ruled table
    with PdfSource(path) as source:
        assert not searches_page(source, 0, 0, untagged=False)
