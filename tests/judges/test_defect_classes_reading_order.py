"""Defect classes of logical reading order that published PDF/UA failure examples show, each as a pass
twin (what typst writes when it conforms) and a fail twin (that file with the one defect put in by
pikepdf). All files are generated here and run once through the whole pipeline with the rules judge; each
fail twin must fail logical_reading_order with a finding that carries the expected rule id, each pass twin
must pass. A tagged table of contents whose leader dots are artifacts has no fail twin: it must pass. A
sidebar read in the middle of the article is a candidate (a question of meaning: the rules judge lists it
and fails nothing; the hybrid judge asks its LLM): its fail twin must carry the candidate finding, and its
pass twin must not.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from corpus.mutations.structure import kids, rebuild_parent_tree, set_kids
from tests.extractors.conftest import compile_typst, struct_elements_of
from tests.judges.twins import PREAMBLE, judge_pdfs, prose, remove_sources

pytestmark = pytest.mark.slow

CRITERION = "logical_reading_order"
def _own_mcids(elem: pikepdf.Dictionary) -> list[int]:
    return [int(k) for k in kids(elem) if isinstance(k, int) and not isinstance(k, bool)]


def _paragraphs(pdf: pikepdf.Pdf) -> list[pikepdf.Dictionary]:
    return [e for e in struct_elements_of(pdf) if e.get("/S") == "/P"]


# --------------------------------------------------------------------------- edits (the defects)

def _mcids_reversed(pdf: pikepdf.Pdf) -> None:
    """The marked-content sequences (lines) of one paragraph listed in reverse: heard last line first."""
    paragraph = max(_paragraphs(pdf), key=lambda p: len(_own_mcids(p)))
    own = _own_mcids(paragraph)
    assert len(own) >= 3
    backwards = iter(reversed(own))
    set_kids(paragraph, [next(backwards) if isinstance(k, int) and not isinstance(k, bool) else k
                         for k in kids(paragraph)])


def _last_line_first(pdf: pikepdf.Pdf) -> None:
    """Only the paragraph's last line moved to the front of its /K: heard first, then the rest in order."""
    paragraph = max(_paragraphs(pdf), key=lambda p: len(_own_mcids(p)))
    own = _own_mcids(paragraph)
    set_kids(paragraph, [own[-1], *own[:-1]])


def _columns_read_across(pdf: pikepdf.Pdf) -> None:
    """The two column paragraphs merged into one element whose lines alternate left, right, left, ..."""
    left, right = [p for p in _paragraphs(pdf) if len(_own_mcids(p)) >= 4][:2]
    a, b = _own_mcids(left), _own_mcids(right)
    merged = [m for pair in zip(a, b, strict=False) for m in pair] + a[len(b):] + b[len(a):]
    set_kids(left, merged)
    parent = left.P
    set_kids(parent, [k for k in kids(parent) if not (isinstance(k, pikepdf.Dictionary) and k.objgen == right.objgen)])
    rebuild_parent_tree(pdf)


def _sidebar_in_text(pdf: pikepdf.Pdf) -> None:
    """The sidebar (the grid's second cell, printed in a box beside the article) moved into the article,
    between its first two paragraphs: heard in the middle of the running text instead of after it."""
    grid = next(e for e in struct_elements_of(pdf) if e.get("/S") == "/Div"
                and sum(isinstance(k, pikepdf.Dictionary) and k.get("/S") == "/Div" for k in kids(e)) == 2)
    article, box = [k for k in kids(grid) if isinstance(k, pikepdf.Dictionary)]
    assert [k.get("/S") for k in kids(article) if isinstance(k, pikepdf.Dictionary)] == ["/P"] * 3
    set_kids(grid, [k for k in kids(grid) if not (isinstance(k, pikepdf.Dictionary) and k.objgen == box.objgen)])
    blocks = kids(article)
    blocks.insert(1, box)
    set_kids(article, blocks)
    box.P = article


def _tabs_removed(pdf: pikepdf.Pdf) -> None:
    """Pages with annotations lose /Tabs: the tab order no longer follows the structure (PDF/UA-1 7.18.3)."""
    found = False
    for page in pdf.pages:
        if "/Annots" in page.obj and "/Tabs" in page.obj:
            del page.obj["/Tabs"]
            found = True
    assert found, "typst writes /Tabs /S on pages with links"


def _tabs_row_order(pdf: pikepdf.Pdf) -> None:
    """Pages with annotations set /Tabs /R: links are visited row by row, not in structure order."""
    for page in pdf.pages:
        if "/Annots" in page.obj:
            page.obj["/Tabs"] = pikepdf.Name("/R")


# --------------------------------------------------------------------------- documents

LINKS = (PREAMBLE + "= Links\n" + prose(3) + " See #link(\"https://example.org/report\")[the full report] and "
         "#link(\"https://example.org/data\")[the data set] for the figures.\n\n" + prose(2, 1) + "\n")
MCID_ORDER = PREAMBLE + "= Order\n" + prose(8) + "\n\n" + prose(4, 2) + "\n"
COLUMNS = (PREAMBLE.replace("height: 595pt", "height: 340pt") + "#set page(columns: 2)\n#set par(justify: true)\n"
           + prose(6) + "\n#colbreak()\n" + prose(6, 1) + "\n")
