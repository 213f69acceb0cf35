"""The judge stage's checker judges: one run per document on a copy under a neutral name, nothing of the path in
any row, the Cannot Tell protocol (the checker is not run where the item's ★ evidence is withheld), every item
labelled."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from judges.checkers import CheckerRun, Finding
from judges.checkers.judge import CheckerJudge
from judges.checkers.mapping import mapping_of
from tasks.benchmark.work.judge import checker_document


class Recording:
    """A checker that records the paths it is given and echoes them back in its messages (as some do)."""

    name = "pdfua"

    def __init__(self) -> None:
        self.paths: list[str] = []

    def version(self) -> str:
        return "9.9"

    def check(self, path: str) -> CheckerRun:
        self.paths.append(path)
        return CheckerRun([Finding("UA-15-003", "error", f"table in {path} has no rows", page=1,
                                   location=f"{path} /Table")], {"UA-15-003": "fail"}, seconds=0.25)


def rows(doc_id: str, pages: int, withheld: list[str]) -> list[dict[str, Any]]:
    return [{"doc_id": doc_id, "criterion": "table_structure", "page": p, "evidence": "{}", "image_path": None,
             "withheld": withheld} for p in range(1, pages + 1)]


@pytest.fixture()
def labelled_file(tmp_path: Path, synthetic_dataset: Path) -> dict[str, Any]:
    """A document filed the way the benchmark files it: the label in its path."""
    folder = tmp_path / "processed" / "table_structure" / "failed"
    folder.mkdir(parents=True)
    source = next((synthetic_dataset / "data" / "processed" / "table_structure" / "failed").glob("*.pdf"))
    shutil.copyfile(source, folder / "W123.pdf")
    return {"doc_id": "table_structure/failed/W123", "root": str(tmp_path),
            "files": ["processed/table_structure/failed/W123.pdf"], "sha256": None}


def test_the_checker_sees_a_neutral_name_and_no_row_keeps_the_path(labelled_file: dict[str, Any]) -> None:
    checker = Recording()
    judge = CheckerJudge(checker, mapping_of("pdfua"), checker.version())
    out = checker_document("r1", {"judge": judge, "rows": rows(labelled_file["doc_id"], 2, []), "doc": labelled_file})
    (path,) = checker.paths
    assert Path(path).name == "document-1.pdf" and "failed" not in path and "W123" not in path
    assert not Path(path).exists()  # the copy is gone with its folder
    stored = json.dumps(out, default=str)
    assert str(Path(path).parent) not in stored and "processed/" not in stored
    assert [j["label"] for j in out["judgments"]] == ["failed", "passed"]
    (finding,) = out["checker_findings"]
    assert finding["message"] == "table in document-1.pdf has no rows"  # the checker's temporary folder cut
    assert (finding["criterion"], finding["sub_criterion"], finding["fails"]) == ("table_structure", "tagging", True)
    (run,) = out["checker_runs"]
    assert (run["ran"], run["seconds"], run["files"], run["findings"], run["failing"]) == (True, 0.25, 1, 1, 1)
    assert out["judgments"][0]["latency_s"] == 0.25 and out["judgments"][1]["latency_s"] is None


def test_a_cannot_tell_item_is_not_checked_where_the_checker_reads_its_withheld_evidence(
        labelled_file: dict[str, Any]) -> None:
    checker = Recording()
    judge = CheckerJudge(checker, mapping_of("pdfua"), checker.version())
    out = checker_document("r1", {"judge": judge, "rows": rows(labelled_file["doc_id"], 2, ["table_tags"]),
                                  "doc": labelled_file})
    assert checker.paths == []
    assert {j["label"] for j in out["judgments"]} == {"cannot_tell"} and out["checker_findings"] == []
    (run,) = out["checker_runs"]
    assert run["ran"] is False and "table_tags" in run["reason"]
    # a criterion none of its rules reads (colour contrast) is checked: nothing the checker needs is withheld
    contrast = [{**r, "criterion": "color_contrast"} for r in rows(labelled_file["doc_id"], 1, ["color_values"])]
    out = checker_document("r1", {"judge": judge, "rows": contrast, "doc": labelled_file})
    assert len(checker.paths) == 1 and out["judgments"][0]["label"] == "passed"


@pytest.mark.heavy
def test_a_run_labels_every_item_for_every_checker_and_stores_no_path(tmp_path: Path,
                                                                      synthetic_dataset: Path) -> None:
    from tasks.benchmark.registry import STAGE_LIST
    from tasks.engine.context import RunConfig
    from tasks.engine.runner import execute
    from warehouse import catalog
    from warehouse.tables import ALL_TABLES

    home = tmp_path / "home"
    cfg = RunConfig(home=home, run_id="chk", source="dataset", source_path=str(synthetic_dataset),
                    criteria=["table_structure", "alt_text_quality"], judges=["checker:pdfua", "checker:page"],
                    progress=False)
    for stage in STAGE_LIST:
        execute(cfg, stage)
    _, got = catalog.query(home, ALL_TABLES, """
        select l.model, d.expected_label, l.label from doc_labels l join documents d using (run_id, doc_id)""")
    _, documents = catalog.query(home, ALL_TABLES, "select count(*) from documents")
    assert len(got) == 2 * documents[0][0] and all(label != "unjudged" for _, _, label in got)
    assert {(model, label) for model, expected, label in got if expected == "cannot_tell"} == {
        ("pdfua 0.1.3", "cannot_tell"), ("page 0.11.0", "cannot_tell")}
    for table in ("judgments", "checker_findings", "checker_runs"):
        _, stored = catalog.query(home, ALL_TABLES, f"select * from {table}")
        text = json.dumps(stored, default=str)
        assert str(synthetic_dataset) not in text and "processed/" not in text and "accessbench-checker-" not in text
