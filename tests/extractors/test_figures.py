"""Figures: images, vector drawings and Figure elements, with alt text, captions and artifacts.

A typst page holds an image figure with alt text, a chart drawn with shapes, and a
decorative page-background image (an artifact); the synthetic generator's alt-text
mutations, applied here to its passing documents, change exactly the alt of one figure.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from pathlib import Path

import pikepdf
import pytest
from PIL import Image

from corpus.mutations import NotApplicable
from corpus.mutations import alt_text as mutations
from corpus.synthetic import build_synthetic_benchmark
from extractors.errors import ExtractionError
from extractors.figures import extract_figures, render_figure_crops
from extractors.structure.records import extract_struct_elements
from tests.extractors.conftest import assert_fits, compile_typst
from warehouse.tables import FIGURES_SCHEMA

FIGURES = """#set document(title: "Figures")
#set text(lang: "en", size: 10pt)
#set page(width: 420pt, height: 595pt,
          background: place(top + right, dx: -10pt, dy: 10pt, image("badge.png", width: 40pt, alt: "")))
= Figures
Some text before the figures.

#figure(image("blue.png", width: 120pt, alt: "A blue rectangle"), caption: [A blue figure])

#figure(box(stack(dir: ltr, spacing: 4pt,
  rect(width: 20pt, height: 60pt, fill: red), rect(width: 20pt, height: 40pt, fill: green),
  rect(width: 20pt, height: 20pt, fill: blue), rect(width: 20pt, height: 50pt, fill: black))),
  alt: "Four bars of different heights", caption: [A drawn chart])

#image("dot.png", width: 6pt, alt: "a dot")
"""


def png(size: tuple[int, int], colour: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def figures_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = {"blue.png": png((64, 48), (30, 80, 160)), "badge.png": png((40, 40), (200, 200, 200)),
             "dot.png": png((8, 8), (0, 0, 0))}
    return compile_typst(FIGURES, tmp_path_factory.mktemp("figures") / "figures.pdf", files)


@pytest.fixture(scope="module")
def passed_papers(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("synthetic-figures")
    build_synthetic_benchmark(root, seed=0, base_docs=4, criteria=["alt_text_quality"])
    return sorted((root / "data" / "processed" / "alt_text_quality" / "passed").glob("*.pdf"))


def test_images_vectors_and_artifacts(figures_pdf: Path) -> None:
    figures = extract_figures(figures_pdf, doc_id="f")
    assert_fits(figures, FIGURES_SCHEMA)
    assert [f["figure_index"] for f in figures] == list(range(len(figures)))
    badge, photo, chart, dot = figures  # top to bottom
    assert (badge["kind"], badge["is_artifact"], badge["elem_id"], badge["small"]) == ("image", True, None, True)
    assert (photo["kind"], photo["alt"], photo["is_artifact"]) == ("image", "A blue rectangle", False)
    assert (photo["width_px"], photo["height_px"], photo["caption"]) == (64, 48, "Figure 1: A blue figure")
    assert isinstance(photo["image_xref"], int) and abs(photo["bbox"][2] - photo["bbox"][0] - 120) < 0.5
    # typst draws shapes outside marked content: the Figure is matched by its caption,
    # the drawing itself stays an artifact.
    assert (chart["kind"], chart["alt"], chart["caption"]) == ("vector", "Four bars of different heights",
                                                               "Figure 2: A drawn chart")
    assert chart["is_artifact"] and chart["image_xref"] is None
    # Under 16 pixels a side but the only picture of its Figure: kept, and small.
    assert (dot["kind"], dot["alt"], dot["small"]) == ("image", "a dot", True)


def test_untagged_file_has_no_alt_and_no_artifact_verdict(figures_pdf: Path, tmp_path: Path) -> None:
    with pikepdf.open(figures_pdf) as pdf:
        del pdf.Root["/StructTreeRoot"]
        pdf.save(tmp_path / "untagged.pdf")
    figures = extract_figures(tmp_path / "untagged.pdf", doc_id="u")
    assert [f["kind"] for f in figures] == ["image", "image", "vector"]  # the untagged dot is a spacer
    assert all(f["alt"] is None and f["is_artifact"] is None and f["elem_id"] is None for f in figures)
    assert figures[1]["caption"] == "Figure 1: A blue figure"  # found by its text


def test_elements_passed_in_give_the_same_records(figures_pdf: Path) -> None:
    elements = extract_struct_elements(figures_pdf, doc_id="f")
    assert extract_figures(figures_pdf, doc_id="f", elements=elements) == extract_figures(figures_pdf, doc_id="f")


def _applies(paper: Path, mutation: Callable[[pikepdf.Pdf, random.Random], None]) -> bool:
    with pikepdf.open(paper) as pdf:
        try:
            mutation(pdf, random.Random(0))
        except NotApplicable:
            return False
    return True


@pytest.mark.parametrize(
    "mutation",
    [mutations.alt_generic, mutations.alt_file_name, mutations.alt_missing, mutations.alt_empty,
     mutations.alt_mismatched],
    ids=lambda m: m.__name__,
)
def test_alt_mutations_change_one_figure(passed_papers: list[Path], tmp_path: Path,
                                         mutation: Callable[[pikepdf.Pdf, random.Random], None]) -> None:
    out = tmp_path / "m.pdf"
    paper = next(p for p in passed_papers if _applies(p, mutation))  # e.g. alt_missing needs two figures
    with pikepdf.open(paper) as pdf:
        mutation(pdf, random.Random(0))
        pdf.save(out)
    before = extract_figures(paper, doc_id="p")
    after = extract_figures(out, doc_id="p")
    assert before and all(f["alt"] for f in before)
    assert [f["bbox"] for f in after] == [f["bbox"] for f in before]
    changed = [(b["alt"], a["alt"]) for b, a in zip(before, after, strict=True) if a["alt"] != b["alt"]]
    assert len(changed) == 1, changed
    new_alt = changed[0][1]
    if mutation is mutations.alt_missing:
        assert new_alt is None
    elif mutation is mutations.alt_empty:
        assert new_alt == ""
    elif mutation is mutations.alt_generic:
        assert new_alt in mutations.GENERIC
    elif mutation is mutations.alt_file_name:
        assert new_alt in mutations.FILE_NAMES


def test_figure_crops_are_written(figures_pdf: Path, tmp_path: Path) -> None:
    figures = extract_figures(figures_pdf, doc_id="f")
    paths = render_figure_crops(figures_pdf, figures, tmp_path, dpi=144)
    assert len(paths) == len(figures) and all(paths)
    with Image.open(paths[1]) as image:  # the 120 pt wide photo, plus 4 pt margins, at 2x
        assert abs(image.size[0] - 2 * 128) <= 2


def test_unreadable_pdf_raises(corrupt_pdf: Path) -> None:
    with pytest.raises(ExtractionError):
        extract_figures(corrupt_pdf, doc_id="bad", elements=[])
