"""One PdfSource shared by all extractors: same records as reading the file alone, read once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf
import pytest

import extractors.source as source_module
from extractors.contrast import _draw_without_text, _RedactedCopy, _render, extract_contrast
from extractors.errors import ExtractionError
from extractors.figures import extract_figures
from extractors.fonts import extract_fonts, extract_text_spans
from extractors.links import extract_links, extract_orphan_link_elements
from extractors.reading_order import extract_reading_order
from extractors.source import PdfSource, pdf_source
from extractors.structure.records import extract_struct_elements
from extractors.structure.summary import struct_summary
from extractors.tables import extract_tables
from extractors.transcript import transcribe
from tasks.benchmark.work.extract import extract_file, with_contrast


def _every_extractor(pdf: Any) -> dict[str, Any]:
    elements = extract_struct_elements(pdf, doc_id="D")
    links = extract_links(pdf, doc_id="D")
    return {
        "summary": struct_summary(pdf),
        "elements": elements,
        "links": links,
        "orphans": extract_orphan_link_elements(pdf, doc_id="D"),
        "fonts": extract_fonts(pdf, doc_id="D"),
        "spans": extract_text_spans(pdf, doc_id="D"),
        "contrast": extract_contrast(pdf, doc_id="D"),
        "reading_order": extract_reading_order(pdf, doc_id="D", elements=elements),
        "tables": extract_tables(pdf, doc_id="D", elements=elements),
        "figures": extract_figures(pdf, doc_id="D", elements=elements),
        "transcript": transcribe(pdf, doc_id="D", elements=elements, links=links),
    }


def test_a_shared_source_gives_the_records_each_extractor_gives_alone(tagged_pdf: Path) -> None:
    alone = _every_extractor(tagged_pdf)
    with PdfSource(tagged_pdf) as source:
        shared = _every_extractor(source)
    for name in alone:
        assert shared[name] == alone[name], name
    assert alone["elements"] and alone["spans"] and alone["contrast"] and alone["links"]


def test_the_extract_stage_opens_the_file_once_and_interprets_each_page_once(
    tagged_pdf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    real_open = source_module.open_pdf
    monkeypatch.setattr(source_module, "open_pdf", lambda path: opened.append(str(path)) or real_open(path))
    display_lists: list[int] = []
    real_display_list = pymupdf.Page.get_displaylist
    monkeypatch.setattr(pymupdf.Page, "get_displaylist",
                        lambda page, *a, **k: display_lists.append(page.number) or real_display_list(page, *a, **k))
    with PdfSource(tagged_pdf) as source:
        rows = extract_file(source, "D", 0, 0, tmp_path / "crops", 72, [])
        pages = source.page_count
    assert rows["text_spans"] and rows["struct_elements"]
    assert opened == [str(tagged_pdf)]
    assert sorted(display_lists) == list(range(pages))


def test_emptying_mupdfs_store_when_a_file_closes_changes_no_record(
    tagged_pdf: Path, untagged_pdf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store is a cache: every extractor gives the same records with it emptied after each file (what a
    worker does) as with it kept across files (the plain path)."""
    emptied: list[int] = []
    real_shrink = pymupdf.TOOLS.store_shrink
    monkeypatch.setattr(pymupdf.TOOLS, "store_shrink", lambda percent: emptied.append(percent) or real_shrink(percent))

    def both() -> list[Any]:
        files = (tagged_pdf, untagged_pdf, tagged_pdf)
        return [extract_file(path, "D", 0, 0, tmp_path / "crops", 72, []) for path in files]

    optimised = both()
    assert emptied and set(emptied) == {100}
    monkeypatch.setattr(pymupdf.TOOLS, "store_shrink", lambda percent: None)
    plain = both()
    assert optimised == plain
    assert optimised[0]["figures"] and optimised[0]["text_spans"] and optimised[1]["text_spans"]


