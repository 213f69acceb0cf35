"""The LLM judge end to end on the scripted server: labels, flags, batches, errors, secrets."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from judges.base import get_judge
from judges.evidence import PageBundle
from judges.labels import Label
from judges.llm.scripted_server import ScriptedServer, chat, error, judgment_json
from tasks.benchmark.work.judge import judge_rows
from tests.llm.conftest import SECRET, tagging_bundle

ISSUE = {"sub_criterion": "heading_nesting", "location": "page 1, heading 'Methods'",
         "problem": "H1 is followed by H3", "remediation": "retag 'Methods' as H2"}


def test_registered_as_llm_with_recorded_params(make_judge: Callable[..., Any]) -> None:
    judge = make_judge(temperature=0.3)
    assert (judge.name, judge.model, judge.prompt_version) == ("llm", "openai/test-model", "llm-2")
    assert judge.params() == {"temperature": 0.3, "max_tokens": 1500, "vision": False, "evidence": "paper",
                              "structured_output": True, "api_base": judge.client.api_base}
    assert all(judge.supports(c) for c in ("alt_text_quality", "color_contrast"))


def test_factory_says_what_to_fix() -> None:
    with pytest.raises(ValueError, match="name the model"):
        get_judge("llm")
    with pytest.raises(ValueError, match="unknown LLM judge option"):
        get_judge("llm:openai/test-model", {"temprature": 0.1})


def test_default_temperature_is_sent(make_judge: Callable[..., Any], server: ScriptedServer) -> None:
    make_judge().judge_page(tagging_bundle(), 0)
    assert server.requests[0].body["temperature"] == 0.7


def test_a_failed_sub_criterion_forces_failed(make_judge: Callable[..., Any], server: ScriptedServer) -> None:
    server.script(chat(judgment_json("passed", {"heading_nesting": "failed", "artifacts": "passed"}, [ISSUE])))
    result = make_judge().judge_page(tagging_bundle(), 0)
    assert result.label is Label.FAILED and result.flags["label_forced_failed"]
    assert result.remediation == "retag 'Methods' as H2" and result.error is None


EMPTY_ISSUE = {"sub_criterion": "passed", "location": "passed", "problem": "passed", "remediation": "passed"}


@pytest.mark.parametrize(("label", "subs", "issues", "flagged"), [
    # the issue's example: failed, every sub-criterion passed, an issue whose fields just say "passed"
    ("failed", {"heading_nesting": "passed", "artifacts": "passed"}, [EMPTY_ISSUE], True),
    ("failed", {"heading_nesting": "passed", "artifacts": "passed"}, [ISSUE], False),  # the issue names a problem
    ("failed", {"heading_nesting": "failed", "artifacts": "passed"}, [ISSUE], False),
    ("passed", {"heading_nesting": "passed"}, [ISSUE], True),  # passed, yet a problem is named
    ("passed", {"heading_nesting": "passed"}, [], False),
])
def test_a_label_that_contradicts_its_own_reply_is_flagged_and_kept(
        label: str, subs: dict[str, str], issues: list[dict[str, str]], flagged: bool,
        make_judge: Callable[..., Any], server: ScriptedServer) -> None:
    server.script(chat(judgment_json(label, subs, issues)))
    result = make_judge().judge_page(tagging_bundle(), 0)
    assert result.flags["reply_inconsistent"] is flagged
    assert result.label.value == label  # the label stays as the model gave it


def test_label_without_evidence_is_flagged(make_judge: Callable[..., Any], server: ScriptedServer) -> None:
    withheld = PageBundle("semantic_tagging", 1, {"page_image": {"width_pt": 612, "height_pt": 792}})
    server.script(chat(judgment_json("failed", {"heading_nesting": "failed"}, [ISSUE])),
                  chat(judgment_json("cannot_tell")))
    judge = make_judge()
    assert judge.judge_page(withheld, 0).flags["label_without_evidence"]
    assert not judge.judge_page(withheld, 1).flags["label_without_evidence"]
    prompt = server.requests[0].body["messages"][1]["content"]
    assert "tag_structure" not in prompt and "not available" not in prompt  # absence is never announced


def _alt_reply(problem: str) -> str:
    return judgment_json("failed", {"descriptiveness": "failed"}, [
        {"sub_criterion": "descriptiveness", "location": "Figure 1, page 1", "problem": problem,
         "remediation": 'set Alt to "Line chart: accuracy rises from 60% to 85% over 10 epochs"'}])


@pytest.mark.parametrize(("problem", "flagged"), [
    ('The alt text "Bar chart of accuracy" does not say what the chart shows.', False),
    ('The alt text "Figure 1" is a placeholder.', True),
])
def test_invented_alt_text_is_flagged(problem: str, flagged: bool, make_judge: Callable[..., Any],
                                      server: ScriptedServer) -> None:
    bundle = tagging_bundle()
    bundle = PageBundle("alt_text_quality", 1, {"tag_structure": bundle.evidence["tag_structure"]})
    server.script(chat(_alt_reply(problem)))
    assert make_judge().judge_page(bundle, 0).flags["alt_text_not_in_evidence"] is flagged


@pytest.mark.parametrize(("problem", "flagged"), [
    ("Caption text #777777 on #ffffff is 4.48:1 at 8 pt, below 4.5:1.", False),
    ("Caption text #999999 on #ffffff is 2.8:1.", True),
    ("Caption text is set at 6.5 pt.", True),
])
def test_invented_values_are_flagged(problem: str, flagged: bool, make_judge: Callable[..., Any],
                                     server: ScriptedServer) -> None:
    bundle = PageBundle("color_contrast", 1, {"color_values": {"spans": [
        {"text": "Figure 1: results", "fill_color": "#777777", "background_color": "#ffffff",
         "contrast_ratio": 4.48, "size": 8.0, "bbox": [6.5, 10, 90, 20]}]}})
    server.script(chat(judgment_json("failed", {"small_text": "failed"}, [
        {"sub_criterion": "small_text", "location": "caption of Figure 1", "problem": problem,
         "remediation": "set the caption colour to #000000"}])))
    assert make_judge().judge_page(bundle, 0).flags["values_not_in_evidence"] is flagged


def test_judge_many_keeps_order_and_the_concurrency_bound(make_judge: Callable[..., Any],
                                                          server: ScriptedServer) -> None:
    def answer(body: dict[str, Any]) -> Any:
        page = re.search(r"Page (\d+)\.", body["messages"][1]["content"])
        assert page is not None
        return chat(judgment_json("passed", summary=f"page {page.group(1)}"), delay_s=0.1)

    server.responder = answer
    items = [(tagging_bundle(page=p), r) for p in range(1, 8) for r in range(3)]
    results = make_judge(concurrency=3).judge_many(items)
    assert [r.summary for r in results] == [f"page {b.page}" for b, _ in items]
    assert server.calls == 21 and server.max_in_flight == 3


def test_call_failures_become_error_rows(make_judge: Callable[..., Any], server: ScriptedServer) -> None:
    server.script(error(404, "The model `test-model` does not exist"))
    result = make_judge().judge_page(tagging_bundle(), 0)
    assert result.error is not None and result.error.startswith("model_call: ")
    assert "check the model id" in result.error and result.tokens_in is None


def test_no_key_in_any_file_under_the_data_home(make_judge: Callable[..., Any], server: ScriptedServer,
                                                home: Path) -> None:
    server.script(error(401, f"Incorrect API key provided: {SECRET}. You can find your key at ..."))
    judge = make_judge(max_retries=0)
    rows = [{"doc_id": "d1", "criterion": "semantic_tagging", "page": p, "image_path": None,
             "evidence": json.dumps(tagging_bundle(page=p).evidence)} for p in (1, 2)]
    judged = judge_rows("run-1", judge, [(row, repeat) for repeat in range(2) for row in rows])["judgments"]
    direct = [asdict(judge.judge_page(tagging_bundle(page=3), 0))]
    (home / "judgments.json").write_text(json.dumps({"rows": judged, "direct": direct}, default=str))
    assert any(r["error"] for r in judged) and any(r["error"] is None for r in judged)
    assert list((home / "cache" / "llm").rglob("*.json"))
    for path in home.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path
