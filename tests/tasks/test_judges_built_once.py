"""A run builds each judge once, in the judge stage; the checks before it use the judge specs, and each
judge's credentials are checked once per run config (issue 32; no memo across run configs, issue 57)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import flows.benchmark
from judges.base import JUDGES, JudgeSpec
from judges.llm.scripted_server import ScriptedServer
from models.client import ModelClient
from tasks.benchmark.judge import check_judge_specs
from tasks.benchmark.registry import BENCHMARK
from tasks.engine.context import RunConfig
from tasks.prefect_tasks import run_stage
from tests.llm.conftest import _dummy_key, _server, server  # noqa: F401 - the scripted OpenAI-compatible server

pytestmark = pytest.mark.heavy  # whole runs (not in make test-fast)

SPECS = ["rules", "llm:openai/test-model"]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[str], Counter[str]]:
    """(judges built by name, credential checks by model): every judge factory and the client's check counted."""
    built: Counter[str] = Counter()
    checked: Counter[str] = Counter()
    for name in JUDGES.names():
        factory = JUDGES.factory(name)

        def counting(argument: str | None, options: dict[str, Any], _name: str = name, _factory: Any = factory) -> Any:
            built[_name] += 1
            return _factory(argument, options)
        monkeypatch.setitem(JUDGES._factories, name, counting)
    original = ModelClient.check_credentials

    def check_credentials(self: ModelClient) -> None:
        checked[self.model] += 1
        original(self)
    monkeypatch.setattr(ModelClient, "check_credentials", check_credentials)
    # The flow's body without a Prefect server: each stage task's own function, and no Prefect artifact.
    monkeypatch.setattr(flows.benchmark, "run_stage", run_stage.fn)
    monkeypatch.setattr(flows.benchmark, "publish_summary", lambda cfg: None)
    return built, checked


def test_a_run_builds_each_judge_once_and_checks_credentials_once(
        counted: tuple[Counter[str], Counter[str]], server: ScriptedServer,  # noqa: F811
        synthetic_dataset: Path,
        tmp_path: Path) -> None:
    built, checked = counted
    cfg = RunConfig(home=tmp_path / "home", run_id="once", source="dataset", source_path=str(synthetic_dataset),
                    criteria=["alt_text_quality"], judges=SPECS, api_base=server.api_base, repeats=1,
                    progress=False)
    # What `accessbench run` does before it starts the flow, on one run config: its judges are checked once.
    covered = check_judge_specs(cfg)
    assert "alt_text_quality" in covered["rules"] and "alt_text_quality" in covered["llm:openai/test-model"]
    BENCHMARK.check(cfg)
    assert built == Counter()  # the checks before the run build no judge
    assert checked == Counter({"openai/test-model": 1})  # the CLI's check and every stage's check: one
    # The flow makes its own run config from its parameters (a deployment's flow runs elsewhere): it checks that
    # one once, and its stages check nothing again. No memo outlives a run config.
    results = flows.benchmark.benchmark_flow.fn(**flows.benchmark.flow_parameters(cfg))
    assert {r["stage"]: r["status"] for r in results}["judge"] == "completed"
    assert built == Counter({"rules": 1, "llm": 1})  # once per judge, in the judge stage
    assert checked == Counter({"openai/test-model": 2})

    # A rerun of the judge stage builds each judge once more (one stage run) and checks its credentials once.
    built.clear()
    checked.clear()
    flows.benchmark.rerun_flow.fn(run_id="once", stage="judge", home=str(cfg.home))
    assert built == Counter({"rules": 1, "llm": 1}) and checked == Counter({"openai/test-model": 1})


def test_the_checks_use_the_spec_and_keep_their_messages(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert JudgeSpec.parse("llm:openai/gpt-4o") == JudgeSpec("llm", "openai/gpt-4o")
    assert str(JudgeSpec("llm", "openai/gpt-4o")) == "llm:openai/gpt-4o" and str(JudgeSpec("rules")) == "rules"
    with pytest.raises(ValueError, match="unknown judge 'nope'; choose one of checker, hybrid, llm, rules"):
        JudgeSpec.parse("nope")
    with pytest.raises(ValueError, match="the rules judge takes no argument"):
        JudgeSpec.parse("rules:x").check({})
    with pytest.raises(ValueError, match="name the model: --judge llm:<litellm model id>"):
        JudgeSpec.parse("llm").check({})
    with pytest.raises(ValueError, match="the hybrid judge needs the LLM"):
        JudgeSpec.parse("hybrid").check({})
    for spec in ("llm:openai/gpt-4.1", "hybrid:openai/gpt-4.1"):
        with pytest.raises(ValueError, match="no credentials for openai/gpt-4.1: set OPENAI_API_KEY"):
            JudgeSpec.parse(spec).check({"home": tmp_path})
    cfg = RunConfig(home=tmp_path, run_id="two", judges=["rules", "rules"])
    with pytest.raises(ValueError, match="two judges of this run would be recorded alike"):
        check_judge_specs(cfg)


def test_an_audit_builds_each_category_judge_once(server: ScriptedServer, tmp_path: Path,  # noqa: F811
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from judges.inclusivity.base import CATEGORY_JUDGES
    from tasks.audit.category_judgments import category_judge_problems
    from tasks.audit.config import AuditConfig
    from tasks.audit.registry import AUDIT
    from tests.audit.conftest import answer_responder

    built: Counter[str] = Counter()
    for name in CATEGORY_JUDGES.names():
        factory = CATEGORY_JUDGES.factory(name)

        def counting(argument: str | None, options: dict[str, Any], _name: str = name, _factory: Any = factory) -> Any:
            built[_name] += 1
            return _factory(argument, options)
        monkeypatch.setitem(CATEGORY_JUDGES._factories, name, counting)
    checked: Counter[str] = Counter()
    original = ModelClient.check_credentials

    def check_credentials(self: ModelClient) -> None:
        checked[self.model] += 1
        original(self)
    monkeypatch.setattr(ModelClient, "check_credentials", check_credentials)
    server.responder = answer_responder
    cfg = AuditConfig(home=tmp_path / "home", run_id="audit-once", audit_judges=["lexicon", "llm:openai/judge-model"],
                      judge_api_base=server.api_base, backoff_base_s=0.01, timeout_s=5, progress=False)
    assert category_judge_problems(cfg) == {"lexicon": None, "llm:openai/judge-model": None}  # as the CLI does
    AUDIT.check(cfg)
    assert built == Counter()
    results = AUDIT.run(cfg)
    assert [r["status"] for r in results] == ["completed"] * 4
    assert built == Counter({"lexicon": 1, "llm": 1}) and checked == Counter({"openai/judge-model": 1})
