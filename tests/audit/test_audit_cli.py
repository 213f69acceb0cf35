"""`accessbench audit` end to end through Prefect, as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judges.llm.scripted_server import Reply, ScriptedServer, chat
from tests.audit.conftest import answer_responder, judge_reply
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

    runs = cli(home, "runs", "--format", "csv").stdout  # every column, whatever the terminal's width
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


def test_every_audit_call_is_logged_and_replies_are_read_as_models_write_them(tmp_path: Path,
                                                                            server: ScriptedServer) -> None:
    """Audit options (--limit, --repeats, --temperature) and the call log: one llm_calls row per answer and
    per judge call; a judge that answers with categories keyed by name inside a fence is read, and says so."""
    def responder(body: dict[str, Any]) -> Reply:
        if "response_format" not in body:
            return answer_responder(body)
        items = {item["category"]: {"covered": item["covered"], "depth": item["depth"], "snippet": item["snippet"]}
                 for item in json.loads(judge_reply(body))["categories"]}
        return chat("Here is my assessment:\n```json\n" + json.dumps({"categories": items}) + "\n```")

    server.responder = responder
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([{"question_id": f"t{i}", "text": f"How can place {i} be accessible?"}
                                     for i in range(3)]))
    home = tmp_path / "home"
    cli(home, "audit", "--run-id", "logged", "--models", "openai/test-model", "--api-base", server.api_base,
        "--judge-api-base", server.api_base, "--questions", str(questions), "--limit", "2", "--repeats", "2",
        "--temperature", "0.3", "--max-tokens", "200", "--judges", "llm:openai/judge-model", cwd=tmp_path)
    answers = sql(home, "select question_id, variant, repeat, params from responses where run_id = 'logged'")
    assert len(answers) == 2 * 2 * 2 and {a["question_id"] for a in answers} == {"t0", "t1"}
    assert {json.loads(a["params"])["temperature"] for a in answers} == {0.3}
    calls = sql(home, "select study, purpose, judge, model, doc_id, kind, normalised, reply, error "
                      "from llm_calls where run_id = 'logged' order by purpose")
    by_purpose = {p: [c for c in calls if c["purpose"] == p] for p in ("answer", "judge_categories")}
    assert len(by_purpose["answer"]) == 8 and len(by_purpose["judge_categories"]) == 8
    assert {c["study"] for c in calls} == {"audit"} and not any(c["error"] for c in calls)
    assert {c["doc_id"] for c in by_purpose["answer"]} == {
        r["response_id"] for r in sql(home, "select response_id from responses where run_id = 'logged'")}
    assert all("wheelchair" in c["reply"] for c in by_purpose["answer"])
    assert all({"fenced", "categories_object"} <= set(json.loads(c["normalised"]))
               for c in by_purpose["judge_categories"])
    covered = sql(home, "select count(*) n from category_judgments where run_id = 'logged' and covered "
                        "and category = 'Mobility'")
    assert covered[0]["n"] == 8  # read, not voided
    (one,) = sql(home, "select call_id from llm_calls where run_id = 'logged' and purpose = 'judge_categories' "
                       "limit 1")
    shown = cli(home, "calls", "show", one["call_id"])
    assert "judge_categories" in shown.stdout and "categories_object" in shown.stdout
    listed = cli(home, "calls", "list", "--run", "logged", "--limit", "100")
    assert "16 call(s)" in listed.stdout
