"""The emulated screen reader says what NVDA/JAWS would say for a tagged PDF, in tag order.

Fixtures are compiled with typst (tagged: headings, a linked paragraph, a list, a table
with a header row, a figure with alt text, a running header and footer) and changed
with pikepdf, so each test states what it changed.
"""

from __future__ import annotations

from pathlib import Path

import pikepdf
import pymupdf
import pytest

from extractors.errors import ExtractionError
from extractors.links import extract_links
from extractors.structure.records import extract_struct_elements
from extractors.transcript import TRUNCATED, TranscriptError, get_transcriber, transcribe, transcribe_audio
from extractors.transcript import emulated as transcript_module
from tests.extractors.conftest import assert_fits, compile_typst, first_element, mutate, red_png
from warehouse.tables import TRANSCRIPT_SCHEMA

REPORT_SOURCE = """#set document(title: "Transcript fixture")
#set text(lang: "en", size: 11pt)
#set page(width: 420pt, height: 595pt, header: [Running header text], footer: [Running footer text])
= Study report
== Methods
We measured things; see #link("https://example.org/archive")[see the project archive] for the data.

- first item
- second item
- third item

=== Results
#table(columns: 3, table.header([Year], [Count], [Share]),
  [2020], [14], [0.2], [2021], [17], [0.3], [2022], [21], [0.5])

#figure(image("red.png", width: 2cm, alt: "A red rectangle"), caption: [A red figure])
#pagebreak()
== Discussion
Closing words.
"""


@pytest.fixture(scope="module")
def report_pdf(fixture_dir: Path) -> Path:
    return compile_typst(REPORT_SOURCE, fixture_dir / "transcript-report.pdf", {"red.png": red_png()})


@pytest.fixture(scope="module")
def report(report_pdf: Path) -> list[dict]:
    return transcribe(report_pdf, doc_id="report")


def said(rows: list[dict]) -> list[str]:
    return [r["announcement"] for r in rows]


def test_records_fit_the_schema_in_spoken_order(report: list[dict]) -> None:
    assert_fits(report, TRANSCRIPT_SCHEMA)
    assert [r["seq"] for r in report] == list(range(len(report)))
    assert {r["doc_id"] for r in report} == {"report"}
    assert all(len(r["text"]) <= transcript_module.MAX_TEXT for r in report if r["text"])


def test_headings_are_announced_with_their_level(report: list[dict]) -> None:
    headings = [(r["announcement"], r["level"]) for r in report if r["role"] == "heading"]
    assert headings == [
        ("heading level 1, Study report", 1),
        ("heading level 2, Methods", 2),
        ("heading level 3, Results", 3),
        ("heading level 2, Discussion", 2),
    ]


def test_link_text_is_announced_in_place_inside_its_paragraph(report: list[dict]) -> None:
    start = said(report).index("We measured things; see")
    assert said(report)[start: start + 3] == [
        "We measured things; see", "link, see the project archive", "for the data.",
    ]
    link = report[start + 1]
    assert (link["role"], link["text"]) == ("link", "see the project archive")
    assert report[start]["element"] == report[start + 2]["element"]  # one paragraph, read around its link


def test_list_announces_its_size_each_item_and_its_end(report: list[dict]) -> None:
    start = said(report).index("list, 3 items")
    assert said(report)[start: start + 5] == [
        "list, 3 items",
        "list item, 1 of 3, first item",
        "list item, 2 of 3, second item",
        "list item, 3 of 3, third item",
        "end of list",
    ]
    assert not any("•" in a for a in said(report))  # the bullet glyph is not read out


def test_table_reads_its_size_headers_and_cells_with_their_column_header(report: list[dict]) -> None:
    start = said(report).index("table, 4 rows, 3 columns")
    end = said(report).index("end of table")
    table = report[start: end + 1]
    assert said(table)[1:8] == [
        "column header, Year", "column header, Count", "column header, Share",
        "row 2, Year 2020", "Count 14", "Share 0.2",
        "row 3, Year 2021",
    ]
    assert said(table)[-2] == "Share 0.5"
    assert {r["role"] for r in table[1:4]} == {"header_cell"}
    assert {r["role"] for r in table[4:-1]} == {"cell"}


def test_figure_alt_text_is_read_and_a_figure_without_alt_is_unlabelled(report: list[dict], report_pdf: Path,
                                                                        tmp_path: Path) -> None:
    figures = [r for r in report if r["role"] == "figure"]
    assert said(figures) == ["graphic, A red rectangle"]

    def drop_alt(pdf: pikepdf.Pdf) -> None:
        del first_element(pdf, "/Figure")["/Alt"]

    no_alt = transcribe(mutate(report_pdf, tmp_path / "no-alt.pdf", drop_alt), doc_id="no-alt")
    assert said([r for r in no_alt if r["role"] == "figure"]) == ["unlabelled graphic"]


def test_artifacts_such_as_running_headers_and_footers_are_not_read(report: list[dict], report_pdf: Path) -> None:
    with pymupdf.open(report_pdf) as doc:
        assert "Running footer text" in doc[0].get_text()  # drawn on the page ...
    assert not any("Running" in a for a in said(report))  # ... but marked as an artifact


