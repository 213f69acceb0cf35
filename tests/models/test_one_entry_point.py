"""One model entry point (issue 57): a typed `ModelConfig` resolved once from a run's options, one builder
(`models.build`) for the PDF judges, the audit's respondents and judges and `fix --model`, one stored-reply limit,
and `--cache off` making fresh calls. Every model is the scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pikepdf
import pytest
import typst

import tasks.engine.options
from judges.base import get_judge
from judges.inclusivity.base import JudgeItem, get_category_judge
from judges.inclusivity.respond import ask
from judges.llm.scripted_server import ScriptedServer, chat, judgment_json
from models.build import build_client
from models.client import ModelClient
from models.config import STORED_REPLY_CHARS, ModelConfig
from repairs.fix import draft_model
from repairs.remedies import ALT_SYSTEM, Context, Outcome, _model_reply
from tasks.audit.category_judgments import category_judge_problems
from tasks.audit.config import AuditConfig
from tasks.audit.responses import check_models
from tasks.benchmark.judge import check_judge_specs, make_judges
from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import StageStatus, execute
from tests.audit.conftest import answer_responder
from tests.llm.conftest import (  # noqa: F401 - the scripted server and a dummy key are fixtures
    _dummy_key,
    _server,
    server,
    tagging_bundle,
)

MODEL = "openai/test-model"


@pytest.fixture
def resolved(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every ModelConfig the run options resolve (tasks.engine.options), as its fields."""
    seen: list[dict[str, Any]] = []

    class Counted(ModelConfig):
        def __init__(self, **data: Any) -> None:
            super().__init__(**data)
            seen.append(self.model_dump())

    monkeypatch.setattr(tasks.engine.options, "ModelConfig", Counted)
    return seen


def test_a_run_resolves_its_model_config_once_for_every_judge(
        server: ScriptedServer, tmp_path: Path, resolved: list[dict[str, Any]]) -> None:  # noqa: F811
    cfg = RunConfig(home=tmp_path, run_id="once", judges=["rules", f"llm:{MODEL}", f"hybrid:{MODEL}"],
                    api_base=server.api_base, temperature=0.2, max_tokens=99, concurrency=3, timeout_s=7,
                    cache="read")
    check_judge_specs(cfg)  # every spec's check (credentials included)
    judges = dict(make_judges(cfg))  # every judge built
    assert len(resolved) == 1, resolved  # once for the run: the checks and the builds read the same config
    calls = resolved[0]
    assert (calls["temperature"], calls["max_tokens"], calls["concurrency"], calls["timeout_s"], calls["cache"]) == (
        0.2, 99, 3, 7.0, "read")
    for judge in (judges[f"llm:{MODEL}"], judges[f"hybrid:{MODEL}"].llm):
        client = judge.client
        assert client.config.model_dump() == calls
        assert (client.timeout_s, client.concurrency, client.cache.mode) == (7.0, 3, "read")
        assert judge.request("semantic_tagging")["temperature"] == 0.2  # sent as the run said
        assert judge.params()["max_tokens"] == 99


def test_an_audit_resolves_each_model_config_once(server: ScriptedServer, tmp_path: Path,  # noqa: F811
                                                  resolved: list[dict[str, Any]]) -> None:
    cfg = AuditConfig(home=tmp_path, run_id="audit", models=["openai/answer-model"],
                      audit_judges=["lexicon", "llm:openai/judge-model"], api_base=server.api_base,
                      judge_api_base=server.api_base, timeout_s=7, concurrency=3, temperature=0.3, max_tokens=64)
    check_models(cfg)
    assert category_judge_problems(cfg) == {"lexicon": None, "llm:openai/judge-model": None}
    judge = get_category_judge("llm:openai/judge-model", cfg.judge_options())
    respondent = build_client("openai/answer-model", cfg.respondent_calls(), cfg.home)
    assert len(resolved) == 2  # the respondents' config and the judges', each once
    assert respondent.config.request() == {"temperature": 0.3, "max_tokens": 64}  # --temperature, --max-tokens
    assert judge.request["temperature"] == 0.0 and judge.request["max_tokens"] == 2000  # the judge's protocol
    for client in (respondent, judge.client):
        assert (client.timeout_s, client.concurrency, client.api_base) == (7.0, 3, server.api_base)


def _clients(server: ScriptedServer, home: Path, shared: ModelConfig) -> dict[str, ModelClient]:  # noqa: F811
    """One client per study, each from its own entry (a judge factory, the audit's builder, fix's --model)."""
    return {
        "pdf judge": get_judge(f"llm:{MODEL}", {"home": home, "calls": shared}).client,
        "hybrid judge": get_judge(f"hybrid:{MODEL}", {"home": home, "calls": shared}).llm.client,
        "audit respondent": build_client("openai/answer-model", shared, home),
        "audit judge": get_category_judge("llm:openai/judge-model", {"home": home, "calls": shared}).client,
        "fix draft": draft_model(home, f"llm:{MODEL}", shared),
    }


