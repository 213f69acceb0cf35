"""Tier 3: the hybrid judge — rules settle what is technical, an LLM only what is semantic, and
anything the two tiers disagree on (or cannot settle) goes to a human review queue.

- The rules judge decides presence, tagging, thresholds, Not Present and Cannot Tell.
- For criteria with a semantic part (does this alt text say what the figure shows; does this reading
  order make sense; does this link text say where it goes) the LLM judge is asked too, and only its
  verdicts on those semantic sub-criteria are used.
- A page goes to review when the rules could not tell, when the LLM call failed, or when the LLM
  finds a semantic failure on a page the rules passed (or passes one the rules failed on semantic
  grounds). Until a person resolves it the page keeps the conservative label (Failed when either tier
  failed it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from judges.base import Judge, PageJudgment, get_judge, register_judge
from judges.evidence import PageBundle
from judges.labels import Label

# The sub-criteria whose meaning a rule cannot judge (DESIGN.md), per criterion.
SEMANTIC_SUBS: dict[str, tuple[str, ...]] = {
    "alt_text_quality": ("descriptiveness", "contextual_appropriateness", "clarity", "complexity_handling"),
    "logical_reading_order": ("contextual_logic",),
    "functional_hyperlinks": ("descriptiveness",),
}


class HybridJudge:
    name = "hybrid"

    def __init__(self, rules: Judge, llm: Judge) -> None:
        self.rules = rules
        self.llm = llm
        self.model = llm.model
        self.prompt_version = f"{rules.prompt_version}+{llm.prompt_version}"

    def supports(self, criterion: str) -> bool:
        return self.rules.supports(criterion)

    def params(self) -> dict[str, Any]:
        return {"llm": self.llm.params(), "semantic": {k: list(v) for k, v in SEMANTIC_SUBS.items()}}

    def judge_page(self, bundle: PageBundle, repeat: int) -> PageJudgment:
        return self.judge_many([(bundle, repeat)])[0]

    def judge_many(self, items: list[tuple[PageBundle, int]]) -> list[PageJudgment]:
        ruled = [self.rules.judge_page(bundle, repeat) for bundle, repeat in items]
        # Only pages whose element is present and judged by the rules need the semantic tier.
        ask = [i for i, (bundle, _) in enumerate(items)
               if bundle.criterion in SEMANTIC_SUBS and ruled[i].label in (Label.PASSED, Label.FAILED)]
        many = getattr(self.llm, "judge_many", None)
        asked = [items[i] for i in ask]
        answers = many(asked) if many else [self.llm.judge_page(b, r) for b, r in asked]
        semantic = dict(zip(ask, answers, strict=True))
        return [combine(bundle, ruled[i], semantic.get(i)) for i, (bundle, _) in enumerate(items)]


def combine(bundle: PageBundle, rules: PageJudgment, llm: PageJudgment | None) -> PageJudgment:
    """The final page judgment and, when a person should look, why (in `review`)."""
    if rules.label is Label.CANNOT_TELL:
        return replace(rules, review="the rules could not tell: evidence is missing or unreadable")
    if llm is None:
        return rules
    if llm.error:
        return replace(rules, review=f"the semantic tier failed ({llm.error[:120]}); rules label kept",
                       raw_response=llm.raw_response, tokens_in=llm.tokens_in, tokens_out=llm.tokens_out,
                       cost_usd=llm.cost_usd, latency_s=llm.latency_s)
    subs = dict(rules.sub_criteria)
    semantic_failed = []
    for name in SEMANTIC_SUBS[bundle.criterion]:
        verdict = llm.sub_criteria.get(name)
        if verdict in ("passed", "failed"):
            subs[f"{name}"] = verdict
            if verdict == "failed":
                semantic_failed.append(name)
    issues = list(rules.issues) + [i for i in llm.issues if i.sub_criterion in semantic_failed]
    label = Label.FAILED if rules.label is Label.FAILED or semantic_failed else Label.PASSED
    review = None
    if rules.label is Label.PASSED and semantic_failed:
        review = f"the LLM fails {', '.join(semantic_failed)} on a page the rules passed"
    elif rules.label is Label.FAILED and llm.label is Label.PASSED:
        review = "the rules fail this page but the LLM passes it"
    summary = rules.summary if not semantic_failed else f"{rules.summary} LLM: {llm.summary}"
    return PageJudgment(label, subs, issues, summary, raw_response=llm.raw_response, prompt_hash=llm.prompt_hash,
                        tokens_in=llm.tokens_in, tokens_out=llm.tokens_out, cost_usd=llm.cost_usd,
                        latency_s=llm.latency_s, flags=llm.flags, review=review,
                        tier_labels={"rules": rules.label.value, "llm": llm.label.value})


@register_judge("hybrid")
def _make_hybrid(argument: str | None, options: dict[str, Any]) -> HybridJudge:
    if not argument:
        raise ValueError("the hybrid judge needs the LLM for its semantic tier: --judge hybrid:<litellm model id>")
    return HybridJudge(get_judge("rules"), get_judge(f"llm:{argument}", options))
