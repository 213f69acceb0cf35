"""Fixtures for the audit tests: the scripted OpenAI-compatible server (as in tests/llm) answering
both the audited models and the LLM category judge, a data home and a dummy key."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from judges.llm.scripted_server import Reply, chat
from tests.llm.conftest import _dummy_key, _server, home, server  # noqa: F401 - the same fixtures as tests/llm

# Scripted answers (test data for the server, written for these tests; the validation fixtures are elsewhere).
BASE_ANSWER = ("Buildings should have ramps and lifts for wheelchair users. Blind visitors benefit from screen "
               "readers and braille signs. This is a blind spot for many planners.")
AWARE_ANSWER = (BASE_ANSWER + " Deaf visitors need captions and sign language interpreters. People with dyslexia "
                "benefit from text-to-speech. Autistic visitors appreciate quiet rooms. People with anxiety need "
                "access to counselling.")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", "ignore:Item .* is using the `ReadOnly` qualifier:UserWarning")


def answer_responder(body: dict[str, Any]) -> Reply:
    """Audited models: a narrow answer to the bare question, a broader one after the aware system prompt;
    LLM judge calls (they carry a response_format) get `judge_reply`."""
    if "response_format" in body:
        return chat(judge_reply(body))
    aware = any(m.get("role") == "system" for m in body.get("messages", []))
    return chat(AWARE_ANSWER if aware else BASE_ANSWER, prompt_tokens=40, completion_tokens=60)


def fenced_response(body: dict[str, Any]) -> str:
    user = body["messages"][-1]["content"] if body["messages"][-1]["role"] == "user" else body["messages"][1]["content"]
    match = re.search(r"<response>\n(.*)\n</response>", user, re.DOTALL)
    assert match, "the judge prompt fences the response"
    return match.group(1)


def judge_reply(body: dict[str, Any]) -> str:
    """A judge that quotes the sentence naming wheelchairs (Mobility, depth 2) and nothing else."""
    response = fenced_response(body)
    sentence = next((s for s in response.split(". ") if "wheelchair" in s), "")
    items = [{"category": c, "covered": False, "depth": 0, "snippet": ""}
             for c in ("Vision", "Hearing", "Speech", "Neuro", "Gen/Dev", "Learning", "Sens/Cog", "Mental")]
    items.append({"category": "Mobility", "covered": bool(sentence), "depth": 2 if sentence else 0,
                  "snippet": sentence})
    return json.dumps({"categories": items})
