"""Existing accessibility checkers as judges: `--judge checker:<name>`.

A checker reads the PDF itself (never our evidence) and reports findings: a rule id, a severity, a page, a
location and a message. Two small things make a checker a judge, each in its own file:

- an adapter, `judges/checkers/<name>.py`, that runs the checker on one file and returns a `CheckerRun`
  (its findings, and per rule what it concluded: ran and passed, not applicable, skipped); it registers
  itself with ``@CHECKERS.register("<name>")`` and is declared in `CHECKERS` below;
- a mapping, `judges/checkers/<name>.toml` (read by `judges.checkers.mapping`): which rule fails which
  criterion and sub-criterion, which severities fail, which outcomes mean the element is absent.

The judge (`judges.checkers.judge`) turns one document's run into the four labels; the judge stage
(`tasks.benchmark.judge`) runs each checker once per document, on a copy of the file under a neutral name, so
that nothing of the path reaches the checker or the stored rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from common.registry import Registry


@dataclass(frozen=True)
class Finding:
    """One finding as the checker reported it (pages counted from 1; None: the document as a whole)."""

    rule: str
    severity: str
    message: str
    page: int | None = None
    location: str = ""
    count: int = 1
    remedy: str = ""  # what the checker says to change, where it says it


@dataclass
class CheckerRun:
    """What a checker said about one file (or, once `combine`d, about a document's files)."""

    findings: list[Finding] = field(default_factory=list)
    # rule id → the checker's own conclusion for it: "pass", "fail", "not_applicable", "skipped", …
    outcomes: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None  # the checker could not check the file (why, in one line)
    version: str = ""


class CheckerUnavailable(RuntimeError):
    """The checker is not installed (or not where --checker-path says); the message says how to get it."""


class Checker(Protocol):
    """An external accessibility checker, run on one PDF file at a time."""

    name: str

    def version(self) -> str:
        """The checker's version, as it reports it (raises CheckerUnavailable when it is not installed)."""
        ...

    def check(self, path: str) -> CheckerRun:
        """Run the checker on the file at `path`; a file it cannot read is a run with `error`, not an exception."""
        ...


CHECKERS: Registry[Checker] = Registry("checker", {
    "outloud": "judges.checkers.outloud",
    "page": "judges.checkers.page",
    "pdfua": "judges.checkers.pdfua",
    "verapdf": "judges.checkers.verapdf",
})


def get_checker(name: str, options: dict[str, Any] | None = None) -> Checker:
    """The adapter of `name` (UnknownName lists the checkers)."""
    return CHECKERS.get(name, options)


def combine(runs: list[tuple[CheckerRun, int]]) -> CheckerRun:
    """One document's run from its files' runs, each with the page offset of its file (pages numbered on).

    A rule's outcome over several files: failed in any file wins, then passed, then the rest."""
    order = {"fail": 0, "pass": 1}
    out = CheckerRun()
    for run, offset in runs:
        out.findings += [replace(f, page=f.page + offset) if f.page else f for f in run.findings]
        for rule, outcome in run.outcomes.items():
            if rule not in out.outcomes or order.get(outcome, 2) < order.get(out.outcomes[rule], 2):
                out.outcomes[rule] = outcome
        out.seconds += run.seconds
        out.error = out.error or run.error
        out.version = out.version or run.version
    return out