def test_reading_follows_the_tag_tree_not_the_page(report_pdf: Path, tmp_path: Path) -> None:
    def discussion_first(pdf: pikepdf.Pdf) -> None:
        kids = pdf.Root.StructTreeRoot.K[0].K  # typst: one Document element holding everything
        heading = next(k for k in kids if k.get("/S") == "/H2" and k.get("/T") == "Discussion")
        others = [k for k in kids if k.objgen != heading.objgen]
        pdf.Root.StructTreeRoot.K[0].K = pikepdf.Array([heading, *others])

    rows = transcribe(mutate(report_pdf, tmp_path / "reordered.pdf", discussion_first), doc_id="reordered")
    assert rows[0]["announcement"] == "heading level 2, Discussion"
    assert rows[0]["page"] == 2  # drawn on page 2, read first because the tags say so


def test_actual_text_replaces_an_elements_words(report_pdf: Path, tmp_path: Path) -> None:
    def replace(pdf: pikepdf.Pdf) -> None:
        first_element(pdf, "/P").ActualText = pikepdf.String("Replacement words for the paragraph")

    rows = transcribe(mutate(report_pdf, tmp_path / "actual-text.pdf", replace), doc_id="actual")
    assert "Replacement words for the paragraph" in said(rows)
    assert "We measured things; see" not in said(rows)


def test_untagged_pdf_is_plain_text_in_content_order(untagged_pdf: Path) -> None:
    rows = transcribe(untagged_pdf, doc_id="untagged")
    assert_fits(rows, TRANSCRIPT_SCHEMA)
    assert {r["role"] for r in rows} == {"text"}
    assert all(r["element"] is None and r["level"] is None for r in rows)
    spoken = " ".join(said(rows))
    # No structure to announce, and nothing marks the footer as an artifact any more.
    assert "heading" not in spoken and "list," not in spoken
    assert spoken.index("Introduction") < spoken.index("first item") < spoken.index("alpha")
    assert "Running footer text" in spoken
    assert rows[-1]["page"] == 2


def test_each_page_is_cut_after_its_entry_limit(report_pdf: Path) -> None:
    rows = transcribe(report_pdf, doc_id="capped", max_entries_per_page=5)
    page_one = [r for r in rows if r["page"] == 1]
    assert len(page_one) == 6
    assert page_one[-1]["announcement"] == TRUNCATED
    assert [r["announcement"] for r in rows if r["page"] == 2] == ["heading level 2, Discussion", "Closing words."]
    assert [r["seq"] for r in rows] == list(range(len(rows)))


def test_passing_extracted_records_gives_the_same_transcript_without_rereading_the_tree(
        report_pdf: Path, report: list[dict], monkeypatch: pytest.MonkeyPatch) -> None:
    elements = extract_struct_elements(report_pdf, doc_id="report")
    links = extract_links(report_pdf, doc_id="report")

    def must_not_run(*args: object, **kwargs: object) -> list[dict]:
        raise AssertionError("the tag tree was extracted again")

    monkeypatch.setattr(transcript_module, "extract_struct_elements", must_not_run)
    monkeypatch.setattr(transcript_module, "extract_links", must_not_run)
    assert transcribe(report_pdf, doc_id="report", elements=elements, links=links) == report


def test_page_offset_numbers_pages_like_the_other_extractors(report_pdf: Path) -> None:
    rows = transcribe(report_pdf, doc_id="part-2", page_offset=10)
    assert {r["page"] for r in rows} == {11, 12}


def test_unreadable_pdf_raises_extraction_error(corrupt_pdf: Path) -> None:
    with pytest.raises(ExtractionError) as caught:
        transcribe(corrupt_pdf, doc_id="corrupt")
    assert caught.value.kind == "corrupt"


def test_backends_are_chosen_by_name() -> None:
    assert get_transcriber() is transcribe
    assert get_transcriber("emulated") is transcribe
    assert get_transcriber("aws-transcribe") is transcribe_audio
    with pytest.raises(TranscriptError, match="aws-transcribe, emulated"):
        get_transcriber("jaws")


def test_a_pathologically_deep_tree_is_an_extraction_error_not_a_crash(report_pdf: Path) -> None:
    deep = [{"elem_id": i, "parent_id": i - 1 if i else None, "depth": i, "order": 0, "raw_type": "Div", "type": "Div",
             "page": 1, "alt": None, "actual_text": None, "text": None, "attributes": "{}", "scope": None,
             "elem_key": None} for i in range(5000)]
    with pytest.raises(ExtractionError) as caught:
        transcribe(report_pdf, doc_id="deep", elements=deep)
    assert caught.value.kind == "corrupt"


def test_tables_without_headers_say_columns_and_spans_keep_cells_under_their_header(fixture_dir: Path) -> None:
    source = """#set page(width: 300pt, height: 300pt)
#table(columns: 2, [a], [b], [c], [])
#table(columns: 3, table.header([], [2020], [2021]),
  table.cell(rowspan: 2)[North], [1], [2], [3], [4], [South], table.cell(colspan: 2)[5])
"""
    rows = said(transcribe(compile_typst(source, fixture_dir / "transcript-tables.pdf"), doc_id="tables"))
    assert rows[:6] == ["table, 2 rows, 2 columns", "row 1, column 1, a", "column 2, b",
                        "row 2, column 1, c", "column 2, blank", "end of table"]
    second = rows[6:]
    assert second[0] == "table, 4 rows, 3 columns"
    assert "row 3, 2020 3" in second  # North spans rows 2 and 3, so 3 sits under 2020
    assert "2020 2021 5" in second  # a cell spanning two columns has both headers
