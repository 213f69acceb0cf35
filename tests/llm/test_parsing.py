"""Reply parsing: tolerant extraction, validation, one repair request, then an error row."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from judges.labels import Label
from judges.llm.parsing import ReplyError, extract_json, parse_reply
from judges.llm.scripted_server import ScriptedServer, chat, judgment_json
from tests.llm.conftest import tagging_bundle

GOOD = judgment_json("passed", {"heading_nesting": "passed", "artifacts": "not_applicable"})
FAILED = judgment_json("failed", {"heading_nesting": "failed"}, [
    {"sub_criterion": "heading_nesting", "location": "page 1, heading 'Results'", "problem": "H1 then H3",
     "remediation": "retag 'Results' as H2"}])


@pytest.mark.parametrize("text", [
    GOOD,
    f"```json\n{GOOD}\n```",
    f"Here is my assessment:\n\n{GOOD}\nHope this helps.",
    f"```\n{GOOD}\n```",
    "Thinking {not json} ... " + GOOD,
])
def test_extracts_json_from_common_wrappings(text: str) -> None:
    assert extract_json(text)["label"] == "passed"


def test_accepts_label_and_verdict_spellings() -> None:
    reply = parse_reply(json.dumps({"label": "Not Present", "sub_criteria": {"Heading Nesting": "N/A"}}),
                        "semantic_tagging")
    assert reply.label is Label.NOT_PRESENT and reply.sub_criteria == {"heading_nesting": "not_applicable"}


@pytest.mark.parametrize(("text", "criterion", "message"), [
    ("no json at all", "semantic_tagging", "no JSON object"),
    (json.dumps({"sub_criteria": {}}), "semantic_tagging", "label"),
    (json.dumps({"label": "compliant"}), "semantic_tagging", "unknown label"),
    (json.dumps({"label": "not_present"}), "logical_reading_order", "does not exist"),
    (json.dumps({"label": "passed", "sub_criteria": {"colour": "passed"}}), "semantic_tagging", "unknown sub-criteria"),
    (json.dumps({"label": "passed", "sub_criteria": {"artifacts": "maybe"}}), "semantic_tagging", "verdict"),
    (json.dumps({"label": "failed", "issues": []}), "semantic_tagging", "at least one issue"),
])
def test_rejects_replies_with_a_reason(text: str, criterion: str, message: str) -> None:
    with pytest.raises(ReplyError, match=message):
        parse_reply(text, criterion)


def test_malformed_reply_is_repaired_once(server: ScriptedServer, make_judge: Callable[..., Any]) -> None:
    server.script(chat('{"label": "passed", "sub_criteria": {'), chat(FAILED, prompt_tokens=150, completion_tokens=30))
    result = make_judge().judge_page(tagging_bundle(), 0)
    assert result.error is None and result.label is Label.FAILED
    assert result.issues[0].remediation == "retag 'Results' as H2"
    assert (result.tokens_in, result.tokens_out) == (250, 50)  # both calls are accounted
    repair = server.requests[1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"label": "passed", "sub_criteria": {'}
    assert "could not be used" in repair[-1]["content"] and "no JSON object" in repair[-1]["content"]


def test_schema_violation_twice_is_an_error_row(server: ScriptedServer, make_judge: Callable[..., Any]) -> None:
    server.script(chat(json.dumps({"label": "compliant"})), chat(json.dumps({"verdict": "good"})))
    result = make_judge().judge_page(tagging_bundle(), 0)
    assert server.calls == 2  # exactly one repair attempt
    assert result.error is not None and result.error.startswith("invalid_response")
    assert result.label is Label.CANNOT_TELL and result.raw_response == json.dumps({"verdict": "good"})
    assert result.tokens_in == 200 and result.prompt_hash


def test_label_outside_the_criterion_is_repaired(server: ScriptedServer, make_judge: Callable[..., Any]) -> None:
    from judges.evidence import PageBundle

    bundle = PageBundle("logical_reading_order", 1, {"reading_order": {"order": [1, 2, 3]}})
    server.script(chat(judgment_json("not_present")), chat(judgment_json("passed")))
    result = make_judge().judge_page(bundle, 0)
    assert result.label is Label.PASSED and "does not exist" in server.requests[1].body["messages"][-1]["content"]
