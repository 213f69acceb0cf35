"""checker:outloud — the `outloud` checker (PyPI `outloud`, the `checkers` extra) through its Python API.

`outloud.check(path)` returns its findings (rule id, severity error/warning/info, 1-based page, a location
dict, a message) and, per rule, what it concluded (`pass`, `fail`, `warning`, `info`, `not-applicable` when
the file lacks what the rule is about, `not-run`); the CLI's `outloud --json - FILE` prints the same report.
"""

from __future__ import annotations

import json
import time
from typing import Any

from judges.checkers import CHECKERS, CheckerRun, CheckerUnavailable, Finding

INSTALL = "pip install 'accessbench[checkers]' (or: pip install outloud)"


class Outloud:
    name = "outloud"

    def version(self) -> str:
        try:
            import outloud
        except ImportError:
            raise CheckerUnavailable(f"outloud is not installed: {INSTALL}") from None
        return str(outloud.__version__)

    def check(self, path: str) -> CheckerRun:
        import outloud
        from outloud.registry import load_catalogue

        started = time.perf_counter()
        result = outloud.check(path)
        seconds = time.perf_counter() - started
        if result.error:
            return CheckerRun(seconds=seconds, error=str(result.error), version=self.version())
        fixes = {rule_id: meta.fix or "" for rule_id, meta in load_catalogue().items()}
        findings = [Finding(rule=f.rule, severity=f.severity, message=str(f.message), page=f.page,
                            location=_location(f.location), count=int(f.count or 1), remedy=fixes.get(f.rule, ""))
                    for f in result.findings]
        # "not-applicable" → the mapping's vocabulary (judges.checkers.mapping: not_applicable).
        outcomes = {r.rule: r.outcome.replace("-", "_") for r in result.runs}
        return CheckerRun(findings=findings, outcomes=outcomes, seconds=seconds, version=self.version())


def _location(location: dict[str, Any] | None) -> str:
    """outloud's location dict (an element path, an MCID, an object) as one short line."""
    if not location:
        return ""
    return "; ".join(f"{k} {v if isinstance(v, str | int | float) else json.dumps(v, default=str)}"
                     for k, v in location.items())[:300]


@CHECKERS.register("outloud")
def _make(argument: str | None, options: dict[str, Any]) -> Outloud:
    return Outloud()
