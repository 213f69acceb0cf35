"""The one home of box geometry: what extractors and judges mean by overlap, cover and union."""

from __future__ import annotations

import math

import pytest

from common import geometry

A = (0.0, 0.0, 10.0, 10.0)


def test_area_is_zero_for_empty_and_inverted_boxes() -> None:
    assert geometry.area(A) == 100
    assert geometry.area((5, 5, 5, 9)) == 0
    assert geometry.area((10, 10, 0, 0)) == 0


def test_iou_and_intersection() -> None:
    b = (5.0, 0.0, 15.0, 10.0)
    assert geometry.intersection_area(A, b) == 50
    assert geometry.iou(A, b) == pytest.approx(50 / 150)
    assert geometry.iou((0, 0, 0, 0), (0, 0, 0, 0)) == 0.0


def test_covered_is_a_share_of_the_inner_box() -> None:
    assert geometry.covered((0, 0, 10, 4), (0, 0, 10, 2))  # half of it
    assert not geometry.covered((0, 0, 10, 4), (0, 0, 10, 1.9))
    assert not geometry.covered((3, 3, 3, 3), A)  # an empty box covers nothing and is covered by nothing


def test_overlaps_needs_an_area_and_touching_edges_do_not_count() -> None:
    assert geometry.overlaps(A, (9, 9, 20, 20))
    assert not geometry.overlaps(A, (10, 0, 20, 10))
    assert geometry.x_overlap(A, (8, 50, 20, 60)) == 2
    assert geometry.x_overlap(A, (11, 0, 20, 10)) == 0


def test_overlap_of_smaller_and_degenerate_boxes() -> None:
    assert geometry.overlap_of_smaller(A, (0, 0, 5, 5)) == 1.0
    assert geometry.overlap_of_smaller((2, 2, 2, 2), (2.5, 2.5, 2.5, 2.5)) == 1.0
    assert geometry.overlap_of_smaller((2, 2, 2, 2), (9, 9, 9, 9)) == 0.0


def test_inside_with_slack_and_centre_inside() -> None:
    assert not geometry.inside((-0.5, 0, 10, 10), A)
    assert geometry.inside((-0.5, 0, 10, 10), A, slack=1.0)
    assert geometry.centre_inside((8, 8, 11, 11), A)
    assert not geometry.centre_inside((9, 9, 13, 13), A)


def test_union_near_and_clip() -> None:
    assert geometry.union(A, [20, -1, 21, 2]) == (0, -1, 21, 10)
    assert geometry.union_all([A, (20, -1, 21, 2), (5, 5, 6, 30)]) == (0, -1, 21, 30)
    assert geometry.union_all([]) == (math.inf, math.inf, -math.inf, -math.inf)
    assert geometry.near(A, (12, 0, 20, 10), gap=2) and not geometry.near(A, (12.5, 0, 20, 10), gap=2)
    assert geometry.clip((-5, -5, 5, 50), A) == (0, 0, 5, 10)
