"""Issue 31: the audit's exit codes, run status, error rows and metrics tell the truth.

Without credentials the audit stops before any call; a stage whose model calls (nearly) all fail fails the
run; an unreachable endpoint fails quickly with retryable error rows naming the right stage; audit runs are
listed with their own judges; the prompt effect is computed over paired questions; and a questions file
that the fixture responses do not answer says so.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from judges.inclusivity.categories import CATEGORY_NAMES
from judges.llm.scripted_server import Reply, ScriptedServer, error
from tasks.audit.config import AuditConfig
from tasks.audit.registry import AUDIT_STAGES
from tasks.engine.runner import StageFailed, execute
from tests.audit.conftest import answer_responder
from tests.flows.test_cli import cli, sql
from warehouse import catalog
from warehouse.store import ArtifactStore, StageStatus
from warehouse.tables import ALL_TABLES, CATEGORY_JUDGMENTS_SCHEMA

pytestmark = pytest.mark.heavy  # whole audit stages against failing servers (not in make test-fast)


def query(home: Path, statement: str) -> list[dict[str, Any]]:
    columns, rows = catalog.query(home, ALL_TABLES, statement)
    return [dict(zip(columns, row, strict=True)) for row in rows]


def questions_file(tmp_path: Path, n: int = 2) -> Path:
    path = tmp_path / "questions.json"
    path.write_text(json.dumps([{"question_id": f"t{i}", "text": f"How can venue {i} be accessible?"}
                                for i in range(n)]))
    return path


def closed_port() -> int:
    """A local port nothing listens on: a connection to it is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- credentials are checked before any call ----------------------------------------------------------

