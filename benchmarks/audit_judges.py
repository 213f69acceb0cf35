"""Offline category judges against the hand-annotated validation set: coverage P/R/F1 and depth κ.

Each judge (lexicon, embedding) reads the hand-written validation responses (fixtures written for
AccessBench, not model output) and is scored against their annotations: precision, recall and F1
of `covered`, and the quadratic-weighted κ of depth 0–3. The embedding judge's thresholds were set
on the first half (h01–h35), so both halves are also reported on their own. The fixtures and the
lexicon were written by the same hand: these numbers are an upper bound for real model answers.

    python -m benchmarks.audit_judges [--judges lexicon embedding] [--per-category]
"""

from __future__ import annotations

import argparse
import time

from judges.inclusivity.base import JudgeItem, get_category_judge
from judges.inclusivity.validation import load_validation, score_judge

TARGET_F1, TARGET_KAPPA = 0.85, 0.6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judges", nargs="+", default=["lexicon", "embedding"])
    parser.add_argument("--per-category", action="store_true", help="also print coverage F1 per category")
    args = parser.parse_args(argv)
    fixtures = load_validation()
    halves = {"all": fixtures, "h01–h35": fixtures[:35], "h36–h70": fixtures[35:]}
    print(f"{len(fixtures)} hand-written responses × 9 categories; targets: coverage F1 ≥ {TARGET_F1}, "
          f"lexicon depth κ ≥ {TARGET_KAPPA}")
    print(f"{'judge':<10} {'responses':<9} {'precision':>9} {'recall':>7} {'F1':>6} {'depth κ':>8} {'exact':>6} "
          f"{'seconds':>8}")
    for spec in args.judges:
        judge = get_category_judge(spec)
        for name, part in halves.items():
            start = time.perf_counter()
            results = judge.judge_many([JudgeItem("", f.text) for f in part])
            seconds = time.perf_counter() - start
            s = score_judge([r.verdicts for r in results], part)
            kappa = "-" if s["depth_kappa"] is None else f"{s['depth_kappa']:.3f}"
            print(f"{spec:<10} {name:<9} {s['precision']:>9.3f} {s['recall']:>7.3f} {s['f1']:>6.3f} {kappa:>8} "
                  f"{s['depth_exact']:>6.3f} {seconds:>8.2f}")
            if args.per_category and name == "all":
                print("  F1 per category: " + ", ".join(f"{c} {f:.2f}" for c, f in s["per_category_f1"].items()))


if __name__ == "__main__":
    main()