def test_text_pages_match_pymupdf_and_keep_off_page_text_only_when_asked(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    page.insert_text((20, 40), "on the page", fontsize=11)
    page.insert_text((400, 140), "off the page", fontsize=11)
    page.set_rotation(90)
    doc.save(tmp_path / "rotated.pdf")
    flags = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_MEDIABOX_CLIP

    def spans(text_dict: dict[str, Any]) -> list[tuple[str, tuple[float, ...]]]:
        return [(s["text"], tuple(round(v, 1) for v in s["bbox"]))
                for b in text_dict["blocks"] for line in b.get("lines", ()) for s in line["spans"]]

    with pymupdf.open(tmp_path / "rotated.pdf") as plain:
        expected = spans(plain[0].get_text("dict", flags=flags))  # unrotated page space
    with PdfSource(tmp_path / "rotated.pdf") as source:
        assert spans(source.text_dict(0, flags)) == expected == [("on the page", expected[0][1])]
        unclipped = [text for text, _ in spans(source.text_dict(0, flags & ~pymupdf.TEXT_MEDIABOX_CLIP,
                                                                    unclipped=True))]
        assert unclipped == ["on the page", "off the page"]
        assert source.text_dict(0, flags) is source.text_dict(0, flags)  # computed once


def test_the_cache_keeps_at_most_max_pages(tmp_path: Path) -> None:
    doc = pymupdf.open()
    for number in range(5):
        doc.new_page().insert_text((50, 50), f"page {number}")
    doc.save(tmp_path / "five.pdf")
    with PdfSource(tmp_path / "five.pdf", max_pages=2) as source:
        first = source.text_dict(0, 0)
        for number in range(5):
            source.text_dict(number, 0)
        assert len(source._pages) == 2
        assert source.text_dict(0, 0) is not first  # dropped, then made again
        assert source.text_dict(0, 0) == first
        assert source.seconds > 0


def test_a_source_passed_in_stays_open_and_a_path_is_closed(tagged_pdf: Path) -> None:
    with PdfSource(tagged_pdf) as source:
        with pdf_source(source) as same:
            assert same is source
        assert source.page_count > 0  # still usable
        with pdf_source(tagged_pdf) as own:
            doc = own.doc
        assert doc.is_closed


def test_unreadable_input_raises_when_first_read(corrupt_pdf: Path) -> None:
    source = PdfSource(corrupt_pdf)
    with pytest.raises(ExtractionError) as raised:
        source.doc  # noqa: B018 - the property opens the file
    assert raised.value.kind == "corrupt"
    assert struct_summary(PdfSource(corrupt_pdf))["error"]


def _text_free_page(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    page.draw_rect(pymupdf.Rect(10, 10, 150, 60), color=None, fill=(0.2, 0.5, 0.2))
    page.draw_line((10, 100), (290, 100), color=(0, 0, 1), width=2)
    page.insert_text((20, 40), "text on a green box", fontsize=12, color=(1, 1, 1))
    page.insert_text((20, 130), "black text on white", fontsize=12)
    doc.save(path)
    return path


def test_the_text_free_device_draws_what_redaction_leaves(tmp_path: Path) -> None:
    path = _text_free_page(tmp_path / "box.pdf")
    zoom = pymupdf.Matrix(2, 2)
    with PdfSource(path) as source, _RedactedCopy(path) as copy:
        drawn, hidden = _draw_without_text(source.display_list(0), zoom)
        full = _render(source.pixmap(0, zoom))
        redacted = _render(copy.render(0, zoom))
    text_free = _render(drawn)
    assert not hidden
    assert text_free.shape == redacted.shape == full.shape
    assert abs(text_free.astype(int) - redacted.astype(int)).max() <= 8
    assert (abs(full.astype(int) - text_free.astype(int)).max(axis=2) > 8).sum() > 100  # the glyphs are gone
    assert abs(text_free[70, 100].astype(int) - (51, 128, 51)).max() <= 1  # the box is still there (at 2x)


def test_invisible_text_sends_the_page_to_the_redaction_fallback(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page(width=200, height=100).insert_text((10, 40), "invisible words", render_mode=3)
    doc.save(tmp_path / "invisible.pdf")
    with PdfSource(tmp_path / "invisible.pdf") as source:
        _, hidden = _draw_without_text(source.display_list(0), pymupdf.Matrix(1, 1))
    assert hidden
    [record] = extract_contrast(tmp_path / "invisible.pdf", doc_id="I")
    assert record["invisible_reason"] == "render_mode"


def test_contrast_joins_a_span_whose_box_starts_with_a_space() -> None:
    span = {"page": 1, "text": " (", "bbox": [297.42, 547.23, 304.63, 560.51]}
    measured = {"page": 1, "text": "(", "bbox": [297.63, 547.23, 304.63, 560.51], "contrast_ratio": 21.0,
                "background_color": "#ffffff", "large_text": False, "threshold": 4.5, "passes": True,
                "invisible": False, "invisible_reason": None}
    elsewhere = {**measured, "bbox": [10.0, 547.23, 17.0, 560.51], "contrast_ratio": 2.0}
    [joined] = with_contrast([span], [elsewhere, measured])
    assert joined["contrast_ratio"] == 21.0
    [alone] = with_contrast([span], [elsewhere])
    assert alone["contrast_ratio"] is None


def test_contrast_for_text_spans_measures_exactly_the_spans_they_hold(tagged_pdf: Path, tmp_path: Path) -> None:
    with PdfSource(tagged_pdf) as source:
        spans = extract_text_spans(source, doc_id="D")
        measured = extract_contrast(source, doc_id="D", off_page=False)
    assert [(r["page"], r["text"][:200], r["bbox"]) for r in measured] == [
        (s["page"], s["text"][:200], s["bbox"]) for s in spans
    ]
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    page.insert_text((20, 40), "on the page", fontsize=11)
    page.insert_text((400, 140), "off the page", fontsize=11)
    doc.save(tmp_path / "off.pdf")
    assert [r["text"] for r in extract_contrast(tmp_path / "off.pdf", doc_id="O")] == ["on the page", "off the page"]
    assert [r["text"] for r in extract_contrast(tmp_path / "off.pdf", doc_id="O", off_page=False)] == ["on the page"]


def test_mupdf_diagnostics_of_a_file_do_not_outlive_it(tmp_path: Path) -> None:
    """PyMuPDF keeps MuPDF's warnings in one process-wide list; a worker that read many damaged files grew
    it without bound (20,000 strings per page load of a page with 20,000 broken annotations)."""
    import pikepdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "broken annotations")
    doc.save(tmp_path / "ok.pdf")
    doc.close()
    with pikepdf.open(tmp_path / "ok.pdf") as pdf:
        pdf.pages[0].obj["/Annots"] = pikepdf.Array([pikepdf.Dictionary()] * 500)
        pdf.save(tmp_path / "annots.pdf")
    for _ in range(3):
        with PdfSource(tmp_path / "annots.pdf") as source:
            source.page(0)
            assert len(pymupdf.TOOLS.mupdf_warnings(reset=False).splitlines()) >= 500  # MuPDF did complain
        assert pymupdf.TOOLS.mupdf_warnings(reset=False) == ""  # and the complaints went with the file


@pytest.mark.parametrize("options", [{}, {"colorspace": pymupdf.csGRAY}, {"alpha": True},
                                     {"clip": pymupdf.Rect(20, 30, 220, 150)}],
                         ids=["rgb", "grey", "alpha", "crop"])
def test_saved_pngs_hold_exactly_the_rendered_pixels(tagged_pdf: Path, tmp_path: Path,
                                                     options: dict[str, Any]) -> None:
    from PIL import Image

    pixmap = pymupdf.open(tagged_pdf)[0].get_pixmap(dpi=72, **options)
    path = tmp_path / "page.png"
    source_module.save_png(pixmap, path)
    back = pymupdf.Pixmap(str(path))
    assert (back.width, back.height, back.n, back.alpha) == (pixmap.width, pixmap.height, pixmap.n, pixmap.alpha)
    assert back.samples == pymupdf.Pixmap(pixmap.tobytes("png")).samples  # what MuPDF's own writer stores
    with Image.open(path) as image:  # any PNG reader takes it
        image.load()
        assert image.size == (pixmap.width, pixmap.height)
    # the fast writer covers page renders and crops; alpha (premultiplied in MuPDF) stays with MuPDF's
    assert (source_module.png_bytes(pixmap) is None) == bool(pixmap.alpha)
    assert not list(tmp_path.glob(".*partial"))


def _two_pages(path: Path) -> Path:
    doc = pymupdf.open()
    for _ in range(2):
        page = doc.new_page()
        page.insert_text((80, 120), "Site")
        page.insert_text((190, 120), "Mean")
        for y in (100, 130, 160):
            page.draw_line((72, y), (300, y))
        for x in (72, 186, 300):
            page.draw_line((x, 100), (x, 160))
    doc.save(path)
    return path


def test_within_shared_sources_every_reader_of_a_file_gets_one_source_closed_at_the_end(tmp_path: Path) -> None:
    from extractors.source import DEFAULT_MAX_PIXELS, pdf_source, shared_sources

    path = _two_pages(tmp_path / "a.pdf")
    with shared_sources():
        with pdf_source(path) as first:
            first.display_list(0)
        with pdf_source(str(path), max_pixels=DEFAULT_MAX_PIXELS) as again:  # the same file, the same limit
            assert again is first and first._doc is not None  # left open between readers
        with pdf_source(path, max_pixels=1000) as other:  # another limit: a source of its own
            assert other is not first
        assert other._doc is None  # closed by its reader
        with pytest.raises(RuntimeError, match="do not nest"), shared_sources():
            pass
    assert first._doc is None  # closed when the block ends
    with pdf_source(path) as alone:  # outside the block: a new source, closed by its reader
        assert alone is not first
    assert alone._doc is None


def test_a_pages_table_search_runs_once_and_dropped_pages_are_made_again(tmp_path: Path) -> None:
    from extractors.source import PdfSource
    from extractors.tables import drawn_tables

    with PdfSource(_two_pages(tmp_path / "t.pdf")) as source:
        found = drawn_tables(source, 0)
        assert found and drawn_tables(source, 0) is found
        listed = source.display_list(1)
        source.drop_pages()
        assert source.display_list(1) is not listed
        assert [t.bbox for t in drawn_tables(source, 0)] == [t.bbox for t in found]
