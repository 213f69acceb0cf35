"""The lexicon judge: negation, idioms, depth from distinct supports, and its targets on the validation set."""

from __future__ import annotations

import pytest

from judges.inclusivity.base import JudgeItem, get_category_judge
from judges.inclusivity.lexicon import judge_text
from judges.inclusivity.lexicon_terms import LEXICON, SHARED_MARKERS, SOURCES
from judges.inclusivity.validation import load_heldout, load_validation, score_judge


def covered(text: str) -> dict[str, int]:
    return {v.category: v.depth or 0 for v in judge_text(text) if v.covered}


def test_depth_counts_distinct_supports_in_the_categorys_sentences() -> None:
    assert covered("Blind people face many barriers.") == {"Vision": 1}
    assert covered("Blind people may use screen readers.") == {"Vision": 2}
    assert covered("Blind people use screen readers, braille displays, tactile maps and high-contrast screens.") \
        == {"Vision": 3}
    # The same support twice is one support.
    assert covered("Blind users need screen readers. Blind staff also need screen readers.") == {"Vision": 2}
    # Captions are a Hearing support: they do not deepen Vision in a sentence that names both.
    assert covered("Blind and deaf visitors need captions.") == {"Vision": 1, "Hearing": 2}


def test_a_support_that_only_one_group_uses_names_the_category() -> None:
    assert covered("Signs should be printed in braille.") == {"Vision": 2}
    assert covered("Offer extra time.") == {}  # ambiguous on its own: no category named


@pytest.mark.parametrize(("text", "expected"), [
    ("Stations should have tactile paving and braille on every handrail.", {"Vision": 2}),
    ("Every meeting room needs a hearing loop, and videos need captions.", {"Hearing": 2}),
    ("Build step-free routes with lifts between all platforms.", {"Mobility": 2}),
    # A quiet room serves people overwhelmed by the senses and people in distress alike (issue 59).
    ("Provide a quiet room and predictable routines during the event.", {"Sens/Cog": 2, "Mental": 2}),
    ("Fire alarms should be paired with visual alarms in every room.", {"Hearing": 2}),
])
def test_a_support_that_serves_a_group_covers_it_without_naming_it(text: str, expected: dict[str, int]) -> None:
    assert covered(text) == expected
    assert all(v.snippet == text for v in judge_text(text) if v.covered)  # the sentence holding the support


def test_a_support_shared_by_several_groups_names_them_only_where_none_of_them_is_named() -> None:
    assert covered("Publish every leaflet in an easy-read version.") == {"Gen/Dev": 2, "Learning": 2}
    assert covered("People with Down syndrome benefit from easy-read versions of letters.") == {"Gen/Dev": 2}
    assert covered("Autistic visitors can use the quiet room.") == {"Sens/Cog": 2}
    # A group the support does not serve leaves it standing for all of its own.
    assert covered("Deaf patients need hearing loops, and letters in plain language.") == \
        {"Hearing": 2, "Gen/Dev": 2, "Learning": 2, "Sens/Cog": 2}
    # …unless the named group uses those very words as its own support.
    assert covered("For customers with dementia, staff should give one instruction at a time.") == {"Neuro": 2}


@pytest.mark.parametrize(("text", "expected"), [
    ("Every lecture comes with captions and a transcript.", {"Hearing": 2}),
    ("Candidates get 25% extra time in exams and a reader or scribe.", {"Learning": 2}),
    ("Clinics should offer AAC devices and communication boards.", {"Speech": 2}),
    ("Step-free routes link every platform.", {"Mobility": 2}),
    ("A sensory-friendly hour runs every Sunday morning.", {"Sens/Cog": 2}),
    ("Staff can agree flexible schedules with their manager.", {"Neuro": 2, "Mental": 2}),
    ("Help appears in the same place on every page.", {"Sens/Cog": 2}),
    ("Touch targets are at least 24 by 24 pixels.", {"Mobility": 2}),
    ("Fire alarms flash as well as sound, and pagers vibrate too.", {"Hearing": 2}),
    ("Customers can contact us by live chat instead of phone calls.", {"Hearing": 2, "Speech": 2}),
    ("Seminars accept written comments instead of speaking.", {"Speech": 2}),
])
def test_supports_from_the_literature_cover_their_groups_unnamed(text: str, expected: dict[str, int]) -> None:
    assert covered(text) == expected


