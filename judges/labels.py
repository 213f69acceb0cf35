"""The label vocabulary and the conservative page → document rule (criteria: `judges.criteria`)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Label(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_PRESENT = "not_present"
    CANNOT_TELL = "cannot_tell"


def parse_label(text: str) -> Label:
    """Accept the spellings people and models use ("Not Present", "cannot-tell", "PASS")."""
    key = text.strip().lower().replace("-", "_").replace(" ", "_")
    aliases = {"pass": "passed", "fail": "failed", "na": "not_present", "n/a": "not_present",
               "absent": "not_present", "unknown": "cannot_tell", "cant_tell": "cannot_tell"}
    key = aliases.get(key, key)
    try:
        return Label(key)
    except ValueError as exc:
        raise ValueError(f"unknown label {text!r}; expected one of {[label.value for label in Label]}") from exc


def aggregate_labels(page_labels: Iterable[Label | str], *, untagged: bool = False) -> Label:
    """Document label from page labels, conservatively.

    Failed if any page failed; else Cannot Tell if any page could not be told; else Passed if
    any page passed; else Not Present (also for a document with no judged pages).

    `untagged`: the document has no structure tree, as the judge was shown (not withheld), and the
    criterion evaluates that tree. Its pages that could not be told (a scanned page without text)
    then do not make it Cannot Tell: there is no tagging to evaluate, which is what Not Present
    means (PDF/UA-1 7.1), not missing evidence.
    """
    labels = {Label(label) for label in page_labels}
    if untagged:
        labels.discard(Label.CANNOT_TELL)
    for label in (Label.FAILED, Label.CANNOT_TELL, Label.PASSED):
        if label in labels:
            return label
    return Label.NOT_PRESENT
