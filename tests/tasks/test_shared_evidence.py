"""The inputs stage builds a screened file's evidence once for its seven documents (one per criterion), and
the judge inputs are exactly those that building it for every document gives (issue 56)."""

from __future__ import annotations

from typing import Any

import pytest

import tasks.benchmark.inputs as inputs
from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from tests.tasks.test_honest_screening import make_folder

pytestmark = pytest.mark.heavy  # a screening run up to the inputs stage

RUN = "shared56"


@pytest.fixture(scope="module")
def cfg(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    root = tmp_path_factory.mktemp("shared56")
    config = RunConfig(home=root / "home", run_id=RUN, source="pdfs", source_path=str(make_folder(root)),
                       progress=False, doc_timeout_s=120)
    for stage in STAGE_LIST[:STAGE_LIST.index(inputs.INPUTS) + 1]:
        assert execute(config, stage).status == "completed", stage.name
    return config


def _inputs_built(cfg: RunConfig, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, int]:
    """The inputs stage run again: its judge_inputs and how many documents' evidence it built."""
    built: list[str] = []

    class Counted(inputs.DocEvidence):
        def __init__(self, doc_id: str, **fields: Any) -> None:
            built.append(doc_id)
            super().__init__(doc_id, **fields)

    monkeypatch.setattr(inputs, "DocEvidence", Counted)
    execute(cfg, inputs.INPUTS, force=True)
    return cfg.store.read_table("inputs", RUN, "judge_inputs"), len(built)


def test_a_files_documents_share_evidence_and_get_the_same_judge_inputs(cfg: RunConfig,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    shared, built_shared = _inputs_built(cfg, monkeypatch)
    # Every document builds its own evidence (from its rows, which equal its leader's where it shares them).
    monkeypatch.setattr(inputs._ByDocument, "same_as_leader", lambda self, doc_id, leader: doc_id == leader)
    separate, built_separate = _inputs_built(cfg, monkeypatch)
    documents = {row["doc_id"] for row in separate.select(["doc_id"]).to_pylist()}
    files = {row["sha256"] for row in cfg.store.read_rows("corpus", RUN, "documents")
             if row["doc_id"] in documents}
    assert built_separate == len(documents) > len(files) == built_shared
    assert shared.num_rows > 0 and shared.equals(separate)
