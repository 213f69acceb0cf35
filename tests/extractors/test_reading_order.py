"""Reading order: units, three rankings, and how order_agreement reads them.

A two-column typst page (a title and abstract spanning both columns, a footnote, a page
number) shows the geometry; the synthetic generator's reading-order mutations, applied here
to its passing documents, show that each kind of disorder is caught and the passing
documents are not flagged.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pikepdf
import pytest

from corpus.mutations import reading_order as mutations
from corpus.synthetic import build_synthetic_benchmark
from extractors.errors import ExtractionError
from extractors.reading_order import extract_reading_order, order_agreement
from extractors.structure.records import extract_struct_elements
from tests.extractors.conftest import assert_fits, compile_typst
from tests.extractors.conftest import first_mutated as mutated
from warehouse.tables import READING_ORDER_SCHEMA

TWO_COLUMNS = """#set document(title: "Two columns")
#set text(lang: "en", size: 10pt)
#set page(width: 595pt, height: 842pt, margin: 56pt, columns: 2,
          footer: context align(center, text(8pt, counter(page).display())))
#place(top + center, scope: "parent", float: true)[
  #text(20pt, weight: "bold")[Reading Order Across Two Columns]
  #v(6pt)
  #align(left)[*Abstract.* #lorem(60)]
]
= Introduction
#lorem(70)

#lorem(50)#footnote[A note at the foot of the page.]

= Method
#lorem(80)

#lorem(60)

= Results
#lorem(90)

#lorem(70)