def test_the_same_config_reaches_every_study(server: ScriptedServer, tmp_path: Path) -> None:  # noqa: F811
    shared = ModelConfig(api_base=server.api_base, timeout_s=7, max_retries=2, concurrency=3, retry_window_s=30,
                         max_run_retries=9, max_reply_mb=3, connect_timeout_s=2, backoff_base_s=0.01,
                         stored_reply_chars=40)
    clients = _clients(server, tmp_path, shared)
    for name, client in clients.items():
        assert client.config == shared, name
        assert client.limits == clients["pdf judge"].limits, name  # deadlines and the reply cap
        assert (client.max_retries, client.budget.window_s, client.budget.max_retries) == (2, 30, 9), name


def test_one_stored_reply_limit_cuts_the_reply_in_every_study(server: ScriptedServer,  # noqa: F811
                                                              tmp_path: Path) -> None:
    limit = 40
    shared = ModelConfig(api_base=server.api_base, timeout_s=5, backoff_base_s=0.01, stored_reply_chars=limit,
                         cache="off")
    assert STORED_REPLY_CHARS == 100_000  # the one default, declared in models/config.py

    def cut(text: str) -> str:
        assert len(text) > limit
        return text[:limit] + "…[reply cut]"

    clients = _clients(server, tmp_path, shared)
    # The PDF study: a judgment's raw response and its call's reply.
    reply = judgment_json(summary="Page 1: " + "the headings nest as they should. " * 8)
    server.responder = lambda body: chat(reply)
    judge = get_judge(f"llm:{MODEL}", {"home": tmp_path, "calls": shared})
    judged = judge.judge_page(tagging_bundle(), 0)
    assert judged.error is None and judged.label.value == "passed"  # parsed from the whole reply
    assert judged.raw_response == cut(reply) and judged.calls[0]["reply"] == cut(reply)
    # The audit: an answer as stored, its call, and a category judge's raw response and call.
    server.responder = answer_responder
    answer = ask(clients["audit respondent"], "How should a museum welcome disabled visitors?", "base")
    assert answer["error"] is None
    assert len(answer["text"]) == limit + len("…[reply cut]") and answer["calls"][0]["reply"] == answer["text"]
    category = get_category_judge("llm:openai/judge-model", {"home": tmp_path, "calls": shared})
    (result,) = category.judge_many([JudgeItem("How should a museum welcome disabled visitors?",
                                               "Buildings should have ramps and lifts for wheelchair users.")])
    assert result.error_kind is None and any(v.covered for v in result.verdicts)  # parsed from the whole reply
    assert result.raw_response is not None and result.raw_response.endswith("…[reply cut]")
    assert len(result.raw_response) == limit + len("…[reply cut]") and result.calls[0]["reply"] == result.raw_response
    # Fix: a drafting remedy's call.
    draft = "A bar chart of the share of tagged files per year, rising from a tenth to a half."
    server.responder = lambda body: chat(draft)
    out = Outcome()
    with pikepdf.new() as pdf:
        text = _model_reply(Context(pdf=pdf, source=tmp_path / "paper.pdf", model=clients["fix draft"]), out,
                            "draft_alt_text", ALT_SYSTEM, "Caption: Tagged files per year", {"figure": 0}, 3)
    assert text == draft  # the draft itself is the model's whole reply
    (call,) = out.calls
    assert (call["study"], call["purpose"], call["page"], call["reply"]) == ("fix", "draft_alt_text", 3, cut(draft))


SOURCE = """#set document(title: "Case")
#set text(lang: "en", size: 10pt)
= Results
Accessible documents let every reader reach the same content in the same order.
"""


@pytest.mark.slow
def test_cache_off_makes_fresh_calls(server: ScriptedServer, tmp_path: Path) -> None:  # noqa: F811
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    (tmp_path / "main.typ").write_text(SOURCE, encoding="utf-8")
    (pdfs / "case.pdf").write_bytes(typst.compile(str(tmp_path / "main.typ"), format="pdf"))

    def run(run_id: str, **settings: Any) -> StageStatus:
        cfg = RunConfig(home=tmp_path / "home", run_id=run_id, source="pdfs", source_path=str(pdfs), progress=False,
                        workers=1, crop_dpi=36, criteria=["semantic_tagging"], judges=[f"llm:{MODEL}"],
                        api_base=server.api_base, repeats=1, **settings)
        return {stage.name: StageStatus(execute(cfg, stage).status) for stage in STAGE_LIST}["judge"]

    assert run("first") is StageStatus.COMPLETED
    calls = server.calls
    assert calls >= 1
    assert run("same") is StageStatus.REUSED and server.calls == calls  # identical: the other run's outputs
    assert run("again", cache="read") is StageStatus.REUSED and server.calls == calls
    for mode in ("off", "write"):  # fresh calls: neither another run's judgments nor the cached replies
        before = server.calls
        assert run(f"fresh-{mode}", cache=mode) is StageStatus.COMPLETED
        assert server.calls == before + calls, mode
