"""Model reply → validated judgment: read as models write it, validated, with one repair request.

The request asks for one exact shape (and sends it as a JSON schema where the server honours one);
the reading accepts the shapes real models use, and records each normalisation it applied on the
reply (`JudgmentReply.normalised`, stored on the call and counted in the report):

- `fenced` / `prefixed` / `trailing_text`: the object inside a code fence or among prose;
- `paper_shape`: the paper's Appendix C format, `{"Page_Evaluation": {"accessibility_label": …,
  "Recommendations": [{"Issue": …, "Remediation": …}]}, "evaluation_summary": …}`;
- `wrapped`: the judgment inside one outer key (`{"judgment": {...}}`);
- `label_key`: the label under another name (`verdict`, `Label`, `accessibility_label`);
- `label_synonym`: "Pass", "N/A", "Can't tell" and the like;
- `sub_criteria_list`: sub-criteria as a list of `{name, verdict}` (or one-key objects);
- `sub_criteria_nested`: each verdict inside an object (`{"verdict": "failed", "reason": …}`);
- `verdict_synonym`: a sub-criterion verdict spelt "pass", "yes", "n/a", …;
- `unknown_sub_criteria_dropped`: names this criterion does not have, left out;
- `issue_fields`: issues as `{Issue, Remediation}`, `{description, fix}`, …; `issue_text`: as plain strings;
- `summary_key`: the summary under another name (`evaluation_summary`, `justification`).

What is not accepted (no label, a label this criterion does not have, a verdict that means
nothing, a failed label without issues) raises `ReplyError`, sent back to the model once.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judges.criteria import SPEC, labels_for
from judges.labels import Label
from judges.llm.prompts import VERDICTS
from models.replies import ReplyError, extract_json, key_lookup, read_json, repair_request

__all__ = ["IssueReply", "JudgmentReply", "ReplyError", "extract_json", "normalise_reply", "parse_reply",
           "repair_request"]

_LABEL_WORDS = {
    "pass": "passed", "passes": "passed", "pass_": "passed",
    "fail": "failed", "fails": "failed", "failure": "failed",
    "na": "not_present", "n_a": "not_present", "not_applicable": "not_present", "absent": "not_present",
    "notpresent": "not_present", "none_present": "not_present",
    "cant_tell": "cannot_tell", "can_t_tell": "cannot_tell", "can_not_tell": "cannot_tell",
    "cannottell": "cannot_tell", "unknown": "cannot_tell", "unclear": "cannot_tell",
    "undetermined": "cannot_tell", "indeterminate": "cannot_tell", "cannot_determine": "cannot_tell",
}
_VERDICT_WORDS = {
    "pass": "passed", "passes": "passed", "yes": "passed", "ok": "passed", "met": "passed",
    "fail": "failed", "fails": "failed", "failure": "failed", "no": "failed", "not_met": "failed",
    "na": "not_applicable", "n_a": "not_applicable", "not_present": "not_applicable", "absent": "not_applicable",
    "none": "not_applicable", "not_applicable": "not_applicable",
    "unknown": "cannot_tell", "unclear": "cannot_tell", "cant_tell": "cannot_tell", "can_t_tell": "cannot_tell",
    "can_not_tell": "cannot_tell",
}
_LABEL_KEYS = ("label", "accessibility_label", "verdict", "overall_label", "overall_verdict", "result",
               "status", "assessment", "evaluation")
_SUB_KEYS = ("sub_criteria", "subcriteria", "sub_criterion_verdicts", "checklist", "criteria")
_ISSUE_KEYS = ("issues", "recommendations", "problems", "findings", "violations")
_SUMMARY_KEYS = ("summary", "evaluation_summary", "justification", "reasoning", "rationale", "explanation")
_NAME_KEYS = ("name", "sub_criterion", "subcriterion", "criterion", "id", "check")
_VERDICT_KEYS = ("verdict", "status", "result", "label", "value", "outcome", "assessment")
_PROBLEM_KEYS = ("problem", "issue", "description", "finding", "violation", "message", "detail")
_FIX_KEYS = ("remediation", "fix", "recommendation", "suggestion", "solution", "action")
_LOCATION_KEYS = ("location", "element", "where", "page", "target")


class IssueReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    sub_criterion: str = ""
    location: str = ""
    problem: str
    remediation: str = ""


class JudgmentReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    label: Label
    sub_criteria: dict[str, str] = Field(default_factory=dict)
    issues: list[IssueReply] = Field(default_factory=list)
    summary: str = ""
    normalised: list[str] = Field(default_factory=list)  # what reading the reply had to do (module docstring)


def _normalise(text: str) -> str:
    return re.sub(r"[\s\-'’/]+", "_", text.strip().lower()).strip("_.!")


def _word(value: Any, words: dict[str, str], canonical: tuple[str, ...], steps: set[str], step: str) -> str | None:
    if not isinstance(value, str):
        return None
    key = _normalise(value)
    if key in canonical:
        return key
    if key in words:
        steps.add(step)
        return words[key]
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "; ".join(_text(v) for v in value if _text(v))
    return json.dumps(value, ensure_ascii=False)


def _unwrap(data: dict[str, Any], steps: set[str]) -> dict[str, Any]:
    """The object that holds the judgment: the paper's Page_Evaluation, or a single wrapping key."""
    key, page = key_lookup(data, "page_evaluation", "page_evaluations")
    if key is not None:
        if isinstance(page, list) and page and all(isinstance(p, dict) for p in page):
            page = page[0] if len(page) == 1 else None
        if isinstance(page, dict):
            steps.add("paper_shape")
            merged = {k: v for k, v in data.items() if k != key}
            merged.update(page)
            return merged
    if len(data) == 1:
        inner = next(iter(data.values()))
        if isinstance(inner, dict) and key_lookup(inner, *_LABEL_KEYS)[0] is not None \
                and key_lookup(data, *_LABEL_KEYS)[0] is None:
            steps.add("wrapped")
            return inner
    return data


