"""Semantic-tagging defect classes that published PDF/UA example suites fail, as pass/fail twins: the
conforming file typst writes, and that file with the one defect put in by pikepdf. The fail twin must fail
semantic tagging with a finding carrying the expected rule id; the pass twin must pass.
"""

from __future__ import annotations

import io
from typing import Any

import pikepdf
import pytest
from PIL import Image, ImageDraw

from corpus.mutations.structure import elements_of, kids, rebuild_parent_tree, set_kids
from tests.judges.twins import PREAMBLE, Case, judge_twins, prose

pytestmark = pytest.mark.slow

CRITERION = "semantic_tagging"
ARTICLE = (PREAMBLE + "= Introduction\n" + prose(3) + "\n\n"
           + "== A rather long second level heading that has to wrap over two lines on this narrow page\n"
           + prose(3, 1) + "\n\n" + "= Methods\n" + prose(3, 2) + "\n\n= Results\n" + prose(2, 3) + "\n")
TITLED = PREAMBLE + "#title()\n= Introduction\n" + prose(3) + "\n\n= Methods\n" + prose(3, 1) + "\n"
LISTS = (PREAMBLE + "= Lists\n" + prose(2) + "\n\n- a first point to make\n- a second point to make\n"
         "- a third point to make\n\n" + prose(1, 1) + "\n\n+ step one of the method\n+ step two of the method\n"
         "+ step three of the method\n+ step four of the method\n\n" + prose(2, 2) + "\n")
TABLE = (PREAMBLE + "= Data\n" + prose(2) + "\n\n#table(columns: 3, table.header([Name], [Spring], [Autumn]),"
         " [Alice], [12], [14], [Bruno], [9], [11], [Chen], [15], [13])\n\n" + prose(2, 1) + "\n")


def _retype(kind: str, new: str, index: int = 0) -> Any:
    def edit(pdf: pikepdf.Pdf) -> None:
        elements_of(pdf, kind)[index].S = pikepdf.Name(new)
    return edit


def _insert_after(pdf: pikepdf.Pdf, element: pikepdf.Dictionary, new: pikepdf.Dictionary) -> None:
    """Put `new` right after `element` among its parent's kids, and rebuild the parent tree."""
    siblings = kids(element.P)
    at = next(i for i, k in enumerate(siblings) if isinstance(k, pikepdf.Dictionary) and k.objgen == element.objgen)
    siblings.insert(at + 1, new)
    set_kids(element.P, siblings)
    rebuild_parent_tree(pdf)


def _split_heading(pdf: pikepdf.Pdf) -> None:
    """The two-line H2 becomes two H2 elements, one per line."""
    heading = elements_of(pdf, "/H2")[0]
    mcids = [k for k in kids(heading) if isinstance(k, int)]
    assert len(mcids) == 2, mcids
    parent = heading.P
    second = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.H2, P=parent,
                                                  K=pikepdf.Array([mcids[1]])))
    if "/Pg" in heading:
        second.Pg = heading.Pg
    set_kids(heading, [mcids[0]])
    _insert_after(pdf, heading, second)


def _split_paragraph(pdf: pikepdf.Pdf) -> None:
    """The first paragraph becomes two P elements after its first line, which stops mid-sentence."""
    paragraph = elements_of(pdf, "/P")[0]
    mcids = [k for k in kids(paragraph) if isinstance(k, int)]
    assert len(mcids) >= 3, mcids
    rest = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.P, P=paragraph.P,
                                                K=pikepdf.Array(mcids[1:])))
    if "/Pg" in paragraph:
        rest.Pg = paragraph.Pg
    set_kids(paragraph, mcids[:1])
    _insert_after(pdf, paragraph, rest)


def _list_numbering(pdf: pikepdf.Pdf) -> None:
    """The bulleted list declares itself numbered (ListNumbering Decimal)."""
    bullets = elements_of(pdf, "/L")[0]
    for attr in bullets.A if isinstance(bullets.A, pikepdf.Array) else [bullets.A]:
        if "/ListNumbering" in attr:
            attr.ListNumbering = pikepdf.Name.Decimal


def _split_list(pdf: pikepdf.Pdf) -> None:
    """The numbered list of four steps tagged as two lists of two, one after the other."""
    numbered = elements_of(pdf, "/L")[1]
    items = kids(numbered)
    parent = numbered.P
    rest = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.L, P=parent,
                                                A=numbered.A, K=pikepdf.Array(items[2:])))
    for item in items[2:]:
        item.P = rest
    set_kids(numbered, items[:2])
    _insert_after(pdf, numbered, rest)