@pytest.mark.slow
def test_audit_of_a_model_without_its_key_exits_2_before_any_call(tmp_path: Path, server: ScriptedServer,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.responder = answer_responder
    home = tmp_path / "home"
    result = cli(home, "audit", "--models", "openai/gpt-4.1", "--judges", "lexicon", "--questions",
                 str(questions_file(tmp_path)), check=False, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "OPENAI_API_KEY" in result.stderr and "openai/gpt-4.1" in result.stderr
    assert server.calls == 0
    assert not ArtifactStore(home).runs()  # nothing was started, so nothing claims to have completed


@pytest.mark.slow
def test_audit_with_an_llm_judge_without_its_key_exits_2_before_any_call(tmp_path: Path, server: ScriptedServer,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    home = tmp_path / "home"
    result = cli(home, "audit", "--judges", "llm:openai/gpt-4.1", "--judge-api-base", server.api_base,
                 check=False, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "OPENAI_API_KEY" in result.stderr and "gpt-4.1" in result.stderr
    assert server.calls == 0


def test_the_stages_check_credentials_before_any_call(home: Path, server: ScriptedServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A deployment's run (no CLI in front) is stopped by the stage's own check, before any call."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    cfg = AuditConfig(home=home, run_id="nokey", models=["openai/gpt-4.1"], api_base=server.api_base,
                      audit_judges=["lexicon"], progress=False)
    execute(cfg, AUDIT_STAGES["questions"])
    with pytest.raises(StageFailed, match="OPENAI_API_KEY"):
        execute(cfg, AUDIT_STAGES["responses"])
    assert server.calls == 0


# -- the --max-error-rate rule, per stage -------------------------------------------------------------

@pytest.mark.slow
def test_an_audit_whose_calls_all_fail_exits_non_zero_and_the_run_is_failed(tmp_path: Path,
                                                                            server: ScriptedServer) -> None:
    server.responder = lambda body: error(401, "invalid api key")
    home = tmp_path / "home"
    result = cli(home, "audit", "--run-id", "allfail", "--models", "openai/test-model", "--api-base",
                 server.api_base, "--questions", str(questions_file(tmp_path)), "--judges", "lexicon",
                 check=False, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "responses" in result.stderr and "4 of 4" in result.stderr and "openai/test-model" in result.stderr
    assert "--max-error-rate" in result.stderr
    (run,) = sql(home, "select status, judge from runs where run_id = 'allfail'")
    assert run["status"] == "failed"
    stages = {r["stage"]: r["status"] for r in sql(home, "select stage, status from stage_runs "
                                                         "where run_id = 'allfail'")}
    assert stages["responses"] == "failed" and "category_judgments" not in stages
    # The rows are kept for the user to read.
    assert len(sql(home, "select * from responses where run_id = 'allfail' and error is not null")) == 4


def test_a_model_whose_answers_fail_fails_the_responses_stage(home: Path, server: ScriptedServer,
                                                             tmp_path: Path) -> None:
    def responder(body: dict[str, Any]) -> Reply:
        return error(401, "no access") if body["model"] == "broken-model" else answer_responder(body)

    server.responder = responder
    cfg = AuditConfig(home=home, run_id="mixed", models=["openai/test-model", "openai/broken-model"],
                      questions_path=str(questions_file(tmp_path, 1)), api_base=server.api_base,
                      audit_judges=["lexicon"], backoff_base_s=0.01, timeout_s=5, progress=False)
    execute(cfg, AUDIT_STAGES["questions"])
    with pytest.raises(StageFailed) as caught:
        execute(cfg, AUDIT_STAGES["responses"])
    message = str(caught.value)
    assert "openai/broken-model: 2 of 2 answers failed" in message and "openai/test-model:" not in message
    assert "accessbench rerun --run mixed --stage responses" in message
    (state,) = query(home, "select status, error_count from stage_runs where run_id = 'mixed' "
                           "and stage = 'responses'")
    assert state == {"status": "failed", "error_count": 2}


def test_an_llm_judge_whose_calls_all_fail_fails_the_judgments_stage(home: Path, server: ScriptedServer,
                                                                    tmp_path: Path) -> None:
    def responder(body: dict[str, Any]) -> Reply:
        return error(404, "no such model") if "response_format" in body else answer_responder(body)

    server.responder = responder
    cfg = AuditConfig(home=home, run_id="badjudge", models=["openai/test-model"],
                      questions_path=str(questions_file(tmp_path, 2)), api_base=server.api_base,
                      judge_api_base=server.api_base, audit_judges=["lexicon", "llm:openai/judge-model"],
                      backoff_base_s=0.01, timeout_s=5, progress=False)
    for name in ("questions", "responses"):
        execute(cfg, AUDIT_STAGES[name])
    with pytest.raises(StageFailed) as caught:
        execute(cfg, AUDIT_STAGES["category_judgments"])
    message = str(caught.value)
    assert "llm:openai/judge-model: 4 of 4 responses" in message and "category_judgments" in message
    errors = query(home, "select doc_id, kind from errors where run_id = 'badjudge' "
                         "and stage = 'category_judgments'")
    assert len(errors) == 4  # one per response judged, not one per response × category


# -- an unreachable endpoint ----------------------------------------------------------------------------

def test_a_refused_api_base_fails_quickly_with_retryable_rows_naming_the_responses_stage(
        home: Path, tmp_path: Path) -> None:
    api_base = f"http://127.0.0.1:{closed_port()}/v1"
    cfg = AuditConfig(home=home, run_id="refused", models=["openai/test-model"],
                      questions_path=str(questions_file(tmp_path, 4)), api_base=api_base, audit_judges=["lexicon"],
                      backoff_base_s=0.05, timeout_s=5, progress=False)
    execute(cfg, AUDIT_STAGES["questions"])
    started = time.monotonic()
    with pytest.raises(StageFailed) as caught:
        execute(cfg, AUDIT_STAGES["responses"])
    assert time.monotonic() - started < 30
    message = str(caught.value)
    assert "8 of 8 answers failed" in message and "--stage responses" in message
    errors = query(home, "select kind, message, retryable from errors where run_id = 'refused'")
    assert len(errors) == 8
    assert all(e["retryable"] and e["kind"] == "connection" for e in errors), errors
    assert not any("judge stage" in e["message"] for e in errors)
    assert any("responses stage" in e["message"] for e in errors)
    # One call found the endpoint refused; the other answers were not sent to it again and again.
    calls = query(home, "select count(*) n from llm_calls where run_id = 'refused'")
    assert calls[0]["n"] == 1


# -- audit runs are listed with their own judges ----------------------------------------------------------

def test_an_audit_run_is_recorded_with_the_audits_judges(home: Path) -> None:
    from tasks.engine.pipeline import record_run

    cfg = AuditConfig(home=home, run_id="judged", audit_judges=["lexicon", "llm:openai/judge-model"],
                      progress=False)
    record_run(cfg, StageStatus.RUNNING)
    run = ArtifactStore(home).get_run("judged")
    assert run is not None and run["judge"] == "lexicon, llm:openai/judge-model"


# -- the prompt effect over paired questions ----------------------------------------------------------------

def test_prompt_effect_is_computed_over_paired_questions_only(tmp_path: Path) -> None:
    # base answers q1 (1 of 9 covered) and q2 (9 of 9); aware answers q1 only (3 of 9).
    covered = {("base", "q1"): 1, ("base", "q2"): 9, ("aware", "q1"): 3}
    rows = [{"run_id": "r1", "response_id": f"m-{variant}-{question}", "question_id": question, "model": "m",
             "variant": variant, "judge": "j", "category": category, "covered": index < n, "depth": int(index < n)}
            for (variant, question), n in covered.items() for index, category in enumerate(CATEGORY_NAMES)]
    ArtifactStore(tmp_path).write_table("category_judgments", "r1", "category_judgments", rows,
                                        CATEGORY_JUDGMENTS_SCHEMA)
    (effect,) = query(tmp_path, "select * from prompt_effect")
    assert effect["delta"] == pytest.approx(3 / 9 - 1 / 9)  # q2 has no aware answer: not in the delta
    assert effect["pairs"] == 1 and effect["unpaired"] == 1
    assert effect["qlcs_base"] == pytest.approx(1 / 9) and effect["qlcs_aware"] == pytest.approx(3 / 9)
    from flows.report.audit import render_audit_report

    report = " ".join(render_audit_report(tmp_path, "r1").split())
    assert "+0.222 over 1 paired question(s); 1 with one variant only left out" in report, report


# -- questions the fixture responses do not answer --------------------------------------------------------

def test_fixture_responses_for_unknown_questions_fail_saying_why(home: Path, tmp_path: Path) -> None:
    cfg = AuditConfig(home=home, run_id="fixq", questions_path=str(questions_file(tmp_path)),
                      audit_judges=["lexicon"], progress=False)
    execute(cfg, AUDIT_STAGES["questions"])
    with pytest.raises(StageFailed) as caught:
        execute(cfg, AUDIT_STAGES["responses"])
    message = str(caught.value)
    assert "fixture" in message and "--models" in message and "--responses" in message


@pytest.mark.slow
def test_audit_questions_without_a_model_says_why_there_are_no_responses(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = cli(home, "audit", "--questions", str(questions_file(tmp_path)), "--judges", "lexicon",
                 check=False, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "fixture" in result.stderr and "--models" in result.stderr and "--responses" in result.stderr
    assert "none of the 2 questions" in result.stderr


def test_a_refused_judge_api_base_fails_the_judgments_stage_quickly_with_retryable_rows(
        home: Path, tmp_path: Path, server: ScriptedServer) -> None:
    server.responder = answer_responder
    cfg = AuditConfig(home=home, run_id="judgedown", models=["openai/test-model"],
                      questions_path=str(questions_file(tmp_path, 3)), api_base=server.api_base,
                      judge_api_base=f"http://127.0.0.1:{closed_port()}/v1", audit_judges=["llm:openai/judge-model"],
                      backoff_base_s=0.05, timeout_s=5, progress=False)
    for name in ("questions", "responses"):
        execute(cfg, AUDIT_STAGES[name])
    with pytest.raises(StageFailed) as caught:
        execute(cfg, AUDIT_STAGES["category_judgments"])
    assert "6 of 6 responses could not be judged" in str(caught.value)
    assert "--stage category_judgments" in str(caught.value)
    errors = query(home, "select kind, message, retryable from errors where run_id = 'judgedown' "
                         "and stage = 'category_judgments'")
    assert len(errors) == 6 and all(e["retryable"] and e["kind"] == "connection" for e in errors), errors
    assert not any("judge stage" in e["message"] for e in errors)
    calls = query(home, "select count(*) n from llm_calls where run_id = 'judgedown' and purpose = 'judge_categories'")
    assert calls[0]["n"] == 1  # the probe; the other responses were not sent to a refused port


@pytest.mark.slow
def test_fixture_responses_answering_some_questions_say_which_are_left_unanswered(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps([{"question_id": "q01", "text": "How can a city be accessible?"},
                                {"question_id": "new1", "text": "How can a bus be accessible?"}]))
    result = cli(home, "audit", "--questions", str(path), "--judges", "lexicon", "--run-id", "part", cwd=tmp_path)
    assert "1 of the 2 questions" in result.stderr and "--models" in result.stderr
    assert {r["question_id"] for r in sql(home, "select distinct question_id from responses")} == {"q01"}
