"""Tier 1: the deterministic, offline rules judge (the default)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from judges.base import PageJudgment, register_judge
from judges.evidence import PageBundle
from judges.rules.alt_text import judge_alt_text
from judges.rules.contrast import judge_contrast
from judges.rules.fonts import judge_fonts
from judges.rules.links import judge_links
from judges.rules.reading_order import judge_reading_order
from judges.rules.tables import judge_tables
from judges.rules.tagging import judge_tagging

PROMPT_VERSION = "rules-1"

RULES: dict[str, Callable[[PageBundle], PageJudgment]] = {
    "semantic_tagging": judge_tagging,
    "functional_hyperlinks": judge_links,
    "logical_reading_order": judge_reading_order,
    "color_contrast": judge_contrast,
    "fonts_readability": judge_fonts,
    "alt_text_quality": judge_alt_text,
    "table_structure": judge_tables,
}


class RulesJudge:
    name = "rules"
    model: str | None = None
    prompt_version = PROMPT_VERSION
    deterministic = True  # runs once per page, whatever --repeats says

    def supports(self, criterion: str) -> bool:
        return criterion in RULES

    def params(self) -> dict[str, Any]:
        return {}

    def judge_page(self, bundle: PageBundle, repeat: int) -> PageJudgment:
        # Deterministic: the repeat index changes nothing.
        return RULES[bundle.criterion](bundle)


@register_judge("rules")
def _make_rules(argument: str | None, options: dict[str, Any]) -> RulesJudge:
    if argument:
        raise ValueError("the rules judge takes no argument: use --judge rules")
    return RulesJudge()
