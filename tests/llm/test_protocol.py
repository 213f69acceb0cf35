"""The paper's LLM protocol through the pipeline, against the scripted local server.

One run of two models on the synthetic benchmark with images on; every request is recorded. The tests
read what each model was sent (the server's log and the `llm_calls` table) and what the report shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judges.criteria import CRITERIA, SPEC
from judges.llm.scripted_server import Reply, ScriptedServer, chat, judgment_json
from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import StageFailed, execute
from tests.llm.conftest import SECRET
from warehouse import catalog
from warehouse.tables import ALL_TABLES

pytestmark = pytest.mark.slow
MODELS = ("openai/test-model", "openai/test-model-b")


def _user_text(messages: list[dict[str, Any]]) -> str:
    content = messages[1]["content"]
    return content if isinstance(content, str) else next(p["text"] for p in content if p["type"] == "text")


def _images(messages: list[dict[str, Any]]) -> int:
    content = messages[1]["content"]
    return 0 if isinstance(content, str) else sum(1 for p in content if p["type"] == "image_url")


def _run(home: Path, dataset: Path, server: ScriptedServer, run_id: str, **settings: Any) -> RunConfig:
    cfg = RunConfig(home=home, run_id=run_id, source="dataset", source_path=str(dataset), api_base=server.api_base,
                    repeats=1, progress=False, workers=1, **settings)
    for stage in STAGE_LIST:
        execute(cfg, stage)
    return cfg


@pytest.fixture(scope="module")
def protocol_run(synthetic_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    server = ScriptedServer().start()
    home = tmp_path_factory.mktemp("protocol") / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", SECRET)
        patch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        _run(home, synthetic_dataset, server, "two", judges=[f"llm:{m}" for m in MODELS], vision="on")
    yield {"home": home, "requests": [r.body for r in server.requests], "server": server}
    server.stop()


def _sql(home: Path, sql: str) -> list[dict[str, Any]]:
    columns, rows = catalog.query(home, ALL_TABLES, sql)
    return [dict(zip(columns, row, strict=True)) for row in rows]


def _without_blocks(text: str, names: tuple[str, ...]) -> str:
    for name in names:
        text = re.sub(rf'\n\n<pdf_data evidence="{name}">.*?</pdf_data>', "", text, flags=re.DOTALL)
    return text


def test_cannot_tell_prompts_are_passed_prompts_without_the_starred_evidence(protocol_run: dict[str, Any]) -> None:
    home = protocol_run["home"]
    docs = _sql(home, "select doc_id, criterion, expected_label, sha256 from documents where run_id='two'")
    calls = _sql(home, "select doc_id, page, messages from llm_calls "
                       "where run_id='two' and model='openai/test-model' and kind='first'")
    prompts = {(c["doc_id"], c["page"]): json.loads(c["messages"]) for c in calls}
    compared = 0
    for criterion in CRITERIA:
        items = [d for d in docs if d["criterion"] == criterion]
        for ct in (d for d in items if d["expected_label"] == "cannot_tell"):
            twin = next(d for d in items if d["expected_label"] != "cannot_tell" and d["sha256"] == ct["sha256"])
            for (doc, page), messages in prompts.items():
                if doc != ct["doc_id"]:
                    continue
                other = prompts[(twin["doc_id"], page)]
                assert messages[0] == other[0]  # the same instructions
                ct_text, full_text = _user_text(messages), _user_text(other)
                assert set(ct_text.splitlines()) <= set(full_text.splitlines())  # no line the others lack
                assert ct_text == _without_blocks(full_text, SPEC[criterion].starred)  # only the ★ blocks go
                assert _images(messages) == _images(other)
                compared += 1
    assert compared >= len(CRITERIA)


def test_crops_are_attached_on_figure_and_table_pages(protocol_run: dict[str, Any]) -> None:
    for criterion, kind in (("alt_text_quality", "figure crop"), ("table_structure", "table crop")):
        sent = [body for body in protocol_run["requests"] if f"Criterion: {criterion}." in _user_text(body["messages"])]
        with_crops = [body for body in sent if _images(body["messages"]) >= 2]
        assert with_crops, criterion
        text = _user_text(with_crops[0]["messages"])
        assert f"image 2: {kind}" in text and '- image=2 ' in text  # the text says which image shows what
    stored = list((protocol_run["home"] / "calls" / "images").glob("*.png"))
    assert stored  # the call log keeps each image once, by hash


def test_every_call_is_logged_and_showable(protocol_run: dict[str, Any]) -> None:
    from flows.cli.calls import format_call

    home = protocol_run["home"]
    calls = _sql(home, "select * from llm_calls where run_id='two'")
    assert len(calls) == len(protocol_run["requests"])
    assert {c["model"] for c in calls} == set(MODELS)
    shown = format_call(home, calls[0])
    assert "===== system =====" in shown and "===== reply =====" in shown and "Criterion:" in shown
    assert calls[0]["parsed"] and json.loads(calls[0]["parsed"])["label"] == "passed"


def test_two_models_side_by_side_with_all_five_published(protocol_run: dict[str, Any]) -> None:
    from flows.report.text import render_report

    report = render_report(protocol_run["home"], "two")
    for table in ("Table 3", "Table 4", "Table 5"):
        section = report.split(table, 1)[1]
        for model in MODELS:
            assert f"ours: llm {model} " in section
        for published in ("GPT-4 Turbo", "GPT-4o Vision", "Claude 3.5", "Gemini 1.5", "Llama 3.2"):
            assert f"{published} (published)" in section


def garbage_for(marker: str) -> Any:
    def answer(body: dict[str, Any]) -> Reply:
        text = json.dumps(body["messages"])
        return chat("I cannot produce JSON today.") if marker in text else chat(judgment_json("passed"))
    return answer


def test_unusable_replies_count_as_wrong(synthetic_dataset: Path, tmp_path: Path, server: ScriptedServer) -> None:
    # Every alt-text page gets garbage (even after the repair request): those items stay in the denominator.
    server.responder = garbage_for("Criterion: alt_text_quality.")
    home = tmp_path / "home"
    _run(home, synthetic_dataset, server, "some", judges=["llm:openai/test-model"],
         criteria=["alt_text_quality", "semantic_tagging", "functional_hyperlinks", "table_structure",
                   "color_contrast"], max_error_rate=0.5)
    results = _sql(home, "select criterion, label, correct from doc_results where run_id='some'")
    expected = _sql(home, "select count(*) as n from documents where run_id='some' and expected_label is not null")
    assert len(results) == expected[0]["n"]  # nobody left the denominator
    alt = [r for r in results if r["criterion"] == "alt_text_quality"]
    assert alt and all(r["label"] == "unjudged" and not r["correct"] for r in alt)
    reasons = _sql(home, "select reason from unjudged where run_id='some'")
    assert len(reasons) == len(alt) and all("invalid_response" in r["reason"] for r in reasons)
    accuracy = _sql(home, "select accuracy from accuracy_by_criterion where run_id='some' "
                          "and criterion='alt_text_quality'")
    assert accuracy == [{"accuracy": 0.0}]


def test_a_server_answering_garbage_fails_the_judge_stage(synthetic_dataset: Path, tmp_path: Path,
                                                         server: ScriptedServer) -> None:
    server.responder = lambda body: chat("<html>502 Bad Gateway</html>")
    with pytest.raises(StageFailed, match="max-error-rate"):
        _run(tmp_path / "home", synthetic_dataset, server, "bad", judges=["llm:openai/test-model"],
             criteria=["semantic_tagging"])
    _, rows = catalog.query(tmp_path / "home", ALL_TABLES,
                            "select status from stage_runs where run_id='bad' and stage='judge'")
    assert rows == [("failed",)]


def _criterion_of(body: dict[str, Any]) -> str:
    match = re.search(r"Criterion: (\w+)\.", json.dumps(body["messages"]))
    assert match, "every page prompt names its criterion"
    return match.group(1)


def paper_shaped(body: dict[str, Any]) -> Reply:
    """The paper's Appendix C output format, fenced, after a sentence of preamble."""
    reply = {"Page_Evaluation": {"accessibility_label": "Failed",
                                 "Recommendations": [{"Issue": "A header cell is marked up as data.",
                                                      "Remediation": "Tag it TH with a Scope."}]},
             "evaluation_summary": "The page fails."}
    return chat("Here is my evaluation.\n```json\n" + json.dumps(reply, indent=2) + "\n```")


