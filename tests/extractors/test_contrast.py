"""Contrast records on small generated PDFs: WCAG ratios, thresholds, backgrounds, hidden text."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf
import pytest
import typst
from PIL import Image

from extractors.contrast import contrast_ratio, contrast_summary, extract_contrast, is_large_text, relative_luminance
from extractors.errors import ExtractionError
from tests.conftest import SHARED_BENCHMARK
from warehouse.schema import conform
from warehouse.tables import CONTRAST_SCHEMA

BENCHMARK = SHARED_BENCHMARK / "data" / "processed"

# Each line's text names its case; colours are chosen around the 4.5 and 3.0 thresholds.
TYPST_PAGE = b"""#set page(width: 360pt, height: 330pt, margin: 12pt)
#set text(size: 11pt)
#text(fill: rgb("#777777"))[grey seven seven]

#text(fill: rgb("#767676"))[grey seven six]

#text(size: 20pt, fill: rgb("#949494"))[large light grey]

#text(size: 11pt, fill: rgb("#949494"))[small light grey]

#text(size: 14pt, weight: "bold", fill: rgb("#949494"))[bold fourteen]

#box(fill: rgb("#000000"), inset: 4pt)[#text(fill: rgb("#ffffff"))[white on black]]

#box(fill: rgb("#ffff00"), inset: 4pt)[#text(fill: rgb("#0000ff"))[blue on yellow]]

#box(fill: rgb("#2e7d32"), inset: 4pt)[#text(fill: rgb("#a5d6a7"))[pale green on green]]

