"""Defect classes of tables and links that published PDF/UA example suites fail, each as a pass twin (a
conforming file typst writes, or that file brought to conformance by pikepdf where typst cannot write it)
and a fail twin (the pass twin with the one defect put in by pikepdf). All files are generated here and
run once through the whole pipeline with the rules judge: the fail twin must fail its criterion with a
finding that carries the expected rule id, the pass twin must pass it, and every issue row has a rule id.

What typst 0.15 writes, checked when these were made: a two-row header with `table.cell(rowspan: 2)`
gets RowSpan=2 and the data cells Headers/IDs; cells of `table.header` are TH Scope=Column and body
cells TD (`pdf.header-cell(scope: "row")` needs the a11y-extras feature, which the Python binding
cannot switch on, so row headers are made by pikepdf); links get /Contents (the URI); the XMP carries
no pdfuaid claim unless compiled with `pdf_standards=["ua-1"]`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pikepdf
import pytest
import typst

from corpus.mutations.structure import kids, rebuild_parent_tree, set_kids, stype
from tests.extractors.conftest import struct_elements_of
from tests.judges.twins import judge_pdfs

pytestmark = pytest.mark.slow

PREAMBLE = ('#set document(title: "Case")\n#set text(lang: "en", size: 10pt)\n'
            "#set page(width: 420pt, height: 595pt)\n")
PROSE = ("Accessible documents let every reader reach the same content in the same order. "
         "A screen reader follows the structure tree, so the tree has to follow the page. ")

Edit = Callable[[pikepdf.Pdf], None]


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    edit: Edit | None  # makes the fail twin from the pass twin; None: a conforming case without a twin
    criterion: str
    rule_id: str | None  # the rule the fail twin must raise
    prepare: Edit | None = None  # brings typst's output to the pass twin (what typst cannot write)
    standards: tuple[str, ...] = ()  # typst pdf_standards (ua-1 writes the pdfuaid claim)


# --------------------------------------------------------------------------- edits


def _rowspan_dropped(pdf: pikepdf.Pdf) -> None:
    """The header cell meant to span both header rows loses its RowSpan: the second header row, a single
    cell, shifts from under "Accuracy" to under "Model"."""
    for element in struct_elements_of(pdf):
        attrs = element.get("/A")
        for attr in (attrs if isinstance(attrs, pikepdf.Array) else [attrs]):
            if isinstance(attr, pikepdf.Dictionary) and "/RowSpan" in attr:
                del attr["/RowSpan"]


def _cells(row: pikepdf.Dictionary) -> list[pikepdf.Dictionary]:
    return [k for k in kids(row) if isinstance(k, pikepdf.Dictionary)]


def _first_cells_row_headers(pdf: pikepdf.Pdf) -> None:
    """Each body row's first cell becomes its row header: TH Scope=Row, in the row's own TR."""
    for row in [e for e in struct_elements_of(pdf) if e.get("/S") == "/TR"]:
        cells = _cells(row)
        if cells and all(stype(c) == "/TD" for c in cells):
            cells[0].S = pikepdf.Name.TH
            cells[0].A = pikepdf.Dictionary(O=pikepdf.Name.Table, Scope=pikepdf.Name.Row)


def _row_headers_split_off(pdf: pikepdf.Pdf) -> None:
    """Each body row's header cell moved into a TR of its own, above the row's data cells."""
    for row in [e for e in struct_elements_of(pdf) if e.get("/S") == "/TR"]:
        cells = _cells(row)
        if not cells or stype(cells[0]) != "/TH" or not any(stype(c) == "/TD" for c in cells):
            continue
        body = row.P
        siblings = kids(body)
        at = next(i for i, k in enumerate(siblings) if isinstance(k, pikepdf.Dictionary) and k.objgen == row.objgen)
        alone = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.TR, P=body,
                                                     K=pikepdf.Array([cells[0]])))
        if "/Pg" in row:
            alone.Pg = row.Pg
        cells[0].P = alone
        set_kids(row, [k for k in kids(row) if not (isinstance(k, pikepdf.Dictionary)
                                                     and k.objgen == cells[0].objgen)])
        siblings.insert(at, alone)
        set_kids(body, siblings)
    rebuild_parent_tree(pdf)


def _section_rows(pdf: pikepdf.Pdf) -> None:
    """Conforming: the first body row is a section header, one TH spanning the table's width (ColSpan)."""
    rows = [e for e in struct_elements_of(pdf) if e.get("/S") == "/TR"]
    section = next(r for r in rows if all(stype(c) == "/TD" for c in _cells(r)))
    first, *rest = _cells(section)
    first.S = pikepdf.Name.TH
    first.A = pikepdf.Dictionary(O=pikepdf.Name.Table, Scope=pikepdf.Name.Row,
                                 ColSpan=len(_cells(rows[0])))
    for cell in rest:  # the other cells' content joins the section header
        for kid in kids(cell):
            first.K = pikepdf.Array([*kids(first), kid])
    set_kids(section, [first])
    rebuild_parent_tree(pdf)


