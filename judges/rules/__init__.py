"""Tier 1: the deterministic, offline rules judge (the default)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

from judges.base import Issue, PageJudgment, register_judge, register_judge_check
from judges.conformance import CARRIER, checks
from judges.criteria import SPEC, SPECS
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.catalog import catalog, check_patterns, finding, matches
from judges.rules.common import FAILED, NA, PASSED

PROMPT_VERSION = "rules-1"



def _rule(reference: str) -> Callable[[PageBundle], PageJudgment]:
    """The rule function a criterion's spec names as "module:function"."""
    module, _, function = reference.partition(":")
    rule: Callable[[PageBundle], PageJudgment] = getattr(importlib.import_module(module), function)
    return rule


# Each criterion names its rule function in its spec (judges.criteria).
RULES: dict[str, Callable[[PageBundle], PageJudgment]] = {spec.name: _rule(spec.rule) for spec in SPECS}


class RulesJudge:
    name = "rules"
    model: str | None = None
    prompt_version = PROMPT_VERSION
    deterministic = True  # runs once per page, whatever --repeats says

    def __init__(self, disabled: list[str] | tuple[str, ...] = ()) -> None:
        check_patterns(list(disabled))
        self.disabled = tuple(sorted(set(disabled)))

    def supports(self, criterion: str) -> bool:
        return criterion in RULES

    def params(self) -> dict[str, Any]:
        return {"disabled_rules": list(self.disabled)} if self.disabled else {}

    def judge_page(self, bundle: PageBundle, repeat: int) -> PageJudgment:
        # Deterministic: the repeat index changes nothing.
        screening = is_screening(bundle)
        judgment = with_conformance(RULES[bundle.criterion](bundle), bundle, screening)
        return apply_catalog(judgment, self.disabled, screening=screening)


def apply_catalog(judgment: PageJudgment, disabled: tuple[str, ...] | list[str] = (), *,
                  screening: bool = True) -> PageJudgment:
    """The catalog's say over a rule function's judgment: disabled rules' findings are dropped (and those whose
    severity is "off" for a benchmark item), a warning fails nothing, and a sub-criterion (and the page) fails
    only while an error finding remains."""
    rules = catalog()

    def severity(issue: Issue) -> str:
        rule = rules.get(issue.rule_id)
        return rule.severity_in(screening) if rule else "error"

    kept = [i for i in judgment.issues
            if not (i.rule_id and (matches(i.rule_id, disabled) or severity(i) == "off"))]
    by_sub: dict[str, list[bool]] = {}
    for issue in judgment.issues:
        if issue.rule_id:
            by_sub.setdefault(issue.sub_criterion, []).append(issue in kept and severity(issue) == "error")
    for issue in kept:  # findings without a rule id (none should remain) keep their sub-criterion failed
        if not issue.rule_id:
            by_sub.setdefault(issue.sub_criterion, []).append(True)
    subs = dict(judgment.sub_criteria)
    for sub, failing in by_sub.items():
        if subs.get(sub) == FAILED and not any(failing):
            subs[sub] = PASSED
    if kept == judgment.issues and subs == judgment.sub_criteria:
        return judgment
    switched_off = len(kept) < len(judgment.issues)
    judgment.issues, judgment.sub_criteria = kept, subs
    if judgment.label is Label.FAILED and FAILED not in subs.values():
        judgment.label = Label.PASSED
        dropped = len(judgment.summary) and judgment.summary.split(":", 1)[0]
        why = "passed once disabled rules and warnings are set aside" if switched_off else "passed; warnings only"
        judgment.summary = f"{dropped or 'Page'}: {why}" + (
            f" ({len(kept)} warning(s): {'; '.join(i.problem for i in kept[:2])})" if kept else "")
    return judgment


def is_screening(bundle: PageBundle) -> bool:
    """Whether the page is a user's file being screened (no expected label), not a labelled benchmark item:
    the inputs stage says so in the evidence that carries conformance findings (judges.evidence)."""
    return any(isinstance(v, dict) and v.get("screening") is True for v in bundle.evidence.values())


