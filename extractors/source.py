"""One open PDF shared by every extractor of a file, with each page interpreted once.

Every extractor takes ``pdf: str | Path | PdfSource``. Given a path it opens its own
:class:`PdfSource` and closes it when done, so each extractor stays a pure function a
test can call alone. The extract stage instead opens one source per file and hands it
to all of them: the file is parsed once by PyMuPDF and once by pikepdf, and each page's
content stream is interpreted once into a display list, from which text pages (one per
set of text flags), renders and crops are all made. Without sharing, ten extractors
reopened the file and reinterpreted every page about eight times.

The cache holds the display lists and text extractions of at most ``max_pages`` pages
(least recently used pages are dropped first), so a 500-page book does not keep every
page in memory. Cached values are shared: callers must not modify what they get.
``seconds`` adds up the time spent filling the cache, which benchmarks report as the
shared cost apart from each extractor's own work.
"""

from __future__ import annotations

import math
import os
import struct
import time
import uuid
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pikepdf
import pymupdf
from pymupdf import mupdf

from extractors.errors import open_pdf, open_pikepdf

T = TypeVar("T")
DEFAULT_MAX_PAGES = 48  # longer than most papers, so every extractor of a paper hits the cache
# One rendering (a page or a crop) holds at most this many pixels: 4000 x 4000 RGB is 48 MB. A larger
# page (a 14,400 pt poster) is rendered at a lower resolution instead of allocating gigabytes.
DEFAULT_MAX_PIXELS = 16_000_000


