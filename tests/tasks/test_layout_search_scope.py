"""A screened file's layout regions never reach the extract stage's search for drawn tables: its extraction is
computed for the file's first criterion, which is not laid out. In a rules-only run the model then runs only on
pages that search looks at on its own (``not_searched`` elsewhere), and every table, judgment, finding and
label is the same as when the model ran on every planned page (issue 56; extractors.layout.plan)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tasks.benchmark.registry import BENCHMARK
from tasks.benchmark.work import layout as layout_stage  # the work, where `regions_searched` is read
from tasks.benchmark.work.layout import layout_item_of, regions_searched, tags_withheld
from tasks.engine.context import RunConfig
from tests.extractors.test_layout import PAGE_SOURCE, _retag
from tests.extractors.test_layout_scope import _compile

CAPTIONED = """#set page(width: 400pt, height: 560pt, margin: 40pt)
#set text(size: 10pt)
= Results

The measurements below were collected over twelve weeks at four sites and summarised per site.

#figure(table(columns: 3, table.header([*Site*], [*Mean*], [*Count*]),
  [Harbour], [41], [12], [Old Town], [37], [15], [Riverside], [52], [9], [Station], [44], [11]),
  caption: [Means per site])
"""


def _doc(doc_id: str, criterion: str, sha: str = "s", expected: str | None = None) -> dict[str, Any]:
    return {"doc_id": doc_id, "criterion": criterion, "sha256": sha, "expected_label": expected}


def test_only_a_content_whose_extraction_is_computed_for_a_laid_out_document_has_its_regions_searched() -> None:
    alt, table = _doc("a", "alt_text_quality"), _doc("t", "table_structure")
    assert regions_searched([alt, table]) is False  # a screened file: its first criterion is not laid out
    assert regions_searched([table, alt]) is True  # --criteria table_structure first: the table document's
    assert regions_searched([table]) is True
    # An expected Cannot Tell withholds the table tags: the judge reads the table regions wherever they are.
    withheld = _doc("t", "table_structure", expected="cannot_tell")
    assert tags_withheld([alt, withheld]) is True
    assert tags_withheld([alt, _doc("t", "table_structure", expected="failed")]) is False
    assert tags_withheld([_doc("a", "alt_text_quality", expected="cannot_tell"), table]) is False  # not laid out
    assert layout_item_of(table, [alt, table]) == {"doc": table, "doc_id": "t", "regions_searched": False,
                                                   "tags_withheld": False}
    assert layout_item_of(withheld, [alt, withheld])["tags_withheld"] is True


@pytest.mark.heavy  # the layout model and the table search on several files: make test runs it
def test_a_document_judged_without_its_table_tags_is_laid_out_as_for_model_judges(tmp_path: Path) -> None:
    path = _retag(_compile(tmp_path, PAGE_SOURCE, "table-and-figure"), tmp_path / "picture as Div.pdf", "Figure")
    doc = {"doc_id": "t", "criterion": "table_structure", "root": "/", "files": [str(path)], "sha256": None}
    plain = layout_stage.layout_document("r", "pymupdf", None, "drawn_tables", layout_item_of(doc, [doc]))
    withheld = {**doc, "expected_label": "cannot_tell"}
    laid_out = layout_stage.layout_document("r", "pymupdf", None, "drawn_tables", layout_item_of(withheld, [withheld]))
    assert [(p["ran"], p["reason"]) for p in plain["layout_pages"]] == [(False, "drawn_tables_tagged")]
    assert [(p["ran"], p["reason"]) for p in laid_out["layout_pages"]] == [(True, "untagged_image")]
    assert laid_out["layout_regions"] and not plain["layout_regions"]


def _run(root: Path, folder: Path, name: str) -> RunConfig:
    cfg = RunConfig(home=root / name, run_id=name, source="pdfs", source_path=str(folder), progress=False, workers=1)
    object.__setattr__(cfg, "doc_timeout_s", None)  # one worker, no time limit: in this process, seen by the test
    results = BENCHMARK.run(cfg)
    assert {r["status"] for r in results} == {"completed"}, results
    return cfg


def _rows(cfg: RunConfig, stage: str, table: str) -> list[dict[str, Any]]:
    data = cfg.store.read_table(stage, cfg.run_id, table)
    home = str(cfg.home)
    rows = data.drop_columns(["run_id"]).to_pylist() if data is not None else []
    return sorted(({k: v.replace(home, "HOME") if isinstance(v, str) else v for k, v in row.items()} for row in rows),
                  key=repr)


@pytest.mark.heavy  # two screening runs of a small folder
def test_a_screened_file_is_laid_out_only_where_the_search_looks_and_nothing_it_concludes_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build = tmp_path / "build"
    build.mkdir()
    folder = tmp_path / "pdfs"
    folder.mkdir()
    table_and_figure = _compile(build, PAGE_SOURCE, "table-and-figure")
    _retag(table_and_figure, folder / "drawn table as Div.pdf", "Table")  # no caption: the search never looks
    _retag(table_and_figure, folder / "picture as Div.pdf", "Figure")
    _retag(_compile(build, CAPTIONED, "captioned"), folder / "captioned table as Div.pdf", "Table")
    fewer = _run(tmp_path, folder, "fewer")
    monkeypatch.setattr(layout_stage, "regions_searched", lambda copies: True)  # every planned page, as before
    every = _run(tmp_path, folder, "every")

    def reasons(cfg: RunConfig) -> dict[str, list[tuple[bool, str]]]:
        files = {d["doc_id"]: Path(d["files"][0]).name for d in _rows(cfg, "corpus", "documents")}
        out: dict[str, list[tuple[bool, str]]] = {}
        for row in _rows(cfg, "layout", "layout_pages"):
            out.setdefault(files[row["doc_id"]], []).append((row["ran"], row["reason"]))
        return out

    assert reasons(every)["drawn table as Div.pdf"] == [(True, "table_candidate")]
    assert reasons(fewer)["drawn table as Div.pdf"] == [(False, "not_searched")]
    assert reasons(fewer)["picture as Div.pdf"] == [(False, "not_searched")]
    # A page with more "Table N" captions than tagged tables is searched: laid out as before.
    assert reasons(fewer)["captioned table as Div.pdf"] == reasons(every)["captioned table as Div.pdf"]
    assert any(ran for ran, _ in reasons(fewer)["captioned table as Div.pdf"])
    assert len(_rows(fewer, "layout", "layout_regions")) < len(_rows(every, "layout", "layout_regions"))
    for stage, table in [("extract", "tables"), ("extract", "table_cells"), ("extract", "figures"),
                         ("judge", "judgments"), ("judge", "findings"), ("aggregate", "doc_labels"),
                         ("aggregate", "screening")]:
        assert _rows(fewer, stage, table) == _rows(every, stage, table), (stage, table)
    assert any(r["table_id"] < 0 for r in _rows(fewer, "extract", "tables"))  # the captioned drawn table
