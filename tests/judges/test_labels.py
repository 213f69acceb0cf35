"""Label vocabulary and the conservative page → document rule."""

from __future__ import annotations

import pytest

from judges.criteria import labels_for
from judges.labels import Label, aggregate_labels, parse_label


@pytest.mark.parametrize(("pages", "expected"), [
    (["passed", "failed", "cannot_tell"], Label.FAILED),
    (["passed", "cannot_tell", "not_present"], Label.CANNOT_TELL),
    (["not_present", "passed"], Label.PASSED),
    (["not_present", "not_present"], Label.NOT_PRESENT),
    ([], Label.NOT_PRESENT),
])
def test_conservative_aggregation(pages: list[str], expected: Label) -> None:
    assert aggregate_labels(pages) == expected


def test_parse_label_spellings() -> None:
    assert parse_label("Not Present") is Label.NOT_PRESENT
    assert parse_label("cannot-tell") is Label.CANNOT_TELL
    assert parse_label("PASS") is Label.PASSED
    with pytest.raises(ValueError, match="unknown label"):
        parse_label("maybe")


def test_not_present_does_not_exist_for_order_contrast_fonts() -> None:
    for criterion in ("logical_reading_order", "color_contrast", "fonts_readability"):
        assert Label.NOT_PRESENT not in labels_for(criterion)
    assert Label.NOT_PRESENT in labels_for("table_structure")
