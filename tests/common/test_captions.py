"""The one caption grammar: which labels count, for which readers, and what is left after the label."""

from __future__ import annotations

import pytest

from common.captions import caption_label, is_caption, is_table_caption, strip_caption_label


@pytest.mark.parametrize(("text", "kind", "number"), [
    ("Figure 2: Weekly visits", "figure", "2"),
    ("Fig. 3 shows the trend", "figure", "3"),
    ("  FIG.IV", "figure", "IV"),
    ("Scheme 1 — synthesis", "figure", "1"),
    ("Table 12b. Counts", "table", "12b"),
    ("Tab. 2", "table", "2"),
    ("Algorithm 1: Greedy", "other", "1"),
])
def test_labels_and_their_kinds(text: str, kind: str, number: str) -> None:
    label = caption_label(text)
    assert label is not None and (label.kind, label.number) == (kind, number)


@pytest.mark.parametrize("text", ["graphic variables and social adversity", "Tablets 1", "Figures 2 and 3",
                                  "The Figure 2 caption", "Tablexyz", ""])
def test_words_that_only_start_like_a_label_are_not_captions(text: str) -> None:
    assert caption_label(text) is None


def test_closed_labels_are_what_reading_order_calls_a_caption() -> None:
    assert is_caption("Figure 2: Visits", closed=True) and is_caption("Table 1", closed=True)
    assert not is_caption("Figure 2 shows the visits", closed=True)
    assert is_caption("Figure 2 shows the visits")  # next to a picture, any label will do


def test_kinds_filter_the_labels() -> None:
    assert is_caption("Table 1: Counts", {"figure", "table"}) and not is_caption("Algorithm 1:", {"figure", "table"})
    assert is_table_caption("Table IV. Results") and is_table_caption("tab. 2")
    assert not is_table_caption("Figure 1: A chart") and not is_table_caption("Table 2nd edition")


def test_strip_caption_label_leaves_the_title() -> None:
    assert strip_caption_label("Figure 2: Weekly visits per site.", {"figure"}) == "Weekly visits per site."
    assert strip_caption_label("Fig. 1 Time-dependent results", {"figure"}) == "Time-dependent results"
    assert strip_caption_label("Table 1: Counts", {"figure"}) == "Table 1: Counts"  # not a figure label
    assert strip_caption_label("No label here", {"figure"}) == "No label here"
