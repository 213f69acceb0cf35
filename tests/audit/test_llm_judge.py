"""The LLM category judge through the scripted server: structured output, the snippet rule, errors as rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judges.inclusivity.base import JudgeItem, get_category_judge
from judges.inclusivity.categories import CATEGORY_NAMES
from judges.inclusivity.lexicon_terms import SHARED_MARKERS
from judges.inclusivity.prompts import SHARED_SUPPORT_WORDS, judge_system_prompt
from judges.llm.scripted_server import ScriptedServer, chat, error
from tests.audit.conftest import fenced_response
from tests.llm.conftest import MODEL, SECRET

RESPONSE = ("Public buildings need ramps and lifts for wheelchair users.\nBlind visitors rely on   screen readers "
            "and braille signs.")


def judge(server: ScriptedServer, home: Path) -> Any:
    return get_category_judge(f"llm:{MODEL}", {"api_base": server.api_base, "home": home, "backoff_base_s": 0.01,
                                               "timeout_s": 5, "concurrency": 4})


def reply(**overrides: dict[str, Any]) -> str:
    items = {c: {"category": c, "covered": False, "depth": 0, "snippet": ""} for c in CATEGORY_NAMES}
    for name, item in overrides.items():
        items[name.replace("_", "/")] = {**items[name.replace("_", "/")], **item}
    return json.dumps({"categories": list(items.values())})


def by_category(result: Any) -> dict[str, Any]:
    return {v.category: v for v in result.verdicts}


def test_sends_a_json_schema_response_format_and_fences_the_response(server: ScriptedServer, home: Path) -> None:
    server.script(chat(reply(Mobility={"covered": True, "depth": 2,
                                       "snippet": "ramps and lifts for wheelchair users"})))
    (result,) = judge(server, home).judge_many([JudgeItem("How should buildings be designed?", RESPONSE)])
    body = server.requests[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["properties"]["categories"]["minItems"] == 9
    assert fenced_response(body) == RESPONSE
    assert "How should buildings be designed?" in body["messages"][1]["content"]
    verdicts = by_category(result)
    assert (verdicts["Mobility"].covered, verdicts["Mobility"].depth) == (True, 2)
    assert (verdicts["Vision"].covered, verdicts["Vision"].depth) == (False, 0)
    assert result.tokens_in == 100 and result.cost_usd is None  # unknown price stays unknown


def test_snippet_not_in_the_response_voids_the_verdict_and_is_flagged(server: ScriptedServer, home: Path) -> None:
    server.script(chat(reply(
        Vision={"covered": True, "depth": 3, "snippet": "Blind visitors rely on screen readers and braille signs."},
        Hearing={"covered": True, "depth": 2, "snippet": "Deaf visitors need captions."},  # invented
        Mobility={"covered": True, "depth": 2, "snippet": '"ramps and lifts for wheelchair users…"'},
    )))
    (result,) = judge(server, home).judge_many([JudgeItem("q", RESPONSE)])
    verdicts = by_category(result)
    # Whitespace differs from the response ("rely on   screen"), which the rule forgives; quotes too.
    assert (verdicts["Vision"].covered, verdicts["Vision"].depth) == (True, 3)
    assert (verdicts["Mobility"].covered, verdicts["Mobility"].depth) == (True, 2)
    assert (verdicts["Hearing"].covered, verdicts["Hearing"].depth) == (None, None)
    assert verdicts["Hearing"].flags == {"snippet_not_found": True}


def test_coverage_and_depth_are_reconciled_and_flagged(server: ScriptedServer, home: Path) -> None:
    server.script(chat(reply(Vision={"covered": False, "depth": 2, "snippet": "braille signs"},
                             Mobility={"covered": True, "depth": 0, "snippet": "wheelchair users"})))
    (result,) = judge(server, home).judge_many([JudgeItem("q", RESPONSE)])
    verdicts = by_category(result)
    assert (verdicts["Vision"].covered, verdicts["Vision"].depth) == (True, 2)
    assert (verdicts["Mobility"].covered, verdicts["Mobility"].depth) == (True, 1)
    assert verdicts["Vision"].flags["covered_depth_mismatch"] and verdicts["Mobility"].flags["covered_depth_mismatch"]


def test_an_unusable_reply_gets_one_repair_request(server: ScriptedServer, home: Path) -> None:
    server.script(chat("I think it covers mobility."),
                  chat(reply(Mobility={"covered": True, "depth": 1, "snippet": "wheelchair users"})))
    (result,) = judge(server, home).judge_many([JudgeItem("q", RESPONSE)])
    assert server.calls == 2
    assert "could not be used" in server.requests[1].body["messages"][-1]["content"]
    assert by_category(result)["Mobility"].depth == 1


def test_failures_become_voided_verdicts_with_redacted_errors(server: ScriptedServer, home: Path) -> None:
    server.script(error(401, f"Incorrect API key provided: {SECRET}"))
    (result,) = judge(server, home).judge_many([JudgeItem("q", RESPONSE)])
    assert len(result.verdicts) == 9
    assert all(v.covered is None and v.depth is None for v in result.verdicts)
    assert all(v.error and v.error.startswith("model_call:") and SECRET not in v.error for v in result.verdicts)


def test_a_missing_category_is_voided_not_guessed(server: ScriptedServer, home: Path) -> None:
    data = json.loads(reply())
    data["categories"] = [c for c in data["categories"] if c["category"] != "Speech"]
    server.script(chat(json.dumps(data)))
    (result,) = judge(server, home).judge_many([JudgeItem("q", RESPONSE)])
    speech = by_category(result)["Speech"]
    assert speech.covered is None and speech.flags == {"missing_category": True}


def test_the_prompt_states_the_coverage_rule_supports_generic_sentences_and_dismissals() -> None:
    prompt = judge_system_prompt()
    assert "names a support that serves them even without naming the group" in prompt
    for support in ("braille", "hearing loops", "step-free routes", "easy-read", "a quiet room", "AAC devices"):
        assert support in prompt
    # the offline judges' rule for a support that serves several groups (lexicon_terms.SHARED_MARKERS)
    assert "a quiet room serves Sens/Cog and Mental" in prompt
    assert "covers each of them unless the answer ties it to one" in prompt
    assert set(SHARED_SUPPORT_WORDS) == set(SHARED_MARKERS)
    assert "consult disabled people early" in prompt and "cover no category" in prompt
    assert "this isn't about wheelchair users" in prompt
    assert "snippet" in prompt and "the support that serves it" in prompt
