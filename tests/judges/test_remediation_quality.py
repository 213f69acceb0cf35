"""The remediation rubric: specific, actionable and technically valid advice is told from vague or invented advice."""

from __future__ import annotations

import pytest

from judges.remediation_quality import WCAG_22, score_issue, score_judgment


def test_located_concrete_valid_advice_scores_on_all_three() -> None:
    score = score_issue("Table 1 on page 3", "header cells are TD",
                        "tag the first row TH with Scope=Column (WCAG 2.2 SC 1.3.1, PDF/UA-1 7.5)")
    assert (score.specific, score.actionable, score.valid) == (True, True, True)
    assert {"TH", "TD", "Scope", "WCAG 1.3.1", "PDF/UA-1 7.5"} <= set(score.named)


@pytest.mark.parametrize(("location", "remediation", "specific", "actionable"), [
    ("", "fix the reading order", False, False),  # generic advice
    ("page 3", "make the table accessible", False, False),  # a page but no element
    ("Page 2, figure 1", "describe the figure better", True, False),  # located but says nothing concrete
    ("Page 1, font NewCM10-Regular", "embed all fonts", True, False),
    ("Page 1, “Darwin’s finches join genome club”", "tag it H1", True, True),  # the element by its text
    ("Page 1, link to 'cite.Smith2020'", "add /Contents naming the reference", True, True),
    ("Page 1, it", "tag it H1", False, True),
    ("", "darken the text to reach 4.5:1, e.g. #000000 on #ffffff", False, True),  # concrete values
    ("", "wrap the items in one L element", False, True),  # a structure type in a name context
    ("", "describe it in /Alt", False, True),
])
def test_specificity_and_actionability(location: str, remediation: str, specific: bool, actionable: bool) -> None:
    score = score_issue(location, "", remediation)
    assert (score.specific, score.actionable) == (specific, actionable)


def test_invented_tags_criteria_and_clauses_are_invalid() -> None:
    score = score_issue("Page 1, table 1", "", "tag it as TableHeader and add a <Heading> per WCAG 1.3.9 and "
                                                "PDF/UA-1 7.25")
    assert score.valid is False
    assert set(score.invalid) == {"TableHeader", "Heading", "WCAG 1.3.9", "PDF/UA-1 7.25"}


def test_ordinary_words_are_not_taken_for_tags_and_standards_names_are_not_tags() -> None:
    score = score_issue("Page 2, figure 1", "the Figure is missing a Caption (PDF/UA-1 7.3)",
                        "Describe the Table in the Document text")
    assert score.invalid == [] and score.valid is True  # only the clause is named, and it exists
    assert not score.actionable


def test_wcag_22_list_holds_new_criteria_but_not_removed_parsing() -> None:
    assert {"2.4.11", "2.5.8", "3.3.8", "1.4.13"} <= WCAG_22 and "4.1.1" not in WCAG_22 and "1.4.14" not in WCAG_22


def test_judgment_scores_are_means_over_issues_and_nothing_checkable_counts_zero_in_the_score() -> None:
    issues = [
        {"location": "Page 1, table 1", "problem": "", "remediation": "tag the header row TH with Scope=Column"},
        {"location": "Page 1", "problem": "", "remediation": "fix it"},
    ]
    result = score_judgment(issues, None)
    assert result["issues"] == 2
    assert result["specificity"] == 0.5 and result["actionability"] == 0.5
    assert result["technical_validity"] == 1.0  # over the one issue that names something checkable
    assert result["score"] == pytest.approx((0.5 + 0.5 + 1.0) / 3)
    bare = score_judgment([], "fix the reading order")
    assert bare["issues"] == 0 and bare["technical_validity"] is None and bare["score"] == 0.0
    assert score_judgment([], "")["score"] == 0.0
