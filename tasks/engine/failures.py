"""What went wrong with one document, said once for every stage: its error kind, whether a retry may
help (transient) or not (terminal), and one line of advice (the taxonomy: ``common.errors``).

Stage work raises; the runner (``tasks.engine.runner``) turns the exception into an ``errors`` row with
:func:`classify`. A transient failure (a timeout, throttling, a lost connection, memory pressure)
leaves its document not done, so a resumed run retries it; a terminal one (a malformed, encrypted or
unsupported PDF) is recorded once and never retried. A document whose work broke partway raises
:class:`PartialFailure` with the rows it had, so they are kept beside the error row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from common.errors import WARNING_KINDS, kind_of

# The taxonomy itself (kinds, transience, advice, warnings) is declared in common.errors; the runner, stages
# and reports take these two names from here.
__all__ = ["WARNING_KINDS", "Failure", "Incomplete", "PartialFailure", "classify", "guarded", "kind_of",
           "retryable"]


def retryable(kind: str) -> bool:
    return kind_of(kind).transient


class PartialFailure(Exception):
    """A document broke partway: `rows` (per table) were computed before `cause` and are kept."""

    def __init__(self, rows: dict[str, list[dict[str, Any]]], cause: BaseException) -> None:
        super().__init__(rows, cause)
        self.rows = rows
        self.cause = cause

    def __str__(self) -> str:
        return str(self.cause)


@dataclass
class Failure:
    """A classified per-document failure (picklable: it crosses from worker processes to the runner)."""

    kind: str
    message: str
    transient: bool
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # kept rows of a partial failure

    @property
    def advice(self) -> str:
        return kind_of(self.kind).advice


@dataclass
class Incomplete:
    """Rows of a unit of work to keep for now, whose unit is retried on resume (some of it failed transiently)."""

    rows: dict[str, list[dict[str, Any]]]


def _builtin_kind(exc: BaseException) -> str | None:
    from common.errors import DocumentTimeout

    if isinstance(exc, DocumentTimeout | TimeoutError):
        return "timeout"
    if isinstance(exc, ConnectionError):
        return "connection"
    if isinstance(exc, MemoryError):
        return "memory"
    return None


def _domain_kind(exc: BaseException) -> str | None:
    """The kind of an error written for users: its `kind` attribute, or its type's kind."""
    kind = getattr(exc, "kind", None)
    if isinstance(kind, str) and kind:
        return kind
    from extractors.transcript import TranscriptError

    if isinstance(exc, TranscriptError):
        return "transcript"
    status = getattr(exc, "status", None)
    if getattr(exc, "transient", None) is not None and status == 429:
        return "rate_limit"
    return None


def classify(exc: BaseException) -> Failure:
    """The error kind, message and transience of an exception raised by a document's work.

    An exception's own `kind` and `transient` attributes win; otherwise timeouts, connection errors
    and MemoryError are transient, anything unknown is an `internal` (terminal) error.
    """
    rows: dict[str, list[dict[str, Any]]] = {}
    if isinstance(exc, PartialFailure):
        rows, exc = exc.rows, exc.cause
    domain = _domain_kind(exc)
    kind = domain or _builtin_kind(exc) or "internal"
    # Errors written for users carry their own message (with its advice); others name their type.
    message = str(exc) if domain or hasattr(exc, "transient") else f"{type(exc).__name__}: {exc}"
    message = message.removeprefix(f"{kind}: ")
    transient = getattr(exc, "transient", None)
    return Failure(kind, message, kind_of(kind).transient if transient is None else bool(transient), rows)


def guarded(work: Any, item: Any) -> Any:
    """`work(item)`, or the classified :class:`Failure` when it raises (runs where the work runs, so no
    exception has to be pickled back from a worker process)."""
    try:
        return work(item)
    except Exception as exc:  # noqa: BLE001 - one bad document is its error row, the run goes on
        return classify(exc)
