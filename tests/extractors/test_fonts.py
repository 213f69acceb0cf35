"""Font and text-span records: embedding, Unicode mapping, sizes, style, hidden text."""

from __future__ import annotations

from pathlib import Path

import pikepdf
import pymupdf
import pytest

from extractors.fonts import FONTS_SCHEMA, TEXT_SPANS_SCHEMA, extract_fonts, extract_text_spans
from tests.extractors.conftest import assert_fits, mutate


@pytest.fixture(scope="module")
def base14_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Standard fonts (never embedded), an invisible text layer, coloured text."""
    path = tmp_path_factory.mktemp("fonts") / "base14.pdf"
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    page.insert_text((20, 40), "Visible Helvetica", fontname="helv", fontsize=12)
    page.insert_text((20, 80), "Hidden text layer", fontname="helv", fontsize=9, render_mode=3)
    page.insert_text((20, 120), "Red words", fontname="tiro", fontsize=14, color=(1, 0, 0))
    doc.save(path)
    return path


def test_records_fit_the_schemas(tagged_pdf: Path, base14_pdf: Path) -> None:
    for pdf in (tagged_pdf, base14_pdf):
        assert_fits(extract_fonts(pdf, doc_id="d"), FONTS_SCHEMA)
        assert_fits(extract_text_spans(pdf, doc_id="d"), TEXT_SPANS_SCHEMA)


def test_typst_fonts_are_embedded_subsets_with_unicode_maps(tagged_pdf: Path) -> None:
    fonts = extract_fonts(tagged_pdf, doc_id="d", page_offset=3)
    assert fonts and all(f["embedded"] and f["subset"] and f["has_tounicode"] for f in fonts)
    assert {f["font_type"] for f in fonts} == {"Type0"}
    assert all(f["descendant_type"] in {"CIDFontType0", "CIDFontType2"} for f in fonts)
    regular = next(f for f in fonts if f["font_name"].endswith("Regular"))
    assert regular["pages"] == [4, 5] and regular["char_count"] > 100 and 11.0 in regular["sizes"]
    bold = next(f for f in fonts if f["font_name"].endswith("Bold"))
    assert max(bold["sizes"]) > 11.0  # headings


def test_spans_join_fonts_by_name(tagged_pdf: Path) -> None:
    names = {f["font_name"] for f in extract_fonts(tagged_pdf, doc_id="d")}
    assert {s["font_name"] for s in extract_text_spans(tagged_pdf, doc_id="d")} <= names


def test_span_style_colour_and_position(tagged_pdf: Path) -> None:
    spans = {s["text"]: s for s in extract_text_spans(tagged_pdf, doc_id="d", page_offset=1)}
    assert spans["strong words"]["bold"] and not spans["strong words"]["italic"]
    assert spans["emphasis here"]["italic"]
    assert spans["blue words"]["color"] == "#336699"
    heading = spans["Introduction"]
    assert heading["size"] > 11 and heading["page"] == 2 and heading["bbox"][1] < 100
    assert not any(s["render_invisible"] or s["unmapped_chars"] for s in spans.values())


def test_standard_fonts_are_not_embedded(base14_pdf: Path) -> None:
    fonts = {f["font_name"]: f for f in extract_fonts(base14_pdf, doc_id="d")}
    assert set(fonts) == {"Helvetica", "Times-Roman"}
    helvetica = fonts["Helvetica"]
    assert not helvetica["embedded"] and not helvetica["subset"] and helvetica["font_type"] == "Type1"
    assert helvetica["sizes"] == [9.0, 12.0]


def test_invisible_text_is_flagged(base14_pdf: Path) -> None:
    spans = {s["text"]: s for s in extract_text_spans(base14_pdf, doc_id="d")}
    assert spans["Hidden text layer"]["render_invisible"]
    assert not spans["Visible Helvetica"]["render_invisible"]
    assert spans["Red words"]["color"] == "#ff0000"


def test_fonts_without_unicode_maps(tagged_pdf: Path, tmp_path: Path) -> None:
    def drop_maps(pdf: pikepdf.Pdf) -> None:
        for page in pdf.pages:
            for font in page.Resources.Font.values():
                if "/ToUnicode" in font:  # fonts shared by both pages lose it once
                    del font["/ToUnicode"]

    path = mutate(tagged_pdf, tmp_path / "no-tounicode.pdf", drop_maps)
    assert not any(f["has_tounicode"] for f in extract_fonts(path, doc_id="d"))
    assert sum(s["unmapped_chars"] for s in extract_text_spans(path, doc_id="d")) > 50
