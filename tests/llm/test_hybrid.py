"""The hybrid judge: rules settle the technical part, the LLM the semantic part, people the rest."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from judges.base import Issue, PageJudgment
from judges.evidence import PageBundle
from judges.hybrid import combine
from judges.labels import Label
from judges.llm.scripted_server import ScriptedServer, chat, judgment_json
from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from warehouse import catalog
from warehouse.tables import ALL_TABLES

BUNDLE = PageBundle("functional_hyperlinks", 1, {})


def test_semantic_failure_on_a_rules_pass_fails_and_asks_for_review() -> None:
    rules = PageJudgment(Label.PASSED, {"functionality": "passed"}, summary="ok")
    llm = PageJudgment(Label.FAILED, {"descriptiveness": "failed", "functionality": "passed"},
                       [Issue("descriptiveness", "Page 1, link “click here”", "says nothing", "name the target")])
    result = combine(BUNDLE, rules, llm)
    assert result.label is Label.FAILED and result.review and "descriptiveness" in result.review
    assert result.issues[0].location.startswith("Page 1")
    assert result.tier_labels == {"rules": "passed", "llm": "failed"}


def test_llm_cannot_overturn_technical_verdicts() -> None:
    rules = PageJudgment(Label.FAILED, {"functionality": "failed"}, summary="broken destination")
    llm = PageJudgment(Label.PASSED, {"functionality": "passed", "descriptiveness": "passed"})
    result = combine(BUNDLE, rules, llm)
    assert result.label is Label.FAILED and result.review  # disagreement goes to a person
    assert combine(BUNDLE, PageJudgment(Label.CANNOT_TELL), None).review
    assert combine(BUNDLE, PageJudgment(Label.NOT_PRESENT), None).review is None


@pytest.mark.heavy
def test_hybrid_run_fills_the_queue_and_resolutions_reach_doc_labels(server: ScriptedServer, tmp_path: Path,
                                                                     synthetic_dataset: Path) -> None:
    server.responder = lambda body: chat(judgment_json("failed", {"descriptiveness": "failed"}, [
        {"sub_criterion": "descriptiveness", "location": "Page 1, link", "problem": "vague", "remediation": "x"}]))
    home = tmp_path / "home"
    cfg = RunConfig(home=home, run_id="hy", source="dataset", source_path=str(synthetic_dataset),
                    criteria=["functional_hyperlinks"], judges=["hybrid:openai/test-model"], api_base=server.api_base,
                    repeats=1, progress=False, workers=1)
    for stage in STAGE_LIST:
        execute(cfg, stage)
    _, queue = catalog.query(home, ALL_TABLES, "select item_id, reason from review_queue where run_id='hy'")
    assert queue and any("LLM fails descriptiveness" in reason for _, reason in queue)
    cfg.store.record_run({"run_id": "hy", "config": cfg.store.config_json(cfg.to_record())})
    from flows.cli.review import run_review

    item = queue[0][0]
    args = argparse.Namespace(action="resolve", item=item, label="passed", note="link text is fine", reviewer="me")
    assert run_review(home, args) == 0
    _, rows = catalog.query(home, ALL_TABLES, "select distinct judge from doc_labels where run_id='hy'")
    assert {r[0] for r in rows} == {"hybrid", "hybrid+human"}
    _, resolved = catalog.query(home, ALL_TABLES, "select label, note from review_resolutions")
    assert resolved == [("passed", "link text is fine")]
