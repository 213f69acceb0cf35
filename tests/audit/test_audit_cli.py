"""`accessbench audit` end to end through Prefect, as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judges.llm.scripted_server import ScriptedServer
from tests.audit.conftest import answer_responder
from tests.flows.test_cli import cli, sql

pytestmark = pytest.mark.slow


def test_audit_with_no_arguments_fills_the_tables_and_prints_the_metrics(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = cli(home, "audit", "--run-id", "demo", cwd=tmp_path)
    assert "question-level coverage (QLCS)" in result.stdout and "judge agreement" in result.stdout
    assert "published" in result.stdout
    assert "hand-written fixture responses" in result.stderr and "--models" in result.stderr
    counts = sql(home, "select (select count(*) from questions) q, (select count(*) from responses) r, "
                       "(select count(*) from category_judgments) j")
    assert counts == [{"q": 35, "r": 70, "j": 70 * 9 * 2}]
    qlcs = sql(home, "select * from qlcs")
    assert {(r["judge"], r["variant"]) for r in qlcs} == {(j, v) for j in ("lexicon", "embedding")
                                                           for v in ("base", "aware")}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]  # nothing outside the data home

    runs = cli(home, "runs").stdout
    assert "audit_metrics" in runs and "completed" in runs and "render" not in runs  # audit stages, no others
    report = cli(home, "report", "--run", "demo").stdout
    assert "Depth@k" in report and "GPT-4.1 vs Qwen2.5-72B-Instruct" in report
    judgments = home / "artifacts/category_judgments/run=demo/category_judgments.parquet"
    before = judgments.stat().st_mtime_ns
    cli(home, "rerun", "--run", "demo", "--stage", "audit_metrics")
    assert judgments.stat().st_mtime_ns == before  # only the stage asked for


def test_audit_of_a_model_on_the_local_server_with_an_llm_judge(tmp_path: Path, server: ScriptedServer) -> None:
    server.responder = answer_responder
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([{"question_id": "t1", "text": "How can parks be accessible?"},
                                     {"question_id": "t2", "text": "How can libraries be accessible?"}]))
    home = tmp_path / "home"
    cli(home, "audit", "--run-id", "m1", "--models", "openai/test-model", "--api-base", server.api_base,
        "--judge-api-base", server.api_base,
        "--questions", str(questions), "--judges", "lexicon", "llm:openai/judge-model", cwd=tmp_path)
    assert server.calls == 2 * 2 * 2  # answers for both variants, then one judge call per answer
    rows = sql(home, "select judge, variant, count(*) n from category_judgments group by all order by all")
    assert [(r["judge"], r["variant"], r["n"]) for r in rows] == [
        ("lexicon", "aware", 18), ("lexicon", "base", 18),
        ("llm:openai/judge-model", "aware", 18), ("llm:openai/judge-model", "base", 18)]
    (effect,) = sql(home, "select * from prompt_effect where judge = 'lexicon'")
    assert isinstance(effect["delta"], float) and effect["delta"] > 0