def list_shaped(body: dict[str, Any]) -> Reply:
    """Sub-criteria as a list of {name, verdict}, issues as {Issue, Remediation}, a label synonym."""
    subs = [{"name": name, "verdict": "failed" if i == 0 else "passed"}
            for i, name in enumerate(SPEC[_criterion_of(body)].sub_names)]
    return chat(json.dumps({"label": "Fail", "sub_criteria": subs,
                            "issues": [{"Issue": "Something is wrong.", "Remediation": "Fix it."}],
                            "summary": "fails"}))


@pytest.mark.parametrize(("responder", "expected_steps"), [
    (paper_shaped, {"fenced", "paper_shape"}), (list_shaped, {"sub_criteria_list", "label_synonym"})])
def test_replies_shaped_as_models_write_them_are_judged_and_say_how(
        responder: Any, expected_steps: set[str], synthetic_dataset: Path, tmp_path: Path,
        server: ScriptedServer) -> None:
    server.responder = responder
    home = tmp_path / "home"
    _run(home, synthetic_dataset, server, "shaped", judges=["llm:openai/test-model"],
         criteria=["table_structure", "semantic_tagging"])
    pages = _sql(home, "select label, error, normalised from judgments where run_id='shaped'")
    judged = [p for p in pages if p["error"] is None]
    assert pages and len(judged) >= 0.95 * len(pages)
    assert {p["label"] for p in judged} == {"failed"}  # the reply's own label, not a default
    assert all(expected_steps <= set(json.loads(p["normalised"])) for p in judged)
    calls = _sql(home, "select normalised from llm_calls where run_id='shaped' and parse_error is null")
    assert calls and all(expected_steps <= set(json.loads(c["normalised"])) for c in calls)
    from flows.report.text import render_report

    text = render_report(home, "shaped")
    assert "replies of openai/test-model read" in text and all(step in text for step in expected_steps)
