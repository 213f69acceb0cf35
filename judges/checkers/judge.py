"""`--judge checker:<name>`: an existing accessibility checker, its findings mapped to the four labels.

The judge stage runs the checker once per document (`CheckerJudge.run`) and hands each page's bundle the
run (`PageBundle.checker_run`); `judge_page` then labels the page from the findings located on it (findings
the checker locates on no page count on page 1), so that the conservative page → document rule gives the
document the mapping's label (`judges.checkers.mapping.document_label`).
"""

from __future__ import annotations

import json
from typing import Any

from judges.base import Issue, PageJudgment, register_judge, register_judge_check
from judges.checkers import CHECKERS, Checker, CheckerRun, CheckerUnavailable, Finding, combine, get_checker
from judges.checkers.mapping import Mapping, MappingError, Target, document_label, mapping_of
from judges.criteria import CRITERIA, SPEC
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.common import FAILED, NA, PASSED

PROMPT_VERSION = "checker-1"
MESSAGE_LIMIT = 500  # characters of a checker's message kept per finding
RAW_LIMIT = 200  # raw findings kept in one judgment's raw_response (all of them are in checker_findings)


class CheckerJudge:
    """Labels pages from one checker's run on their document, through the checker's mapping."""

    name = "checker"
    deterministic = True  # the same file gets the same findings: run once, whatever --repeats says

    def __init__(self, checker: Checker, mapping: Mapping, version: str) -> None:
        self.checker = checker
        self.mapping = mapping
        self.version = version
        self.model: str | None = f"{checker.name} {version}".strip()  # the report's "checker outloud 0.2.1"
        self.prompt_version = f"{PROMPT_VERSION}/{mapping.digest}"

    def supports(self, criterion: str) -> bool:
        return criterion in SPEC  # a criterion no rule maps to is passed (nothing reported), never skipped

    def params(self) -> dict[str, Any]:
        return {"checker": self.checker.name, "version": self.version, "mapping": self.mapping.source,
                "mapping_digest": self.mapping.digest}

    def needs(self, criterion: str) -> bool:
        """Whether the checker reads the ★ evidence of `criterion` (the protocol withholds it on Cannot Tell items)."""
        return self.mapping.needs(criterion)

    def run(self, files: list[tuple[str, int]]) -> CheckerRun:
        """The checker's run on a document: each (file, page offset) checked once, pages numbered on."""
        return combine([(self.checker.check(path), offset) for path, offset in files])

    def judge_page(self, bundle: PageBundle, repeat: int) -> PageJudgment:
        run: CheckerRun | None = bundle.checker_run
        criterion, page = bundle.criterion, bundle.page
        who = f"{self.checker.name} {self.version}".strip()
        if run is None:
            return PageJudgment(Label.CANNOT_TELL, summary=(
                f"Page {page}: the evidence {who} reads for {criterion} (the file's "
                f"{', '.join(e.name for e in SPEC[criterion].evidence if e.starred)}) is withheld by the benchmark "
                "protocol, so the checker was not run"))
        if run.error:
            return PageJudgment(Label.CANNOT_TELL, error=f"{who} could not check the file: {run.error}"[:600],
                                latency_s=run.seconds if page == 1 else None)
        mapped = [(f, t) for f in run.findings if (t := self.mapping.target(f.rule)) is not None
                  and t.criterion == criterion]
        here = [(f, t) for f, t in mapped if (f.page or 1) == page]
        failing_doc = any(f.severity in self.mapping.fail for f, _ in mapped)
        failing_here = {t.sub_criterion for f, t in here if f.severity in self.mapping.fail}
        label = document_label(self.mapping, criterion, failing_doc, run.outcomes)
        if label is Label.FAILED and not failing_here:
            label = Label.PASSED  # it fails on another page; this one has nothing failing
        subs = {t.sub_criterion for t in self.mapping.rules.values() if t.criterion == criterion}
        verdict = NA if label is Label.NOT_PRESENT else PASSED
        judgment = PageJudgment(
            label,
            sub_criteria={s: FAILED if s in failing_here else verdict for s in sorted(subs)},
            issues=[self._issue(f, t) for f, t in here],
            summary=self._summary(who, criterion, page, label, here),
            raw_response=json.dumps([_raw(f) for f, _ in here[:RAW_LIMIT]]),
            latency_s=run.seconds if page == 1 else None,
        )
        return judgment

    def _issue(self, finding: Finding, target: Target) -> Issue:
        fails = finding.severity in self.mapping.fail
        where = f"Page {finding.page}" if finding.page else "Document"
        times = f" ({finding.count} times)" if finding.count > 1 else ""
        return Issue(target.sub_criterion, f"{where}{': ' + finding.location if finding.location else ''}",
                     f"{self.checker.name} {finding.rule} ({finding.severity}"
                     f"{'' if fails else ', fails nothing'}): {finding.message[:MESSAGE_LIMIT]}{times}",
                     finding.remedy or f"see {self.checker.name}'s rule {finding.rule}",
                     rule_id=f"{self.checker.name}:{finding.rule}")

    def _summary(self, who: str, criterion: str, page: int, label: Label,
                 here: list[tuple[Finding, Target]]) -> str:
        if not self.mapping.needs(criterion):
            return f"Page {page}: no rule of {who} tests {criterion}; it reports nothing there, so it passes"
        failing = [f for f, _ in here if f.severity in self.mapping.fail]
        if failing:
            shown = "; ".join(f"{f.rule}: {f.message[:120]}" for f in failing[:3])
            return f"Page {page}: {who} fails {criterion} ({shown})"
        if label is Label.NOT_PRESENT:
            return f"Page {page}: {who} finds none of what its {criterion} rules check (not applicable)"
        return f"Page {page}: {who} reports no failing finding of its {criterion} rules here"


def _raw(finding: Finding) -> dict[str, Any]:
    return {"rule": finding.rule, "severity": finding.severity, "page": finding.page, "location": finding.location,
            "message": finding.message[:MESSAGE_LIMIT], "count": finding.count}


def _version(checker: Checker, name: str) -> str:
    try:
        return checker.version()
    except CheckerUnavailable as exc:
        raise ValueError(f"checker:{name}: {exc}") from None


@register_judge_check("checker")
def check_checker(argument: str | None, options: dict[str, Any]) -> tuple[str, ...]:
    """What `checker:<name>` refuses (no name, an unknown one, a missing mapping or a checker that is not
    installed), without running it; it labels every criterion."""
    names = ", ".join(CHECKERS.names())
    if not argument:
        raise ValueError(f"name the checker: --judge checker:<name>, one of {names}")
    if argument not in CHECKERS.declared:
        raise ValueError(f"unknown checker {argument!r}; choose one of {names}")
    try:
        mapping_of(argument)
    except MappingError as exc:
        raise ValueError(str(exc)) from None
    _version(get_checker(argument, options), argument)
    return tuple(CRITERIA)


@register_judge("checker")
def _make_checker(argument: str | None, options: dict[str, Any]) -> CheckerJudge:
    check_checker(argument, options)
    assert argument is not None  # checked above
    checker = get_checker(argument, options)
    return CheckerJudge(checker, mapping_of(argument), _version(checker, argument))
