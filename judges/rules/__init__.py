"""Tier 1: the deterministic, offline rules judge (the default)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from judges.base import PageJudgment, register_judge, register_judge_check
from judges.criteria import SPECS
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.catalog import catalog, check_patterns, matches
from judges.rules.common import FAILED, PASSED

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
        return apply_catalog(RULES[bundle.criterion](bundle), self.disabled)


def apply_catalog(judgment: PageJudgment, disabled: tuple[str, ...] | list[str] = ()) -> PageJudgment:
    """The catalog's say over a rule function's judgment: disabled rules' findings are dropped, a warning
    fails nothing, and a sub-criterion (and the page) fails only while an error finding remains."""
    rules = catalog()
    kept = [i for i in judgment.issues if not (i.rule_id and matches(i.rule_id, disabled))]
    by_sub: dict[str, list[bool]] = {}
    for issue in judgment.issues:
        if issue.rule_id:
            by_sub.setdefault(issue.sub_criterion, []).append(
                issue in kept and rules[issue.rule_id].severity == "error")
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
