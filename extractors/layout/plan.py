"""Which pages the layout model runs on, and why: only where its regions can change a result.

Layout regions feed the search for drawn tables the tags miss and the figure and table
evidence; a page the tag tree already accounts for, or one with nothing but text on it,
gets nothing from the model (~0.4 s a page). A page is laid out when it has, outside every
tagged Figure, Formula and Table box:

- ``untagged_image``: a raster image of at least 2% of the page (the figures extractor's
  ``small`` limit: icons and inline formula images are not judged);
- ``untagged_graphics``: a cluster of vector shapes the figures extractor would call a
  figure (three or more shapes that are not hairlines, at least 2% of the page);
- ``table_candidate``: three or more horizontal rules of one width (a table's rules), or
  more "Table N" captions than tagged tables on the page.

It is skipped as ``covered_by_tags`` when such content exists but tagged boxes cover it,
and as ``text_only`` when there is none.

A run whose judges read no region but a table's (the rules judge and the checkers:
``drawn_tables_only``) needs the model on fewer pages still. The rules judge reads a page's
table regions only beside a table drawn with lines that the extractor's line-based search
(``find_tables``) finds on that page, and only where such a table is no tagged Table's box and
lies outside every one (the extractor's ``_visual_tables`` drops a drawn table that a tagged box
covers or that covers one; a table record drawn on the page is the only one a region is read for).
On a page where that search finds no table at all, the regions can change no table record, no
finding and no label: such a page that would have been laid out is skipped as ``no_drawn_table``.
One where every table it finds is covered by a tagged Table's box or covers one (the boxes taken
as the extractor takes them from the tagged table records) is skipped as ``drawn_tables_tagged``,
for the same reason. A page with a drawn table the tags miss is laid out as before, so its regions,
and everything read from them, are the same.
Where the document's regions do not reach that search (``regions_searched=False``: the extraction of
its file is computed for another document of the run, one of a criterion that is not laid out, as a
screened file's is), the search looks only at the pages it picks on its own
(``extractors.tables.searches_page``: more "Table N" captions than tagged tables, or rules in an
untagged file); on any other page no drawn-table record can come, whatever the model finds, so such
a page is skipped as ``not_searched`` before the drawn-table search itself runs. In an untagged document
(no structure tree) the rules judge has no table structure to assess and reads no region at all:
its pages are not planned at all, each recorded as ``untagged_document``.

``every_page`` records a run that laid out every page (a document without a readable tag tree
is planned normally: it has no tagged boxes).
Each decision is a ``layout_pages`` row, so the choice can be audited in SQL.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from common import geometry
from extractors.figures import SMALL_SHARE, _vector_clusters
from extractors.source import PdfSource
from extractors.tables import _caption_count, _ruled, drawn_tables, searches_page

RUN_REASONS = ("untagged_image", "untagged_graphics", "table_candidate", "every_page")
SKIP_REASONS = ("covered_by_tags", "text_only", "no_drawn_table", "drawn_tables_tagged", "not_searched",
                "untagged_document")
# The tag types whose boxes account for pictures and tables (a formula is often an image).
_COVERING = {"Figure": "figure", "Formula": "figure", "Form": "figure", "Table": "table"}
_IMAGE_OPS = ("fill-image", "fill-imgmask")
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class PagePlan:
    number: int  # 0-based page of the file
    run: bool
    reason: str


def plan_pages(source: PdfSource, elements: Sequence[dict], page_offset: int = 0,
               drawn_tables_only: bool = False, untagged: bool = False,
               regions_searched: bool = True) -> list[PagePlan]:
    """One decision per page of ``source``; ``elements`` are its struct_elements records.

    ``drawn_tables_only``: only pages with a line-drawn table need the model, and none of an ``untagged``
    document; with ``regions_searched`` False, only those the drawn-table search looks at on its own (see the
    module's doc)."""
    figures: dict[int, list[Box]] = defaultdict(list)
    tables: dict[int, list[Box]] = defaultdict(list)
    for e in elements:
        kind = _COVERING.get(e["type"])
        box = e.get("subtree_bbox") or e.get("bbox")
        if kind is None or e["page"] is None or not box:
            continue
        (tables if kind == "table" else figures)[e["page"] - 1 - page_offset].append(tuple(box))
    if drawn_tables_only and untagged:  # nothing to plan: no page needs the model
        return [PagePlan(n, False, "untagged_document") for n in range(source.page_count)]
    plans = [_plan_page(source, n, figures[n] + tables[n], tables[n]) for n in range(source.page_count)]
    if drawn_tables_only:
        tagged = _tagged_table_boxes(elements, page_offset)
        plans = [_drawn_tables_plan(source, p, tagged[p.number], regions_searched, not elements) if p.run else p
                 for p in plans]
    return plans


def _tagged_table_boxes(elements: Sequence[dict], page_offset: int) -> dict[int, list[Sequence[float]]]:
    """Per 0-based page, the boxes of the tagged table records as ``extractors.tables._visual_tables`` reads them:
    every Table element's ``subtree_bbox`` (its table record's ``bbox``) where it has a page and a box."""
    boxes: dict[int, list[Sequence[float]]] = defaultdict(list)
    for e in elements:
        if e["type"] == "Table" and e["page"] is not None and e.get("subtree_bbox") is not None:
            boxes[e["page"] - 1 - page_offset].append(e["subtree_bbox"])
    return boxes


def _drawn_tables_plan(source: PdfSource, plan: PagePlan, tagged: list[Sequence[float]], regions_searched: bool,
                       untagged: bool) -> PagePlan:
    """A planned page kept only where a line-drawn table is found that the extractor would record as untagged
    (no tagged Table box covers it or lies inside it, as ``_visual_tables`` tests the rounded box), on a page the
    extractor's search looks at (without the regions, only those it picks on its own)."""
    if not regions_searched and not searches_page(source, plan.number, len(tagged), untagged):
        return PagePlan(plan.number, False, "not_searched")
    found = drawn_tables(source, plan.number)
    if not found:
        return PagePlan(plan.number, False, "no_drawn_table")
    for table in found:
        bbox = [round(v, 2) for v in table.bbox]
        if not any(geometry.covered(bbox, t) or geometry.covered(t, bbox) for t in tagged):
            return plan
    return PagePlan(plan.number, False, "drawn_tables_tagged")


def _plan_page(source: PdfSource, number: int, tagged: list[Box], tagged_tables: list[Box]) -> PagePlan:
    page = source.page(number)
    bounds = page.rect * page.derotation_matrix  # the drawing log's unrotated page space
    area = abs(bounds.width * bounds.height) or 1.0
    log = source.drawing_log(number)
    found = False

    def uncovered(box: Sequence[float]) -> bool:
        return not any(geometry.covered(box, t) for t in tagged)

    images = [geometry.clip(box, tuple(bounds)) for kind, box in log if kind in _IMAGE_OPS]
    images = [b for b in images if geometry.area(b) >= SMALL_SHARE * area]
    found |= bool(images)
    if any(uncovered(b) for b in images):
        return PagePlan(number, True, "untagged_image")
    clusters = _vector_clusters(log, area, [])
    found |= bool(clusters)
    if any(uncovered(c.bbox) for c in clusters):
        return PagePlan(number, True, "untagged_graphics")
    if _ruled(log):
        found = True
        if _ruled([(kind, box) for kind, box in log if not any(geometry.covered(box, t) for t in tagged_tables)]):
            return PagePlan(number, True, "table_candidate")
    captions = _caption_count(source.text_blocks(number, 0))
    found |= captions > 0
    if captions > len(tagged_tables):
        return PagePlan(number, True, "table_candidate")
    return PagePlan(number, False, "covered_by_tags" if found else "text_only")


def every_page(source: PdfSource) -> list[PagePlan]:
    return [PagePlan(n, True, "every_page") for n in range(source.page_count)]
