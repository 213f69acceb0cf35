"""Tests for the synthetic, self-labelling benchmark generator.

They check the contract others rely on (upstream layout, labels per criterion, determinism,
no metadata leaks), that the passing base documents really pass every criterion across the
seeded templates, and that the written files carry the evidence their labels claim. What
each single mutation does is tested in ``test_mutations.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from corpus.mutations import CRITERION_MUTATIONS
from corpus.synthetic import DATASET_VERSION, SUPPORTED_CRITERIA, build_synthetic_benchmark, labels_for
from corpus.typst_docs import BaseDoc, compile_base_doc, make_base_doc
from tests.conftest import SHARED_BENCHMARK
from tests.corpus import evidence as ev

UPSTREAM = SHARED_BENCHMARK
ITEM_KEYS = {"openalex_id", "title", "year", "venue", "type", "pdf_path", "input_pdfs", "mutation"}
ALL_CRITERIA = ("alt_text_quality", "semantic_tagging", "logical_reading_order", "table_structure",
                "functional_hyperlinks", "color_contrast", "fonts_readability")
BASE_DOCS = 4
TEMPLATE_SAMPLE = 12
# Variants whose extracted text is expected to differ from the passing file's.
TEXT_CHANGING = {"tounicode_removed", "figures_removed", "tables_removed", "body_text_tiny", "inconsistent_fonts",
                 "letters_crowded"}


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_synthetic_benchmark(tmp_path_factory.mktemp("seed0"), seed=0, base_docs=BASE_DOCS)


@pytest.fixture(scope="module")
def manifest(bench: Path) -> dict[str, Any]:
    return json.loads(bench.read_text())


@pytest.fixture(scope="module")
def templates() -> list[tuple[BaseDoc, bytes]]:
    docs = [make_base_doc(i, seed=3) for i in range(TEMPLATE_SAMPLE)]
    return [(doc, compile_base_doc(doc)) for doc in docs]


def _items(manifest: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for criterion, labels in manifest["tasks"].items():
        for label, items in labels.items():
            for item in items:
                yield criterion, label, item


# --------------------------------------------------------------------------- layout and determinism


def test_manifest_matches_upstream_layout(bench: Path, manifest: dict[str, Any]) -> None:
    out = bench.parent.parent
    assert bench == out / "data" / "dataset.json"
    assert {k: manifest[k] for k in ("name", "version", "seed", "split")} == {
        "name": "AccessBench-Synthetic", "version": DATASET_VERSION, "seed": 0, "split": "synthetic"}
    assert tuple(manifest["tasks"]) == SUPPORTED_CRITERIA
    assert set(SUPPORTED_CRITERIA) == set(ALL_CRITERIA)
    for criterion, labels in manifest["tasks"].items():
        assert tuple(labels) == labels_for(criterion)
        for label, items in labels.items():
            assert [i["openalex_id"] for i in items] == [f"SYN{n:04d}" for n in range(1, BASE_DOCS + 1)]
            for item in items:
                assert set(item) == ITEM_KEYS
                assert item["pdf_path"] == f"data/processed/{criterion}/{label}/{item['openalex_id']}.pdf"
                assert (out / item["pdf_path"]).is_file()


def test_not_present_only_where_the_criterion_has_it(manifest: dict[str, Any]) -> None:
    without = {"logical_reading_order", "color_contrast", "fonts_readability"}
    for criterion, labels in manifest["tasks"].items():
        assert ("not_present" in labels) == (criterion not in without)


@pytest.mark.benchmark_data
def test_item_shape_is_a_subset_of_upstream(manifest: dict[str, Any]) -> None:
    path = UPSTREAM / "data" / "dataset.json"
    if not path.exists():
        pytest.skip(f"upstream benchmark not found at {UPSTREAM}")
    upstream = json.loads(path.read_text())
    _, _, sample = next(_items(upstream))
    _, _, ours = next(_items(manifest))
    assert set(ours) - {"mutation"} <= set(sample)
    for criterion, labels in manifest["tasks"].items():
        assert set(labels) == set(upstream["tasks"][criterion])


def test_same_seed_gives_identical_bytes(bench: Path, tmp_path: Path) -> None:
    again = build_synthetic_benchmark(tmp_path, seed=0, base_docs=BASE_DOCS)
    assert again.read_bytes() == bench.read_bytes()
    for _, _, item in _items(json.loads(again.read_text())):
        assert (tmp_path / item["pdf_path"]).read_bytes() == (bench.parent.parent / item["pdf_path"]).read_bytes()


def test_different_seed_gives_different_content(bench: Path, tmp_path: Path) -> None:
    other = build_synthetic_benchmark(tmp_path, seed=1, base_docs=2, criteria=["semantic_tagging"])
    theirs = json.loads(other.read_text())
    ours = json.loads(bench.read_text())
    assert [i["title"] for i in theirs["tasks"]["semantic_tagging"]["passed"]] != \
        [i["title"] for i in ours["tasks"]["semantic_tagging"]["passed"][:2]]


def test_criteria_argument_is_validated(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unsupported"):
        build_synthetic_benchmark(tmp_path, criteria=["colour_contrast"])
    path = build_synthetic_benchmark(tmp_path, base_docs=1, criteria=["color_contrast"])
    assert list(json.loads(path.read_text())["tasks"]) == ["color_contrast"]


def test_failed_edits_rotate_through_the_registry(tmp_path: Path) -> None:
    """With as many base documents as edits, every failure edit of a criterion appears once."""
    criterion = "alt_text_quality"
    count = len(CRITERION_MUTATIONS[criterion].failed)
    path = build_synthetic_benchmark(tmp_path, base_docs=count, criteria=[criterion])
    used = [i["mutation"] for i in json.loads(path.read_text())["tasks"][criterion]["failed"]]
    assert sorted(used) == sorted(CRITERION_MUTATIONS[criterion].failed)


# --------------------------------------------------------------------------- variants as written


def test_variants_keep_pages_and_visible_text(bench: Path, manifest: dict[str, Any]) -> None:
    out = bench.parent.parent
    for criterion, labels in manifest["tasks"].items():
        for n, passed in enumerate(labels["passed"]):
            reference = (out / passed["pdf_path"]).read_bytes()
            for label in labels:
                item = labels[label][n]
                data = (out / item["pdf_path"]).read_bytes()
                if item["mutation"] in TEXT_CHANGING:
                    continue  # checked per mutation in test_mutations.py
                assert ev.texts(data) == ev.texts(reference), (criterion, label, item["mutation"])


def test_no_metadata_hints(bench: Path, manifest: dict[str, Any]) -> None:
    for _, _, item in _items(manifest):
        with pikepdf.open(bench.parent.parent / item["pdf_path"]) as pdf:
            assert set(pdf.docinfo.keys()) <= {"/Title", "/Author"}
            xmp = pdf.Root.Metadata.read_bytes().decode()
            for hint in ("CreateDate", "ModifyDate", "MetadataDate", "CreatorTool", "Producer", "pdfuaid",
                         "Typst", "DocumentID", "InstanceID"):
                assert hint not in xmp, (item["pdf_path"], hint)


def test_cannot_tell_is_an_unmodified_copy(bench: Path, manifest: dict[str, Any]) -> None:
    out = bench.parent.parent
    for labels in manifest["tasks"].values():
        for n, item in enumerate(labels["cannot_tell"]):
            data = (out / item["pdf_path"]).read_bytes()
            source = [label for label in ("passed", "failed")
                      if (out / labels[label][n]["pdf_path"]).read_bytes() == data]
            assert source, item["pdf_path"]
            assert item["mutation"] == labels[source[0]][n]["mutation"]


def test_labels_record_known_mutations(manifest: dict[str, Any]) -> None:
    for criterion, label, item in _items(manifest):
        registry = CRITERION_MUTATIONS[criterion]
        expected = {"passed": {"none"}, "failed": set(registry.failed),
                    "not_present": {registry.not_present[0]} if registry.not_present else set(),
                    "cannot_tell": {"none"} | set(registry.failed)}[label]
        assert item["mutation"] in expected


def test_not_present_files_lack_the_element(bench: Path, manifest: dict[str, Any]) -> None:
    out = bench.parent.parent
    absent = {"alt_text_quality": ("/Figure",), "table_structure": ("/Table", "/TH", "/TD"),
              "functional_hyperlinks": ("/Link",)}
    for criterion, labels in manifest["tasks"].items():
        for item in labels.get("not_present", []):
            with pikepdf.open(out / item["pdf_path"]) as pdf:
                if criterion == "semantic_tagging":
                    assert "/StructTreeRoot" not in pdf.Root
                    continue
                assert not ev.of_type(pdf, *absent[criterion])
                if criterion == "functional_hyperlinks":
                    assert not any(a.get("/Subtype") == "/Link" for p in pdf.pages for a in p.obj.get("/Annots", []))


def test_passed_files_are_clean(bench: Path, manifest: dict[str, Any]) -> None:
    out = bench.parent.parent
    for item in manifest["tasks"]["semantic_tagging"]["passed"]:
        _assert_passes_everything((out / item["pdf_path"]).read_bytes())


# --------------------------------------------------------------------------- the passing base documents


def _assert_passes_everything(data: bytes) -> None:
    """Every criterion's passing conditions, checked from the file alone."""
    with ev.open_pdf(data) as pdf:
        assert pdf.Root.MarkInfo.Marked
        kinds = set(ev.types(pdf))
        assert {"/P", "/H1", "/H2", "/L", "/LI", "/Table", "/TH", "/TD", "/Figure", "/Link", "/Note"} <= kinds
        # tagging: headings never skip a level; list items sit in lists
        levels = [int(m.group(1)) for t in ev.types(pdf) if (m := ev.HEADING.match(t))]
        assert all(b <= a + 1 for a, b in zip([0, *levels], levels, strict=False))
        assert all(parent.S == "/L" for e, parent in ev.walk(pdf) if e.S == "/LI")
        # alt text: specific descriptions
        assert all(len(str(f.get("/Alt", "")).split()) >= 8 for f in ev.of_type(pdf, "/Figure"))
        # tables: every TH scoped, every TD associated
        assert all(ev.table_attrs(th).get("/Scope") == "/Column" for th in ev.of_type(pdf, "/TH"))
        assert all(len(ev.table_attrs(td).get("/Headers", [])) > 0 for td in ev.of_type(pdf, "/TD"))
        # reading order: tree order follows the page
        assert ev.order_violations(pdf) == 0
        # links: every annotation is in the tag tree
        annots = [a for p in pdf.pages for a in p.obj.get("/Annots", []) if a.get("/Subtype") == "/Link"]
        assert annots and all("/StructParent" in a for a in annots)
        # fonts: embedded with Unicode maps
        assert all("/ToUnicode" in f for p in pdf.pages for f in p.Resources.Font.values())
        # contrast: graphics at least 3:1 against white (the photo-like image too)
        assert all(r >= 3 for r in ev.image_max_contrast(pdf))
    assert all(ext != "n/a" for _, ext in ev.font_table(data))
    assert all(ev.contrast(s["rgb"]) >= 4.5 for s in ev.spans(data))
    assert all(r >= 4.5 for r in ev.background_pairs(data))
    # superscript markers aside, no text below the 9 pt floor
    assert all(s["size"] >= 9 for s in ev.spans(data) if len(s["text"].strip()) > 2)
    assert 1 <= ev.page_count(data) <= 3


