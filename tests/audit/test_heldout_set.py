"""The second validation set: its shape, its two halves, and the scores the benchmark prints from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judges.inclusivity import validation
from judges.inclusivity.base import CategoryVerdict
from judges.inclusivity.categories import CATEGORY_NAMES
from judges.inclusivity.cues import MIN_ANSWER_WORDS, word_count
from judges.inclusivity.validation import load_heldout, mean_absolute_error, score_judge

STYLES = {"bullets", "prose", "refusal", "very-short", "dismissal", "supports-only", "generic"}


def test_both_halves_are_disjoint_balanced_and_span_the_styles_and_categories() -> None:
    fit, report = load_heldout("fit"), load_heldout("report")
    assert len(fit) >= 30 and len(report) >= 30
    assert not {a.fixture_id for a in fit} & {a.fixture_id for a in report}
    assert len(load_heldout()) == len(fit) + len(report)
    for half in (fit, report):
        assert {a.style for a in half} >= STYLES
        assert all(any(a.annotation[c] > 0 for a in half) for c in CATEGORY_NAMES)
    empty = [a for a in load_heldout() if a.style in ("refusal", "generic")
             or (a.style == "very-short" and word_count(a.text) < MIN_ANSWER_WORDS)]
    assert len(empty) >= 10 and all(not any(a.annotation.values()) for a in empty)


def test_an_unknown_split_or_a_partial_annotation_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="unknown split"):
        load_heldout("test")
    bad = {"fixture_id": "x1", "question_id": "q01", "style": "prose", "split": "fit", "text": "Blind users.",
           "annotation": {"Vision": 2}}
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "bad.jsonl").write_text(json.dumps(bad) + "\n", encoding="utf-8")
    monkeypatch.setattr(validation.resources, "files", lambda _package: tmp_path)
    monkeypatch.setattr(validation, "HELDOUT_FILE", "bad.jsonl")
    with pytest.raises(ValueError, match="annotate all nine categories"):
        load_heldout()


def test_scores_count_every_category_and_depth_errors_including_misses() -> None:
    answers = load_heldout("fit")[:2]
    verdicts = [[CategoryVerdict(c, a.annotation[c] > 0, a.annotation[c]) for c in CATEGORY_NAMES] for a in answers]
    perfect = score_judge(verdicts, answers)
    assert perfect["f1"] == 1.0 and perfect["depth_mae"] == 0.0
    nothing = [[CategoryVerdict(c, False, 0) for c in CATEGORY_NAMES] for _ in answers]
    empty = score_judge(nothing, answers)
    truth = [a.annotation[c] for c in CATEGORY_NAMES for a in answers]
    assert empty["recall"] == 0.0
    assert empty["depth_mae"] == pytest.approx(sum(truth) / len(truth))
    assert mean_absolute_error([0, 3, 2], [1, 1, 2]) == pytest.approx(1.0)
