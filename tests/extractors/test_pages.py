"""Page renders: PNGs on disk, page facts, and the pixel cap for enormous pages."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from PIL import Image

from extractors.pages import MAX_SIDE_PX, render_pages
from tests.extractors.conftest import assert_fits
from warehouse.tables import PAGES_SCHEMA


def test_renders_every_page(tagged_pdf: Path, tmp_path: Path) -> None:
    records = render_pages(tagged_pdf, doc_id="criterion/label/W123", out_dir=tmp_path, dpi=72, page_offset=2)
    assert_fits(records, PAGES_SCHEMA)
    assert [r["page"] for r in records] == [3, 4]
    first = records[0]
    assert (first["width_pt"], first["height_pt"], first["rotation"], first["dpi"]) == (420, 595, 0, 72)
    assert first["has_text"] and first["char_count"] > 100 and first["image_count"] == 1
    assert records[1]["image_count"] == 0
    for record in records:
        path = Path(record["image_path"])
        assert path.is_absolute() and path.is_relative_to(tmp_path) and path.name.endswith(".png")
        with Image.open(path) as image:
            assert image.size == (record["width_px"], record["height_px"]) == (420, 595)
    assert not list(tmp_path.rglob("*.partial"))


def test_distinct_doc_ids_get_distinct_folders(tagged_pdf: Path, tmp_path: Path) -> None:
    a = render_pages(tagged_pdf, doc_id="a/b", out_dir=tmp_path, dpi=10)
    b = render_pages(tagged_pdf, doc_id="a_b", out_dir=tmp_path, dpi=10)
    assert Path(a[0]["image_path"]).parent != Path(b[0]["image_path"]).parent


@pytest.fixture(scope="module")
def odd_pages_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A poster-sized page, a rotated page and a blank page."""
    path = tmp_path_factory.mktemp("pages") / "odd.pdf"
    doc = pymupdf.open()
    doc.new_page(width=14400, height=7200).insert_text((100, 100), "poster", fontsize=40)
    rotated = doc.new_page(width=200, height=100)
    rotated.insert_text((10, 50), "turned")
    rotated.set_rotation(90)
    doc.new_page(width=200, height=100)
    doc.save(path)
    return path


def test_enormous_rotated_and_blank_pages(odd_pages_pdf: Path, tmp_path: Path) -> None:
    poster, rotated, blank = render_pages(odd_pages_pdf, doc_id="odd", out_dir=tmp_path, dpi=100)
    assert max(poster["width_px"], poster["height_px"]) <= MAX_SIDE_PX
    assert poster["dpi"] == pytest.approx(20.0)  # 4000 px over 200 inches
    assert (rotated["rotation"], rotated["width_pt"], rotated["height_pt"]) == (90, 100, 200)
    assert rotated["height_px"] > rotated["width_px"]
    assert not blank["has_text"] and blank["char_count"] == 0 and blank["image_count"] == 0
