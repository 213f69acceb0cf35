"""Category judges: the result types and the registry that resolves a judge by name.

A category judge reads one model response (and the question it answers) and gives a verdict for
each of the nine categories: covered or not, a depth 0–3 and a supporting snippet. Judges are
named like the PDF judges: `lexicon`, `embedding`, `llm:<litellm model id>`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from common.registry import Registry
from judges.inclusivity.categories import CATEGORY_NAMES

DEFAULT_JUDGES = ("lexicon", "embedding")  # the offline category judges an audit uses unless told


@dataclass
class CategoryVerdict:
    """One category of one response. `covered`/`depth` are None when the verdict was voided."""

    category: str
    covered: bool | None
    depth: int | None
    snippet: str | None = None
    flags: dict[str, bool] = field(default_factory=dict)
    error: str | None = None


@dataclass
class ResponseJudgment:
    """A judge's verdicts on one response (all nine categories), with the call's accounting if any."""

    verdicts: list[CategoryVerdict]
    raw_response: str | None = None
    prompt_hash: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_s: float | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)  # the call log's records (LLM judges): llm_calls
    # A judgment that failed as a whole (every category voided by one error): its error kind, and whether
    # a retry may help (a refused connection, a timeout, throttling), so a resumed run judges it again.
    error_kind: str | None = None
    transient: bool = False

    @classmethod
    def failed(cls, message: str, *, kind: str | None = None, transient: bool = False,
               **accounting: Any) -> ResponseJudgment:
        """Every category voided by one error (a failed call, an unusable reply)."""
        return cls([CategoryVerdict(c, None, None, error=message) for c in CATEGORY_NAMES], **accounting,
                   error_kind=kind or message.split(":", 1)[0], transient=transient)


@dataclass(frozen=True)
class JudgeItem:
    question: str
    response: str


class CategoryJudge(Protocol):
    name: str  # the spec it was resolved from, e.g. "lexicon" or "llm:openai/gpt-4.1"
    model: str | None
    prompt_version: str

    def params(self) -> dict[str, Any]: ...

    def judge_many(self, items: list[JudgeItem]) -> list[ResponseJudgment]: ...


CATEGORY_JUDGES: Registry[CategoryJudge] = Registry("category judge", {
    "lexicon": "judges.inclusivity.lexicon", "embedding": "judges.inclusivity.embedding",
    "llm": "judges.inclusivity.llm_judge"})
register_category_judge = CATEGORY_JUDGES.register


def get_category_judge(spec: str, options: dict[str, Any] | None = None) -> CategoryJudge:
    """Resolve 'lexicon', 'embedding' or 'llm:<model>' to a judge (heavy imports happen on first use)."""
    return CATEGORY_JUDGES.get(spec, options)
