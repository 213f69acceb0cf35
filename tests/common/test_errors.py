"""One error taxonomy: each kind's transience and advice declared once (common.errors), terminal and
transient base classes that concrete errors derive from, and the runner's classification reading both."""

from __future__ import annotations

import typing

from common.errors import KINDS, WARNING_KINDS, TerminalError, TransientError, kind_of
from extractors.errors import ExtractionError, ExtractionKind
from tasks.engine.failures import classify


def test_extraction_errors_are_terminal_and_carry_the_taxonomys_advice() -> None:
    for kind in typing.get_args(ExtractionKind):
        error = ExtractionError(kind, "detail")
        assert isinstance(error, TerminalError) and not error.transient
        assert str(error) == f"{kind}: detail; {KINDS[kind].advice}"
        assert error.advice == classify(error).advice == KINDS[kind].advice
        assert classify(error).transient is False


def test_a_timeout_is_transient_everywhere_and_says_how_to_retry() -> None:
    # It was advised both "rerun the stage with a larger limit" (extractors) and "resume the run" (tasks);
    # extraction never raises it, and a resume is what retries a transient error.
    assert "timeout" not in typing.get_args(ExtractionKind)
    assert KINDS["timeout"].transient and "resume" in KINDS["timeout"].advice
    assert "--doc-timeout" in KINDS["timeout"].advice
    assert classify(TimeoutError("slow")).advice == KINDS["timeout"].advice


def test_a_concrete_error_takes_its_transience_from_its_base_class() -> None:
    class Throttled(TransientError):
        kind = "rate_limit"

    class BadQuestion(TerminalError):
        kind = "bad_question"  # a stage's own kind: terminal, with generic advice

    throttled, bad = classify(Throttled("HTTP 429")), classify(BadQuestion("no text"))
    assert (throttled.kind, throttled.transient, throttled.message) == ("rate_limit", True, "HTTP 429")
    assert (bad.kind, bad.transient, bad.advice) == ("bad_question", False, kind_of("bad_question").advice)


def test_every_kind_has_one_line_of_advice_and_warnings_are_kinds() -> None:
    assert {"repaired", "label_conflict", "conformance"} == WARNING_KINDS
    for kind in KINDS.values():
        assert kind.advice and "\n" not in kind.advice
        assert not (kind.warning and kind.transient)
