"""Which packaged sentence-embedding model the `embedding` category judge should run (issue 59).

For each model in `judges.inclusivity.embedding_models` that is installed, the judge's thresholds are fitted
by a grid search on the tuning parts only (set 1 h01–h35, set 2 fit, set 4 dev): the highest coverage F1 minus
half the depth MAE among the thresholds whose precision is at least 0.85. Each model is then scored with its
fitted thresholds on every part, and the pick is the model with the highest recall at precision ≥ 0.85 on the
tuning parts (never on an untuned part); equal recall goes to the lower depth error there. The untuned parts
(set 2 report, set 3, set 4 held-out) are printed for the record.

    python -m benchmarks.embedding_models [--models NAME ...]
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.audit_judges import parts, texts
from judges.inclusivity.embedding import EmbeddingJudge, EmbeddingUnavailable, MiniLM, Thresholds
from judges.inclusivity.embedding_models import DEFAULT_EMBEDDING_MODEL, EMBEDDING_MODELS
from judges.inclusivity.validation import Annotated, score_judge

TUNING = ("set 1 h01–h35", "set 2 fit", "set 4 dev")
UNTUNED = ("set 2 report", "set 3 unseen", "set 4 held-out")
MIN_PRECISION = 0.85
GRID: dict[str, tuple[float, ...]] = {
    "anchored": (0.10, 0.15, 0.20, 0.25),
    "cover": (0.55, 0.60, 0.65, 0.70),
    "generic_margin": (0.15, 0.20),
    "support": (0.25, 0.30, 0.35, 0.40, 0.45),
}


def fit(judge: EmbeddingJudge, answers: Sequence[Annotated]) -> tuple[Thresholds, dict[str, Any]]:
    """The grid's thresholds with the best F1 − MAE/2 on `answers` at precision ≥ MIN_PRECISION."""
    prepared = judge.prepare(texts(answers))
    best: tuple[float, Thresholds, dict[str, Any]] | None = None
    for values in itertools.product(*GRID.values()):
        judge.thresholds = Thresholds(**dict(zip(GRID, values, strict=True)))
        score = score_judge([judge.judge_prepared(p).verdicts for p in prepared], answers)
        if score["precision"] < MIN_PRECISION:
            continue
        objective = score["f1"] - score["depth_mae"] / 2
        if best is None or objective > best[0]:
            best = (objective, judge.thresholds, score)
    if best is None:
        raise RuntimeError(f"no thresholds in the grid reach precision {MIN_PRECISION} on the tuning parts")
    judge.thresholds = best[1]
    return best[1], best[2]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(EMBEDDING_MODELS), choices=list(EMBEDDING_MODELS))
    args = parser.parse_args(argv)
    sets = parts()
    tuning = [a for label in TUNING for a in sets[label][1]]
    print(f"thresholds fitted on {', '.join(TUNING)} ({len(tuning)} answers): best F1 − MAE/2 at precision ≥ "
          f"{MIN_PRECISION}, over {len(list(itertools.product(*GRID.values())))} combinations")
    print(f"{'model':<22} {'answers':<15} {'precision':>9} {'recall':>7} {'F1':>6} {'MAE':>6}")
    picked: list[tuple[float, float, str]] = []
    for name in args.models:
        try:
            judge = EmbeddingJudge(MiniLM.shared(name))
        except EmbeddingUnavailable as exc:
            print(f"{name:<22} skipped: {exc}")
            continue
        start = time.perf_counter()
        thresholds, tuned = fit(judge, tuning)
        print(f"{name:<22} {'tuning parts':<15} {tuned['precision']:>9.3f} {tuned['recall']:>7.3f} "
              f"{tuned['f1']:>6.3f} {tuned['depth_mae']:>6.3f}   fitted {thresholds} in "
              f"{time.perf_counter() - start:.0f} s")
        picked.append((tuned["recall"], -tuned["depth_mae"], name))
        for label in UNTUNED:
            answers = sets[label][1]
            s = score_judge([r.verdicts for r in judge.judge_many(texts(answers))], answers)
            print(f"{name:<22} {label:<15} {s['precision']:>9.3f} {s['recall']:>7.3f} {s['f1']:>6.3f} "
                  f"{s['depth_mae']:>6.3f}")
    if picked:
        recall, mae, name = max(picked)
        print(f"pick by recall at precision ≥ {MIN_PRECISION} on the tuning parts, then depth MAE: {name} (recall "
              f"{recall:.3f}, MAE {-mae:.3f}); the judge's default is {DEFAULT_EMBEDDING_MODEL}")


if __name__ == "__main__":
    main()
