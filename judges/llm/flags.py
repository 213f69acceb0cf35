"""Hallucination flags: cheap checks that a reply only cites what the judge was shown.

- label_without_evidence: Passed/Failed although none of the criterion's needed (★) evidence was given.
- alt_text_not_in_evidence: a quoted alt text in the findings does not occur in the evidence.
- values_not_in_evidence: a colour (#rrggbb), font size (pt) or contrast ratio (n:1) in the findings
  was neither in the evidence nor in the instructions (thresholds such as 4.5:1 or 9 pt are fine).
- reply_inconsistent: the label contradicts the reply's own checklist — Failed although every sub-criterion
  it judged passed and no issue names a problem (an issue whose fields only say "passed" names none), or
  Passed while an issue names a problem. The label is kept as given (the paper's protocol); the flag shows it.

Remediation text is not checked: proposing a new alt text or colour is the point of it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from judges.criteria import SPEC
from judges.evidence import PageBundle
from judges.labels import Label
from judges.llm.parsing import JudgmentReply

_QUOTED = re.compile(r"\"([^\"]{2,200})\"|“([^”]{2,200})”")
_MENTIONS_ALT = re.compile(r"\balt\b|\balt[- ]text|alternative text", re.IGNORECASE)
_HEX = re.compile(r"#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s?(?:pt|points?)\b", re.IGNORECASE)
_RATIO = re.compile(r"(\d+(?:\.\d+)?)\s?:\s?1\b")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
TOLERANCE = 0.06  # "10pt" matches an extracted 9.96; rounding in prose is not invention


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


def _hex6(value: str) -> str:
    digits = value.lower().lstrip("#")
    return digits if len(digits) == 6 else "".join(ch * 2 for ch in digits)


def _findings(reply: JudgmentReply) -> list[str]:
    return [reply.summary] + [f"{i.location} {i.problem}" for i in reply.issues]


def _alt_text_invented(findings: list[str], evidence_text: str) -> bool:
    haystack = _normalise(evidence_text)
    for text in findings:
        if not _MENTIONS_ALT.search(text):
            continue
        for match in _QUOTED.finditer(text):
            quoted = _normalise(match.group(1) or match.group(2))
            if quoted and quoted not in haystack:
                return True
    return False


def _numbers_under(value: Any, words: tuple[str, ...], inside: bool = False) -> list[float]:
    """Numbers in `value` that sit under a key containing one of `words` (bbox coordinates do not count)."""
    if isinstance(value, dict):
        return [n for k, v in value.items()
                for n in _numbers_under(v, words, inside or any(w in str(k).lower() for w in words))]
    if isinstance(value, list | tuple):
        return [n for v in value for n in _numbers_under(v, words, inside)]
    if inside and isinstance(value, int | float) and not isinstance(value, bool):
        return [float(value)]
    return []


def _values_invented(findings: list[str], evidence: dict[str, Any], instructions: str) -> bool:
    evidence_text = json.dumps(evidence, ensure_ascii=False, default=str)
    known_hex = {_hex6(h) for h in _HEX.findall(evidence_text + instructions)}
    stated = [float(n) for n in _NUMBER.findall(instructions)]
    sizes = stated + _numbers_under(evidence, ("size",))
    ratios = stated + _numbers_under(evidence, ("ratio", "contrast", "threshold"))

    def known(number: str, pool: list[float]) -> bool:
        return any(abs(float(number) - k) <= TOLERANCE for k in pool)

    for text in findings:
        if any(_hex6(h) not in known_hex for h in _HEX.findall(text)):
            return True
        if not all(known(n, sizes) for n in _SIZE.findall(text)):
            return True
        if not all(known(n, ratios) for n in _RATIO.findall(text)):
            return True
    return False


# What a field of an issue says when it names no problem at all.
_EMPTY_WORDS = frozenset({"", "passed", "pass", "passes", "ok", "none", "n/a", "na", "not applicable", "no issue",
                          "no issues", "-", "null"})


def _names_a_problem(issue: Any) -> bool:
    return any(" ".join(str(text).lower().split()).strip(".!") not in _EMPTY_WORDS
               for text in (issue.location, issue.problem, issue.remediation))


def reply_inconsistent(reply: JudgmentReply) -> bool:
    """Whether the reply's label contradicts its own sub-criteria or issues (see the module doc)."""
    real_issues = [i for i in reply.issues if _names_a_problem(i)]
    verdicts = set(reply.sub_criteria.values())
    if reply.label is Label.FAILED:
        return "failed" not in verdicts and "passed" in verdicts and not real_issues
    if reply.label is Label.PASSED:
        return bool(real_issues) and "failed" not in verdicts
    return False


def hallucination_flags(bundle: PageBundle, reply: JudgmentReply, instructions: str) -> dict[str, bool]:
    """Flags for one parsed reply, checked against the raw evidence the judge was given."""
    evidence_text = json.dumps(bundle.evidence, ensure_ascii=False, default=str)
    needed = SPEC[bundle.criterion].starred
    findings = _findings(reply)
    return {
        "label_without_evidence": reply.label in (Label.PASSED, Label.FAILED)
        and not any(bundle.has(name) for name in needed),
        "alt_text_not_in_evidence": _alt_text_invented(findings, evidence_text),
        "values_not_in_evidence": _values_invented(findings, bundle.evidence, instructions),
        "reply_inconsistent": reply_inconsistent(reply),
    }
