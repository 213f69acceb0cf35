"""How far a document's reading order follows its visual order: statistics over `reading_order` rows.

The rows come from :func:`extractors.reading_order.extract_reading_order`, in a worker that reads the PDF;
these statistics need the rows only (the inputs stage computes them in the run's own process), so this
module imports no PDF library.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

# A footnote starts with its marker, then words: "1The", "1 The", "2. See", "* Corresponding".
FOOTNOTE_MARK = re.compile(r"^\s*(\d{1,3}|[*†‡§¶‖#])[.)]?\s*(?=[^\W\d_]|[(“\"'])")

# Placed apart from the text around them, with more than one acceptable reading position.
_UNRANKED_ROLES = frozenset({"header", "footer", "footnote", "caption", "figure"})


def order_agreement(records: Iterable[dict], *, page: int | None = None, tolerance: float = 0.5,
                    max_column_switches: int = 3) -> dict[str, Any]:
    """How far the structure order (and the content order) follows the visual order.

    Pass one document's records; with ``page`` the statistics cover that page only, while
    footnotes are still placed in the whole document's structure order. Pairs are only
    compared within a page. Running headers, footers, footnotes, captions and text inside
    figures are left out of tau, transitions and column switches (a caption may be read
    before or after its float, a note where it is cited or at the foot of the page, a chart's
    labels in any order); footnotes are checked on their own. Returns:

    - ``units``, ``struct_units`` (units with a struct rank) and ``coverage`` (their share of
      the non-header/footer units);
    - ``tau_struct_visual`` and ``tau_content_visual``: Kendall tau-b, null under two units;
    - ``transitions`` and ``out_of_order``: consecutive units in structure order, and those
      whose second unit lies visually before the first (units on the same line, overlapping
      by more than ``tolerance`` of the shorter height, do not count);
    - ``footnotes`` and ``footnotes_in_body`` (with ``footnote_in_body``): footnote units whose
      structure predecessor is body text that neither cites the footnote's marker nor comes
      just before it on the page (the note has been moved into unrelated running text);
    - ``column_switches_struct`` / ``column_switches_visual`` and ``columns_interleaved``:
      structure order changes column more than ``max_column_switches`` times beyond what
      the visual order needs.
    """
    rows = list(records)
    scope = [r for r in rows if page is None or r["page"] == page]
    ranked = [r for r in scope if r["role"] not in _UNRANKED_ROLES]
    by_page: dict[int, list[dict]] = defaultdict(list)
    for r in ranked:
        by_page[r["page"]].append(r)
    transitions = out_of_order = switches_struct = switches_visual = 0
    tau_s: list[tuple[float, float, float]] = []
    tau_c: list[tuple[float, float, float]] = []
    for units in by_page.values():
        tagged = [r for r in units if r["struct_rank"] is not None]
        tau_s.append(_tau_terms([r["struct_rank"] for r in tagged], [r["visual_rank"] for r in tagged]))
        tau_c.append(_tau_terms([r["content_rank"] for r in units], [r["visual_rank"] for r in units]))
        in_struct = sorted(tagged, key=lambda r: r["struct_rank"])
        for a, b in zip(in_struct, in_struct[1:], strict=False):
            transitions += 1
            if b["visual_rank"] < a["visual_rank"] and not _same_line(a["bbox"], b["bbox"], tolerance):
                out_of_order += 1
        switches_struct += column_switches(in_struct)
        switches_visual += column_switches(sorted(tagged, key=lambda r: r["visual_rank"]))
    footnotes = [r for r in scope if r["role"] == "footnote" and r["elem_id"] is not None]
    misplaced = sum(1 for r in footnotes if _footnote_in_body(r, rows))
    eligible = [r for r in scope if r["role"] not in ("header", "footer")]
    struct_units = sum(1 for r in eligible if r["struct_rank"] is not None)
    return {
        "units": len(scope),
        "struct_units": struct_units,
        "coverage": struct_units / len(eligible) if eligible else None,
        "tau_struct_visual": _tau(tau_s),
        "tau_content_visual": _tau(tau_c),
        "transitions": transitions,
        "out_of_order": out_of_order,
        "footnotes": len(footnotes),
        "footnotes_in_body": misplaced,
        "footnote_in_body": misplaced > 0,
        "column_switches_struct": switches_struct,
        "column_switches_visual": switches_visual,
        "columns_interleaved": switches_struct - switches_visual > max_column_switches,
    }


def _tau_terms(x: Sequence[float], y: Sequence[float]) -> tuple[float, float, float]:
    """Kendall tau-b numerator and the two tie-corrected pair counts."""
    if len(x) < 2:
        return 0.0, 0.0, 0.0
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    sx = np.sign(a[:, None] - a[None, :])
    sy = np.sign(b[:, None] - b[None, :])
    upper = np.triu(np.ones(sx.shape, dtype=bool), 1)
    return float((sx * sy)[upper].sum()), float(np.abs(sx)[upper].sum()), float(np.abs(sy)[upper].sum())


def _tau(terms: list[tuple[float, float, float]]) -> float | None:
    numerator = sum(t[0] for t in terms)
    nx, ny = sum(t[1] for t in terms), sum(t[2] for t in terms)
    if nx == 0 or ny == 0:
        return None
    return round(numerator / math.sqrt(nx * ny), 4)


def _same_line(a: Sequence[float], b: Sequence[float], tolerance: float) -> bool:
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap > tolerance * min(a[3] - a[1], b[3] - b[1])


def column_switches(units: list[dict]) -> int:
    columns = [r["column"] for r in units if r["column"] is not None]
    return sum(1 for a, b in zip(columns, columns[1:], strict=False) if a != b)


def _footnote_in_body(note: dict, rows: list[dict]) -> bool:
    """Is the footnote read in the middle of body text that has nothing to do with it?

    Its neighbours in the document's structure order (other footnotes skipped) must both be
    running text: a note read at the end of the text (endnotes, notes after the last
    paragraph) is fine. So is a predecessor whose element cites the note's marker
    ("varied.1"), or one that is visually just before the note on its page.
    """
    def key(r: dict) -> tuple[int, int, int]:
        return (r["elem_id"], r["page"], r["content_rank"])

    text = [r for r in rows if r["elem_id"] is not None and r["role"] not in _UNRANKED_ROLES
            and r["elem_id"] != note["elem_id"]]
    before = [r for r in text if key(r) < key(note)]
    after = [r for r in text if key(r) > key(note)]
    if not before or not after:
        return False
    previous = max(before, key=key)
    if previous["page"] == note["page"]:
        on_page = sorted((r for r in rows if r["page"] == note["page"] and r["role"] in ("body", "title")),
                         key=lambda r: r["visual_rank"])
        earlier = [r for r in on_page if r["visual_rank"] < note["visual_rank"]]
        if earlier and earlier[-1] is previous:
            return False
    mark = FOOTNOTE_MARK.match(note["text"])
    return not (mark is not None and any(mark.group(1) in r["marks"] for r in text
                                         if r["elem_id"] == previous["elem_id"]))
