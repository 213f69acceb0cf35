"""Model reply → validated judgment: tolerant JSON extraction, a schema, and the repair request.

Models wrap JSON in code fences, add a sentence before it, or spell labels their own way; those are
accepted. What is not accepted (missing label, a label this criterion does not have, unknown
sub-criteria, a failed label without issues) raises `ReplyError`, whose message is sent back to the
model once as a repair request.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from judges.criteria import SPEC, labels_for
from judges.labels import Label, parse_label
from judges.llm.prompts import VERDICTS

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_VERDICT_ALIASES = {"pass": "passed", "fail": "failed", "na": "not_applicable", "n/a": "not_applicable",
                    "not_present": "not_applicable", "unknown": "cannot_tell", "unclear": "cannot_tell"}


class ReplyError(ValueError):
    """The reply cannot be used; the message says why, in words the model can act on."""


class IssueReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    sub_criterion: str = ""
    location: str
    problem: str
    remediation: str


class JudgmentReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    label: Label
    sub_criteria: dict[str, str] = Field(default_factory=dict)
    issues: list[IssueReply] = Field(default_factory=list)
    summary: str = ""

    @field_validator("label", mode="before")
    @classmethod
    def _label(cls, value: Any) -> Label:
        if not isinstance(value, str):
            raise ValueError("label must be a string")
        return parse_label(value)

    @field_validator("sub_criteria", mode="before")
    @classmethod
    def _verdicts(cls, value: Any) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ValueError("sub_criteria must be an object mapping each sub-criterion to a verdict")
        out = {}
        for name, verdict in value.items():
            key = _normalise(str(name))
            word = _normalise(str(verdict))
            word = _VERDICT_ALIASES.get(word, word)
            if word not in VERDICTS:
                raise ValueError(f"sub-criterion {name!r} has verdict {verdict!r}; use one of {', '.join(VERDICTS)}")
            out[key] = word
        return out


def _normalise(text: str) -> str:
    return re.sub(r"[\s\-]+", "_", text.strip().lower())


def extract_json(text: str) -> dict[str, Any]:
    """The first JSON object in `text`, inside code fences or after leading prose."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start in (i for i, ch in enumerate(candidate) if ch == "{"):
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    raise ReplyError("the reply contains no JSON object; reply with a single JSON object")


def parse_reply(text: str, criterion: str) -> JudgmentReply:
    """Validate a reply for `criterion`; raises ReplyError with a repair-ready message."""
    data = extract_json(text or "")
    try:
        reply = JudgmentReply.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}" for e in exc.errors())
        raise ReplyError(f"the JSON does not match the required format ({problems})") from None
    allowed = labels_for(criterion)
    if reply.label not in allowed:
        raise ReplyError(f"label {reply.label.value!r} does not exist for {criterion}; "
                         f"choose one of {', '.join(label.value for label in allowed)}")
    known = SPEC[criterion].sub_names
    unknown = sorted(set(reply.sub_criteria) - set(known))
    if unknown:
        raise ReplyError(f"unknown sub-criteria {unknown}; use exactly these names: {', '.join(known)}")
    failed_subs = [name for name, verdict in reply.sub_criteria.items() if verdict == "failed"]
    if (reply.label is Label.FAILED or failed_subs) and not reply.issues:
        raise ReplyError("a failed label or sub-criterion needs at least one issue with location, problem "
                         "and remediation")
    return reply


def repair_request(error: ReplyError) -> str:
    """The follow-up message asking the model to correct its reply."""
    return (f"Your reply could not be used: {error}. Reply again with only the corrected JSON object, in "
            "exactly the output format given in the instructions, with no other text.")
