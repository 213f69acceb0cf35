"""logical_reading_order mutations: the structure order stops following the page.

Assistive technology reads a tagged PDF in structure-tree order. These mutations reorder the
kids of the Document element (or move one element into another), so the tree order disagrees
with the visual flow, while the page content, text and element types stay unchanged:

* a whole section (heading and everything up to the next H1) moved before an earlier one;
* a heading placed after the paragraph it introduces;
* a footnote moved into the middle of an unrelated paragraph elsewhere in the document;
* two columns interleaved: blocks ordered by height on the page, reading across the gutter.

There is no Not Present for this criterion.
"""

from __future__ import annotations

import random
from typing import Any

import pikepdf

from corpus.mutations.content import Origin, element_origins
from corpus.mutations.structure import (
    HEADING_TYPES,
    NotApplicable,
    PdfObject,
    document_element,
    elements_of,
    is_struct_elem,
    kids,
    rebuild_parent_tree,
    same,
    set_kids,
    stype,
)


def _top_blocks(pdf: pikepdf.Pdf) -> tuple[PdfObject, list[Any]]:
    doc = document_element(pdf)
    return doc, kids(doc)


def section_moved(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """A later H1 section (heading to the next H1) is moved before an earlier one."""
    doc, blocks = _top_blocks(pdf)
    starts = [i for i, k in enumerate(blocks) if is_struct_elem(k) and stype(k) == "/H1"]
    if len(starts) < 2:
        raise NotApplicable("fewer than two H1 sections")
    bounds = [*starts, len(blocks)]
    moved = rng.randrange(1, len(starts))
    before = rng.randrange(0, moved)
    section = blocks[bounds[moved] : bounds[moved + 1]]
    rest = blocks[: bounds[moved]] + blocks[bounds[moved + 1] :]
    set_kids(doc, rest[: starts[before]] + section + rest[starts[before] :])


def heading_after_body(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """One heading swaps places with the paragraph that follows it."""
    doc, blocks = _top_blocks(pdf)
    pairs = [i for i in range(len(blocks) - 1)
             if is_struct_elem(blocks[i]) and stype(blocks[i]) in HEADING_TYPES
             and is_struct_elem(blocks[i + 1]) and stype(blocks[i + 1]) == "/P"]
    if not pairs:
        raise NotApplicable("no heading followed by a paragraph")
    i = rng.choice(pairs)
    blocks[i], blocks[i + 1] = blocks[i + 1], blocks[i]
    set_kids(doc, blocks)


def footnote_misplaced(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """A footnote (Note) leaves the paragraph that cites it and lands mid-way through a distant one."""
    notes = elements_of(pdf, "/Note")
    if not notes:
        raise NotApplicable("no footnotes")
    note = rng.choice(notes)
    home = note.P
    _, blocks = _top_blocks(pdf)
    paragraphs = [k for k in blocks if is_struct_elem(k) and stype(k) == "/P" and len(kids(k)) >= 2]
    home_index = next((i for i, k in enumerate(blocks) if same(k, home)), None)
    far = [p for p in paragraphs if home_index is None or abs(_index(blocks, p) - home_index) >= 3]
    if not far:
        raise NotApplicable("no distant paragraph to move the footnote into")
    target = rng.choice(far)
    set_kids(home, [k for k in kids(home) if not same(k, note)])
    target_kids = kids(target)
    middle = len(target_kids) // 2
    set_kids(target, target_kids[:middle] + [note] + target_kids[middle:])
    note.P = target
    rebuild_parent_tree(pdf)


def _index(blocks: list[Any], elem: PdfObject) -> int:
    return next(i for i, k in enumerate(blocks) if same(k, elem))


def columns_interleaved(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """On two-column pages, blocks are ordered by height alone, so reading jumps across the gutter."""
    doc, blocks = _top_blocks(pdf)
    origins = element_origins(pdf)
    width = float(pdf.pages[0].mediabox[2])
    if not _has_two_columns(blocks, origins, width):
        raise NotApplicable("single-column layout")
    keyed: list[tuple[tuple[int, float], int, Any]] = []
    last: tuple[int, float] = (0, 0.0)
    for n, kid in enumerate(blocks):
        origin = origins.get(kid.objgen) if is_struct_elem(kid) else None
        # Blocks without painted content keep their neighbour's key, so they travel with it.
        last = (origin.page, -round(origin.y)) if origin is not None else last
        keyed.append((last, n, kid))
    reordered = [kid for _, _, kid in sorted(keyed, key=lambda item: (item[0], item[1]))]
    if [k.objgen for k in reordered if is_struct_elem(k)] == [k.objgen for k in blocks if is_struct_elem(k)]:
        raise NotApplicable("ordering by height changes nothing")
    set_kids(doc, reordered)


def _has_two_columns(blocks: list[Any], origins: dict[tuple[int, int], Origin], width: float) -> bool:
    xs = [origins[k.objgen].x for k in blocks if is_struct_elem(k) and k.objgen in origins]
    return any(x < width * 0.4 for x in xs) and any(x > width * 0.5 for x in xs)
