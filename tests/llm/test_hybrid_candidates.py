"""The hybrid judge's focused questions: a rules candidate goes to the LLM as one question with the element's
facts; "yes" fails the page with the rule's finding, "no" dismisses it, anything else goes to a person."""

from __future__ import annotations

import json
from typing import Any

import pytest

from judges.base import get_judge
from judges.evidence import PageBundle
from judges.labels import Label
from judges.llm.confirm import read_answer
from judges.llm.scripted_server import ScriptedServer, chat
from judges.rules import RulesJudge
from models.replies import ReplyError

CANDIDATE = "semantic_tagging.proper_tag_usage.heading_text_candidate"
SENTENCE = "We asked each reader to finish the form twice."


def bundle(heading: str = SENTENCE, size: float = 10.0) -> PageBundle:
    """A tagged page whose H2 is a short sentence set like the body text: too short to be sure it is a
    paragraph (the rules' own error needs twelve words), so a candidate."""
    return PageBundle("semantic_tagging", 1, {
        "page_image": {"width_pt": 612.0, "height_pt": 792.0, "has_text": True},
        "tag_structure": {
            "tagged": True, "marked": True, "element_count": 5, "root_types": ["Document"], "body_size": 10.0,
            "type_counts": {"Document": 1, "H1": 1, "H2": 1, "P": 2},
            "elements": [
                {"id": 0, "type": "Document", "depth": 0},
                {"id": 1, "parent": 0, "type": "H1", "depth": 1, "page": 1, "text": "Method", "size": 14.0,
                 "bold": 1.0},
                {"id": 2, "parent": 0, "type": "P", "depth": 1, "page": 1, "size": 10.0, "bold": 0.0,
                 "text": "Twelve readers took part in the study over two weeks in spring."},
                {"id": 3, "parent": 0, "type": "H2", "depth": 1, "page": 1, "text": heading, "size": size,
                 "bold": 0.0},
                {"id": 4, "parent": 0, "type": "P", "depth": 1, "page": 1, "size": 10.0, "bold": 0.0,
                 "text": "The second time they used a screen reader and the tagged version of the form."},
            ],
        },
    })


def hybrid(server: ScriptedServer, home: Any) -> Any:
    return get_judge("hybrid:openai/test-model", {"api_base": server.api_base, "home": home, "timeout_s": 5,
                                                  "backoff_base_s": 0.01, "max_retries": 0})


def test_the_rules_judge_lists_a_candidate_and_fails_nothing_for_it() -> None:
    judged = RulesJudge().judge_page(bundle(), 0)
    assert judged.label is Label.PASSED
    candidates = [i for i in judged.issues if i.rule_id == CANDIDATE]
    assert candidates and "really running text" in candidates[0].context["question"]
    facts = candidates[0].context["facts"]
    assert facts["element"]["type"] == "H2" and facts["read_before"][-1]["text"].startswith("Twelve readers")
    assert "context" not in json.loads(judged.issues_json())[0]  # question and facts live in the call log
    # A heading that looks and reads like one raises nothing.
    assert not RulesJudge().judge_page(bundle("Second session", 12.0), 0).issues


def test_a_confirmed_candidate_fails_the_page_with_the_rules_finding(server: ScriptedServer, home: Any) -> None:
    server.script(chat(json.dumps({"defect": "yes", "reason": "it is a sentence of the method, not a title"})))
    judged = hybrid(server, home).judge_page(bundle(), 0)
    assert judged.label is Label.FAILED and judged.sub_criteria["proper_tag_usage"] == "failed"
    assert [i.rule_id for i in judged.issues] == [CANDIDATE]
    assert "confirmed by" in judged.issues[0].problem and "not a title" in judged.issues[0].problem
    assert judged.review is None and judged.tier_labels == {"rules": "passed", "llm": "failed"}
    # One focused question instead of the whole-page prompt, logged with the rule that raised it.
    assert server.calls == 1
    sent = server.requests[-1].body
    question = sent["messages"][-1]["content"]
    assert "really running text" in question and SENTENCE in question and "Twelve readers" in question
    assert sent["response_format"]["json_schema"]["name"] == "candidate_answer"
    assert judged.calls[0]["purpose"] == "confirm_candidate"
    assert json.loads(judged.calls[0]["parsed"])["rule_id"] == CANDIDATE


def test_a_dismissed_candidate_is_dropped_and_the_page_passes(server: ScriptedServer, home: Any) -> None:
    server.script(chat('Sure. ```json\n{"Defect": "No", "Reason": "a question used as a section title"}\n```'))
    judged = hybrid(server, home).judge_page(bundle(), 0)
    assert judged.label is Label.PASSED and not judged.issues and judged.review is None
    assert "1 dismissed" in judged.summary


def test_an_unusable_answer_keeps_the_candidate_for_a_person(server: ScriptedServer, home: Any) -> None:
    server.script(chat("I cannot see the document."))
    judged = hybrid(server, home).judge_page(bundle(), 0)
    assert judged.label is Label.PASSED and judged.review and CANDIDATE in judged.review
    assert [i.rule_id for i in judged.issues] == [CANDIDATE]
    assert judged.calls and judged.calls[0]["parse_error"]


@pytest.mark.parametrize(("reply", "defect"), [
    ('{"defect": "yes", "reason": "r"}', True), ('{"defect": true}', True), ('{"answer": "No"}', False),
    ('{"verdict": "unsure"}', None), ("Yes - it is a paragraph.", True), ("no.", False),
])
def test_answers_are_read_the_ways_models_write_them(reply: str, defect: bool | None) -> None:
    assert read_answer(reply)[0] is defect


def test_an_answer_without_a_verdict_is_refused() -> None:
    with pytest.raises(ReplyError):
        read_answer('{"reason": "it depends"}')
    with pytest.raises(ReplyError):
        read_answer("It depends on the context.")