def test_base_documents_pass_every_criterion(templates: list[tuple[BaseDoc, bytes]]) -> None:
    for doc, data in templates:
        try:
            _assert_passes_everything(data)
        except AssertionError as exc:
            raise AssertionError(f"{doc.doc_id} (seed 3): {exc}") from exc


def test_templates_vary_with_the_seed(templates: list[tuple[BaseDoc, bytes]]) -> None:
    docs = [doc for doc, _ in templates]
    assert {d.style.columns for d in docs} == {1, 2}
    assert len({d.style.font for d in docs}) == 2
    assert {k for d in docs for k in d.table_kinds} == {"simple", "two_level", "spans"}
    assert {f.kind for d in docs for f in d.figures} == {"chart", "diagram", "heatmap", "photo"}
    assert {len(d.figures) for d in docs} >= {1, 2}
    assert any(b.kind == "callout" for d in docs for b in d.body)
    pages = {ev.page_count(data) for _, data in templates}
    assert len(pages) >= 2 and pages <= {1, 2, 3}


def test_two_column_documents_read_column_by_column(templates: list[tuple[BaseDoc, bytes]]) -> None:
    for doc, data in templates:
        if doc.style.columns == 2:
            with ev.open_pdf(data) as pdf:
                width = float(pdf.pages[0].mediabox[2])
                assert any(x > width / 2 for _, _, x, _ in ev.block_positions(pdf)), doc.doc_id


def test_fonts_come_from_typst_bundle_only(templates: list[tuple[BaseDoc, bytes]]) -> None:
    bundled = ("LibertinusSerif", "NewCM", "DejaVuSansMono")
    for _, data in templates:
        assert all(any(b in name for b in bundled) for name, _ in ev.font_table(data))


def test_long_papers_are_trimmed_to_three_pages() -> None:
    """Seed 5's eleventh paper runs to four pages untrimmed; optional subsections go until it fits."""
    doc = make_base_doc(10, seed=5)
    data = compile_base_doc(doc)
    assert ev.page_count(data) <= 3
    with ev.open_pdf(data) as pdf:
        assert "/H2" in ev.types(pdf)
