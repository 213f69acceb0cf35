"""The judge interface, its result types and the registry that resolves judges by name."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from common.registry import Registry
from judges.evidence import PageBundle
from judges.labels import Label


@dataclass
class Issue:
    """One concrete problem, where it is and how to fix it."""

    sub_criterion: str
    location: str
    problem: str
    remediation: str
    rule_id: str = ""  # the rules catalog's id of the check that found it (judges/rules/catalog); "" for a model's
    # Where on the page, when the evidence says: [x0, y0, x1, y1] in PDF points from the top left (the figure,
    # table, text run or reading-order block the finding is about); None when the rule knows no box.
    bbox: list[float] | None = None
    # A candidate rule's focused question and the facts about its element (for the hybrid judge's LLM tier);
    # not stored with the issue (the question and the answer are in llm_calls).
    context: dict[str, Any] | None = field(default=None, compare=False, repr=False)


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
    normalised: list[str] = field(default_factory=list)  # how the model's reply had to be read (judges.llm.parsing)
    # The error may go away on a retry (throttled, timed out): the judge stage retries the page on resume.
    transient: bool = False

    def issues_json(self) -> str:
        """The issues as stored in `judgments.issues` (a box only where the finding has one)."""
        return json.dumps([{k: v for k, v in asdict(i).items() if k != "context" and not (k == "bbox" and v is None)}
                           for i in self.issues])

    @property
    def remediation(self) -> str:
        return "\n".join(dict.fromkeys(i.remediation for i in self.issues))


class Judge(Protocol):
    """Anything that labels one page's evidence for one criterion.

    `deterministic`: the same evidence always gets the same judgment, so the judge stage runs it
    once instead of `repeats` times (a judge without the attribute counts as stochastic).
    """

    name: str
    model: str | None
    prompt_version: str
    deterministic: bool

    def supports(self, criterion: str) -> bool: ...

    def params(self) -> dict[str, Any]: ...

    def judge_page(self, bundle: PageBundle, repeat: int) -> PageJudgment: ...


JUDGES: Registry[Judge] = Registry("judge", {"rules": "judges.rules", "llm": "judges.llm.judge",
                                              "hybrid": "judges.hybrid", "checker": "judges.checkers.judge"})
register_judge = JUDGES.register
# Options a run gives every judge that belong to one kind only (the rules judge's disabled rules, the veraPDF
# launcher of checker:verapdf): judges of other kinds ignore them.
KIND_OPTIONS = ("disabled_rules", "checker_path")
# A judge's check (`JudgeSpec.check`): refuses what its factory would refuse, missing credentials included,
# without building the judge, and returns the criteria the judge covers.
register_judge_check = JUDGES.register_check


def is_deterministic(judge: Judge) -> bool:
    return bool(getattr(judge, "deterministic", False))


def get_judge(spec: str, options: dict[str, Any] | None = None) -> Judge:
    """Resolve 'rules' or 'kind:argument' (e.g. 'llm:openai/gpt-4o') to a judge."""
    return JUDGES.get(spec, options)


@dataclass(frozen=True)
class JudgeSpec:
    """A judge as `--judge` names it, resolved once: its registry name and argument (``llm:openai/gpt-4o``).

    The checks before a run use the spec (`check`: no judge is built, no call is made); the stage that
    judges builds each judge once (`build`).
    """

    name: str
    argument: str | None = None

    @classmethod
    def parse(cls, text: str) -> JudgeSpec:
        """`rules` or `kind:argument`; an undeclared kind raises UnknownName (listing the judges)."""
        kind, _, argument = text.strip().partition(":")
        JUDGES.factory(kind)
        return cls(kind, argument or None)

    def __str__(self) -> str:
        return f"{self.name}:{self.argument}" if self.argument else self.name

    def check(self, options: dict[str, Any] | None = None) -> tuple[str, ...]:
        """The criteria this judge covers, once its argument, options and credentials are checked (ValueError
        saying what to change) by its registered check, without building it."""
        covered = JUDGES.check(str(self), options)
        if covered is None:  # a judge that declares no check (a plugin's) is built to be checked
            from judges.criteria import CRITERIA

            judge = self.build(options)
            check = getattr(judge, "check", None)
            if check is not None:
                check()
            return tuple(c for c in CRITERIA if judge.supports(c))
        return tuple(covered)

    def build(self, options: dict[str, Any] | None = None) -> Judge:
        return JUDGES.get(str(self), options)
