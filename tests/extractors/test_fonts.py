"""Font and text-span records: embedding, Unicode mapping, sizes, style, hidden text."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pikepdf
import pymupdf
import pytest

from extractors.fonts import extract_fonts, extract_text_spans
from tests.extractors.conftest import assert_fits, mutate
from warehouse.tables import FONTS_SCHEMA, TEXT_SPANS_SCHEMA


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


# ToUnicode rewrites: the glyphs stay, their mapping changes (used by tests/judges/test_defect_classes_fonts.py too).
_MAPPING = re.compile(r"(<[0-9A-Fa-f]+>\s*)<([0-9A-Fa-f]+)>")


def shifted_cmap(cmap: str) -> str:
    """Every code mapped to the text of the next code: glyphs map to other letters."""
    head, body = cmap.split("endcodespacerange", 1)
    targets = [t for _, t in _MAPPING.findall(body)]
    moved = iter(targets[1:] + targets[:1])
    return head + "endcodespacerange" + _MAPPING.sub(lambda m: m.group(1) + f"<{next(moved)}>", body)


def spaced_cmap(cmap: str) -> str:
    """Every code mapped to a space: visible glyphs with no text."""
    head, body = cmap.split("endcodespacerange", 1)
    return head + "endcodespacerange" + _MAPPING.sub(lambda m: m.group(1) + "<0020>", body)


def emptied_cmap(cmap: str) -> str:
    """Every code mapped to nothing (an empty destination)."""
    head, body = cmap.split("endcodespacerange", 1)
    return head + "endcodespacerange" + _MAPPING.sub(lambda m: m.group(1) + "<>", body)


def rewrite_tounicode(change: Callable[[str], str]) -> Callable[[pikepdf.Pdf], None]:
    def apply(pdf: pikepdf.Pdf) -> None:
        done: set[tuple[int, int]] = set()
        for page in pdf.pages:
            for font in page.Resources.Font.values():
                cmap = font.get("/ToUnicode")
                if cmap is None or cmap.objgen in done:
                    continue
                done.add(cmap.objgen)
                cmap.write(change(cmap.read_bytes().decode("latin-1")).encode("latin-1"))
    return apply


def test_typst_mappings_agree_with_their_fonts(tagged_pdf: Path) -> None:
    fonts = extract_fonts(tagged_pdf, doc_id="d")
    assert all(f["mapping_conflict"] is None and f["textless_distinct"] == 0 for f in fonts)
    regular = next(f for f in fonts if f["font_name"].endswith("Regular"))
    assert [g["page"] for g in regular["glyph_pages"]] == [1, 2]
    assert regular["glyph_pages"][0]["glyphs"] > 100
    assert not any(g["wrong"] or g["textless"] for f in fonts for g in f["glyph_pages"])


def test_shifted_mapping_is_contradicted_by_the_glyph_widths(tagged_pdf: Path, tmp_path: Path) -> None:
    path = mutate(tagged_pdf, tmp_path / "shifted.pdf", rewrite_tounicode(shifted_cmap))
    regular = next(f for f in extract_fonts(path, doc_id="d") if f["font_name"].endswith("Regular"))
    assert "widths" in regular["mapping_conflict"]
    first = regular["glyph_pages"][0]
    assert first["wrong"] == first["glyphs"] > 100


def test_glyphs_mapped_to_spaces_are_textless(tagged_pdf: Path, tmp_path: Path) -> None:
    path = mutate(tagged_pdf, tmp_path / "spaced.pdf", rewrite_tounicode(spaced_cmap))
    regular = next(f for f in extract_fonts(path, doc_id="d") if f["font_name"].endswith("Regular"))
    assert regular["textless_distinct"] > 10
    first = regular["glyph_pages"][0]
    assert first["glyphs"] == 0 and first["textless"] > 100


def test_differences_names_contradict_the_tounicode(tmp_path: Path) -> None:
    """A simple font whose /Differences names code 97 'b', 98 'c' ... while its ToUnicode says 'a', 'b' ..."""
    path = tmp_path / "differences.pdf"
    doc = pymupdf.open()
    doc.new_page(width=300, height=200).insert_text((20, 40), "abcdefghijklmnop qrstuvwxyz", fontname="helv")
    doc.save(path)

    def rename(pdf: pikepdf.Pdf) -> None:
        font = next(iter(pdf.pages[0].Resources.Font.values()))
        letters = "bcdefghijklmnopqrstuvwxyza"
        font["/Encoding"] = pikepdf.Dictionary(
            BaseEncoding=pikepdf.Name.WinAnsiEncoding,
            Differences=pikepdf.Array([97, *(pikepdf.Name("/" + c) for c in letters)]))
        pairs = "\n".join(f"<{97 + i:02X}> <{97 + i:04X}>" for i in range(26))
        font["/ToUnicode"] = pdf.make_stream((
            "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n1 begincodespacerange\n<00> <FF>\n"
            f"endcodespacerange\n26 beginbfchar\n{pairs}\nendbfchar\nendcmap\nend end\n").encode())

    renamed = mutate(path, tmp_path / "renamed.pdf", rename)
    (helvetica,) = extract_fonts(renamed, doc_id="d")
    assert "glyph names" in helvetica["mapping_conflict"] and "/b" in helvetica["mapping_conflict"]
    assert helvetica["glyph_pages"][0]["wrong"] >= 20
    (plain,) = extract_fonts(path, doc_id="d")
    assert plain["mapping_conflict"] is None


DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


@pytest.mark.skipif(not DEJAVU.exists(), reason="needs the DejaVu Sans TrueType font (fonts-dejavu-core)")
def test_truetype_cmap_contradicts_a_mapping_to_the_next_letter(tmp_path: Path) -> None:
    """An embedded TrueType program keeps its cmap: glyph 'a' that the ToUnicode calls 'b' is contradicted."""
    text = ["The quick brown fox jumps over the lazy dog.", "Pack my box with five dozen liquor jugs."]
    path = tmp_path / "truetype.pdf"
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    page.insert_font(fontname="dv", fontfile=str(DEJAVU))
    for i, line in enumerate(text):
        page.insert_text((20, 40 + 20 * i), line, fontname="dv", fontsize=11)
    doc.save(path)
    (right,) = extract_fonts(path, doc_id="d")
    assert right["mapping_conflict"] is None

    program = pymupdf.Font(fontfile=str(DEJAVU))
    letters = sorted({c for line in text for c in line if c.isalpha()})

    def next_letter(pdf: pikepdf.Pdf) -> None:
        font = next(iter(pdf.pages[0].Resources.Font.values()))
        pairs = "\n".join(f"<{program.has_glyph(ord(c)):04X}> <{ord(chr(ord(c) + 1)):04X}>" for c in letters)
        font["/ToUnicode"] = pdf.make_stream((
            "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n1 begincodespacerange\n<0000> <FFFF>\n"
            f"endcodespacerange\n{len(letters)} beginbfchar\n{pairs}\nendbfchar\nendcmap\nend end\n").encode())

    (wrong,) = extract_fonts(mutate(path, tmp_path / "next-letter.pdf", next_letter), doc_id="d")
    assert "cmap" in wrong["mapping_conflict"]
    assert wrong["glyph_pages"][0]["wrong"] >= 60