= Discussion
#lorem(60)
"""


@pytest.fixture(scope="module")
def two_columns(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_typst(TWO_COLUMNS, tmp_path_factory.mktemp("reading-order") / "two-columns.pdf")


@pytest.fixture(scope="module")
def passed_papers(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("synthetic-reading-order")
    build_synthetic_benchmark(root, seed=0, base_docs=4, criteria=["logical_reading_order"])
    return sorted((root / "data" / "processed" / "logical_reading_order" / "passed").glob("*.pdf"))




def test_two_column_page_reads_each_column_top_to_bottom(two_columns: Path) -> None:
    records = extract_reading_order(two_columns, doc_id="two")
    assert_fits(records, READING_ORDER_SCHEMA)
    by_text = {r["text"][:12]: r for r in records}
    title = by_text["Reading Orde"]
    assert (title["role"], title["column"], title["visual_rank"]) == ("title", None, 0)
    assert by_text["Abstract. Lo"]["column"] is None  # spans both columns
    body = [r for r in records if r["role"] in ("body", "title") and r["column"] is not None]
    left = [r["visual_rank"] for r in body if r["column"] == 0]
    right = [r["visual_rank"] for r in body if r["column"] == 1]
    assert left and right and max(left) < min(right)
    roles = {r["role"] for r in records}
    assert {"footer", "footnote"} <= roles  # the page number, the note
    assert [r["role"] for r in records if r["text"] == "1"] == ["footer"]
    summary = order_agreement(records)
    assert summary["tau_struct_visual"] == 1.0
    assert summary["out_of_order"] == 0
    assert not summary["columns_interleaved"] and not summary["footnote_in_body"]
    assert summary["coverage"] == 1.0


def test_records_point_to_the_struct_elements_they_cover(two_columns: Path) -> None:
    elements = extract_struct_elements(two_columns, doc_id="two")
    records = extract_reading_order(two_columns, doc_id="two", elements=elements)
    assert records == extract_reading_order(two_columns, doc_id="two")  # elements only save work
    types = {e["elem_id"]: e["type"] for e in elements}
    assert types[next(r["elem_id"] for r in records if r["text"].startswith("Introduction"))] == "H1"
    assert types[next(r["elem_id"] for r in records if r["role"] == "footnote")] == "Note"
    ranks = sorted(r["struct_rank"] for r in records if r["struct_rank"] is not None)
    assert ranks == list(range(len(ranks)))


def test_interleaving_the_columns_is_flagged(two_columns: Path, tmp_path: Path) -> None:
    with pikepdf.open(two_columns) as pdf:
        mutations.columns_interleaved(pdf, random.Random(0))
        pdf.save(tmp_path / "interleaved.pdf")
    summary = order_agreement(extract_reading_order(tmp_path / "interleaved.pdf", doc_id="x"))
    assert summary["columns_interleaved"]
    assert summary["tau_struct_visual"] < 0.8
    assert summary["column_switches_struct"] > summary["column_switches_visual"] + 3


def test_untagged_pages_have_content_order_only(two_columns: Path, tmp_path: Path) -> None:
    with pikepdf.open(two_columns) as pdf:
        del pdf.Root["/StructTreeRoot"]
        pdf.save(tmp_path / "untagged.pdf")
    records = extract_reading_order(tmp_path / "untagged.pdf", doc_id="u")
    assert records and all(r["struct_rank"] is None and r["elem_id"] is None for r in records)
    # Without tags the heading is cut from its paragraph by the change of type size.
    assert any(r["text"] == "Introduction" for r in records)
    summary = order_agreement(records)
    assert summary["tau_struct_visual"] is None and summary["coverage"] == 0.0
    assert summary["tau_content_visual"] == 1.0


def test_passing_papers_raise_no_flag(passed_papers: list[Path]) -> None:
    for paper in passed_papers:
        summary = order_agreement(extract_reading_order(paper, doc_id=paper.stem))
        assert summary["tau_struct_visual"] >= 0.95, (paper.name, summary)
        assert summary["out_of_order"] == 0, (paper.name, summary)
        assert not summary["columns_interleaved"] and not summary["footnote_in_body"], (paper.name, summary)


@pytest.mark.parametrize(
    ("mutation", "flag"),
    [
        (mutations.columns_interleaved, "columns_interleaved"),
        (mutations.footnote_misplaced, "footnote_in_body"),
        (mutations.section_moved, "out_of_order"),
        (mutations.heading_after_body, "out_of_order"),
    ],
    ids=lambda value: getattr(value, "__name__", value),
)
def test_each_mutation_is_caught(passed_papers: list[Path], tmp_path: Path,
                                 mutation: Callable[[pikepdf.Pdf, random.Random], None], flag: str) -> None:
    summary = order_agreement(extract_reading_order(mutated(passed_papers, mutation, tmp_path / "m.pdf"), doc_id="m"))
    assert summary[flag], summary


def test_per_page_agreement_still_sees_the_whole_document(passed_papers: list[Path], tmp_path: Path) -> None:
    records = extract_reading_order(mutated(passed_papers, mutations.footnote_misplaced, tmp_path / "m.pdf"),
                                    doc_id="m")
    note_page = next(r["page"] for r in records if r["role"] == "footnote")
    pages = {r["page"]: order_agreement(records, page=r["page"]) for r in records}
    assert pages[note_page]["footnote_in_body"]
    assert sum(p["units"] for p in pages.values()) == len(records)


def test_kendall_tau_runs_from_agreement_to_reversal() -> None:
    def page(ranks: list[int]) -> list[dict]:
        return [{"page": 1, "role": "body", "struct_rank": s, "content_rank": v, "visual_rank": v, "column": 0,
                 "elem_id": s, "bbox": [0, 20 * v, 100, 20 * v + 10], "text": "x", "marks": []}
                for v, s in enumerate(ranks)]

    assert order_agreement(page([0, 1, 2, 3]))["tau_struct_visual"] == 1.0
    reversed_page = order_agreement(page([3, 2, 1, 0]))
    assert reversed_page["tau_struct_visual"] == -1.0
    assert reversed_page["out_of_order"] == 3


def test_unreadable_pdf_raises(corrupt_pdf: Path) -> None:
    with pytest.raises(ExtractionError):
        extract_reading_order(corrupt_pdf, doc_id="bad", elements=[])


def test_a_line_whose_centre_is_in_artifact_leader_dots_still_belongs_to_its_entry() -> None:
    from extractors.reading_order import _ElementIndex, _Line

    # A TOC entry: the tagged title covers the left third of the line; the leader dots (artifacts)
    # and the page number fill the rest, so the line's centre lies outside every element box.
    elements = [
        {"elem_id": 0, "parent_id": None, "type": "TOC", "page": 1, "bbox": None, "text": None},
        {"elem_id": 1, "parent_id": 0, "type": "TOCI", "page": 1, "bbox": [50, 100, 170, 112], "text": "Methods"},
        {"elem_id": 2, "parent_id": 0, "type": "TOCI", "page": 1, "bbox": [50, 130, 90, 142], "text": "Notes"},
    ]
    index = _ElementIndex(elements, page_offset=0)
    entry = _Line([50, 100, 400, 112], "Methods ........................ 4", 10, 30, [])
    stray = _Line([300, 130, 400, 142], ". . . . . . 9", 10, 10, [])  # nothing tagged covers it
    index.assign(0, [entry, stray])
    assert entry.elem == 1 and stray.elem is None


# --------------------------------------------------------------------------- marked content inside one element

def _own_mcids(elem: pikepdf.Dictionary) -> list[int]:
    return [int(k) for k in elem.K if isinstance(k, int) and not isinstance(k, bool)]


def _longest_paragraph(pdf: pikepdf.Pdf) -> pikepdf.Dictionary:
    from tests.extractors.conftest import struct_elements_of
    return max((e for e in struct_elements_of(pdf) if e.get("/S") == "/P"), key=lambda e: len(_own_mcids(e)))


def _measured(path: Path) -> list[tuple[int, int, int]]:
    return [(r["mcid_sequences"], r["mcid_back_steps"], r["mcid_column_switches"])
            for r in extract_reading_order(path, doc_id="m") if r["mcid_sequences"] is not None]


def test_lines_of_one_paragraph_listed_backwards_are_counted(two_columns: Path, tmp_path: Path) -> None:
    measured = _measured(two_columns)
    assert measured and all(back == 0 for _, back, _ in measured)  # typst lists lines as it prints them
    assert all(switches <= 1 for _, _, switches in measured)  # a paragraph continued into the next column
    with pikepdf.open(two_columns) as pdf:
        paragraph = _longest_paragraph(pdf)
        mcids = _own_mcids(paragraph)
        backwards = iter(reversed(mcids))
        paragraph.K = pikepdf.Array([next(backwards) if isinstance(k, int) and not isinstance(k, bool) else k
                                     for k in paragraph.K])
        pdf.save(tmp_path / "backwards.pdf")
    assert max(back for _, back, _ in _measured(tmp_path / "backwards.pdf")) >= len(mcids) // 2


def test_two_columns_merged_line_by_line_into_one_element_are_counted(tmp_path: Path) -> None:
    source = ('#set text(lang: "en", size: 10pt)\n#set page(width: 420pt, height: 340pt, columns: 2)\n'
              + "#lorem(90)\n#colbreak()\n#lorem(90)\n")
    path = compile_typst(source, tmp_path / "columns.pdf")
    assert all(switches == 0 for _, _, switches in _measured(path))
    from corpus.mutations.structure import kids, rebuild_parent_tree, set_kids
    from tests.extractors.conftest import struct_elements_of
    with pikepdf.open(path) as pdf:
        left, right = [e for e in struct_elements_of(pdf) if e.get("/S") == "/P"][:2]
        a, b = _own_mcids(left), _own_mcids(right)
        set_kids(left, [m for pair in zip(a, b, strict=False) for m in pair] + a[len(b):] + b[len(a):])
        set_kids(left.P, [k for k in kids(left.P) if not (isinstance(k, pikepdf.Dictionary)
                                                          and k.objgen == right.objgen)])
        rebuild_parent_tree(pdf)
        pdf.save(tmp_path / "across.pdf")
    assert max(switches for _, _, switches in _measured(tmp_path / "across.pdf")) >= 5


def test_pages_record_their_tab_order_and_annotations(tmp_path: Path) -> None:
    from extractors.pages import render_pages
    source = ('#set text(lang: "en")\n#link("https://example.org")[a link] and more text.\n'
              "#pagebreak()\nA page without links.\n")
    path = compile_typst(source, tmp_path / "links.pdf")
    pages = render_pages(path, doc_id="l", out_dir=tmp_path / "png", dpi=20)
    assert [(p["tabs"], p["annotation_count"]) for p in pages] == [("S", 1), (None, 0)]