# typst's #outline(): TOC > TOCI > Reference > Link, leader dots and page numbers drawn as artifacts or
# inside the entry's link.
TOC = (PREAMBLE + "#outline()\n= Introduction\n" + prose(3) + "\n= Methods\n" + prose(3, 1) + "\n= Results\n"
       + prose(3, 2) + "\n")
TOC_GAPS = (PREAMBLE + "#set outline.entry(fill: repeat(gap: 12pt)[.])\n#outline()\n"
            + "".join(f"= Section {i}\n{prose(2, i)}\n" for i in range(1, 6)))
SIDEBAR = (PREAMBLE + "= Article\n#grid(columns: (1fr, 120pt), gutter: 16pt, [" + prose(4) + "\n\n" + prose(4, 1)
           + "\n\n" + prose(4, 2) + "], block(fill: luma(235), inset: 8pt)[#set text(size: 9pt)\n"
           + "Box 1. A sidebar printed beside the article, in a box of its own, with a few words about colour "
           "and contrast: readers meet it after the article, not in the middle of it.])\n")
LONG_TOC = (PREAMBLE + "#outline()\n" + "".join(f"= Section {i}\n{prose(2, i)}\n== Part {i}.1\n{prose(1, i)}\n"
                                                 for i in range(1, 9)))

Edit = Callable[[pikepdf.Pdf], None]
# (name, typst source, the edit that makes the fail twin (None: a conforming case only), rule id it must carry)
CASES: list[tuple[str, str, Edit | None, str | None]] = [
    ("mcid_order", MCID_ORDER, _mcids_reversed, "logical_reading_order.visual_flow.mcid_order"),
    ("last_line_first", MCID_ORDER, _last_line_first, "logical_reading_order.visual_flow.mcid_order"),
    ("columns_across", COLUMNS, _columns_read_across, "logical_reading_order.multi_column.mcid_columns_across"),
    ("tabs_missing", LINKS, _tabs_removed, "logical_reading_order.inline_elements.tabs_missing"),
    ("tabs_row", LINKS, _tabs_row_order, "logical_reading_order.inline_elements.tabs_not_structure"),
    ("toc_leaders", TOC, None, None),
    ("long_toc", LONG_TOC, None, None),
    ("toc_gaps", TOC_GAPS, None, None),
]
# Candidates: the fail twin is judged passed by the rules judge but carries the candidate finding.
CANDIDATES: list[tuple[str, str, Edit, str]] = [
    ("sidebar", SIDEBAR, _sidebar_in_text, "logical_reading_order.no_disruptions.text_interrupted_candidate"),
]


def _make(folder: Path) -> None:
    folder.mkdir(parents=True)
    for name, source, edit, _ in [*CASES, *CANDIDATES]:
        passed = compile_typst(source, folder / f"{name}-pass.pdf")
        if edit is None:
            continue
        with pikepdf.open(passed) as pdf:
            edit(pdf)
            pdf.save(folder / f"{name}-fail.pdf")
    remove_sources(folder)


def judge_folder(root: Path) -> dict[str, dict[str, Any]]:
    """file name → {"label", "issues"} of logical_reading_order, judged by the rules judge."""
    _make(root / "pdfs")
    judged = judge_pdfs(root / "pdfs", root / "home", [CRITERION])
    return {file: result for (file, criterion), result in judged.items() if criterion == CRITERION}


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return judge_folder(tmp_path_factory.mktemp("reading-order-defects"))


@pytest.mark.parametrize("name", [n for n, _, _, _ in CASES])
def test_the_conforming_twin_passes(name: str, labels: dict[str, dict[str, Any]]) -> None:
    result = labels[f"{name}-pass.pdf"]
    assert result["label"] == "passed", result["issues"]


@pytest.mark.parametrize(("name", "rule_id"), [(n, r) for n, _, e, r in CASES if e is not None])
def test_the_defective_twin_fails_with_its_rule(name: str, rule_id: str, labels: dict[str, dict[str, Any]]) -> None:
    result = labels[f"{name}-fail.pdf"]
    assert result["label"] == "failed", result["issues"]
    assert rule_id in {i.get("rule_id") for i in result["issues"]}, result["issues"]
    assert all(i.get("rule_id") for i in result["issues"])


@pytest.mark.parametrize(("name", "rule_id"), [(n, r) for n, _, _, r in CANDIDATES])
def test_a_candidate_is_listed_on_the_defective_twin_only(name: str, rule_id: str,
                                                         labels: dict[str, dict[str, Any]]) -> None:
    passed, failed = labels[f"{name}-pass.pdf"], labels[f"{name}-fail.pdf"]
    assert rule_id not in {i.get("rule_id") for i in passed["issues"]}, passed["issues"]
    assert passed["label"] == "passed", passed["issues"]
    assert rule_id in {i.get("rule_id") for i in failed["issues"]}, failed["issues"]
    assert failed["label"] == "passed", failed["issues"]  # a candidate fails nothing alone
