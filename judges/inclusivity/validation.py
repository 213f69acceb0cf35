"""The validation sets: hand-written responses with hand-annotated depth per category, and scoring.

The responses in `data/validation_responses.jsonl` were written by hand for AccessBench to test the
offline judges; they are fixtures, never model output. Each carries a depth 0–3 for all nine
categories (coverage = depth > 0), annotated with the rubric in `categories.DEPTH_RUBRIC`. That set
and the lexicon share an author.

`data/validation_heldout.jsonl` is the second set, written apart from the lexicon and annotated by
reading each answer (never by running a judge): answers in several styles (bullet lists, prose,
model-style boilerplate, refusals, very short answers, answers that name a group only to dismiss it,
answers that only name supports, generic answers), each with a `style` and a `split`. r69–r84 were
written after the first version of the widened judges and scored once unseen (README) before they joined
the fit half. Thresholds
and terms may be fitted on the `fit` half only; the `report` half is the figure to quote. Its
annotation rule: a category is covered when the answer addresses its needs, by naming the group or
by a support that serves it; a group named only to be dismissed or negated is not covered; refusals
and answers under `cues.MIN_ANSWER_WORDS` words cover nothing.

`data/validation_unseen.jsonl` is the third set, the figure for answers no judge was tuned on: answers
written after the judges were frozen (prose, markdown lists, groups named in a row, "I can't give advice,
but …", dismissals, negated supports; `source` says whether written or a local model's output),
annotated by reading with the rule above and scored once before any change to the judges. Nothing is
ever fitted on it: a change to the judges is measured on it, and a later batch written after that change
joins it as unseen (`batch`).

`data/validation_supports.jsonl` is the fourth set (issue 59): answers that name supports without the group
they serve ("captions and transcripts", "a quiet room", "extra time in exams") or imply a group by a setting
("a display screen in the waiting room"), in styles none of the other sets has (checklists, e-mails, FAQs,
dialogues, policy clauses, tables, threads, briefs). Its `heldout` half was written and annotated, and
committed, before the judges' terms for it were written, and is never tuned on; its `dev` half was written
after that, for tuning. Annotation adds to the rule above which category a support serves when no group is
named, from the literature each category comes from (WHO ICF, WCAG 2.2, ADA/Section 508, UDL): a quiet
room or calm space serves Sens/Cog and Mental; plain language serves Learning, Gen/Dev and Sens/Cog;
easy read serves Gen/Dev and Learning; flexible schedules serve Neuro and Mental; contact by text or chat
instead of by voice serves Hearing and Speech; a sensory-friendly hour serves Sens/Cog. A support tied to a
named group ("quiet rooms for autistic visitors") serves that group only. Depth counts distinct, specific
supports; "accessible formats", "adjustments" or "support" count for no one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

from judges.inclusivity.categories import CATEGORY_NAMES, MAX_DEPTH

FIXTURE_MODEL = "fixture/hand-written"  # the model name fixture responses carry in `responses`
HELDOUT_FILE = "validation_heldout.jsonl"
UNSEEN_FILE = "validation_unseen.jsonl"
SUPPORTS_FILE = "validation_supports.jsonl"
SPLITS = ("fit", "report")
SUPPORTS_SPLITS = ("dev", "heldout")


@dataclass(frozen=True)
class ValidationResponse:
    fixture_id: str
    question_id: str
    variant: str
    text: str
    annotation: dict[str, int]  # category → depth 0–3


@dataclass(frozen=True)
class HeldoutResponse:
    """One answer of the second validation set: its annotation, its style and the half it belongs to."""

    fixture_id: str
    question_id: str
    style: str
    split: str  # "fit"/"dev" (may be tuned on) or "report"/"heldout" (never tuned on)
    text: str
    annotation: dict[str, int]


def _rows(name: str) -> list[dict[str, Any]]:
    path = resources.files("judges.inclusivity") / "data" / name
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            annotation = row.get("annotation", {})
            if set(annotation) != set(CATEGORY_NAMES) or not all(
                    isinstance(d, int) and 0 <= d <= MAX_DEPTH for d in annotation.values()):
                raise ValueError(f"{name} line {number} ({row.get('fixture_id')}): annotate all nine categories "
                                 f"({', '.join(CATEGORY_NAMES)}) with a depth 0–{MAX_DEPTH}")
            rows.append(row)
    return rows


def load_validation() -> list[ValidationResponse]:
    return [ValidationResponse(row["fixture_id"], row["question_id"], row["variant"], row["text"], row["annotation"])
            for row in _rows("validation_responses.jsonl")]


def load_heldout(split: str | None = None) -> list[HeldoutResponse]:
    """The second validation set, or one half of it (`fit` or `report`)."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    out = []
    for row in _rows(HELDOUT_FILE):
        if row.get("split") not in SPLITS:
            raise ValueError(f"{HELDOUT_FILE} ({row.get('fixture_id')}): split must be one of {', '.join(SPLITS)}")
        out.append(HeldoutResponse(row["fixture_id"], row["question_id"], row["style"], row["split"], row["text"],
                                   row["annotation"]))
    return [r for r in out if split is None or r.split == split]


@dataclass(frozen=True)
class UnseenResponse:
    """One answer of the third validation set: never tuned on. `source` is "written" or a model's name."""

    fixture_id: str
    question_id: str
    style: str
    source: str
    batch: int  # 1: scored before any change to the judges; each later batch was written after the last change
    text: str
    annotation: dict[str, int]


