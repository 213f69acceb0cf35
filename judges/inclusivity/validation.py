"""The validation set: hand-written responses with hand-annotated depth per category, and scoring.

The responses in `data/validation_responses.jsonl` were written by hand for AccessBench to test the
offline judges; they are fixtures, never model output. Each carries a depth 0–3 for all nine
categories (coverage = depth > 0), annotated with the rubric in `categories.DEPTH_RUBRIC`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from judges.inclusivity.categories import CATEGORY_NAMES, MAX_DEPTH

FIXTURE_MODEL = "fixture/hand-written"  # the model name fixture responses carry in `responses`


@dataclass(frozen=True)
class ValidationResponse:
    fixture_id: str
    question_id: str
    variant: str
    text: str
    annotation: dict[str, int]  # category → depth 0–3


def load_validation() -> list[ValidationResponse]:
    path = resources.files("judges.inclusivity") / "data" / "validation_responses.jsonl"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            annotation = row["annotation"]
            if set(annotation) != set(CATEGORY_NAMES) or not all(0 <= d <= MAX_DEPTH for d in annotation.values()):
                raise ValueError(f"fixture {row['fixture_id']}: annotate all nine categories with a depth 0–3")
            out.append(ValidationResponse(row["fixture_id"], row["question_id"], row["variant"], row["text"],
                                          annotation))
    return out


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


def score_judge(verdicts: list[list[Any]], fixtures: list[ValidationResponse]) -> dict[str, Any]:
    """Coverage P/R/F1 and depth quadratic κ of one judge's verdicts against the annotations.

    `verdicts[i]` are the judge's CategoryVerdicts for `fixtures[i]`; voided verdicts count as not covered.
    """
    truth_cov, pred_cov, truth_depth, pred_depth = [], [], [], []
    per_category: dict[str, tuple[list[bool], list[bool]]] = {c: ([], []) for c in CATEGORY_NAMES}
    for fixture, judged in zip(fixtures, verdicts, strict=True):
        for verdict in judged:
            truth = fixture.annotation[verdict.category]
            depth = verdict.depth or 0
            truth_cov.append(truth > 0)
            pred_cov.append(bool(verdict.covered))
            truth_depth.append(truth)
            pred_depth.append(depth)
            per_category[verdict.category][0].append(truth > 0)
            per_category[verdict.category][1].append(bool(verdict.covered))
    return {**coverage_prf(truth_cov, pred_cov),
            "depth_kappa": weighted_kappa(truth_depth, pred_depth, quadratic=True),
            "depth_exact": sum(t == p for t, p in zip(truth_depth, pred_depth, strict=True)) / len(truth_depth),
            "per_category_f1": {c: coverage_prf(t, p)["f1"] for c, (t, p) in per_category.items()}}
