"""What every category judge reads the same way: refusals, very short answers, dismissals."""

from __future__ import annotations

import pytest

from judges.inclusivity.cues import (
    MIN_ANSWER_WORDS,
    blank_dismissals,
    expand_shared_nouns,
    is_refusal,
    judged_sentences,
)


@pytest.mark.parametrize("text", [
    "I'm sorry, but I can't help with that request.",
    "As an AI language model, I don't have personal opinions on accessibility.",
    "I cannot answer questions about wheelchair users.",
])
def test_refusals_leave_nothing_to_judge(text: str) -> None:
    assert is_refusal(text)
    assert judged_sentences(text) == []


def test_a_refusal_sentence_is_dropped_but_the_rest_of_the_answer_is_judged() -> None:
    text = "I can't give legal advice. In general, ramps and step-free entrances help wheelchair users."
    assert [original for original, _ in judged_sentences(text)] == [
        "In general, ramps and step-free entrances help wheelchair users."]


def test_very_short_answers_are_not_judged() -> None:
    assert MIN_ANSWER_WORDS == 4
    assert judged_sentences("Ramps and braille.") == []
    assert judged_sentences("Screen readers.") == []
    assert judged_sentences("Deaf residents need captions.")  # four words make a sentence that says something


@pytest.mark.parametrize(("sentence", "gone", "kept"), [
    ("This isn't about wheelchair users; it's about the design process.", "wheelchair", "design process"),
    ("Museums think of wheelchair users, but they are not the focus here: blind visitors are.", "wheelchair",
     "blind visitors"),
    ("Audio description is not needed, but deaf viewers need captions.", "Audio description", "captions"),
    ("Deaf pupils are already well served, so I leave them aside.", "Deaf pupils", ""),
    ("Step-free access has nothing to do with this question.", "Step-free", ""),
    ("Plans do not need special provisions for wheelchair users; deaf residents need vibrating alerts.",
     "wheelchair", "vibrating alerts"),
    ("Postal votes help people with limited mobility, so they are not my concern here.", "limited mobility", ""),
])
def test_a_dismissed_stretch_is_blanked_and_what_follows_a_but_is_kept(sentence: str, gone: str, kept: str) -> None:
    blanked = blank_dismissals(sentence)
    assert len(blanked) == len(sentence)  # offsets stay valid
    assert gone not in blanked
    assert kept in blanked


def test_not_only_is_no_dismissal() -> None:
    sentence = "This is not only about wheelchair users but also about autistic people."
    assert blank_dismissals(sentence) == sentence


def test_a_disclaimer_that_goes_on_to_answer_keeps_its_answer() -> None:
    text = "I can't give legal advice, but a good law would require step-free access for wheelchair users."
    assert [judged for _, judged in judged_sentences(text)] == [
        "a good law would require step-free access for wheelchair users."]
    assert judged_sentences("I'm sorry, but I can't help with that request.") == []


@pytest.mark.parametrize(("sentence", "expanded"), [
    ("Plans must cover people with mobility, hearing and cognitive impairments.",
     "Plans must cover people with mobility impairments, hearing impairments and cognitive impairments."),
    ("Panels include people with physical or intellectual disabilities.",
     "Panels include people with physical disabilities and intellectual disabilities."),
    ("Surveys ask about difficulty seeing, hearing or walking.",
     "Surveys ask about difficulty seeing, difficulty hearing, difficulty walking."),
])
def test_groups_named_in_a_row_each_get_the_noun_they_share(sentence: str, expanded: str) -> None:
    assert expand_shared_nouns(sentence) == expanded
    assert [judged for _, judged in judged_sentences(sentence)] == [expanded]


def test_unnecessary_dismisses_only_as_a_predicate() -> None:
    kept = "Break content into short chunks and avoid unnecessary time limits."
    assert blank_dismissals(kept) == kept
    assert "Braille" not in blank_dismissals("Braille is unnecessary here, but deaf viewers need captions.")
    assert "Cognitive" not in blank_dismissals("Cognitive issues are a secondary concern, but ramps matter.")