def _sub_criteria(value: Any, criterion: str, steps: set[str]) -> dict[str, str]:
    if value is None:
        return {}
    pairs: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        pairs = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, list):
        steps.add("sub_criteria_list")
        for item in value:
            if not isinstance(item, dict):
                raise ReplyError("sub_criteria must map each sub-criterion name to a verdict")
            name_key, name = key_lookup(item, *_NAME_KEYS)
            if name_key is not None:
                rest = {k: v for k, v in item.items() if k != name_key}
                pairs.append((str(name), key_lookup(rest, *_VERDICT_KEYS)[1] if len(rest) > 1 else
                              next(iter(rest.values()), None)))
            elif len(item) == 1:
                pairs.append(next((str(k), v) for k, v in item.items()))
            else:
                raise ReplyError("each sub_criteria entry needs a name and a verdict")
    else:
        raise ReplyError("sub_criteria must be an object mapping each sub-criterion to a verdict")
    known = SPEC[criterion].sub_names
    out: dict[str, str] = {}
    unknown: list[str] = []
    for name, verdict in pairs:
        if isinstance(verdict, dict):
            _, verdict = key_lookup(verdict, *_VERDICT_KEYS)
            steps.add("sub_criteria_nested")
        word = _word(verdict, _VERDICT_WORDS, VERDICTS, steps, "verdict_synonym")
        if word is None:
            raise ReplyError(f"sub-criterion {name!r} has verdict {verdict!r}; use one of {', '.join(VERDICTS)}")
        key = _normalise(name).replace("_", " ").replace(" ", "_")
        if key not in known:
            unknown.append(name)
            continue
        out[key] = word
    if unknown and not out:  # not one name of this criterion: the model used another vocabulary
        raise ReplyError(f"unknown sub-criteria {sorted(unknown)}; use exactly these names: {', '.join(known)}")
    if unknown:
        steps.add("unknown_sub_criteria_dropped")
    return out


def _issues(value: Any, steps: set[str]) -> list[IssueReply]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out: list[IssueReply] = []
    for item in items:
        if isinstance(item, str):
            if item.strip():
                steps.add("issue_text")
                out.append(IssueReply(problem=item))
            continue
        if not isinstance(item, dict):
            continue
        fields: dict[str, str] = {}
        for target, names in (("sub_criterion", ("sub_criterion", "subcriterion", "criterion")),
                              ("location", _LOCATION_KEYS), ("problem", _PROBLEM_KEYS),
                              ("remediation", _FIX_KEYS)):
            key, found = key_lookup(item, *names)
            if key is not None:
                fields[target] = _text(found)
                if key != target:
                    steps.add("issue_fields")
        if fields.get("problem", "").strip() or fields.get("remediation", "").strip():
            fields.setdefault("problem", fields.get("remediation", ""))
            out.append(IssueReply(**fields))
    return out


def normalise_reply(data: dict[str, Any], criterion: str, steps: set[str]) -> dict[str, Any]:
    """The canonical `{label, sub_criteria, issues, summary}` of a decoded reply; adds to `steps`."""
    data = _unwrap(data, steps)
    label_key, raw_label = key_lookup(data, *_LABEL_KEYS)
    if label_key is None or raw_label in (None, ""):
        raise ReplyError("the JSON does not match the required format (label: Field required)")
    if label_key != "label":
        steps.add("label_key")
    if isinstance(raw_label, dict):
        _, raw_label = key_lookup(raw_label, "value", "label", "verdict")
    label = _word(raw_label, _LABEL_WORDS, tuple(label.value for label in Label), steps, "label_synonym")
    if label is None:
        raise ReplyError(f"unknown label {raw_label!r}; expected one of {[label.value for label in Label]}")
    sub_key, subs = key_lookup(data, *_SUB_KEYS)
    issue_key, issues = key_lookup(data, *_ISSUE_KEYS)
    summary_key, summary = key_lookup(data, *_SUMMARY_KEYS)
    if issue_key not in (None, "issues") and "paper_shape" not in steps:
        steps.add("issue_fields")
    if summary_key not in (None, "summary"):
        steps.add("summary_key")
    return {"label": label, "sub_criteria": _sub_criteria(subs, criterion, steps),
            "issues": _issues(issues, steps), "summary": _text(summary)}


def parse_reply(text: str, criterion: str) -> JudgmentReply:
    """Validate a reply for `criterion`; raises ReplyError with a repair-ready message."""
    data, found = read_json(text or "")
    steps: set[str] = set(found)
    try:
        reply = JudgmentReply.model_validate(normalise_reply(data, criterion, steps))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}" for e in exc.errors())
        raise ReplyError(f"the JSON does not match the required format ({problems})") from None
    allowed = labels_for(criterion)
    if reply.label not in allowed:
        raise ReplyError(f"label {reply.label.value!r} does not exist for {criterion}; "
                         f"choose one of {', '.join(label.value for label in allowed)}")
    failed_subs = [name for name, verdict in reply.sub_criteria.items() if verdict == "failed"]
    if (reply.label is Label.FAILED or failed_subs) and not reply.issues:
        raise ReplyError("a failed label or sub-criterion needs at least one issue with location, problem "
                         "and remediation")
    reply.normalised = sorted(steps)
    return reply