def with_conformance(judgment: PageJudgment, bundle: PageBundle, screening: bool) -> PageJudgment:
    """The rule function's judgment plus the PDF/UA-1 validator's failures folded into this criterion
    (judges.conformance.py). They change a Passed page, or (when screening) a Not Present one: a
    structure the validator finds broken is present. A Cannot Tell page keeps its label (its evidence is missing).
    A failure whose Matterhorn checkpoint one of our own findings already reports is not repeated."""
    carrier = bundle.evidence.get(CARRIER.get(bundle.criterion, ""))
    failures = carrier.get("conformance") if isinstance(carrier, dict) else None
    if not failures or judgment.label not in (Label.PASSED, Label.FAILED, Label.NOT_PRESENT):
        return judgment
    if judgment.label is Label.NOT_PRESENT and not screening:
        return judgment
    if isinstance(carrier, dict) and carrier.get("tagged") is False and SPEC[bundle.criterion].tree_evidence:
        return judgment  # an untagged document: the criterion's judgment is about the missing tree (verdict: fails)
    rules = catalog()
    # What our own error findings already say: by Matterhorn checkpoint, and by sub-criterion and PDF/UA clause.
    ours: set[tuple[str, ...]] = set()
    for issue in judgment.issues:
        rule = rules.get(issue.rule_id)
        if rule is not None and not rule.conformance and rule.severity_in(screening) == "error":
            ours |= {("m", rule.matterhorn)} if rule.matterhorn else set()
            ours |= {("c", issue.sub_criterion, rule.pdfua)} if rule.pdfua else set()
    added = [i for i in conformance_findings(failures, f"Page {bundle.page}")
             if not ({("m", rules[i.rule_id].matterhorn), ("c", i.sub_criterion, rules[i.rule_id].pdfua)} & ours)]
    if not added:
        return judgment
    failing = {i.sub_criterion for i in added if rules[i.rule_id].severity_in(screening) == "error"}
    judgment.issues = [*judgment.issues, *added]
    if failing:
        subs = {s: (PASSED if v == NA else v) for s, v in judgment.sub_criteria.items()} \
            if judgment.label is Label.NOT_PRESENT else dict(judgment.sub_criteria)
        judgment.sub_criteria = {**subs, **{s: FAILED for s in failing}}
        if judgment.label is not Label.FAILED:
            judgment.label = Label.FAILED
            judgment.summary = (f"Page {bundle.page}: fails PDF/UA-1 "
                                f"({'; '.join(i.problem for i in added[:2])})")
    return judgment


def conformance_findings(failures: Iterable[dict[str, Any]], where: str) -> list[Issue]:
    """The catalog findings of a page's PDF/UA-1 validator failures (judges/conformance.py)."""
    issues = []
    for failure in failures:
        check = checks().get(str(failure.get("rule")))
        if check is None or not check.fold:
            continue
        count = int(failure.get("count") or 1)
        objects = failure.get("objects") or []
        detail = f" — {failure.get('message')}" if failure.get("message") else ""
        if count > 1:
            detail += f" ({count} times)"
        at = f"{where} (document, {'objects ' if len(objects) > 1 else 'object '}{', '.join(objects)})" \
            if objects else f"{where} (document)"
        issues.append(finding(check.rule_id, at, detail=detail[:400]))
    return issues


@register_judge_check("rules")
def check_rules(argument: str | None, options: dict[str, Any]) -> tuple[str, ...]:
    """What `rules` refuses (an argument, an unknown --disable-rule), without building it; the criteria it covers."""
    if argument:
        raise ValueError("the rules judge takes no argument: use --judge rules")
    check_patterns(list(options.get("disabled_rules") or ()))
    return tuple(RULES)


@register_judge("rules")
def _make_rules(argument: str | None, options: dict[str, Any]) -> RulesJudge:
    check_rules(argument, options)
    return RulesJudge(tuple(options.get("disabled_rules") or ()))
