"""Offline category judges against both hand-annotated validation sets: coverage P/R/F1, depth MAE and κ.

Each judge (lexicon, embedding) reads the validation answers and is scored against their
annotations, category by category: precision, recall and F1 of `covered`, the mean absolute error
of depth 0–3 over every category of every answer (0s included), and the quadratic-weighted κ of
depth.

- Set 1 (`validation_responses.jsonl`, h01–h70): fixtures written by the lexicon's author; the
  embedding judge's thresholds were fitted on h01–h35, so both halves are shown apart. An upper bound.
- Set 2 (`validation_heldout.jsonl`): answers of several styles written apart from the lexicon and
  annotated by reading them (see `validation`). Thresholds and terms are fitted on its `fit` half
  only; its `report` half was never tuned on.
- Set 3 (`validation_unseen.jsonl`): answers written after the judges were frozen, annotated by
  reading, never tuned on; the figure to quote for answers the judges have not seen. Batch 1 was scored
  before the last change to the judges (whose errors it showed), batch 2 was written after it. Batch 3
  (36 answers) was written and annotated by a separate session that never read the judges, their terms
  or the other sets, and scored once before any change. Batch 4 (14 answers) is real output of the
  packaged local model (SmolLM2-135M-Instruct, `accessbench audit --models local`), annotated the same
  way; one miss it showed ("visual impairments", plural) was fixed after it was scored. Batch 5 (30
  answers in the styles of larger assistants: long markdown, tables, answers by disability or by setting,
  laws with few supports) was written and annotated by another separate session after that fix, and
  scored once.
- Set 4 (`validation_supports.jsonl`, issue 59): answers that name supports without the group they serve or
  imply it by a setting, in styles the other sets lack. Its held-out half was written, annotated and committed
  before the judges' terms for it were written and is never tuned on; its dev half is for tuning. Its
  per-category table (precision, recall, F1, depth MAE) is always printed.

With `--llm-judge llm:<model>` (or when the data home's local model server runs: `llm:local`), an LLM
judge reads the same answers and Cohen's κ between each offline judge and it is printed (coverage,
unweighted; depth, quadratic), over the categories the LLM judge did not void.

    python -m benchmarks.audit_judges [--judges lexicon embedding] [--per-category] [--llm-judge SPEC]
                                      [--llm-api-base URL] [--kappa-on PART ...]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

from judges.inclusivity.base import CategoryVerdict, JudgeItem, get_category_judge
from judges.inclusivity.categories import CATEGORY_NAMES
from judges.inclusivity.validation import (
    Annotated,
    load_heldout,
    load_supports,
    load_unseen,
    load_validation,
    score_judge,
    weighted_kappa,
)

TARGET_F1, TARGET_MAE, TARGET_PRECISION = 0.8, 0.3, 0.85  # on answers the judges were not tuned on
UNTUNED = ("set 2 report", "set 3 unseen", "set 3 batch 2", "set 3 batch 3", "set 3 batch 4", "set 3 batch 5",
           "set 4 held-out")
ALWAYS_PER_CATEGORY = ("set 4 held-out",)


def parts() -> dict[str, tuple[str, Sequence[Annotated]]]:
    """(set, part) label → answers, in the order printed."""
    first = load_validation()
    return {"set 1 all": ("set 1", first), "set 1 h01–h35": ("set 1", first[:35]),
            "set 1 h36–h70": ("set 1", first[35:]), "set 2 fit": ("set 2", load_heldout("fit")),
            "set 2 report": ("set 2", load_heldout("report")), "set 3 unseen": ("set 3", load_unseen()),
            "set 3 batch 2": ("set 3", load_unseen(2)), "set 3 batch 3": ("set 3", load_unseen(3)),
            "set 3 batch 4": ("set 3", load_unseen(4)), "set 3 batch 5": ("set 3", load_unseen(5)),
            "set 4 dev": ("set 4", load_supports("dev")), "set 4 held-out": ("set 4", load_supports("heldout"))}


def texts(answers: Sequence[Annotated]) -> list[JudgeItem]:
    return [JudgeItem("", a.text) for a in answers]


def agreement(offline: list[list[CategoryVerdict]], llm: list[list[CategoryVerdict]]) -> dict[str, Any]:
    """Cohen's κ of coverage and quadratic κ of depth between two judges, over the cells both judged."""
    cover_a, cover_b, depth_a, depth_b = [], [], [], []
    for ours, theirs in zip(offline, llm, strict=True):
        by_name = {v.category: v for v in theirs}
        for verdict in ours:
            other = by_name.get(verdict.category)
            if other is None or other.covered is None:
                continue
            cover_a.append(int(bool(verdict.covered)))
            cover_b.append(int(other.covered))
            depth_a.append((verdict.depth or 0) if verdict.covered else 0)
            depth_b.append((other.depth or 0) if other.covered else 0)
    return {"cells": len(cover_a), "coverage_kappa": weighted_kappa(cover_a, cover_b, quadratic=False),
            "depth_kappa": weighted_kappa(depth_a, depth_b, quadratic=True)}


