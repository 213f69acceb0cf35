"""Metric views pinned against hand-computed values, and κ against scikit-learn."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest

from judges.inclusivity.categories import CATEGORY_NAMES
from judges.inclusivity.validation import coverage_prf, weighted_kappa
from warehouse import catalog
from warehouse.store import ArtifactStore
from warehouse.tables import ALL_TABLES, CATEGORY_JUDGMENTS_SCHEMA

sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="pip install 'accessbench[dev]' (scikit-learn)")


def _row(judge: str, model: str, variant: str, question: str, category: str, depth: int | None,
         error: str | None = None) -> dict[str, Any]:
    return {"run_id": "r1", "response_id": f"{model}-{variant}-{question}", "question_id": question, "model": model,
            "variant": variant, "judge": judge, "category": category,
            "covered": None if depth is None else depth > 0, "depth": depth, "error": error}


def _write(home: Path, rows: list[dict[str, Any]]) -> None:
    ArtifactStore(home).write_table("category_judgments", "r1", "category_judgments", rows, CATEGORY_JUDGMENTS_SCHEMA)


def _query(home: Path, sql: str) -> list[dict[str, Any]]:
    columns, rows = catalog.query(home, ALL_TABLES, sql)
    return [dict(zip(columns, row, strict=True)) for row in rows]


def test_qlcs_dlcs_depth_and_prompt_effect_match_hand_computed_values(tmp_path: Path) -> None:
    # Model m, judge j, two questions × two variants. Depths per category (others 0):
    #   base  q1: Vision 2, Mobility 1        → 2 of 9 covered
    #   base  q2: Vision 3                    → 1 of 9
    #   aware q1: Vision 2, Hearing 1, Mental 3 → 3 of 9
    #   aware q2: Vision 1, Speech 2, Hearing 2, Mental 1 → 4 of 9 (Learning voided: judged on 8 → 4/8)
    depths = {("base", "q1"): {"Vision": 2, "Mobility": 1}, ("base", "q2"): {"Vision": 3},
              ("aware", "q1"): {"Vision": 2, "Hearing": 1, "Mental": 3},
              ("aware", "q2"): {"Vision": 1, "Speech": 2, "Hearing": 2, "Mental": 1}}
    rows = []
    for (variant, question), covered in depths.items():
        for category in CATEGORY_NAMES:
            if (variant, question, category) == ("aware", "q2", "Learning"):
                rows.append(_row("j", "m", variant, question, category, None, error="model_call: boom"))
            else:
                rows.append(_row("j", "m", variant, question, category, covered.get(category, 0)))
    _write(tmp_path, rows)

    qlcs = {r["variant"]: r for r in _query(tmp_path, "select * from qlcs")}
    assert qlcs["base"]["qlcs"] == pytest.approx((2 / 9 + 1 / 9) / 2)
    assert qlcs["aware"]["qlcs"] == pytest.approx((3 / 9 + 4 / 8) / 2)  # the voided verdict is left out
    assert qlcs["base"]["responses"] == 2

    dlcs = {(r["variant"], r["category"]): r["dlcs"] for r in _query(tmp_path, "select * from dlcs")}
    assert dlcs[("base", "Vision")] == 1.0
    assert dlcs[("base", "Mobility")] == 0.5
    assert dlcs[("aware", "Hearing")] == 1.0
    assert dlcs[("aware", "Learning")] == 0.0  # only q1 judged, not covered
    assert dlcs[("base", "Neuro")] == 0.0

    depth = {(r["variant"], r["category"], r["k"]): r["share"] for r in _query(tmp_path, "select * from depth_at_k")}
    assert [depth[("base", "Vision", k)] for k in range(4)] == [0.0, 0.0, 0.5, 0.5]
    assert [depth[("aware", "Mental", k)] for k in range(4)] == [0.0, 0.5, 0.0, 0.5]
    assert [depth[("base", "Speech", k)] for k in range(4)] == [1.0, 0.0, 0.0, 0.0]
    for variant, category in itertools.product(("base", "aware"), CATEGORY_NAMES):
        assert sum(depth[(variant, category, k)] for k in range(4)) == pytest.approx(1.0)

    (effect,) = _query(tmp_path, "select * from prompt_effect")
    assert effect["delta"] == pytest.approx(qlcs["aware"]["qlcs"] - qlcs["base"]["qlcs"])


def test_judge_agreement_matches_scikit_learn(tmp_path: Path) -> None:
    rng = random.Random(7)
    rows, a_cov, b_cov, a_depth, b_depth = [], [], [], [], []
    for q in range(30):
        for category in CATEGORY_NAMES:
            da = rng.choice([0, 0, 1, 2, 3])
            db = da if rng.random() < 0.6 else rng.choice([0, 1, 2, 3])
            rows += [_row("lexicon", "m", "base", f"q{q}", category, da),
                     _row("embedding", "m", "base", f"q{q}", category, db)]
            a_cov.append(int(da > 0))
            b_cov.append(int(db > 0))
            a_depth.append(da)
            b_depth.append(db)
    _write(tmp_path, rows)
    (row,) = _query(tmp_path, "select * from judge_agreement")
    assert (row["judge_a"], row["judge_b"], row["n"]) == ("embedding", "lexicon", 270)
    expected_cov = sklearn_metrics.cohen_kappa_score(b_cov, a_cov)
    expected_depth = sklearn_metrics.cohen_kappa_score(b_depth, a_depth, weights="quadratic", labels=[0, 1, 2, 3])
    assert row["coverage_kappa"] == pytest.approx(expected_cov, abs=1e-9)
    assert row["depth_kappa"] == pytest.approx(expected_depth, abs=1e-9)
    assert 0 < row["depth_kappa"] < 1


def test_python_kappa_and_prf_match_scikit_learn() -> None:
    rng = random.Random(3)
    for _ in range(20):
        a = [rng.randint(0, 3) for _ in range(50)]
        b = [x if rng.random() < 0.5 else rng.randint(0, 3) for x in a]
        expected = sklearn_metrics.cohen_kappa_score(a, b, weights="quadratic", labels=[0, 1, 2, 3])
        assert weighted_kappa(a, b) == pytest.approx(expected, abs=1e-9)
        ca, cb = [x > 0 for x in a], [x > 0 for x in b]
        assert weighted_kappa([int(x) for x in ca], [int(x) for x in cb], quadratic=False) == pytest.approx(
            sklearn_metrics.cohen_kappa_score(ca, cb), abs=1e-9)
        prf = coverage_prf(ca, cb)
        assert prf["f1"] == pytest.approx(sklearn_metrics.f1_score(ca, cb))
        assert prf["precision"] == pytest.approx(sklearn_metrics.precision_score(ca, cb))
    assert weighted_kappa([1, 1], [1, 1]) is None  # no chance disagreement: undefined, not 1 or 0
