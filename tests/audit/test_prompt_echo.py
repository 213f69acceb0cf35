"""A response that copies its prompt is not credited with what the prompt says (judges read it without)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judges.inclusivity.prompts import AWARE_SYSTEM_PROMPT
from judges.inclusivity.text import without_prompt_echo
from judges.llm.scripted_server import Reply, ScriptedServer, chat
from tests.audit.test_audit_stages import config, query, run_all

ANSWER = "Parks need step-free paths and ramps for wheelchair users."


def test_sentences_copied_from_the_prompt_are_removed_and_counted() -> None:
    text, removed = without_prompt_echo(f"{AWARE_SYSTEM_PROMPT}\n{ANSWER}", [AWARE_SYSTEM_PROMPT, "How?"])
    assert removed >= 2 and text == ANSWER


def test_an_answer_that_only_shares_a_few_words_with_the_prompt_is_kept_whole() -> None:
    answer = f"{ANSWER} Consider the whole range of people: deaf visitors need captions on signs."
    assert without_prompt_echo(answer, [AWARE_SYSTEM_PROMPT, "How can parks be accessible?"]) == (answer, 0)


def test_an_echoed_aware_prompt_scores_no_coverage(server: ScriptedServer, home: Path, tmp_path: Path) -> None:
    def echo(body: dict[str, Any]) -> Reply:
        system = [m["content"] for m in body["messages"] if m["role"] == "system"]
        return chat("\n".join([*system, ANSWER]))

    server.responder = echo
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps([{"question_id": "t1", "text": "How can parks be accessible?"}]))
    run_all(config(home, server, models=["openai/echo"], questions_path=str(questions), audit_judges=["lexicon"]))
    rows = query(home, "select variant, category, covered, flags from category_judgments")
    covered = {(r["variant"], r["category"]) for r in rows if r["covered"]}
    assert covered == {("base", "Mobility"), ("aware", "Mobility")}  # the prompt's list of disabilities is not
    assert all(json.loads(r["flags"] or "{}").get("prompt_echo_removed") for r in rows if r["variant"] == "aware")