def _llm_spec(requested: str | None) -> tuple[str | None, str]:
    """The LLM judge to compare with, or None and why not."""
    if requested:
        return requested, ""
    try:
        from models.local import running
        from warehouse.home import resolve_home

        if running(resolve_home()):
            return "llm:local", ""
    except Exception as exc:  # noqa: BLE001 - no data home or no local server: say so and go on
        return None, f"no local model server ({type(exc).__name__})"
    return None, "no --llm-judge given and no local model server running (accessbench model start)"


def per_category_table(score: dict[str, Any]) -> str:
    """Coverage precision, recall, F1 and depth MAE of each category, with the number of answers covering it."""
    lines = [f"    {'category':<9} {'covered':>7} {'precision':>9} {'recall':>7} {'F1':>6} {'MAE':>6}"]
    for c in CATEGORY_NAMES:
        v = score["per_category"][c]
        lines.append(f"    {c:<9} {v['positives']:>7} {v['precision']:>9.2f} {v['recall']:>7.2f} {v['f1']:>6.2f} "
                     f"{v['depth_mae']:>6.2f}")
    return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judges", nargs="+", default=["lexicon", "embedding"])
    parser.add_argument("--per-category", action="store_true", help="also print P/R/F1 and depth MAE per category")
    parser.add_argument("--llm-judge", help="an llm:<model> judge to compute κ against (default: llm:local if running)")
    parser.add_argument("--llm-api-base", help="the OpenAI-compatible endpoint of --llm-judge, if not its provider's")
    parser.add_argument("--kappa-on", nargs="+", default=["set 1 all", "set 2 fit", "set 2 report", "set 3 unseen"],
                        metavar="PART", help="the parts of the sets to compute κ on (default: every answer once; "
                        "the batches are parts of 'set 3 unseen')")
    args = parser.parse_args(argv)
    sets = parts()
    print(f"set 1: {len(sets['set 1 all'][1])} hand-written fixtures (the lexicon's author); set 2: "
          f"{len(sets['set 2 fit'][1]) + len(sets['set 2 report'][1])} answers written apart and annotated by reading "
          f"(fit {len(sets['set 2 fit'][1])} / report {len(sets['set 2 report'][1])}); set 3: "
          f"{len(sets['set 3 unseen'][1])} answers written after the judges were frozen, never tuned on; set 4: "
          f"{len(sets['set 4 dev'][1]) + len(sets['set 4 held-out'][1])} answers naming supports without their group "
          f"(dev {len(sets['set 4 dev'][1])} / held-out {len(sets['set 4 held-out'][1])}); 9 categories each")
    print(f"targets on {', '.join(UNTUNED)}: coverage F1 ≥ {TARGET_F1} with precision ≥ {TARGET_PRECISION}, "
          f"depth MAE ≤ {TARGET_MAE}")
    print(f"{'judge':<10} {'answers':<14} {'precision':>9} {'recall':>7} {'F1':>6} {'MAE':>6} {'depth κ':>8} "
          f"{'exact':>6} {'seconds':>8}")
    verdicts: dict[tuple[str, str], list[list[CategoryVerdict]]] = {}
    for spec in args.judges:
        judge = get_category_judge(spec)
        for label, (_, answers) in sets.items():
            start = time.perf_counter()
            results = judge.judge_many(texts(answers))
            seconds = time.perf_counter() - start
            verdicts[(spec, label)] = [r.verdicts for r in results]
            s = score_judge(verdicts[(spec, label)], answers)
            print(f"{spec:<10} {label:<14} {s['precision']:>9.3f} {s['recall']:>7.3f} {s['f1']:>6.3f} "
                  f"{s['depth_mae']:>6.3f} {_fmt(s['depth_kappa']):>8} {s['depth_exact']:>6.3f} {seconds:>8.2f}")
            if label in ALWAYS_PER_CATEGORY or (args.per_category and label in ("set 1 all", *UNTUNED)):
                print(per_category_table(s))
    spec_llm, why = _llm_spec(args.llm_judge)
    if spec_llm is None:
        print(f"κ against an LLM judge: skipped, {why}; pass --llm-judge llm:<model> to compute it")
        return
    try:
        llm = get_category_judge(spec_llm, {"api_base": args.llm_api_base} if args.llm_api_base else None)
        check = getattr(llm, "check", None)
        if check is not None:
            check()
    except Exception as exc:  # noqa: BLE001 - a missing key or an unknown model: say so, the offline figures stand
        print(f"κ against {spec_llm}: skipped, the judge is not available ({type(exc).__name__}: {exc})")
        return
    for label in args.kappa_on:
        answers = sets[label][1]
        theirs = [r.verdicts for r in llm.judge_many(texts(answers))]
        voided = sum(v.covered is None for per in theirs for v in per)
        scored = score_judge(theirs, answers)
        print(f"{spec_llm} on {label}: F1 {scored['f1']:.3f}, MAE {scored['depth_mae']:.3f} "
              f"({voided} of {len(theirs) * len(CATEGORY_NAMES)} verdicts voided)")
        for spec in args.judges:
            a = agreement(verdicts[(spec, label)], theirs)
            print(f"  κ {spec} vs {spec_llm}: coverage {_fmt(a['coverage_kappa'])}, depth (quadratic) "
                  f"{_fmt(a['depth_kappa'])} over {a['cells']} categories")


if __name__ == "__main__":
    main()
