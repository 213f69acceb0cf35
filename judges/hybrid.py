"""Tier 3: the hybrid judge, the paper's tiers — rules settle what is technical, an LLM only what is
semantic, and a person what neither can.

- Tier 1, the rules judge, decides presence, tagging, thresholds, Not Present and Cannot Tell.
- Tier 2, the LLM judge, runs only on pages Tier 1 passes, and only its verdicts on the criterion's
  semantic sub-criteria (`judges.criteria`: does this alt text say what the figure shows; does this
  reading order make sense; does this link text say where it goes) are used.
- Tier 3, the review queue: pages Tier 1 could not tell, Tier 2's Cannot Tell (or failed call), and any
  disagreement between the tiers. Until a person resolves an item the page keeps the conservative
  label (Failed when either tier failed it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from judges.base import Judge, PageJudgment, get_judge, is_deterministic, register_judge
from judges.criteria import SPEC
from judges.evidence import PageBundle
from judges.labels import Label


class HybridJudge:
    name = "hybrid"

    def __init__(self, rules: Judge, llm: Judge) -> None:
        self.rules = rules
        self.llm = llm
        self.model = llm.model
        self.prompt_version = f"{rules.prompt_version}+{llm.prompt_version}"
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
        # Tier 2 runs on the pages Tier 1 passes, for criteria with semantic sub-criteria.
        ask = [i for i, (bundle, _) in enumerate(items)
               if SPEC[bundle.criterion].semantic and ruled[i].label is Label.PASSED]
        many = getattr(self.llm, "judge_many", None)
        asked = [items[i] for i in ask]
        answers = many(asked) if many else [self.llm.judge_page(b, r) for b, r in asked]
        semantic = dict(zip(ask, answers, strict=True))
        return [combine(bundle, ruled[i], semantic.get(i)) for i, (bundle, _) in enumerate(items)]


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


@register_judge("hybrid")
def _make_hybrid(argument: str | None, options: dict[str, Any]) -> HybridJudge:
    if not argument:
        raise ValueError("the hybrid judge needs the LLM for its semantic tier: --judge hybrid:<litellm model id>")
    # Tier 2 reads the extracted findings too unless told otherwise (`--evidence paper`).
    llm_options = {k: v for k, v in options.items() if k != "disabled_rules"}
    return HybridJudge(get_judge("rules", {"disabled_rules": options.get("disabled_rules") or []}),
                       get_judge(f"llm:{argument}", {**llm_options, "evidence": options.get("evidence") or "enriched"}))