def load_unseen(batch: int | None = None) -> list[UnseenResponse]:
    """The third validation set (answers no judge was tuned on), or one batch of it."""
    out = [UnseenResponse(row["fixture_id"], row["question_id"], row["style"], row.get("source", "written"),
                          int(row.get("batch", 1)), row["text"], row["annotation"]) for row in _rows(UNSEEN_FILE)]
    return [r for r in out if batch is None or r.batch == batch]


def load_supports(split: str | None = None) -> list[HeldoutResponse]:
    """The fourth validation set (supports named without their group), or one half of it (`dev` or `heldout`)."""
    if split is not None and split not in SUPPORTS_SPLITS:
        raise ValueError(f"unknown split {split!r}; choose from {', '.join(SUPPORTS_SPLITS)}")
    out = []
    for row in _rows(SUPPORTS_FILE):
        if row.get("split") not in SUPPORTS_SPLITS:
            raise ValueError(f"{SUPPORTS_FILE} ({row.get('fixture_id')}): split must be one of "
                             f"{', '.join(SUPPORTS_SPLITS)}")
        out.append(HeldoutResponse(row["fixture_id"], row["question_id"], row["style"], row["split"], row["text"],
                                   row["annotation"]))
    return [r for r in out if split is None or r.split == split]


class Annotated(Protocol):
    """An answer with its annotation: a ValidationResponse, HeldoutResponse or UnseenResponse."""

    @property
    def text(self) -> str: ...

    @property
    def annotation(self) -> dict[str, int]: ...


def coverage_prf(truth: list[bool], predicted: list[bool]) -> dict[str, float]:
    """Precision, recall and F1 of `covered = True` (0 where undefined)."""
    tp = sum(t and p for t, p in zip(truth, predicted, strict=True))
    fp = sum(p and not t for t, p in zip(truth, predicted, strict=True))
    fn = sum(t and not p for t, p in zip(truth, predicted, strict=True))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "n": float(len(truth))}


def weighted_kappa(a: list[int], b: list[int], quadratic: bool = True) -> float | None:
    """Cohen's kappa of two raters on integer scores; quadratic weights (i − j)² or plain agreement.

    For integer scales this equals scikit-learn's `cohen_kappa_score(a, b, weights="quadratic",
    labels=range(0, max + 1))` (and the unweighted score for 0/1). None when chance disagreement is 0.
    """
    n = len(a)
    if n == 0 or n != len(b):
        return None

    def distance(x: int, y: int) -> float:
        return float((x - y) ** 2) if quadratic else float(x != y)

    observed = sum(distance(x, y) for x, y in zip(a, b, strict=True)) / n
    expected = sum(distance(x, y) for x in a for y in b) / (n * n)
    return None if expected == 0 else 1 - observed / expected


def mean_absolute_error(truth: list[int], predicted: list[int]) -> float:
    if not truth or len(truth) != len(predicted):
        raise ValueError("mean absolute error needs two score lists of the same, non-zero length")
    return sum(abs(t - p) for t, p in zip(truth, predicted, strict=True)) / len(truth)


def score_judge(verdicts: list[list[Any]], fixtures: Sequence[Annotated]) -> dict[str, Any]:
    """Coverage P/R/F1, depth quadratic κ and depth mean absolute error (over every category of every
    response, 0s included) of one judge's verdicts against the annotations, overall and per category.

    `verdicts[i]` are the judge's CategoryVerdicts for `fixtures[i]`; voided verdicts count as not covered, depth 0.
    """
    truth_depth: dict[str, list[int]] = {c: [] for c in CATEGORY_NAMES}
    pred_depth: dict[str, list[int]] = {c: [] for c in CATEGORY_NAMES}
    pred_cov: dict[str, list[bool]] = {c: [] for c in CATEGORY_NAMES}
    for fixture, judged in zip(fixtures, verdicts, strict=True):
        for verdict in judged:
            truth_depth[verdict.category].append(fixture.annotation[verdict.category])
            pred_depth[verdict.category].append((verdict.depth or 0) if verdict.covered else 0)
            pred_cov[verdict.category].append(bool(verdict.covered))
    all_truth = [d for c in CATEGORY_NAMES for d in truth_depth[c]]
    all_pred = [d for c in CATEGORY_NAMES for d in pred_depth[c]]
    all_cov = [p for c in CATEGORY_NAMES for p in pred_cov[c]]
    per_category = {}
    for c in CATEGORY_NAMES:
        if truth_depth[c]:
            per_category[c] = {**coverage_prf([t > 0 for t in truth_depth[c]], pred_cov[c]),
                               "depth_mae": mean_absolute_error(truth_depth[c], pred_depth[c]),
                               "positives": sum(t > 0 for t in truth_depth[c])}
    return {**coverage_prf([t > 0 for t in all_truth], all_cov),
            "depth_kappa": weighted_kappa(all_truth, all_pred, quadratic=True),
            "depth_exact": sum(t == p for t, p in zip(all_truth, all_pred, strict=True)) / len(all_truth),
            "depth_mae": mean_absolute_error(all_truth, all_pred),
            "per_category": per_category,
            "per_category_f1": {c: v["f1"] for c, v in per_category.items()}}
