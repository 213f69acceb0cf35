"""Text colour contrast: one record per visible text span, scored with the WCAG 2.2 formula.

The text colour comes from the PDF itself (the span's fill colour, blended by its opacity).
The background is measured on a rendering of the page *with all text removed*, so the pixels
under a span are exactly what the text is drawn on — a table cell fill, a coloured box, a
photograph — with no glyph pixels to separate out. That rendering replays the page's display
list (shared with the other extractors) through a device that passes every drawing call on
to MuPDF's draw device except those that paint text. Pages where MuPDF reports text it does
not paint as text (``ignore_text``: invisible text, and Type3 glyphs it draws as plain paths,
which a device cannot tell from other drawings) are instead stripped on a private copy by a
full-page redaction that removes text and keeps images and vector graphics.

Comparing that rendering with the normal one also says whether a span is seen at all: a span
whose box shows no drawn pixels (white on white, covered by an image, clipped away) is
recorded with ``invisible=True`` and ``passes`` null, like render-mode-3 and fully transparent
text, so hidden text never counts for or against contrast.

Each page is rendered twice at ``dpi``, both times from its display list; all sampling is
vectorised over the page's spans.
Bounding boxes are PDF points with a top-left origin in the unrotated page space, as PyMuPDF's
text extraction reports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf
from pymupdf import mupdf

from common.colour import WEIGHTS, linear_table, luminance_array
from common.thresholds import LARGE_TEXT_RATIO, NORMAL_TEXT_RATIO, is_large_text
from extractors.errors import open_pdf
from extractors.source import PdfSource, pdf_source

DEFAULT_DPI = 72
MAX_TEXT_CHARS = 200

# No ligature expansion or image blocks (images are not needed and make extraction slower);
# no mediabox clip (shared text pages have no clip rectangle either), so text placed off the
# page is reported as invisible instead of vanishing.
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE
# Per-span char flags from MuPDF: how the glyphs were painted, and whether MuPDF saw them
# emboldened (filled and stroked) or outside the clip path.
_FILLED = pymupdf.mupdf.FZ_STEXT_FILLED
_STROKED = pymupdf.mupdf.FZ_STEXT_STROKED
_CLIPPED = pymupdf.mupdf.FZ_STEXT_CLIPPED
_EMBOLDENED = pymupdf.mupdf.FZ_STEXT_BOLD
_BOLD_NAME_PARTS = ("bold", "black", "heavy", "semibold", "demi")
# A span is visible when this many of its pixels change once its text is drawn, by more than
# _DRAWN_DELTA in some channel (of 255). The delta sits above rendering noise but below the
# difference any legible text makes; text fainter than that has a ratio of about 1 anyway.
_MIN_DRAWN_PIXELS = 1
_DRAWN_DELTA = 8
# Background samples per span: a fixed grid, so all spans are sampled in one numpy gather.
_GRID_ROWS, _GRID_COLS = 5, 16


@dataclass(frozen=True)
class _Span:
    text: str
    font: str
    size: float
    bold: bool
    rgb: tuple[int, int, int]
    alpha: float  # 0..1
    bbox: tuple[float, float, float, float]  # unrotated page space
    clipped: bool  # MuPDF found the glyphs outside the clip path
    invisible_reason: str | None  # decided from the PDF alone, before looking at pixels


_LUMA = np.array(WEIGHTS)  # WCAG 2.2 channel weights (common.colour)


def relative_luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG 2.2 relative luminance of sRGB colours given as 0..255 values in the last axis."""
    return luminance_array(rgb)


_LINEAR = linear_table()  # 0..255 -> linear light