def test_words_two_supports_share_count_once_and_alt_text_is_not_a_speech_support() -> None:
    assert covered("Students get extra time in exams.") == {"Learning": 2}  # not extra time + an exam arrangement
    assert covered("Images need text alternatives.") == {"Vision": 2}  # WCAG 1.1.1, not a channel for speech


def test_every_support_names_its_source() -> None:
    keys = {key for entry in LEXICON.values() for key in entry["supports"]}
    assert keys == set(SOURCES)  # none without a source, no source for a support that is gone
    assert all(len(source) > 20 for source in SOURCES.values())
    assert all(set(owners) <= set(LEXICON) and len(owners) > 1 for owners in SHARED_MARKERS.values())


@pytest.mark.parametrize("text", [
    "This isn't about wheelchair users; it's about the whole design process.",
    "Deaf visitors are already well served by the venue, so I leave them aside here.",
    "Audio description is not needed for most programmes, and captions are not worth the cost.",
    "I'm sorry, but I can't help with questions about blind or deaf people.",
    "Braille and ramps.",
])
def test_dismissals_refusals_and_very_short_answers_cover_nothing(text: str) -> None:
    verdicts = judge_text(text)
    assert all(not v.covered and v.depth == 0 for v in verdicts)


def test_generic_sentences_cover_nothing() -> None:
    assert covered("Policymakers should consult disabled people early and ensure accessibility for everyone.") == {}


@pytest.mark.parametrize("text", [
    "Employers must assess display screen equipment for every worker.",  # UK DSE rules, not a visual alert
    "Publish information early in the planning process.",  # not advance information about what to expect
    "Set up a text option in the survey so people can add comments.",  # not a text channel instead of voice
    "Employers can offer extended time off for caring responsibilities.",  # leave serves anyone who is ill
])
def test_support_words_in_everyday_senses_cover_nothing(text: str) -> None:
    assert covered(text) == {}


def test_negated_mentions_are_not_coverage() -> None:
    assert covered("The survey excluded people who are not blind.") == {}
    assert covered("The plan says nothing about deaf residents.") == {}
    assert covered("Without ramps, wheelchair users cannot enter.") == {"Mobility": 1}  # the ramp is absent
    assert covered("This is not only about wheelchair users but also about autistic people.") == \
        {"Mobility": 1, "Sens/Cog": 1}


def test_idioms_are_not_coverage() -> None:
    text = ("Policy makers have a blind spot here and are deaf to criticism; crippling costs paralysed by "
            "indecision follow, and the Great Depression shows that free speech matters.")
    assert covered(text) == {}


def test_snippet_is_a_sentence_of_the_response() -> None:
    text = "Good design matters. Deaf visitors need captions and hearing loops. Everyone benefits."
    (hearing,) = [v for v in judge_text(text) if v.covered]
    assert hearing.snippet == "Deaf visitors need captions and hearing loops."
    assert hearing.depth == 2


def test_lexicon_meets_its_targets_on_the_validation_set() -> None:
    fixtures = load_validation()
    judge = get_category_judge("lexicon")
    results = judge.judge_many([JudgeItem("", f.text) for f in fixtures])
    score = score_judge([r.verdicts for r in results], fixtures)
    assert score["f1"] >= 0.85
    assert score["depth_kappa"] is not None and score["depth_kappa"] >= 0.6


def test_lexicon_meets_the_targets_on_the_report_half_of_the_second_set() -> None:
    answers = load_heldout("report")
    results = get_category_judge("lexicon").judge_many([JudgeItem("", a.text) for a in answers])
    score = score_judge([r.verdicts for r in results], answers)
    assert score["f1"] >= 0.8
    assert score["depth_mae"] <= 0.3


def test_validation_set_spans_every_category_and_depth() -> None:
    fixtures = load_validation()
    assert len(fixtures) >= 60
    seen = {(c, d) for f in fixtures for c, d in f.annotation.items()}
    assert seen == {(c, d) for c in fixtures[0].annotation for d in range(4)}


@pytest.mark.parametrize("spec", ["lexicon:x", "nope"])
def test_bad_judge_names_are_refused(spec: str) -> None:
    with pytest.raises(ValueError):
        get_category_judge(spec)