#text(fill: rgb("#ffffff"))[white on white]
"""


def _png(rgb: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 20), rgb).save(buf, format="PNG")
    return buf.getvalue()


def _hidden_text_pdf(path: Path) -> Path:
    """Text over an image, text under an image, render mode 3, zero opacity, off-page text."""
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    page.insert_image(pymupdf.Rect(10, 10, 150, 40), stream=_png((51, 102, 153)), keep_proportion=False)
    page.insert_text((14, 30), "white on image", fontsize=11, color=(1, 1, 1))
    page.insert_text((14, 70), "under an image", fontsize=11)
    page.insert_image(pymupdf.Rect(10, 55, 150, 80), stream=_png((200, 200, 200)), keep_proportion=False)
    page.insert_text((14, 110), "render mode three", fontsize=11, render_mode=3)
    page.insert_text((14, 140), "zero opacity", fontsize=11, fill_opacity=0)
    page.insert_text((400, 140), "off the page", fontsize=11)
    page.insert_text((160, 30), "visible black", fontsize=11)
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def typst_records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    path = tmp_path_factory.mktemp("contrast") / "colours.pdf"
    path.write_bytes(typst.compile(TYPST_PAGE, format="pdf"))
    return {r["text"].strip(): r for r in extract_contrast(path, doc_id="T1", page_offset=2)}


@pytest.fixture(scope="module")
def hidden_records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    path = _hidden_text_pdf(tmp_path_factory.mktemp("contrast") / "hidden.pdf")
    return {r["text"].strip(): r for r in extract_contrast(path, doc_id="H1")}


def _expected(fg: str, bg: str) -> float:
    rgb = [[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in (fg, bg)]
    return float(contrast_ratio(np.array(rgb[0]), np.array(rgb[1])))


def test_wcag_formula_reference_values() -> None:
    assert relative_luminance(np.array([255, 255, 255])) == pytest.approx(1.0)
    assert relative_luminance(np.array([0, 0, 0])) == pytest.approx(0.0)
    assert float(contrast_ratio(np.array([0, 0, 0]), np.array([255, 255, 255]))) == pytest.approx(21.0)
    # The well-known pair around the AA line: #777 fails on white, #767676 just passes.
    assert _expected("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert _expected("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


def test_large_text_rule() -> None:
    assert is_large_text(18, bold=False) and is_large_text(14, bold=True)
    assert not is_large_text(17.9, bold=False) and not is_large_text(13.9, bold=True)


@pytest.mark.parametrize(
    ("text", "fg", "bg"),
    [
        ("grey seven seven", "#777777", "#ffffff"),
        ("grey seven six", "#767676", "#ffffff"),
        ("white on black", "#ffffff", "#000000"),
        ("blue on yellow", "#0000ff", "#ffff00"),
        ("pale green on green", "#a5d6a7", "#2e7d32"),
    ],
)
def test_ratio_matches_formula_on_coloured_backgrounds(
    typst_records: dict[str, dict[str, Any]], text: str, fg: str, bg: str
) -> None:
    record = typst_records[text]
    assert not record["invisible"]
    # typst writes colours through an ICC profile, so allow a channel or two of drift.
    assert record["contrast_ratio"] == pytest.approx(_expected(fg, bg), rel=0.02)
    assert _expected(record["fill_color"], record["background_color"]) == pytest.approx(record["contrast_ratio"])


def test_threshold_decides_pass(typst_records: dict[str, dict[str, Any]]) -> None:
    assert typst_records["grey seven seven"]["passes"] is False
    assert typst_records["grey seven six"]["passes"] is True
    assert typst_records["white on black"]["passes"] is True


def test_large_and_bold_text_get_the_lower_threshold(typst_records: dict[str, dict[str, Any]]) -> None:
    large, small, bold = (typst_records[t] for t in ("large light grey", "small light grey", "bold fourteen"))
    assert large["contrast_ratio"] == pytest.approx(small["contrast_ratio"], rel=0.01)  # same colour, ~3.03
    assert (large["large_text"], large["threshold"], large["passes"]) == (True, 3.0, True)
    assert (small["large_text"], small["threshold"], small["passes"]) == (False, 4.5, False)
    assert bold["bold"] and bold["large_text"] and bold["passes"] is True


def test_white_on_white_is_invisible_not_failed(typst_records: dict[str, dict[str, Any]]) -> None:
    record = typst_records["white on white"]
    assert record["invisible"] and record["invisible_reason"] == "no_visible_pixels"
    assert record["passes"] is None


def test_text_over_an_image_uses_the_image_as_background(hidden_records: dict[str, dict[str, Any]]) -> None:
    record = hidden_records["white on image"]
    assert record["background_color"] == "#336699"
    assert record["contrast_ratio"] == pytest.approx(_expected("#ffffff", "#336699"), rel=0.001)
    assert record["passes"] is True


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("under an image", "no_visible_pixels"),
        ("render mode three", "render_mode"),
        ("zero opacity", "transparent"),
        ("off the page", "off_page"),
    ],
)
def test_hidden_text_is_excluded_from_pass_fail(
    hidden_records: dict[str, dict[str, Any]], text: str, reason: str
) -> None:
    record = hidden_records[text]
    assert (record["invisible"], record["invisible_reason"], record["passes"]) == (True, reason, None)


def test_summary_counts_visible_failures_and_invisible_chars(hidden_records: dict[str, dict[str, Any]]) -> None:
    records = list(hidden_records.values())
    summary = contrast_summary(records)
    assert summary["invisible_chars"] == sum(len(t.replace(" ", "")) for t in
                                             ("under an image", "render mode three", "zero opacity", "off the page"))
    assert summary["visible_chars"] == len("whiteonimage") + len("visibleblack")
    assert summary["share_chars_below_threshold"] == 0.0
    assert summary["min_ratio"] == pytest.approx(_expected("#ffffff", "#336699"), rel=0.001)
    assert set(summary["pages"]) == {1}


def test_summary_of_nothing_visible_has_no_ratio() -> None:
    assert contrast_summary([])["min_ratio"] is None
    assert contrast_summary([])["share_chars_below_threshold"] is None


def test_records_fit_the_schema_and_number_pages(typst_records: dict[str, dict[str, Any]]) -> None:
    table = conform(typst_records.values(), CONTRAST_SCHEMA, "text_contrast")
    assert table.num_rows == len(typst_records)
    assert {r["page"] for r in typst_records.values()} == {3}  # page 1 plus page_offset 2
    assert all(r["doc_id"] == "T1" for r in typst_records.values())


def test_rotated_page_measures_the_same_colours(tmp_path: Path) -> None:
    path = tmp_path / "colours.pdf"
    path.write_bytes(typst.compile(TYPST_PAGE, format="pdf"))
    upright = extract_contrast(path, doc_id="R")
    doc = pymupdf.open(path)
    doc[0].set_rotation(90)
    doc.save(tmp_path / "rotated.pdf")
    rotated = extract_contrast(tmp_path / "rotated.pdf", doc_id="R")
    assert [(r["text"], r["background_color"], r["invisible"]) for r in rotated] == [
        (r["text"], r["background_color"], r["invisible"]) for r in upright
    ]


def test_unreadable_file_raises_extraction_error(tmp_path: Path) -> None:
    with pytest.raises(ExtractionError):
        extract_contrast(tmp_path / "absent.pdf", doc_id="X")


@pytest.mark.benchmark_data
def test_benchmark_failed_contrast_document_has_failing_text() -> None:
    path = BENCHMARK / "color_contrast" / "failed" / "W2642438850.pdf"
    if not path.exists():
        pytest.skip(f"the dev benchmark is not at {BENCHMARK}; place the upstream layout there to run this")
    records = extract_contrast(path, doc_id="W2642438850")
    conform(records, CONTRAST_SCHEMA, "text_contrast")
    summary = contrast_summary(records)
    assert summary["min_ratio"] < 3.0
    assert summary["share_chars_below_threshold"] > 0.01


def test_drawn_pixel_counts_match_a_count_box_by_box() -> None:
    from extractors.contrast import _DRAWN_DELTA, _drawn_pixel_counts

    rng = np.random.default_rng(3)
    background = rng.integers(0, 256, (97, 131, 3), dtype=np.uint8)
    full = background.copy()
    changed = rng.random((97, 131)) < 0.3
    full[changed, rng.integers(0, 3)] ^= 0xFF  # one channel inverted: mostly far above the threshold
    full[rng.random((97, 131)) < 0.1] = background[0, 0]  # and some pixels changed by who knows how much
    x0, y0 = rng.integers(0, 120, 200), rng.integers(0, 90, 200)
    boxes = np.column_stack([x0, y0, np.minimum(x0 + rng.integers(0, 40, 200), 131),
                             np.minimum(y0 + rng.integers(0, 40, 200), 97)])
    drawn = (np.abs(full.astype(int) - background.astype(int)) > _DRAWN_DELTA).any(axis=2)
    expected = [int(drawn[y0:y1, x0:x1].sum()) for x0, y0, x1, y1 in boxes]
    assert _drawn_pixel_counts(full, background, boxes).tolist() == expected