def contrast_ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """WCAG contrast ratio (1..21) between colours ``a`` and ``b`` (0..255, last axis RGB)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)


def extract_contrast(
    pdf: str | Path | PdfSource, *, doc_id: str, page_offset: int = 0, dpi: int = DEFAULT_DPI,
    off_page: bool = True,
) -> list[dict[str, Any]]:
    """Contrast records (``CONTRAST_SCHEMA``) for every non-blank text span of ``pdf``.

    With ``off_page=False`` only text on the page is measured, read exactly as
    ``extractors.fonts.extract_text_spans`` reads it (one shared text page, the same spans):
    for callers that attach contrast to those spans, which never include off-page text.
    Raises :class:`extractors.errors.ExtractionError` when the file cannot be opened.
    """
    records: list[dict[str, Any]] = []
    with pdf_source(pdf) as source, _RedactedCopy(source.path) as copy:
        for number in range(source.page_count):
            spans = _page_spans(source, number, off_page)
            if spans:  # image-only pages need no rendering at all
                records += _page_records(source, number, copy, spans, doc_id=doc_id,
                                         page_number=number + 1 + page_offset, dpi=dpi)
    return records


def contrast_summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Document and per-page summary of one document's contrast records.

    Returns ``min_ratio`` (lowest ratio among visible spans), ``share_chars_below_threshold``
    (share of visible characters in failing spans), ``visible_chars`` and ``invisible_chars``
    for the document, and the same keys per page under ``pages`` (keyed by page number).
    Ratios and shares are None when nothing visible is there to measure.
    """
    pages: dict[int, list[dict[str, Any]]] = {}
    for record in records:
        pages.setdefault(record["page"], []).append(record)
    return {**_summarise(records), "pages": {page: _summarise(rows) for page, rows in sorted(pages.items())}}


def _summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    visible = [r for r in records if not r["invisible"]]
    visible_chars = sum(r["char_count"] for r in visible)
    failing_chars = sum(r["char_count"] for r in visible if r["passes"] is False)
    return {
        "min_ratio": min((r["contrast_ratio"] for r in visible), default=None),
        "share_chars_below_threshold": failing_chars / visible_chars if visible_chars else None,
        "visible_chars": visible_chars,
        "invisible_chars": sum(r["char_count"] for r in records if r["invisible"]),
    }


def _page_spans(source: PdfSource, number: int, off_page: bool) -> list[_Span]:
    spans = []
    text = (source.text_dict(number, _TEXT_FLAGS, unclipped=True) if off_page
            else source.text_dict(number, _TEXT_FLAGS | pymupdf.TEXT_MEDIABOX_CLIP))
    for block in text["blocks"]:
        for line in block.get("lines", ()):
            for raw in line["spans"]:
                if raw["text"].strip():
                    spans.append(_span(raw))
    return spans


def _span(raw: dict[str, Any]) -> _Span:
    color = int(raw["color"])
    char_flags = int(raw.get("char_flags", _FILLED))
    font = str(raw["font"])
    bold = bool(raw["flags"] & pymupdf.TEXT_FONT_BOLD or char_flags & _EMBOLDENED
                or any(part in font.lower() for part in _BOLD_NAME_PARTS))
    alpha = int(raw.get("alpha", 255)) / 255.0
    x0, y0, x1, y1 = (float(v) for v in raw["bbox"])
    reason = None
    if not char_flags & (_FILLED | _STROKED):  # render mode 3 (invisible) or 7 (clip only)
        reason = "render_mode"
    elif alpha == 0.0:
        reason = "transparent"
    return _Span(
        text=str(raw["text"]), font=font, size=float(raw["size"]), bold=bold,
        rgb=((color >> 16) & 255, (color >> 8) & 255, color & 255), alpha=alpha,
        bbox=(x0, y0, x1, y1),
        clipped=bool(char_flags & _CLIPPED), invisible_reason=reason,
    )


def _render(pix: pymupdf.Pixmap) -> np.ndarray:
    # `samples` copies the pixels: a view (`samples_mv`) would dangle once `pix` is freed.
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.h, pix.stride)[:, : pix.w * 3].reshape(
        pix.h, pix.w, 3
    )


# Every device call that draws, clips or groups, forwarded as is; text painting is left out.
_FORWARDED_CALLS = (
    "fill_path", "stroke_path", "clip_path", "clip_stroke_path", "clip_text", "clip_stroke_text", "fill_shade",
    "fill_image", "fill_image_mask", "clip_image_mask", "pop_clip", "begin_mask", "begin_group", "end_group",
    "end_tile", "render_flags", "set_default_colorspaces", "begin_layer", "end_layer",
)


