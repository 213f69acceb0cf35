"""The LLM judge through the whole pipeline and the CLI, against the scripted local server."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from judges.llm.scripted_server import Reply, ScriptedServer, chat, error, judgment_json
from tests import cli_process
from tests.llm.conftest import SECRET

pytestmark = pytest.mark.slow


def varied(body: dict[str, Any]) -> Reply:
    """Random labels, so repeats disagree and the report has a non-zero SD; a hostile provider echoes the
    key back in its summaries and in some errors."""
    if random.random() < 0.1:
        return error(500, f"upstream failed for key {SECRET} (Authorization: Bearer {SECRET})")
    label = random.choice(["passed", "failed", "cannot_tell"])
    issues = [{"sub_criterion": "heading_nesting", "location": "page 1, first heading", "problem": "H1 then H3",
               "remediation": "retag the H3 as H2"}] if label == "failed" else []
    return chat(judgment_json(label, issues=issues, summary=f"checked with {SECRET}"))


def run_cli(home: Path, *args: str, expect: int = 0, key: str | None = SECRET) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ACCESSBENCH_HOME": str(home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("OPENAI_API_KEY", None)
    if key is not None:
        env["OPENAI_API_KEY"] = key
    result = cli_process.run_cli(args, env=env)
    assert result.returncode == expect, result.stderr[-3000:]
    return result


def test_llm_run_rerun_is_free_and_keys_never_reach_disk(server: ScriptedServer, tmp_path: Path) -> None:
    server.responder = varied
    home = tmp_path / "home"
    out = run_cli(home, "run", "--criteria", "semantic_tagging", "--base-docs", "1", "--run-id", "llm",
                  "--judge", "llm:openai/test-model", "--api-base", server.api_base)
    calls = server.calls
    assert calls >= 3 * 4  # 3 repeats × 4 documents (one page each at least)
    assert "±" in out.stdout  # mean ± SD over repeats
    run_cli(home, "rerun", "--run", "llm", "--stage", "judge", "--downstream")
    assert server.calls == calls  # the cached rerun makes no model call
    sql = run_cli(home, "sql", "select count(*) as n, count(distinct repeat) as r, sum(cost_usd) as c "
                  "from judgments where run_id='llm'", "--format", "json")
    row = json.loads(sql.stdout)[0]
    assert row["r"] == 3 and row["c"] is None  # unknown model: cost unknown, not zero
    for path in home.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_missing_key_fails_before_any_call(server: ScriptedServer, tmp_path: Path) -> None:
    out = run_cli(tmp_path / "home", "run", "--judge", "llm:openai/test-model", "--api-base", server.api_base,
                  expect=2, key=None)
    assert "OPENAI_API_KEY" in out.stderr and server.calls == 0


def test_a_server_answering_garbage_ends_the_run_with_exit_1(server: ScriptedServer, tmp_path: Path) -> None:
    server.responder = lambda body: chat("Service temporarily unavailable, please try later.")
    home = tmp_path / "home"
    out = run_cli(home, "run", "--criteria", "semantic_tagging", "--base-docs", "1", "--repeats", "1",
                  "--judge", "llm:openai/test-model", "--judge", "rules", "--api-base", server.api_base,
                  "--run-id", "junk", expect=1)
    assert "max-error-rate" in out.stderr and "llm:openai/test-model" in out.stderr
    calls = run_cli(home, "calls", "list", "--run", "junk", "--errors")
    assert "could not" in calls.stdout or "JSON" in calls.stdout
