"""Axis-aligned boxes ``(x0, y0, x1, y1)`` in PDF points, top-left origin: areas, overlaps, unions.

Every box helper of the extractors and judges lives here, so "overlaps" means the same thing in
the extracted tables and in the judgments made from them. Boxes may be lists or tuples.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

Box = tuple[float, float, float, float]


def area(b: Sequence[float]) -> float:
    """The area of ``b``; 0 for an empty or inverted box."""
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def intersection_area(a: Sequence[float], b: Sequence[float]) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def x_overlap(a: Sequence[float], b: Sequence[float]) -> float:
    """The width the two boxes share horizontally (0 when they do not)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0]))


def overlaps(a: Sequence[float], b: Sequence[float]) -> bool:
    """Do the two boxes share an area (touching edges do not count)?"""
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union; 0 when both boxes are empty."""
    inter = intersection_area(a, b)
    union_area = area(a) + area(b) - inter
    return inter / union_area if union_area > 0 else 0.0


def covered(inner: Sequence[float], outer: Sequence[float], share: float = 0.5) -> bool:
    """Does at least ``share`` of ``inner``'s (non-empty) area lie inside ``outer``?"""
    return area(inner) > 0 and intersection_area(inner, outer) >= share * area(inner)


def overlap_of_smaller(a: Sequence[float], b: Sequence[float]) -> float:
    """Shared area over the smaller box's area; for a degenerate box, 1.0 when the two start at the same point."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    if smaller <= 0:
        return 1.0 if abs(a[0] - b[0]) < 1 and abs(a[1] - b[1]) < 1 else 0.0
    return max(0.0, w) * max(0.0, h) / smaller


def inside(inner: Sequence[float], outer: Sequence[float], slack: float = 0.0) -> bool:
    """Is ``inner`` within ``outer`` grown by ``slack`` on every side?"""
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack
            and inner[2] <= outer[2] + slack and inner[3] <= outer[3] + slack)


def centre_inside(inner: Sequence[float], outer: Sequence[float]) -> bool:
    """Is the centre of ``inner`` within ``outer`` (edges included)?"""
    x, y = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] <= x <= outer[2] and outer[1] <= y <= outer[3]


def near(a: Sequence[float], b: Sequence[float], gap: float) -> bool:
    """Are the boxes at most ``gap`` apart on both axes (overlapping ones included)?"""
    return a[0] - gap <= b[2] and b[0] - gap <= a[2] and a[1] - gap <= b[3] and b[1] - gap <= a[3]


def union(a: Sequence[float], b: Sequence[float]) -> Box:
    """The smallest box holding both."""
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def union_all(boxes: Iterable[Sequence[float]]) -> Box:
    """The smallest box holding all of ``boxes``; inverted infinities when there are none."""
    x0 = y0 = math.inf
    x1 = y1 = -math.inf
    for b in boxes:
        x0, y0, x1, y1 = min(x0, b[0]), min(y0, b[1]), max(x1, b[2]), max(y1, b[3])
    return (x0, y0, x1, y1)


def clip(box: Sequence[float], bounds: Sequence[float]) -> Box:
    """``box`` cut to ``bounds`` (may come out inverted when they do not meet)."""
    return (max(box[0], bounds[0]), max(box[1], bounds[1]), min(box[2], bounds[2]), min(box[3], bounds[3]))
