"""Figures: raster images drawn on the pages, vector drawings, and Figure elements, with their alt text.

Three sources are reconciled per page:

- image placements (what ``page.get_image_info()`` reports; the image object is found through the page's
  image list by pixel size, and only when that is ambiguous by PyMuPDF's digest matching);
- vector figures: clusters of filled or stroked paths (charts, diagrams) found in the page's
  drawing log (``page.get_bboxlog()``, read once per page and shared with tables;
  ``cluster_drawings`` costs several times more). Table rules and lone boxes do not make a
  figure: a cluster needs three or more shapes that are not hairlines, and one that mostly
  covers a tagged table or an image is dropped;
- Figure elements of the tag tree, matched to the image or cluster their box covers (or,
  for a Figure without content of its own, the one its caption labels); one that matches
  none is reported as ``figure_tag_only``.

An image or cluster that no struct element covers is an artifact (``is_artifact``): it was
drawn inside /Artifact marked content or outside any marked content, so assistive technology
skips it. Struct element boxes include the images drawn in their marked content (see
``extractors.structure``), which is what makes the bbox match reliable. ``is_artifact`` is
null for untagged files, where nothing is referenced. Images under 16 pixels on a side
(spacers, bullets, glyphs) are ignored unless they are the only picture of a Figure element; those under 2% of the
page are kept and marked ``small`` (icons, logos: often decorative). Coordinates are PDF
points, top-left origin, unrotated page space.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymupdf

from common import captions, geometry
from extractors.errors import reading
from extractors.source import PdfSource, pdf_source
from extractors.structure.records import extract_struct_elements
from extractors.tables import StructIndex, render_crops

MIN_PIXELS = 16
SMALL_SHARE = 0.02
_FIGURE_TYPES = frozenset({"Figure", "Formula", "Form"})
_CAPTION_DISTANCE = 60.0
_CAPTION_KINDS = frozenset({"figure", "table"})  # a picture's caption may be a table's ("Table 2" above a chart)
_HAIRLINE = 1.5  # points: table rules, underlines, axes
_CLUSTER_GAP = 6.0
_MIN_SHAPES = 3

Box = tuple[float, float, float, float]


@dataclass
class _Candidate:
    bbox: Box
    kind: str  # image | vector
    xref: int | None = None
    width: int | None = None
    height: int | None = None
    elem: dict | None = None
    referenced: bool = False
    caption: str | None = None


@dataclass
class _PageElements:
    figures: list[dict] = field(default_factory=list)
    tables: list[Box] = field(default_factory=list)
    owners: list[tuple[dict, Box]] = field(default_factory=list)  # elements with own content


def extract_figures(pdf: str | Path | PdfSource, *, doc_id: str, page_offset: int = 0,
                    elements: Sequence[dict] | None = None) -> list[dict]:
    """Figure records (``FIGURES_SCHEMA``), page by page, top to bottom; ``crop_path`` is left null.

    ``elements`` are this file's struct_elements records (extracted here when None).
    Raises ExtractionError for unreadable input.
    """
    with pdf_source(pdf) as source:
        return _figures(source, doc_id, page_offset,
                        extract_struct_elements(source, doc_id=doc_id, page_offset=page_offset)
                        if elements is None else elements)


def _figures(source: PdfSource, doc_id: str, page_offset: int, elements: Sequence[dict]) -> list[dict]:
    tagged = bool(elements)
    index = StructIndex(elements)
    by_page: dict[int | None, _PageElements] = defaultdict(_PageElements)
    for e in elements:
        page = e["page"] - 1 - page_offset if e["page"] is not None else None
        if e["type"] == "Figure":
            if page is None:  # no content of its own: place it where its caption is
                caption = index.caption_element(e["elem_id"])
                page = caption["page"] - 1 - page_offset if caption and caption["page"] is not None else None
            by_page[page].figures.append(e)
        elif e["type"] == "Table" and e["subtree_bbox"]:
            by_page[page].tables.append(tuple(e["subtree_bbox"]))
        if e["bbox"]:
            by_page[page].owners.append((e, tuple(e["bbox"])))
    records: list[dict] = []
    with reading(source, "figures"):
        for page in source.pages():
            records += _page_figures(source, page, by_page[page.number], index, tagged, doc_id, page_offset)
    # Figure elements with no content anywhere still carry an alt text worth judging.
    records += [_record(doc_id, None, None, "figure_tag_only", e, False, index.caption(e["elem_id"]), None)
                for e in by_page[None].figures]
    for i, record in enumerate(records):
        record["figure_index"] = i
    return records


def _page_figures(source: PdfSource, page: pymupdf.Page, elements: _PageElements, index: StructIndex,
                  tagged: bool, doc_id: str, page_offset: int) -> list[dict]:
    area = abs(page.rect.width * page.rect.height) or 1.0
    images = _images(source, page)
    vectors = _vector_clusters(source.drawing_log(page.number), area, [c.bbox for c in images] + elements.tables)
    candidates = images + vectors
    claimed: set[int] = set()
    for candidate in candidates:
        figure = _best_figure(candidate.bbox, elements.figures)
        if figure is not None:
            candidate.elem, candidate.referenced = figure, True
            claimed.add(figure["elem_id"])
        else:
            owner = _owner(candidate.bbox, elements.owners)
            candidate.elem, candidate.referenced = owner, owner is not None
    texts = _text_blocks(source, page.number) if candidates else []
    for candidate in candidates:
        figure_caption = index.caption(candidate.elem["elem_id"]) if candidate.elem is not None else None
        candidate.caption = figure_caption or _caption_nearby(candidate.bbox, texts)
    _claim_by_caption(candidates, elements.figures, claimed, index)
    # Spacers, bullets, glyphs drawn as tiny images: kept only as the one picture of a Figure.
    pictured = {c.elem["elem_id"] for c in candidates if c.elem is not None and _big_enough(c)}
    kept = [c for c in candidates if _big_enough(c)
            or (c.elem is not None and c.elem["type"] == "Figure" and c.elem["elem_id"] not in pictured
                and not _duplicate(c, candidates))]
    records = []
    number = page.number + 1 + page_offset
    for candidate in kept:
        record = _record(doc_id, number, candidate.bbox, candidate.kind, candidate.elem,
                         None if not tagged else not candidate.referenced, candidate.caption, candidate)
        record["small"] = geometry.area(candidate.bbox) < SMALL_SHARE * area
        records.append(record)
    for figure in elements.figures:
        if figure["elem_id"] not in claimed:
            box = figure["subtree_bbox"]
            record = _record(doc_id, number, tuple(box) if box else None, "figure_tag_only", figure, False,
                             index.caption(figure["elem_id"]), None)
            record["small"] = box is not None and geometry.area(box) < SMALL_SHARE * area
            records.append(record)
    records.sort(key=lambda r: (r["bbox"] or [0, 0])[1::-1])  # top to bottom, then left to right
    return records


def _claim_by_caption(candidates: list[_Candidate], figures: list[dict], claimed: set[int],
                      index: StructIndex) -> None:
    """A Figure element without content of its own (its drawing sits outside marked content)
    takes the picture labelled by the same caption. The picture stays an artifact."""
    for figure in figures:
        if figure["elem_id"] in claimed or figure["subtree_bbox"]:
            continue
        caption = _squashed(index.caption(figure["elem_id"]))
        for candidate in candidates:
            unowned = candidate.elem is None or candidate.elem["type"] != "Figure"
            if unowned and caption and _squashed(candidate.caption) == caption:
                candidate.elem = figure
                claimed.add(figure["elem_id"])
                break


def _squashed(text: str | None) -> str:
    return "".join((text or "").split()).lower()


def _record(doc_id: str, page: int | None, bbox: Sequence[float] | None, kind: str, elem: dict | None,
            is_artifact: bool | None, caption: str | None, candidate: _Candidate | None) -> dict[str, Any]:
    return {
        "doc_id": doc_id,
        "figure_index": 0,
        "page": page,
        "bbox": [round(v, 2) for v in bbox] if bbox else None,
        "kind": kind,
        "elem_id": elem["elem_id"] if elem else None,
        "alt": elem["alt"] if elem else None,
        "actual_text": elem["actual_text"] if elem else None,
        "is_artifact": is_artifact,
        "caption": caption,
        "image_xref": candidate.xref if candidate else None,
        "width_px": candidate.width if candidate else None,
        "height_px": candidate.height if candidate else None,
        "small": False,
        "crop_path": None,
    }


# --------------------------------------------------------------------------- images


def _images(source: PdfSource, page: pymupdf.Page) -> list[_Candidate]:
    """Image placements, clipped to the page, with the image object when it can be told."""
    by_size: dict[tuple[int, int], list[int]] = defaultdict(list)
    for xref, _smask, width, height, *_ in page.get_images(full=True):
        if xref not in by_size[(width, height)]:
            by_size[(width, height)].append(xref)
    # What page.get_image_info() returns, from the shared display list.
    infos = source.text_page(page.number, pymupdf.TEXT_PRESERVE_IMAGES).extractIMGINFO()
    if any(len(by_size.get((i["width"], i["height"]), ())) > 1 for i in infos):
        infos = _with_xrefs(source, page, infos)  # digests tell same-sized images apart (slower)
    found = []
    clip = page.rect * page.derotation_matrix  # image_info boxes are in unrotated page space
    for info in infos:
        box = pymupdf.Rect(info["bbox"]) & clip
        if box.is_empty or box.is_infinite:
            continue
        if "xref" in info:
            xref = info["xref"] or None  # 0: an inline image
        else:
            xrefs = by_size.get((info["width"], info["height"]), [])
            xref = xrefs[0] if len(xrefs) == 1 else None
        found.append(_Candidate(_box(box), "image", xref, info["width"], info["height"]))
    return found


def _with_xrefs(source: PdfSource, page: pymupdf.Page, infos: list[dict]) -> list[dict]:
    """``infos`` with the xref of each placement's image (0 when none matches), found by
    comparing pixel digests, as ``page.get_image_info(xrefs=True)`` does."""
    digests = {pymupdf.Pixmap(source.doc, item[0]).digest: item[0] for item in page.get_images()}
    hashed = source.text_page(page.number, pymupdf.TEXT_PRESERVE_IMAGES).extractIMGINFO(hashes=True)
    return [{**info, "xref": digests.get(info["digest"], 0)} for info in hashed]


def _big_enough(candidate: _Candidate) -> bool:
    if candidate.kind == "vector":
        return True
    return (candidate.width or 0) >= MIN_PIXELS and (candidate.height or 0) >= MIN_PIXELS


def _duplicate(candidate: _Candidate, candidates: list[_Candidate]) -> bool:
    """Is an earlier tiny picture of the same Figure already kept in its place?"""
    for other in candidates:
        if other is candidate:
            return False
        if other.elem is candidate.elem:
            return True
    return False


# --------------------------------------------------------------------------- vector drawings


def _vector_clusters(drawing_log: list[tuple[str, Box]], area: float, taken: list[Box]) -> list[_Candidate]:
    """Clusters of three or more non-hairline shapes (plus the hairlines touching them)."""
    shapes: list[Box] = []
    hairlines: list[Box] = []
    for kind, rect in drawing_log:
        if kind not in ("fill-path", "stroke-path"):
            continue
        x0, y0, x1, y1 = rect
        w, h = x1 - x0, y1 - y0
        if not (w >= 0 and h >= 0) or w * h > 0.4 * area or max(w, h) > 1e5:
            continue  # page backgrounds and frames, unbounded paths
        (hairlines if min(w, h) < _HAIRLINE else shapes).append((x0, y0, x1, y1))
    clusters = _cluster(shapes)
    found = []
    for box, count in clusters:
        if count < _MIN_SHAPES:
            continue
        box = _grow(box, hairlines)
        if (box[2] - box[0] < MIN_PIXELS or box[3] - box[1] < MIN_PIXELS or geometry.area(box) < SMALL_SHARE * area
                or any(geometry.covered(box, t) for t in taken)):
            continue
        found.append(_Candidate(box, "vector"))
    return found


def _cluster(boxes: list[Box]) -> list[tuple[Box, int]]:
    """Merge boxes closer than _CLUSTER_GAP into clusters: (union box, number of shapes)."""
    clusters: list[tuple[Box, int]] = []
    for box in sorted(boxes, key=lambda b: (b[1], b[0])):
        near = [i for i, (c, _) in enumerate(clusters) if geometry.near(c, box, _CLUSTER_GAP)]
        merged, count = box, 1
        for i in reversed(near):
            other, n = clusters.pop(i)
            merged, count = geometry.union(merged, other), count + n
        clusters.append((merged, count))
    # A merge can bring two earlier clusters within reach of each other: settle once more.
    settled: list[tuple[Box, int]] = []
    for box, count in clusters:
        near = [i for i, (c, _) in enumerate(settled) if geometry.near(c, box, _CLUSTER_GAP)]
        for i in reversed(near):
            other, n = settled.pop(i)
            box, count = geometry.union(box, other), count + n
        settled.append((box, count))
    return settled


def _grow(box: Box, hairlines: list[Box]) -> Box:
    for line in hairlines:
        if geometry.near(box, line, 1.0):
            box = geometry.union(box, line)
    return box


# --------------------------------------------------------------------------- matching


def _best_figure(box: Box, figures: list[dict]) -> dict | None:
    """The Figure element whose box covers at least half of ``box``, the tightest one first."""
    best, best_iou = None, 0.0
    for figure in figures:
        other = figure["subtree_bbox"]
        if other and geometry.covered(box, other):
            iou = geometry.iou(box, other)
            if iou > best_iou:
                best, best_iou = figure, iou
    return best


def _owner(box: Box, owners: list[tuple[dict, Box]]) -> dict | None:
    """An element whose own content is this picture: a Formula or Form covering it, or any
    element whose own box is mostly this picture (an image tagged as P or Span)."""
    for elem, own in owners:
        if (elem["type"] in _FIGURE_TYPES and geometry.covered(box, own)) or geometry.iou(box, own) >= 0.6:
            return elem
    return None


def _text_blocks(source: PdfSource, page_no: int) -> list[tuple[Box, str]]:
    return [((b[0], b[1], b[2], b[3]), b[4]) for b in source.text_blocks(page_no, 0) if b[6] == 0]


def _caption_nearby(box: Box, blocks: list[tuple[Box, str]]) -> str | None:
    """The nearest text block starting with a figure or table label ("Fig. 2", "Table 1") above or below ``box``."""
    best: tuple[float, str] | None = None
    for (x0, y0, x1, y1), text in blocks:
        if not captions.is_caption(text, _CAPTION_KINDS) or geometry.x_overlap((x0, y0, x1, y1), box) == 0:
            continue
        distance = max(box[1] - y1, y0 - box[3])
        if -2 <= distance <= _CAPTION_DISTANCE and (best is None or distance < best[0]):
            best = (distance, " ".join(text.split()))
    return best[1] if best else None


# --------------------------------------------------------------------------- boxes


def _box(rect: pymupdf.Rect) -> Box:
    return (rect.x0, rect.y0, rect.x1, rect.y1)


# --------------------------------------------------------------------------- crops


def render_figure_crops(pdf: str | Path | PdfSource, figures: Sequence[dict], out_dir: Path, dpi: int = 110, *,
                        page_offset: int = 0) -> list[str | None]:
    """Write one PNG per figure with a box; paths in ``figures`` order (None without a box).

    Assign them to ``crop_path``; the records are not changed here.
    """
    return render_crops(pdf, figures, out_dir, dpi, page_offset=page_offset, prefix="figure",
                        id_key="figure_index")