class PdfSource:
    """A PDF file opened once, its pages' display lists and text pages cached (see module doc)."""

    def __init__(self, path: str | Path, *, max_pages: int = DEFAULT_MAX_PAGES,
                 max_pixels: int = DEFAULT_MAX_PIXELS) -> None:
        self.path = Path(path)
        self.max_pages = max(1, max_pages)
        self.max_pixels = max(1, max_pixels)
        self.seconds = 0.0  # time spent filling the cache
        self._timing = False
        self._doc: pymupdf.Document | None = None
        self._qpdf: pikepdf.Pdf | None = None
        self._pages: OrderedDict[int, dict[Any, Any]] = OrderedDict()  # page -> cached values, LRU order
        self._memo: dict[Any, Any] = {}  # document-level values (the tag tree, annotation index)

    def __enter__(self) -> PdfSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __str__(self) -> str:
        return str(self.path)

    def close(self) -> None:
        self._pages.clear()
        self._memo.clear()
        if self._doc is not None:
            self._doc.close()
            self._doc = None
            # PyMuPDF keeps every MuPDF warning and error in one list for the life of the process; a worker
            # reading files with broken annotations grew it by 20,000 strings per page load (1.2 million
            # after ten files). Nothing reads them: a file's diagnostics go with it.
            pymupdf.TOOLS.reset_mupdf_warnings()
            # MuPDF's store (decoded images, fonts, parsed objects; up to 256 MB per process) kept a closed
            # file's items until it was full, so a worker grew to ~500 MB over a folder of papers. A closed
            # file's items serve no other file: dropped with it (items still in use elsewhere stay alive).
            pymupdf.TOOLS.store_shrink(100)
        if self._qpdf is not None:
            self._qpdf.close()
            self._qpdf = None

    def drop_pages(self) -> None:
        """Forget every cached page (display lists, text pages, drawing logs): they are made again when asked.
        For a holder about to need memory for something else (the layout model, `extractors.layout.layout_file`)."""
        self._pages.clear()
        pymupdf.TOOLS.store_shrink(100)

    # ------------------------------------------------------------------ documents

    @property
    def doc(self) -> pymupdf.Document:
        """The PyMuPDF document (raises ExtractionError when unreadable). Do not edit it."""
        if self._doc is None:
            self._doc = self._timed(lambda: open_pdf(self.path))
        return self._doc

    @property
    def qpdf(self) -> pikepdf.Pdf:
        """The pikepdf document, for the object-level tag tree. Do not edit it."""
        if self._qpdf is None:
            self._qpdf = self._timed(lambda: open_pikepdf(self.path))
        return self._qpdf

    @property
    def page_count(self) -> int:
        return int(self.doc.page_count)

    def memo(self, key: Any, make: Callable[[], T]) -> T:
        """A document-level value computed once per source (``make()`` on first use)."""
        if key not in self._memo:
            self._memo[key] = self._timed(make)
        return self._memo[key]

    # ------------------------------------------------------------------ pages

    def page(self, number: int) -> pymupdf.Page:
        """Page ``number`` (0-based), loaded once while it stays cached."""
        return self._cached(number, "page", lambda: self.doc.load_page(number))

    def pages(self) -> Iterator[pymupdf.Page]:
        for number in range(self.page_count):
            yield self.page(number)

    def display_list(self, number: int) -> pymupdf.DisplayList:
        """The page's content and annotations, interpreted once (what get_pixmap draws)."""
        return self._cached(number, "display_list", lambda: self.page(number).get_displaylist())

    def text_page(self, number: int, flags: int, *, unclipped: bool = False) -> pymupdf.TextPage:
        """A MuPDF text page made with ``flags``, in unrotated page space as ``page.get_textpage()``.

        It is made from the page's display list, keeps only characters on the page, and
        lacks text drawn wholly outside its clip path (MuPDF culls that when it replays a
        display list; nobody can see such text). With ``unclipped`` the page itself is run
        once more and all text is kept, off the page or clipped away, as with an infinite
        clip rectangle: for finding hidden text.
        """
        return self._cached(number, ("text_page", flags, unclipped), lambda: self._text_page(number, flags, unclipped))

    def text_dict(self, number: int, flags: int, *, unclipped: bool = False) -> dict[str, Any]:
        """``page.get_text("dict", flags=flags)``, computed once. Shared: do not modify it."""
        return self._cached(number, ("dict", flags, unclipped), lambda: self._dict(number, flags, unclipped))

    def text_blocks(self, number: int, flags: int) -> list[tuple[Any, ...]]:
        """``page.get_text("blocks", flags=flags)`` (unsorted), computed once."""
        return self._cached(number, ("blocks", flags), lambda: self.text_page(number, flags).extractBLOCKS())

    def text_words(self, number: int, flags: int = pymupdf.TEXTFLAGS_WORDS) -> list[tuple[Any, ...]]:
        """``page.get_text("words", flags=flags)`` (unsorted), computed once."""
        return self._cached(number, ("words", flags), lambda: self.text_page(number, flags).extractWORDS())

    def drawing_log(self, number: int) -> list[tuple[str, tuple[float, float, float, float]]]:
        """``page.get_bboxlog()``: (kind, box) of every drawing operation, in unrotated page space.

        Replayed from the display list, so operations wholly outside their clip are left out.
        """
        return self._cached(number, "drawing_log", lambda: self._drawing_log(number))

    def page_memo(self, number: int, key: Any, make: Callable[[], T]) -> T:
        """A value of page ``number`` computed once while the page stays cached (``make()`` on first use)."""
        return self._cached(number, ("memo", key), make)

    def scale(self, number: int, dpi: float, clip: pymupdf.Rect | None = None) -> float:
        """The zoom for rendering page ``number`` (or ``clip``) at ``dpi``, lowered so the
        rendering stays within ``max_pixels``. Callers use it for coordinates as well."""
        return capped_zoom(clip if clip is not None else self.page(number).rect, dpi, self.max_pixels)

    def pixmap(self, number: int, matrix: pymupdf.Matrix, clip: pymupdf.Rect | None = None) -> pymupdf.Pixmap:
        """An RGB rendering (no alpha) of the page, or of ``clip`` in displayed page space; not cached."""
        dl = self.display_list(number)
        return dl.get_pixmap(matrix=matrix, colorspace=pymupdf.csRGB, alpha=False, clip=clip)

    def _text_page(self, number: int, flags: int, unclipped: bool) -> pymupdf.TextPage:
        # The display list is drawn in displayed (rotated) space; text is reported in unrotated
        # page space, as page.get_textpage() reports it. The text page's own rectangle is what
        # drops off-page characters: the unrotated page, or an infinite one when unclipped.
        page = self.page(number)
        ctm = page.derotation_matrix
        infinite = mupdf.FzRect(mupdf.FzRect.Fixed_INFINITE)
        options = mupdf.FzStextOptions()
        options.flags = flags
        unrotated = page.rect * ctm
        text_page = mupdf.FzStextPage(infinite if unclipped else mupdf.FzRect(*tuple(unrotated)))
        device = mupdf.fz_new_stext_device(text_page, options)
        matrix = mupdf.FzMatrix(ctm.a, ctm.b, ctm.c, ctm.d, ctm.e, ctm.f)
        if unclipped:  # contents and annotations, as in the display list, but nothing culled
            fz_page = page.this.super() if isinstance(page.this, mupdf.PdfPage) else page.this
            mupdf.fz_run_page(fz_page, device, matrix, mupdf.FzCookie())
        else:
            mupdf.fz_run_display_list(self.display_list(number).this, device, matrix, infinite, mupdf.FzCookie())
        mupdf.fz_close_device(device)
        return pymupdf.TextPage(text_page)

    def _drawing_log(self, number: int) -> list[tuple[str, tuple[float, float, float, float]]]:
        log: list[tuple[str, tuple[float, float, float, float]]] = []
        device = pymupdf.JM_new_bbox_device(log, False)
        ctm = self.page(number).derotation_matrix
        matrix = mupdf.FzMatrix(ctm.a, ctm.b, ctm.c, ctm.d, ctm.e, ctm.f)
        mupdf.fz_run_display_list(self.display_list(number).this, device, matrix,
                                  mupdf.FzRect(mupdf.FzRect.Fixed_INFINITE), mupdf.FzCookie())
        mupdf.fz_close_device(device)
        return log

    def _dict(self, number: int, flags: int, unclipped: bool) -> dict[str, Any]:
        result = self.text_page(number, flags, unclipped=unclipped).extractDICT()
        cropbox = self.page(number).cropbox  # as page.get_text("dict") reports width and height
        result["width"], result["height"] = cropbox.width, cropbox.height
        return result

    def _cached(self, number: int, key: Any, make: Callable[[], T]) -> T:
        entries = self._pages.get(number)
        if entries is None:
            entries = self._pages[number] = {}
            while len(self._pages) > self.max_pages:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(number)
        if key not in entries:
            entries[key] = self._timed(make)
        return entries[key]

    def _timed(self, make: Callable[[], T]) -> T:
        if self._timing:  # a fill inside a fill (a text page for a dict): counted once, by the outer one
            return make()
        self._timing = True
        start = time.perf_counter()
        try:
            return make()
        finally:
            self._timing = False
            self.seconds += time.perf_counter() - start


