"""Tier 3: the hybrid judge, the paper's tiers — rules settle what is technical, an LLM only what is
semantic, and a person what neither can.

- Tier 1, the rules judge, decides presence, tagging, thresholds, Not Present and Cannot Tell.
- Tier 2, the LLM judge, runs only on pages Tier 1 passes, and only its verdicts on the criterion's
  semantic sub-criteria (`judges.criteria`: does this alt text say what the figure shows; does this
  reading order make sense; does this link text say where it goes) are used. Where Tier 1 raised
  candidates (rules of severity `candidate`: "this H2 may be a paragraph"), the LLM gets one focused
  question per candidate instead of the whole-page prompt (`judges.llm.confirm`): a confirmed candidate
  fails its sub-criterion with the rule's finding, a dismissed one is dropped, an unsettled one goes to
  Tier 3.
- Tier 3, the review queue: pages Tier 1 could not tell, Tier 2's Cannot Tell (or failed call), and any
  disagreement between the tiers. Until a person resolves an item the page keeps the conservative
  label (Failed when either tier failed it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from common.redact import redact_exact
from judges.base import (
    Issue,
    Judge,
    JudgeSpec,
    PageJudgment,
    get_judge,
    is_deterministic,
    register_judge,
    register_judge_check,
)
from judges.criteria import SPEC
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.catalog import is_candidate
from models.config import ModelConfig

MAX_CANDIDATES = 3  # focused questions per page; the rest of a page's candidates stay listed, unasked


class HybridJudge:
    name = "hybrid"

    def __init__(self, rules: Judge, llm: Judge) -> None:
        self.rules = rules
        self.llm = llm
        self.model = llm.model
        from judges.llm.confirm import PROMPT_VERSION as CONFIRM_VERSION

        self.prompt_version = f"{rules.prompt_version}+{llm.prompt_version}+{CONFIRM_VERSION}"
        self.deterministic = is_deterministic(rules) and is_deterministic(llm)

    def supports(self, criterion: str) -> bool:
        return self.rules.supports(criterion)

    def params(self) -> dict[str, Any]:
        return {"llm": self.llm.params(), "semantic": {k: list(v.semantic) for k, v in SPEC.items() if v.semantic}}

    def check(self) -> None:
        check = getattr(self.llm, "check", None)
        if check is not None:
            check()

    def judge_page(self, bundle: PageBundle, repeat: int) -> PageJudgment:
        return self.judge_many([(bundle, repeat)])[0]

    def judge_many(self, items: list[tuple[PageBundle, int]]) -> list[PageJudgment]:
        ruled = [self.rules.judge_page(bundle, repeat) for bundle, repeat in items]
        # Candidates first: one focused question each, on pages Tier 1 passes.
        focused = {i: self._confirm(bundle, repeat, ruled[i]) for i, (bundle, repeat) in enumerate(items)
                   if ruled[i].label is Label.PASSED and any(is_candidate(x) for x in ruled[i].issues)
                   and hasattr(self.llm, "client")}
        # Tier 2 runs on the other pages Tier 1 passes, for criteria with semantic sub-criteria.
        ask = [i for i, (bundle, _) in enumerate(items) if i not in focused
               and SPEC[bundle.criterion].semantic and ruled[i].label is Label.PASSED]
        many = getattr(self.llm, "judge_many", None)
        asked = [items[i] for i in ask]
        answers = many(asked) if many else [self.llm.judge_page(b, r) for b, r in asked]
        semantic = dict(zip(ask, answers, strict=True))
        return [focused[i] if i in focused else combine(bundle, ruled[i], semantic.get(i))
                for i, (bundle, _) in enumerate(items)]

    def _confirm(self, bundle: PageBundle, repeat: int, rules: PageJudgment) -> PageJudgment:
        from judges.llm.confirm import confirm
        from models.calllog import CallLog

        log = CallLog(getattr(self.llm, "images", None), study="pdf", purpose="confirm_candidate")
        candidates = [i for i in rules.issues if is_candidate(i)][:MAX_CANDIDATES]
        try:
            answers = confirm(self.llm, bundle, candidates, repeat, log)
        except Exception as exc:  # noqa: BLE001 - a failed tier is a review item, not a lost page
            return replace(rules, review=f"the semantic tier failed ({type(exc).__name__}); rules label kept",
                           tier_labels={"rules": rules.label.value, "llm": "error"}, calls=log.records)
        return settle(bundle, rules, answers, log.records, self.llm.model, cast(Any, self.llm).client.config)


def settle(bundle: PageBundle, rules: PageJudgment, answers: list[Any], calls: list[dict[str, Any]],
           model: str | None, config: ModelConfig) -> PageJudgment:
    """A page Tier 1 passed, with its candidates confirmed, dismissed or left open by the LLM (whose last reply is
    kept as the model config's one stored-reply limit allows)."""
    subs = dict(rules.sub_criteria)
    kept: list[Issue] = [i for i in rules.issues if not is_candidate(i)]
    asked = {id(a.issue) for a in answers}
    kept += [i for i in rules.issues if is_candidate(i) and id(i) not in asked]  # beyond MAX_CANDIDATES
    confirmed, dismissed, open_ = [], [], []
    for answer in answers:
        issue = answer.issue
        if answer.defect is True:
            confirmed.append(issue.rule_id)
            subs[issue.sub_criterion] = "failed"
            kept.append(replace(issue, problem=f"{issue.problem} (confirmed by {model or 'the LLM'}: "
                                f"{answer.reason or 'no reason given'})", context=None))
        elif answer.defect is False:
            dismissed.append(issue.rule_id)
        else:
            open_.append(f"{issue.rule_id}: {answer.error or 'the model was unsure'}"[:160])
            kept.append(issue)
    label = Label.FAILED if confirmed else rules.label
    review = ("the LLM could not settle candidate(s) " + "; ".join(open_)) if open_ else None
    told = [f"{len(confirmed)} candidate(s) confirmed ({', '.join(dict.fromkeys(confirmed))})" if confirmed else "",
            f"{len(dismissed)} dismissed ({', '.join(dict.fromkeys(dismissed))})" if dismissed else ""]
    summary = f"{rules.summary} LLM on the rules' candidates: {'; '.join(t for t in told if t) or 'unsettled'}."
    responses = [r for a in answers for r in a.responses]

    def total(name: str) -> Any:
        values = [getattr(r, name) for r in responses]
        return None if not values or any(v is None for v in values) else sum(values)

    llm_label = "error" if open_ and not (confirmed or dismissed) else ("failed" if confirmed else "passed")
    return PageJudgment(label, subs, kept, summary, review=review, tier_labels={"rules": rules.label.value,
                                                                                 "llm": llm_label},
                        raw_response=redact_exact(config.bounded(responses[-1].text)) if responses else None,
                        tokens_in=total("tokens_in"), tokens_out=total("tokens_out"), cost_usd=total("cost_usd"),
                        latency_s=total("latency_s"), calls=calls,
                        transient=any(a.transient for a in answers) and not (confirmed or dismissed))


def combine(bundle: PageBundle, rules: PageJudgment, llm: PageJudgment | None) -> PageJudgment:
    """The final page judgment and, when a person should look, why (in `review`)."""
    if rules.label is Label.CANNOT_TELL:
        return replace(rules, review="the rules could not tell: evidence is missing or unreadable",
                       tier_labels={"rules": rules.label.value})
    if llm is None:
        return rules
    both = {"rules": rules.label.value, "llm": llm.label.value if not llm.error else "error"}
    accounting: dict[str, Any] = {
        "raw_response": llm.raw_response, "prompt_hash": llm.prompt_hash, "tokens_in": llm.tokens_in,
        "tokens_out": llm.tokens_out, "cost_usd": llm.cost_usd, "latency_s": llm.latency_s, "calls": llm.calls}
    if llm.error:
        return replace(rules, review=f"the semantic tier failed ({llm.error[:120]}); rules label kept",
                       tier_labels=both, transient=llm.transient, **accounting)
    subs = dict(rules.sub_criteria)
    semantic = SPEC[bundle.criterion].semantic
    failed = [name for name in semantic if llm.sub_criteria.get(name) == "failed"]
    unsure = [name for name in semantic if llm.sub_criteria.get(name) == "cannot_tell"]
    for name in semantic:
        if llm.sub_criteria.get(name) in ("passed", "failed"):
            subs[name] = llm.sub_criteria[name]
    issues = list(rules.issues) + [i for i in llm.issues if i.sub_criterion in failed]
    label = Label.FAILED if failed or rules.label is Label.FAILED else Label.PASSED
    review = None
    if rules.label is Label.FAILED and llm.label is Label.PASSED:
        review = "the rules fail this page but the LLM passes it"  # judge_many never asks; combine stays total
    elif failed and rules.label is Label.PASSED:
        review = f"the LLM fails {', '.join(failed)} on a page the rules passed"
    elif llm.label is Label.CANNOT_TELL or unsure:
        review = "the semantic tier could not tell" + (f" ({', '.join(unsure)})" if unsure else "")
    elif llm.label is not Label.PASSED:
        review = f"the rules pass this page but the LLM says {llm.label.value}"
    summary = rules.summary if not failed else f"{rules.summary} LLM: {llm.summary}"
    return PageJudgment(label, subs, issues, summary, flags=llm.flags, review=review, tier_labels=both,
                        **accounting)


def _tiers(argument: str | None, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The rules tier's options and the LLM tier's, as `hybrid:<argument>` names them."""
    if not argument:
        raise ValueError("the hybrid judge needs the LLM for its semantic tier: --judge hybrid:<litellm model id>")
    # Tier 2 reads the extracted findings too unless told otherwise (`--evidence paper`).
    llm_options = {k: v for k, v in options.items() if k != "disabled_rules"}
    return ({"disabled_rules": options.get("disabled_rules") or []},
            {**llm_options, "evidence": options.get("evidence") or "enriched"})


@register_judge_check("hybrid")
def _check_hybrid(argument: str | None, options: dict[str, Any]) -> tuple[str, ...]:
    """Both tiers' checks (the LLM's credentials included), without building them; the rules tier's criteria."""
    rules, llm = _tiers(argument, options)
    JudgeSpec("llm", argument).check(llm)
    return JudgeSpec("rules").check(rules)


@register_judge("hybrid")
def _make_hybrid(argument: str | None, options: dict[str, Any]) -> HybridJudge:
    rules, llm = _tiers(argument, options)
    return HybridJudge(get_judge("rules", rules), get_judge(f"llm:{argument}", llm))