class _TextFreeDevice(mupdf.FzDevice2):
    """Passes every call on to ``draw`` except text painting (``fill_text``, ``stroke_text``).

    Text used as a clip path paints nothing itself and is passed on, so clips stay balanced.
    ``hidden_text`` counts ``ignore_text`` calls: text MuPDF did not paint as text.
    """

    def __init__(self, draw: Any) -> None:
        super().__init__()
        for call in (*_FORWARDED_CALLS, "fill_text", "stroke_text", "ignore_text", "end_mask", "begin_tile"):
            getattr(self, "use_virtual_" + call)()
        self.draw = draw  # low-level fz_device*
        self.hidden_text = 0

    def fill_text(self, ctx: Any, *args: Any) -> None:
        pass

    def stroke_text(self, ctx: Any, *args: Any) -> None:
        pass

    def ignore_text(self, ctx: Any, *args: Any) -> None:
        self.hidden_text += 1

    def end_mask(self, ctx: Any, function: Any) -> None:
        mupdf.ll_fz_end_mask_tr(self.draw, function)

    def begin_tile(self, ctx: Any, *args: Any) -> int:
        return int(mupdf.ll_fz_begin_tile_tid(self.draw, *args))


def _forwarder(call: str) -> Any:
    forward = getattr(mupdf, "ll_fz_" + call)

    def method(self: _TextFreeDevice, ctx: Any, *args: Any) -> Any:
        return forward(self.draw, *args)

    method.__name__ = call
    return method


for _call in _FORWARDED_CALLS:
    setattr(_TextFreeDevice, _call, _forwarder(_call))


def _draw_without_text(display_list: pymupdf.DisplayList, zoom: pymupdf.Matrix) -> tuple[pymupdf.Pixmap, bool]:
    """The page drawn as ``DisplayList.get_pixmap`` draws it (RGB, white, no alpha), minus its text;
    and whether MuPDF reported text it did not paint as text (see the module doc)."""
    matrix = mupdf.FzMatrix(zoom.a, zoom.b, zoom.c, zoom.d, zoom.e, zoom.f)
    area = mupdf.fz_round_rect(mupdf.fz_transform_rect(mupdf.fz_bound_display_list(display_list.this), matrix))
    pixels = mupdf.fz_new_pixmap_with_bbox(mupdf.FzColorspace(mupdf.FzColorspace.Fixed_RGB), area,
                                           mupdf.FzSeparations(), 0)
    mupdf.fz_clear_pixmap_with_value(pixels, 0xFF)
    draw = mupdf.fz_new_draw_device(matrix, pixels)
    device = _TextFreeDevice(draw.m_internal)
    mupdf.fz_run_display_list(display_list.this, device, mupdf.FzMatrix(),
                              mupdf.FzRect(mupdf.FzRect.Fixed_INFINITE), mupdf.FzCookie())
    mupdf.fz_close_device(device)
    mupdf.fz_close_device(draw)
    return pymupdf.Pixmap("raw", pixels), device.hidden_text > 0


