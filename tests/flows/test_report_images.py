"""Screening reports' page images: one encoding where lossless cannot win, resolutions chosen without rendering
the ones that cannot fit (flows/report/html.py `_fitted`, flows/report/charts.py `encode_webp`)."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from PIL import Image

from flows.report import charts, html


def _webp_kind(data: bytes) -> str:
    """'VP8L' (lossless) or 'VP8 ' (lossy): the first chunk after the RIFF/WEBP header."""
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    return data[12:16].decode("ascii")


def test_a_page_of_many_colours_is_encoded_lossy_only_and_a_text_page_keeps_the_smaller(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    photo = Image.new("RGB", (300, 200))
    photo.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(300 * 200)])
    text = Image.new("RGB", (300, 200), "white")
    for x in range(10, 290, 7):
        text.paste((26, 26, 26), (x, 50, x + 4, 60))
    saved: list[dict[str, Any]] = []
    real_save = Image.Image.save

    def save(self: Image.Image, fp: Any, format: str | None = None, **params: Any) -> None:  # noqa: A002
        saved.append(params)
        real_save(self, fp, format=format, **params)

    monkeypatch.setattr(Image.Image, "save", save)
    assert _webp_kind(charts.encode_webp(photo)) == "VP8 " and len(saved) == 1 and "lossless" not in saved[0]
    saved.clear()
    encoded = charts.encode_webp(text)
    assert len(saved) == 2  # few colours: both encodings, the smaller kept
    both = []
    for params in saved:
        out = io.BytesIO()
        real_save(text, out, format="WEBP", **params)
        both.append(len(out.getvalue()))
    assert len(encoded) == min(both) and _webp_kind(encoded) == "VP8L"


@pytest.fixture
def pdf(tmp_path: Path) -> str:
    path = tmp_path / "page.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        for k in range(40):
            page.insert_text((40, 40 + 19 * k), f"line {k} of a page of text, long enough to cost bytes " * 2,
                             fontsize=9)
        doc.save(path)
    return str(path)


def _rendered(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    dpis: list[int] = []
    real = charts.outlined_page_image

    def spy(image_path: Path, source_pdf: str | None, page_no: int, width_pt: float, regions: Any,
            dpi: int = charts.REPORT_DPI) -> tuple[bytes, int, int]:
        dpis.append(dpi)
        return real(image_path, source_pdf, page_no, width_pt, regions, dpi=dpi)

    monkeypatch.setattr(charts, "outlined_page_image", spy)
    return dpis


def _page(pdf: str) -> dict[str, Any]:
    return {"image_path": "/nonexistent.png", "source_pdf": pdf, "page": 1, "width_pt": 595.0, "regions": []}


def test_a_page_over_its_share_even_at_the_smallest_resolution_is_settled_there(
        pdf: str, monkeypatch: pytest.MonkeyPatch) -> None:
    dpis = _rendered(monkeypatch)
    fitted = html._fitted(Path("/nonexistent.png"), _page(pdf), [], 100, first=True)
    smallest = charts.outlined_page_image(Path("/nonexistent.png"), pdf, 1, 595.0, [], dpi=html.FALLBACK_DPI[-1])
    assert dpis[0] == html.FALLBACK_DPI[-1] and len(dpis) == 2  # (the second: the line above)
    assert fitted is not None and fitted[1:] == smallest[1:]
    dpis.clear()
    assert html._fitted(Path("/nonexistent.png"), _page(pdf), [], 100, first=False) is None
    assert dpis == [html.FALLBACK_DPI[-1]]  # a later page is left out without a 144 dpi rendering


def _every_resolution_in_turn(made: dict[int, tuple[bytes, int, int]], budget: int, first: bool
                              ) -> tuple[bytes, int, int] | None:
    """What the report showed before: 144 dpi, then (a first page) 96, 72, 60 in turn, else the 60 dpi image."""
    for dpi in (charts.REPORT_DPI, *html.FALLBACK_DPI) if first else (charts.REPORT_DPI,):
        if len(made[dpi][0]) * 4 // 3 <= budget:
            return made[dpi]
    return made[html.FALLBACK_DPI[-1]] if first else None


@pytest.mark.heavy  # seconds of CPU: make test runs it, make test-fast leaves it out
def test_the_largest_resolution_that_fits_is_shown_as_when_every_one_was_tried(
        pdf: str, monkeypatch: pytest.MonkeyPatch) -> None:
    made = {dpi: charts.outlined_page_image(Path("/nonexistent.png"), pdf, 1, 595.0, [], dpi=dpi)
            for dpi in (charts.REPORT_DPI, *html.FALLBACK_DPI)}
    sizes = sorted({len(image) * 4 // 3 for image, _, _ in made.values()})
    budgets = [1, *sizes, *(size - 1 for size in sizes), sizes[-1] * 2]
    dpis = _rendered(monkeypatch)
    shown = set()
    for budget in budgets:
        for first in (True, False):
            expected = _every_resolution_in_turn(made, budget, first)
            assert html._fitted(Path("/nonexistent.png"), _page(pdf), [], budget, first) == expected, budget
            shown.add(None if expected is None else expected[1])
    assert len(shown) >= 4  # the budgets reached several resolutions and leaving a page out
    dpis.clear()
    html._fitted(Path("/nonexistent.png"), _page(pdf), [], sizes[-1] * 2, first=True)
    assert dpis == [html.FALLBACK_DPI[-1], charts.REPORT_DPI]  # it fits at once: nothing else made


def test_a_huge_page_is_drawn_within_the_reports_pixel_cap(tmp_path: Path) -> None:
    """The report renders in the command's process: a hostile page size (here 200 × 200 inches) is drawn at a
    lower resolution, not at 144 dpi (28,800² pixels, 2.5 GB), while an ordinary page keeps REPORT_DPI."""
    from extractors.source import capped_zoom

    assert capped_zoom(pymupdf.Rect(0, 0, 595, 842), charts.REPORT_DPI, charts.REPORT_MAX_PIXELS) == \
        charts.REPORT_DPI / 72  # A4 keeps REPORT_DPI
    pdf = tmp_path / "huge.pdf"
    with pymupdf.open() as doc:
        doc.new_page(width=14_400, height=14_400).insert_text((72, 72), "x", fontsize=400)
        doc.save(pdf)
    image, width, height = charts.outlined_page_image(tmp_path / "missing.png", str(pdf), 1, 14_400, [])
    assert width * height <= charts.REPORT_MAX_PIXELS and width > 1000 and image


def test_a_page_image_is_the_same_when_mupdfs_store_is_emptied_after_each_rendering(
        pdf: str, monkeypatch: pytest.MonkeyPatch) -> None:
    regions = [([[40.0, 40.0, 200.0, 90.0]], "a box")]
    emptied = [charts.outlined_page_image(Path("/nonexistent.png"), pdf, 1, 595.0, regions, dpi=dpi)
               for dpi in (72, 144, 72)]
    shrinks: list[int] = []
    monkeypatch.setattr(pymupdf.TOOLS, "store_shrink", lambda percent: shrinks.append(percent))
    kept = [charts.outlined_page_image(Path("/nonexistent.png"), pdf, 1, 595.0, regions, dpi=dpi)
            for dpi in (72, 144, 72)]
    assert shrinks == [100, 100, 100]  # the plain path: the store kept
    assert emptied == kept


def test_rows_kept_on_outlined_pages_are_those_rows_of_the_query_in_its_order() -> None:
    import duckdb

    from flows.report import data

    con = duckdb.connect()
    sql = ("SELECT 'd' || (i % 7) AS doc_id, i % 11 AS page, [i * 1.5, 2.0, 3.0, 4.0] AS bbox, "
           "CASE WHEN i % 5 = 0 THEN NULL ELSE 'x' || i END AS what FROM range($n) t(i) ORDER BY i DESC")
    for n in (0, 6, 7, 5000):
        every = data._rows(con, sql, {"n": n})
        for pages in (set(), {("d1", 1)}, {("d1", 1), ("d3", 10), ("d0", 0), ("nowhere", 2)}):
            assert data._rows_on_pages(con, sql, {"n": n}, pages) == [
                r for r in every if (r["doc_id"], r["page"]) in pages]
