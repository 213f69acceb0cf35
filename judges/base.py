"""The judge interface, its result types and the registry that resolves judges by name."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from judges.evidence import PageBundle
from judges.labels import Label


@dataclass
class Issue:
    """One concrete problem, where it is and how to fix it."""

    sub_criterion: str
    location: str
    problem: str
    remediation: str


@dataclass
class PageJudgment:
    label: Label
    sub_criteria: dict[str, str] = field(default_factory=dict)  # name → passed|failed|not_applicable|cannot_tell
    issues: list[Issue] = field(default_factory=list)
    summary: str = ""
    raw_response: str | None = None
    prompt_hash: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_s: float | None = None
    error: str | None = None
    flags: dict[str, bool] = field(default_factory=dict)  # judge self-checks, e.g. LLM hallucination flags
    review: str | None = None  # why a person should look at this page (hybrid judge), else None
    tier_labels: dict[str, str] = field(default_factory=dict)  # what each tier said (hybrid judge)
    calls: list[dict[str, Any]] = field(default_factory=list)  # model calls behind it (LLM judges): llm_calls rows

    def issues_json(self) -> str:
        return json.dumps([asdict(i) for i in self.issues])

    @property
    def remediation(self) -> str:
        return "\n".join(dict.fromkeys(i.remediation for i in self.issues))


class Judge(Protocol):
    """Anything that labels one page's evidence for one criterion."""

    name: str
    model: str | None
    prompt_version: str

    def supports(self, criterion: str) -> bool: ...

    def params(self) -> dict[str, Any]: ...

    def judge_page(self, bundle: PageBundle, repeat: int) -> PageJudgment: ...


_REGISTRY: dict[str, Callable[[str | None, dict[str, Any]], Judge]] = {}


def register_judge(kind: str) -> Callable[[Callable[[str | None, dict[str, Any]], Judge]],
                                          Callable[[str | None, dict[str, Any]], Judge]]:
    def wrap(factory: Callable[[str | None, dict[str, Any]], Judge]) -> Callable[[str | None, dict[str, Any]], Judge]:
        _REGISTRY[kind] = factory
        return factory
    return wrap


def get_judge(spec: str, options: dict[str, Any] | None = None) -> Judge:
    """Resolve 'rules' or 'kind:argument' (e.g. 'llm:openai/gpt-4o') to a judge."""
    import judges.hybrid  # noqa: F401 - registers `hybrid`
    import judges.llm  # noqa: F401 - registers `llm` (litellm itself is imported on first call)
    import judges.rules  # noqa: F401 - registers `rules`

    kind, _, argument = spec.partition(":")
    factory = _REGISTRY.get(kind)
    if factory is None:
        raise ValueError(f"unknown judge {spec!r}; available: {', '.join(sorted(_REGISTRY))}")
    return factory(argument or None, options or {})