def _headings_in_header_row(pdf: pikepdf.Pdf) -> None:
    """The table's header cells tagged as headings instead of TH."""
    for cell in elements_of(pdf, "/TH"):
        cell.S = pikepdf.Name.H3
        if "/A" in cell:
            del cell["/A"]


def _text_image(text: str) -> bytes:
    image = Image.new("RGB", (1200, 44), "white")
    ImageDraw.Draw(image).text((4, 4), text, fill="black", font_size=34)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _bar_chart() -> bytes:
    image = Image.new("RGB", (300, 200), "white")
    draw = ImageDraw.Draw(image)
    for i, h in enumerate((60, 120, 90, 160)):
        draw.rectangle((30 + i * 65, 190 - h, 75 + i * 65, 190), fill=(40, 90, 160))
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


LINE = "Register before the end of March to keep your place in the course"
FIGURES = (PREAMBLE + "= Figures\n" + prose(2) + "\n\n#figure(image(\"chart.png\", width: 200pt, alt: \"Bar chart of "
           "four yearly totals, rising from 60 to 160 with a dip in the third year\"), caption: [Yearly totals])\n\n"
           + prose(2, 1) + "\n")
TEXT_AS_IMAGE = (PREAMBLE + "= Figures\n" + prose(2) + "\n\n#image(\"line.png\", width: 300pt, alt: \"" + LINE
                 + "\")\n\n" + prose(2, 1) + "\n")
FILES = {"chart.png": _bar_chart(), "line.png": _text_image(LINE)}

CASES = [
    Case("first_not_h1", ARTICLE, _retype("/H1", "/H3"), CRITERION, "semantic_tagging.heading_nesting.first_not_h1"),
    Case("mixed_h", ARTICLE, _retype("/H1", "/H", 1), CRITERION, "semantic_tagging.heading_nesting.mixed_h_and_hn"),
    Case("title_h1", TITLED, _retype("/Title", "/H1"), CRITERION,
         "semantic_tagging.heading_nesting.title_and_section_h1"),
    Case("split_heading", ARTICLE, _split_heading, CRITERION, "semantic_tagging.heading_nesting.split_heading"),
    Case("paragraph_h2", ARTICLE, _retype("/P", "/H2", 0), CRITERION,
         "semantic_tagging.proper_tag_usage.paragraph_as_heading"),
    Case("heading_cells", TABLE, _headings_in_header_row, CRITERION,
         "semantic_tagging.proper_tag_usage.heading_as_table_header"),
    Case("list_numbering", LISTS, _list_numbering, CRITERION, "semantic_tagging.list_structure.numbering_mismatch"),
    Case("list_split", LISTS, _split_list, CRITERION, "semantic_tagging.list_structure.list_split"),
    Case("paragraph_split", ARTICLE, _split_paragraph, CRITERION,
         "semantic_tagging.structural_hierarchy.paragraph_split"),
    Case("paragraph_figure", ARTICLE, _retype("/P", "/Figure", 1), CRITERION,
         "semantic_tagging.proper_tag_usage.paragraph_as_figure"),
    Case("inconsistent_heading", ARTICLE, _retype("/H1", "/P", 1), CRITERION,
         "semantic_tagging.structural_hierarchy.inconsistent_heading"),
    Case("figure", FIGURES, None, CRITERION, None, files=FILES),
    Case("text_as_figure", TEXT_AS_IMAGE, None, CRITERION, "semantic_tagging.proper_tag_usage.figure_as_text",
         files=FILES, fails_as_written=True),
]


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    return judge_twins(tmp_path_factory.mktemp("tagging-twins"), CASES)


@pytest.mark.parametrize("name", [c.name for c in CASES if not c.fails_as_written])
def test_the_conforming_twin_passes(name: str, labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    result = labels[(f"{name}-pass.pdf", CRITERION)]
    assert result["label"] == "passed", result["issues"]


@pytest.mark.parametrize(("name", "rule_id"), [(c.name, c.rule_id) for c in CASES if c.rule_id])
def test_the_defective_twin_fails_with_its_rule(name: str, rule_id: str,
                                                labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    result = labels[(f"{name}-fail.pdf", CRITERION)]
    assert result["label"] == "failed", result["issues"]
    assert rule_id in {i.get("rule_id") for i in result["issues"]}, result["issues"]
    assert all(i.get("rule_id") for i in result["issues"])
