"""Two benchmark files with the same bytes and different expected labels are warned about (issue 31, point 8):
in the run's output, its log, and as a warning row of each document (their evidence and labels stand)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pymupdf
import pytest

from tasks.benchmark.registry import STAGES
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute


def _pdf(text: str) -> bytes:
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 72), text)
        return doc.tobytes()


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    root = tmp_path / "ds"
    (root / "data").mkdir(parents=True)
    same, other = _pdf("one paper"), _pdf("another paper")
    files = {"a/paper.pdf": same, "b/copy.pdf": same, "c/other.pdf": other, "d/same-label.pdf": other,
             "e/paper.pdf": same, "f/o.pdf": other}
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    tasks = {
        # paper.pdf and copy.pdf: one document, two labels. other.pdf and same-label.pdf: one label, no conflict.
        # Cannot Tell items are unmodified copies of another label's file by design (the evidence is withheld).
        "semantic_tagging": {"passed": [{"id": "p1", "pdf_path": "a/paper.pdf"},
                                        {"id": "o1", "pdf_path": "c/other.pdf"}],
                             "failed": [{"id": "p2", "pdf_path": "b/copy.pdf"}],
                             "cannot_tell": [{"id": "p4", "pdf_path": "e/paper.pdf"},
                                             {"id": "o4", "pdf_path": "f/o.pdf"}]},
        "fonts_readability": {"passed": [{"id": "o2", "pdf_path": "d/same-label.pdf"},
                                         {"id": "o3", "pdf_path": "c/other.pdf"}],
                              # The same bytes under two criteria is no conflict: each criterion has its own label.
                              "failed": [{"id": "p3", "pdf_path": "a/paper.pdf"}]},
    }
    (root / "data" / "dataset.json").write_text(json.dumps({"tasks": tasks}))
    return root


def test_the_corpus_stage_warns_of_identical_files_with_different_labels(
        dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    cfg = RunConfig(home=tmp_path / "home", run_id="dup", source="dataset", source_path=str(dataset),
                    criteria=["semantic_tagging", "fonts_readability"], progress=False)
    with caplog.at_level(logging.WARNING, logger="accessbench"):
        assert execute(cfg, STAGES["corpus"]).status == "completed"
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    line = warnings[0]
    assert "a/paper.pdf (passed)" in line and "b/copy.pdf (failed)" in line and "semantic_tagging" in line
    assert "byte-identical" in line and "dataset.json" in line
    assert any("b/copy.pdf (failed)" in record.getMessage() for record in caplog.records)

    store = cfg.store
    rows = store.read_rows("corpus", "dup", "errors")
    documents = {d["doc_id"]: d for d in store.read_rows("corpus", "dup", "documents")}
    assert {(documents[r["doc_id"]]["files"][0].split("/")[-1], r["kind"]) for r in rows} == {
        ("paper.pdf", "label_conflict"), ("copy.pdf", "label_conflict")}
    assert all(r["message"] == line.removeprefix("warning: ") for r in rows)
    # A warning: both documents stay in the run, with their expected labels.
    assert len(documents) == 8 and all(d["error"] is None for d in documents.values())
