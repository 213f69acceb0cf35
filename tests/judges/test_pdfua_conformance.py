"""A PDF/UA-aware conformance set of our own: for each Matterhorn-protocol checkpoint that touches one of
the seven criteria, a file that meets it (the generated paper) and one that breaks it (the paper with
that one checkpoint broken). The rules judge must pass the first and fail the second, on the
criterion the checkpoint belongs to. Files are generated here: typst writes a tagged PDF/UA paper,
pikepdf (the synthetic benchmark's edits, or a few of its own below) breaks one checkpoint.

Checkpoint numbers follow the Matterhorn Protocol (PDF Association); where a check is not a Matterhorn
failure condition of its own, the PDF/UA-1 clause or WCAG 2.2 criterion is named instead. The wording is ours.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pikepdf
import pytest

from corpus.mutations import alt_text, fonts, links, reading_order, tables, tagging
from corpus.synthetic import VariantSource
from corpus.typst_docs import make_base_doc
from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from tests.extractors.conftest import struct_elements_of
from tests.judges.test_real_world_rules import _cmap_to_feff
from warehouse import catalog
from warehouse.tables import ALL_TABLES

pytestmark = pytest.mark.slow


def _unmapped_type(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """02-001: a non-standard structure type whose role mapping does not end in a standard type."""
    paragraph = next(e for e in struct_elements_of(pdf) if e.get("/S") == "/P")
    paragraph["/S"] = pikepdf.Name("/Abstract")


def _mapped_type(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """02-001 met: the same private type, mapped to P through the RoleMap."""
    _unmapped_type(pdf, rng)
    pdf.Root.StructTreeRoot["/RoleMap"] = pikepdf.Dictionary({"/Abstract": pikepdf.Name("/P")})


def _glyphs_to_bom(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """10-001: characters whose ToUnicode value is nothing a screen reader can speak (U+FEFF)."""
    for page in pdf.pages:
        for font in (page.Resources.get("/Font") or {}).values():
            cmap = font.get("/ToUnicode")
            if isinstance(cmap, pikepdf.Stream):
                cmap.write(_cmap_to_feff(cmap.read_bytes().decode("latin-1")).encode("latin-1"))


Edit = Callable[[pikepdf.Pdf, random.Random], None]
# (checkpoint, what it asks, criterion, the edit that breaks it)
CHECKPOINTS: list[tuple[str, str, str, Edit]] = [
    ("02-001", "non-standard types map to standard ones", "semantic_tagging", _unmapped_type),
    ("14-002", "the outline starts at H1, not a lower level", "semantic_tagging", tagging.first_heading_demoted),
    ("14-003", "heading levels are not skipped", "semantic_tagging", tagging.heading_level_skip),
    ("16-001", "LI is a child of L", "semantic_tagging", tagging.list_items_unwrapped),
    ("01-006", "a structure type matches the content (paragraphs are not bare Spans)", "semantic_tagging",
     tagging.paragraphs_as_spans),
    ("09-001", "tags are in reading order", "logical_reading_order", reading_order.section_moved),
    ("13-004", "every Figure has alternative text", "alt_text_quality", alt_text.alt_missing),
    ("13-004-quality", "alternative text describes, not a file name", "alt_text_quality", alt_text.alt_file_name),
    ("15-003", "TH has Scope when the table does not use Headers/IDs", "table_structure",
     tables.header_associations_removed),
    ("pdfua-7.5-spans", "merged cells declare RowSpan/ColSpan", "table_structure", tables.spans_dropped),
    ("09-004", "table cells sit in TR rows", "table_structure", tables.rows_flattened),
    ("28-011", "each link annotation is nested in a Link tag", "functional_hyperlinks", links.links_detached),
    ("wcag-2.4.4", "internal link destinations exist", "functional_hyperlinks", links.internal_dest_missing),
    ("pdfua-7.21.4.1", "fonts are embedded", "fonts_readability", fonts.font_unembedded),
    ("10-001", "characters map to Unicode", "fonts_readability", fonts.tounicode_removed),
    ("10-001-speakable", "characters map to speakable Unicode (not U+FEFF)", "fonts_readability", _glyphs_to_bom),
]


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    root = tmp_path_factory.mktemp("matterhorn")
    folder = root / "pdfs"
    folder.mkdir()
    source = VariantSource(make_base_doc(2, 0))  # two figures, a table with merged cells, internal links
    (folder / "meets-all.pdf").write_bytes(source.passed()[1])
    rng = random.Random(7)
    (folder / "meets-02-001-mapped.pdf").write_bytes(source.apply(_mapped_type, rng))
    for checkpoint, _, _, edit in CHECKPOINTS:
        (folder / f"breaks-{checkpoint}.pdf").write_bytes(source.apply(edit, rng))
    home = root / "home"
    cfg = RunConfig(home=home, run_id="mh", source="pdfs", source_path=str(folder), progress=False, crop_dpi=36)
    for stage in STAGE_LIST:
        execute(cfg, stage)
    columns, rows = catalog.query(home, ALL_TABLES, """
        select json_extract_string(d.metadata, '$.path') as file, l.criterion, l.label
        from doc_labels l join documents d using (run_id, doc_id) where l.run_id = 'mh'""")
    return {(file, criterion): {"label": label} for file, criterion, label in rows}


@pytest.mark.parametrize("criterion", sorted({c for _, _, c, _ in CHECKPOINTS}))
def test_the_paper_that_meets_every_checkpoint_passes(criterion: str, outcome: dict[tuple[str, str], Any]) -> None:
    assert outcome[("meets-all.pdf", criterion)]["label"] == "passed"


def test_a_private_type_mapped_to_a_standard_one_passes(outcome: dict[tuple[str, str], Any]) -> None:
    assert outcome[("meets-02-001-mapped.pdf", "semantic_tagging")]["label"] == "passed"


@pytest.mark.parametrize(("checkpoint", "asks", "criterion"), [(c, a, k) for c, a, k, _ in CHECKPOINTS])
def test_breaking_a_checkpoint_fails_its_criterion(checkpoint: str, asks: str, criterion: str,
                                                   outcome: dict[tuple[str, str], Any]) -> None:
    assert outcome[(f"breaks-{checkpoint}.pdf", criterion)]["label"] == "failed", asks


def test_every_checkpoint_breaks_only_what_it_is_about(outcome: dict[tuple[str, str], Any]) -> None:
    # Breaking a tagging checkpoint must not make contrast or fonts fail, and so on: one cause, one effect.
    collateral = {(f, c) for (f, c), v in outcome.items() if f.startswith("breaks-") and v["label"] == "failed"
                  and c in ("color_contrast",)}
    assert not collateral

