"""Page renders: one PNG per page plus the facts a judge needs about the page.

The only extractor that writes files: the PNGs go under ``out_dir`` (one folder
per document), each written to a temporary name and renamed, so a killed run
never leaves a half-written image behind. Each page is interpreted once: the
display list feeds the pixmap, the text count and the image count.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pymupdf
from pymupdf import mupdf

from common.progress import page_done
from extractors.errors import reading
from extractors.source import DEFAULT_MAX_PIXELS, PdfSource, pdf_source, save_png

MAX_SIDE_PX = 4000  # enormous pages (posters, maps) are rendered at a lower dpi, as are those over max_pixels
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_MEDIABOX_CLIP


def render_pages(pdf: str | Path | PdfSource, *, doc_id: str, out_dir: Path, dpi: int = 100,
                 page_offset: int = 0, max_pixels: int = DEFAULT_MAX_PIXELS) -> list[dict]:
    """Render every page to ``out_dir/<doc folder>/page-NNNN.png``; one record per page.

    A page larger than ``max_pixels`` at ``dpi`` is rendered at the lower dpi that fits (the
    ``dpi`` column says which); ``max_pixels`` applies when ``pdf`` is a path.
    """
    folder = Path(out_dir).resolve() / _folder_name(doc_id)
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    with pdf_source(pdf, max_pixels=max_pixels) as source, reading(source, "page content"):
        for number in range(source.page_count):
            rows.append(_render(source, number, doc_id, folder, dpi, number + 1 + page_offset))
            page_done()
    return rows


def _render(source: PdfSource, number: int, doc_id: str, folder: Path, dpi: int, page_no: int) -> dict:
    page = source.page(number)
    rect = page.rect
    scale = min(source.scale(number, dpi), MAX_SIDE_PX / max(rect.width, rect.height, 1.0))
    display_list = source.display_list(number)  # annotations included: they are visible
    pixmap = source.pixmap(number, pymupdf.Matrix(scale, scale))
    path = folder / f"page-{page_no:04d}.png"
    save_png(pixmap, path)
    text = source.text_page(number, _TEXT_FLAGS).extractText()
    char_count = len("".join(text.split()))
    return {
        "doc_id": doc_id,
        "page": page_no,
        "width_pt": round(rect.width, 2),
        "height_pt": round(rect.height, 2),
        "rotation": page.rotation,
        "dpi": round(scale * 72, 2),
        "width_px": pixmap.width,
        "height_px": pixmap.height,
        "image_path": str(path),
        "has_text": char_count > 0,
        "char_count": char_count,
        "image_count": _count_images(display_list),
        **_tab_order(page),
    }


class _ImageCounter(mupdf.FzDevice2):
    def __init__(self) -> None:
        super().__init__()
        self.use_virtual_fill_image()
        self.use_virtual_fill_image_mask()
        self.count = 0

    def fill_image(self, *args: Any) -> None:
        self.count += 1

    def fill_image_mask(self, *args: Any) -> None:
        self.count += 1


def _count_images(display_list: pymupdf.DisplayList) -> int:
    counter = _ImageCounter()
    mupdf.fz_run_display_list(
        display_list.this, counter, mupdf.FzMatrix(), mupdf.FzRect(mupdf.FzRect.Fixed_INFINITE), mupdf.FzCookie(),
    )
    return counter.count


def _tab_order(page: pymupdf.Page) -> dict[str, Any]:
    """The page's /Tabs (without the slash; None when absent) and how many annotations /Annots holds."""
    kind, value = page.parent.xref_get_key(page.xref, "Tabs")
    return {"tabs": value.lstrip("/") if kind == "name" else None, "annotation_count": len(page.annot_xrefs())}


def _folder_name(doc_id: str) -> str:
    """A file-system-safe folder name for ``doc_id``; distinct ids stay distinct."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", doc_id).strip("._") or "doc"
    if safe == doc_id:
        return safe
    return f"{safe[:80]}-{hashlib.sha1(doc_id.encode()).hexdigest()[:8]}"