def capped_zoom(area: pymupdf.Rect, dpi: float, max_pixels: int = DEFAULT_MAX_PIXELS) -> float:
    """The zoom for rendering ``area`` at ``dpi``, lowered so the image has at most ``max_pixels``."""
    zoom = dpi / 72
    pixels = max(area.width, 1.0) * max(area.height, 1.0) * zoom * zoom
    return zoom if pixels <= max_pixels else zoom * math.sqrt(max_pixels / pixels)


@contextmanager
def pdf_source(pdf: str | Path | PdfSource, *, max_pixels: int | None = None) -> Iterator[PdfSource]:
    """``pdf`` itself when it is a source (left open); else, within :func:`shared_sources`, the source that
    block holds for the file (left open); else a new source closed on exit.

    ``max_pixels`` (default ``DEFAULT_MAX_PIXELS``) bounds renderings: a shared source with another
    limit is not used for a caller that names one (a caller that renders nothing names none).
    """
    if isinstance(pdf, PdfSource):
        yield pdf
        return
    shared = _shared.get(Path(pdf)) if _shared is not None else None
    if shared is not None and (max_pixels is None or shared.max_pixels == max(1, max_pixels)):
        yield shared
        return
    source = PdfSource(pdf, max_pixels=DEFAULT_MAX_PIXELS if max_pixels is None else max_pixels)
    if _shared is not None and Path(pdf) not in _shared:
        _shared[Path(pdf)] = source  # held by the block, closed when it ends
        yield source
        return
    with source:
        yield source


# The sources `shared_sources` holds, by path (None outside the block).
_shared: dict[Path, PdfSource] | None = None


@contextmanager
def shared_sources() -> Iterator[None]:
    """Within the block, every :func:`pdf_source` of one file path is one :class:`PdfSource`, closed when the
    block ends: the stages that read a document one after another in one process (`tasks.engine.chain`) parse
    it once and interpret each page once, as the extractors of one stage do. Not nested; one thread."""
    global _shared
    if _shared is not None:
        raise RuntimeError("shared_sources blocks do not nest")
    _shared = {}
    try:
        yield
    finally:
        held, _shared = _shared, None
        for source in held.values():
            source.close()


def save_png(pixmap: pymupdf.Pixmap, path: Path) -> None:
    """Write ``pixmap`` to ``path`` atomically, under a temporary name no other writer uses.

    Two runs (or processes) rendering the same document on one data home write the same
    file; each writes its own temporary file and renames it into place.
    """
    partial = path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:12]}.partial")
    try:
        data = png_bytes(pixmap)
        if data is None:
            pixmap.save(str(partial), output="png")
        else:
            partial.write_bytes(data)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


# PNG colour types by colour components: grey, RGB. Pixmaps with alpha are left to MuPDF's writer: their
# samples are premultiplied, and a PNG's are not.
_PNG_COLOUR_TYPE = {1: 0, 3: 2}
PNG_ZLIB_LEVEL = 1  # MuPDF's writer deflates at the default level 6: 2.5x slower for ~5% smaller page images


def png_bytes(pixmap: pymupdf.Pixmap) -> bytes | None:
    """The pixmap as an 8-bit PNG deflated at ``PNG_ZLIB_LEVEL`` (the same pixels MuPDF's writer stores).

    Page renders were the render stage's largest cost in MuPDF's PNG writer. None for what this
    writer does not cover (alpha, CMYK, other colour spaces): the caller falls back on MuPDF's.
    """
    components = pixmap.colorspace.n if pixmap.colorspace else 0
    colour_type = _PNG_COLOUR_TYPE.get(components)
    if colour_type is None or pixmap.alpha or pixmap.n != components:
        return None
    width, height, stride = pixmap.width, pixmap.height, pixmap.stride
    row_bytes = width * pixmap.n
    # Each row behind its filter type byte, 0 (none), in one strided copy rather than a Python step per row.
    scanlines = np.zeros((height, 1 + row_bytes), dtype=np.uint8)
    if height and row_bytes:
        rows = np.frombuffer(pixmap.samples_mv, dtype=np.uint8, count=(height - 1) * stride + row_bytes)
        scanlines[:, 1:] = np.lib.stride_tricks.as_strided(rows, (height, row_bytes), (stride, 1))

    def chunk(tag: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(scanlines.data, PNG_ZLIB_LEVEL)) + chunk(b"IEND", b""))