def _contents_removed(pdf: pikepdf.Pdf) -> None:
    """Link annotations lose /Contents, their alternate description (PDF/UA-1 7.18.5); the link text stays."""
    for page in pdf.pages:
        for annot in page.obj.get("/Annots") or []:
            if annot.get("/Subtype") == "/Link" and "/Contents" in annot:
                del annot["/Contents"]


# --------------------------------------------------------------------------- documents

HEADER_ROWS = (PREAMBLE + "= Data\n" + PROSE + "\n\n#table(columns: 2, table.header(table.cell(rowspan: 2)"
               "[Model], [Accuracy], [test]), [Alpha], [0.81], [Beta], [0.93], [Gamma], [0.77])\n")
ROW_HEADERS = (PREAMBLE + "= Data\n" + PROSE + "\n\n#table(columns: 3, table.header([Name], [Spring], [Autumn]),"
               " [Alice], [12], [14], [Bruno], [9], [11], [Chen], [15], [13])\n")
SECTIONS = (PREAMBLE + "= Data\n" + PROSE + "\n\n#table(columns: 3, table.header([Name], [Spring], [Autumn]),"
            " [Staff], [], [], [Alice], [12], [14], [Bruno], [9], [11])\n")
LINKS = (PREAMBLE + "= Links\n" + PROSE + " See #link(\"https://example.org/report\")[the full report] and "
         "#link(\"https://example.org/data\")[the data set] for the figures.\n\n" + PROSE + "\n")

CASES = [
    Case("header_rows", HEADER_ROWS, _rowspan_dropped, "table_structure",
         "table_structure.complex_tables.span_missing"),
    Case("row_headers", ROW_HEADERS, _row_headers_split_off, "table_structure",
         "table_structure.navigability.row_header_alone", prepare=_first_cells_row_headers),
    Case("section_rows", SECTIONS, None, "table_structure", None, prepare=_section_rows),
    # PDF/UA claimed (pdfuaid:part 1): a Link annotation without /Contents breaks PDF/UA-1 7.18.5.
    Case("link_contents", LINKS, _contents_removed, "functional_hyperlinks",
         "functional_hyperlinks.descriptiveness.contents_missing", standards=("ua-1",)),
    # No claim: the same defect is a warning (WCAG 2.4.4 is met by the link text), so both twins pass.
    Case("link_contents_no_claim", LINKS, _contents_removed, "functional_hyperlinks", None),
]


def _compile(case: Case, out: Path) -> Path:
    work = out.parent / f"{case.name}-src"
    work.mkdir(parents=True, exist_ok=True)
    main = work / "main.typ"
    main.write_text(case.source, encoding="utf-8")
    options: dict[str, Any] = {"pdf_standards": list(case.standards)} if case.standards else {}
    out.write_bytes(typst.compile(str(main), format="pdf", **options))
    main.unlink()
    work.rmdir()
    if case.prepare is not None:
        with pikepdf.open(out, allow_overwriting_input=True) as pdf:
            case.prepare(pdf)
            pdf.save(out)
    return out


def judge_folder(root: Path) -> dict[tuple[str, str], dict[str, Any]]:
    folder = root / "pdfs"
    folder.mkdir(parents=True)
    for case in CASES:
        passed = _compile(case, folder / f"{case.name}-pass.pdf")
        if case.edit is not None:
            with pikepdf.open(passed) as pdf:
                case.edit(pdf)
                pdf.save(folder / f"{case.name}-fail.pdf")
    return judge_pdfs(folder, root / "home", [c.criterion for c in CASES])


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    return judge_folder(tmp_path_factory.mktemp("defects"))


def _ids(result: dict[str, Any]) -> set[str]:
    return {i.get("rule_id") for i in result["issues"]}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_conforming_twin_passes(case: Case, labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    result = labels[(f"{case.name}-pass.pdf", case.criterion)]
    assert result["label"] == "passed", result["issues"]
    assert all(i.get("rule_id") for i in result["issues"])


@pytest.mark.parametrize("case", [c for c in CASES if c.rule_id], ids=lambda c: c.name)
def test_the_defective_twin_fails_with_its_rule(case: Case, labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    result = labels[(f"{case.name}-fail.pdf", case.criterion)]
    assert result["label"] == "failed", result["issues"]
    assert case.rule_id in _ids(result), result["issues"]
    assert all(i.get("rule_id") for i in result["issues"])


def test_links_without_contents_and_no_pdfua_claim_fail_pdfua_when_screened(
        labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    """Our own check only warns without a PDF/UA claim (the benchmark's experts pass such links), but a screened
    file is held to PDF/UA-1 7.18.5: the validator's LINK-CONTENTS failure, folded into the criterion, fails it."""
    result = labels[("link_contents_no_claim-fail.pdf", "functional_hyperlinks")]
    assert result["label"] == "failed", result["issues"]
    assert _ids(result) == {"functional_hyperlinks.descriptiveness.contents_missing_advisory",
                            "functional_hyperlinks.descriptiveness.ua1_link_contents"}


def test_a_row_header_split_off_is_one_finding_not_two(labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    result = labels[("row_headers-fail.pdf", "table_structure")]
    assert "table_structure.complex_tables.misaligned_rows" not in _ids(result), result["issues"]