class _RedactedCopy:
    """A private copy of the file, opened on first use, whose pages lose their text by redaction."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.doc: pymupdf.Document | None = None

    def __enter__(self) -> _RedactedCopy:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.doc is not None:
            self.doc.close()

    def render(self, number: int, zoom: pymupdf.Matrix) -> pymupdf.Pixmap:
        if self.doc is None:
            self.doc = open_pdf(self.path)
        page = self.doc[number]
        _strip_text(page)
        return page.get_pixmap(matrix=zoom, colorspace=pymupdf.csRGB, alpha=False)


def _strip_text(page: pymupdf.Page) -> None:
    """Remove every glyph from ``page`` (an in-memory copy) and keep images and vector graphics."""
    # Redaction rectangles are read in unrotated space, `page.rect` is the displayed one:
    # cover both so a rotated page loses all of its text too.
    # fill=False paints nothing where the text was (None would mean white).
    area = page.rect | page.rect * page.derotation_matrix
    page.add_redact_annot(area, fill=False, cross_out=False)  # type: ignore[arg-type]
    page.apply_redactions(
        images=pymupdf.mupdf.PDF_REDACT_IMAGE_NONE,
        graphics=pymupdf.mupdf.PDF_REDACT_LINE_ART_NONE,
        text=pymupdf.mupdf.PDF_REDACT_TEXT_REMOVE,
    )


def _pixel_boxes(page: pymupdf.Page, spans: list[_Span], shape: tuple[int, int], dpi: float) -> np.ndarray:
    """Span boxes in pixel coordinates of the rendered page, as (n, 4) int [x0, y0, x1, y1].

    Text boxes are unrotated page space; the pixmap shows the page as displayed, so boxes go
    through the page's rotation matrix first. Boxes off the page collapse to empty ones.
    """
    m = page.rotation_matrix * pymupdf.Matrix(dpi / 72, dpi / 72)
    spans_boxes = np.array([s.bbox for s in spans], dtype=np.float64)
    # The four corners of each box through the matrix; the result spans them (as Rect * Matrix).
    xs, ys = spans_boxes[:, [0, 2, 0, 2]], spans_boxes[:, [1, 1, 3, 3]]
    tx, ty = xs * m.a + ys * m.c + m.e, xs * m.b + ys * m.d + m.f
    boxes = np.column_stack([tx.min(axis=1), ty.min(axis=1), tx.max(axis=1), ty.max(axis=1)])
    height, width = shape
    boxes[:, [0, 2]] = np.clip(boxes[:, [0, 2]], 0, width)
    boxes[:, [1, 3]] = np.clip(boxes[:, [1, 3]], 0, height)
    return np.column_stack(
        [np.floor(boxes[:, 0]), np.floor(boxes[:, 1]), np.ceil(boxes[:, 2]), np.ceil(boxes[:, 3])]
    ).astype(np.int64)


def _drawn_pixel_counts(full: np.ndarray, background: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """How many pixels inside each box the text changed, via one summed-area table."""
    # |full - background| per channel without widening to int16 (uint8 max - min cannot overflow).
    diff = np.maximum(full, background)
    diff -= np.minimum(full, background)
    # Channel by channel: numpy's any() over a short last axis is several times slower.
    drawn = (diff[:, :, 0] > _DRAWN_DELTA) | (diff[:, :, 1] > _DRAWN_DELTA) | (diff[:, :, 2] > _DRAWN_DELTA)
    # Counts in place, int32 unless the page has 2**31 pixels: two int64 cumsums with their
    # temporaries cost five times as much.
    dtype = np.int32 if drawn.size < 2**31 else np.int64
    table = np.zeros((drawn.shape[0] + 1, drawn.shape[1] + 1), dtype=dtype)
    np.cumsum(drawn, axis=0, dtype=dtype, out=table[1:, 1:])
    np.cumsum(table[1:, 1:], axis=1, out=table[1:, 1:])
    x0, y0, x1, y1 = boxes.T
    return table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0]


def _background_colours(background: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """The median-luminance colour of a grid of samples inside each box, as (n, 3) uint8.

    Taking the sample of median luminance (not a per-channel median) returns a colour that is
    really there, and ignores thin rules or image detail that cover under half the box.
    """
    height, width = background.shape[:2]
    x0, y0, x1, y1 = (boxes[:, i : i + 1].astype(np.float64) for i in range(4))
    cols = (x0 + (np.maximum(x1 - x0, 1)) * (np.arange(_GRID_COLS) + 0.5) / _GRID_COLS).astype(np.int64)
    rows = (y0 + (np.maximum(y1 - y0, 1)) * (np.arange(_GRID_ROWS) + 0.5) / _GRID_ROWS).astype(np.int64)
    cols, rows = np.clip(cols, 0, width - 1), np.clip(rows, 0, height - 1)
    samples = background[rows[:, :, None], cols[:, None, :]].reshape(len(boxes), -1, 3)
    luminance = _LINEAR[samples] @ _LUMA  # relative_luminance() of 0..255 values, by table look-up
    order = np.argsort(luminance, axis=1)
    middle = order[:, order.shape[1] // 2]
    return samples[np.arange(len(boxes)), middle]


@dataclass(frozen=True)
class _Measured:
    """Per-span pixel measurements of one page, aligned with its span list."""

    on_page: np.ndarray  # bool
    drawn: np.ndarray  # pixels the text changed
    fg: np.ndarray  # (n, 3) text colour as drawn
    bg: np.ndarray  # (n, 3) background colour
    ratio: np.ndarray


def _measure(source: PdfSource, number: int, copy: _RedactedCopy, spans: list[_Span], dpi: int) -> _Measured:
    page = source.page(number)
    scale = source.scale(number, dpi)  # lowered for pages over the source's pixel limit
    zoom = pymupdf.Matrix(scale, scale)
    full = _render(source.pixmap(number, zoom))
    text_free, hidden_text = _draw_without_text(source.display_list(number), zoom)
    background = _render(copy.render(number, zoom) if hidden_text else text_free)
    boxes = _pixel_boxes(page, spans, full.shape[:2], scale * 72)
    bg = _background_colours(background, boxes).astype(np.float64)
    alpha = np.array([[s.alpha] for s in spans])
    # Semi-transparent text shows as a blend of its colour and what lies beneath it.
    fg = alpha * np.array([s.rgb for s in spans], dtype=np.float64) + (1 - alpha) * bg
    return _Measured(
        on_page=(boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1]),
        drawn=_drawn_pixel_counts(full, background, boxes),
        fg=fg, bg=bg, ratio=contrast_ratio(fg, bg),
    )


def _invisible_reason(span: _Span, on_page: bool, drawn: int) -> str | None:
    if span.invisible_reason is not None:
        return span.invisible_reason
    if not on_page:
        return "off_page"
    if drawn < _MIN_DRAWN_PIXELS:
        # Pixels decide, not the clip flag: partly clipped text is still seen.
        return "clipped" if span.clipped else "no_visible_pixels"
    return None


def _page_records(
    source: PdfSource, number: int, copy: _RedactedCopy, spans: list[_Span], *, doc_id: str, page_number: int,
    dpi: int,
) -> list[dict[str, Any]]:
    m = _measure(source, number, copy, spans, dpi)
    # Plain Python values for the whole page at once; colours rounded as _hex() rounds them.
    on_pages, drawn, ratios = m.on_page.tolist(), m.drawn.tolist(), m.ratio.tolist()
    fg, bg = np.rint(m.fg).astype(np.int64).tolist(), np.rint(m.bg).astype(np.int64).tolist()
    records = []
    for i, span in enumerate(spans):
        on_page = on_pages[i]
        reason = _invisible_reason(span, on_page, drawn[i])
        large = is_large_text(span.size, span.bold)
        threshold = LARGE_TEXT_RATIO if large else NORMAL_TEXT_RATIO
        ratio = ratios[i] if on_page else None
        records.append({
            "doc_id": doc_id,
            "page": page_number,
            "span_index": i,
            "text": span.text[:MAX_TEXT_CHARS],
            "font": span.font,
            "size": round(span.size, 2),
            "bold": span.bold,
            "bbox": [round(v, 2) for v in span.bbox],
            # Off the page there is nothing beneath to blend with: report the declared colour.
            "fill_color": _hex(fg[i] if on_page else span.rgb),
            "background_color": _hex(bg[i]) if on_page else None,
            "contrast_ratio": ratio,
            "large_text": large,
            "threshold": threshold,
            "passes": None if reason or ratio is None else ratio >= threshold,
            "char_count": len("".join(span.text.split())),
            "invisible": reason is not None,
            "invisible_reason": reason,
        })
    return records


_HEX = [f"{v:02x}" for v in range(256)]


def _hex(rgb: Sequence[int]) -> str:
    return "#" + _HEX[rgb[0]] + _HEX[rgb[1]] + _HEX[rgb[2]]
