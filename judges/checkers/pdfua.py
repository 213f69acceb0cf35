"""checker:pdfua — the `pdfua` checker (PyPI `pdfua`, the `checkers` extra; 12 checks of PDF/UA-1 and WCAG 2.1).

`pdfua.validate(path)` returns one outcome per rule: its findings (rule id, severity info/warning/error, page,
location, remediation), or a reason it was skipped. It has no "not applicable" outcome: a rule whose element
is absent simply finds nothing (so its mapping declares no not_present outcome).
"""

from __future__ import annotations

import time
from typing import Any

from judges.checkers import CHECKERS, CheckerRun, CheckerUnavailable, Finding

INSTALL = "pip install 'accessbench[checkers]' (or: pip install pdfua)"


class Pdfua:
    name = "pdfua"

    def version(self) -> str:
        try:
            import pdfua
        except ImportError:
            raise CheckerUnavailable(f"pdfua is not installed: {INSTALL}") from None
        return str(pdfua.__version__)

    def check(self, path: str) -> CheckerRun:
        import pdfua

        started = time.perf_counter()
        try:
            report = pdfua.validate(path)
        except pdfua.PdfuaError as exc:
            return CheckerRun(seconds=time.perf_counter() - started, error=f"{type(exc).__name__}: {exc}"[:300],
                              version=self.version())
        seconds = time.perf_counter() - started
        findings, outcomes = [], {}
        for outcome in report.outcomes:
            outcomes[outcome.rule_id] = "skipped" if outcome.skipped else ("fail" if outcome.findings else "pass")
            for f in outcome.findings:
                where = f.location.describe()
                findings.append(Finding(rule=f.rule_id, severity=f.severity.name.lower(), message=f.message,
                                        page=f.location.page, location="" if where == "document" else where,
                                        remedy=f.remediation or ""))
        return CheckerRun(findings=findings, outcomes=outcomes, seconds=seconds, version=self.version())


@CHECKERS.register("pdfua")
def _make(argument: str | None, options: dict[str, Any]) -> Pdfua:
    return Pdfua()
