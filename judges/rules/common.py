"""Shared shapes of rule verdicts."""

from __future__ import annotations

from judges.base import Issue, PageJudgment
from judges.evidence import PageBundle
from judges.labels import Label

PASSED, FAILED, NA, CT = "passed", "failed", "not_applicable", "cannot_tell"


def cannot_tell(bundle: PageBundle, needed: str, subs: tuple[str, ...]) -> PageJudgment:
    return PageJudgment(
        Label.CANNOT_TELL,
        {s: CT for s in subs},
        summary=f"Page {bundle.page}: the {needed.replace('_', ' ')} needed for this criterion is not available.",
    )


def verdict(bundle: PageBundle, subs: dict[str, str], issues: list[Issue], passed_summary: str) -> PageJudgment:
    """Failed if any sub-criterion failed, else Passed with a one-line justification."""
    if any(v == FAILED for v in subs.values()):
        problems = "; ".join(i.problem for i in issues[:3])
        more = f" (+{len(issues) - 3} more)" if len(issues) > 3 else ""
        return PageJudgment(Label.FAILED, subs, issues, f"Page {bundle.page}: {problems}{more}")
    return PageJudgment(Label.PASSED, subs, [], f"Page {bundle.page}: {passed_summary}")
