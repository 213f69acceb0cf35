"""Tests for the synthetic, self-labelling benchmark generator.

They check the contract others rely on (upstream layout, determinism, no metadata leaks) and
that each mutation changes exactly the evidence its label claims while the rendered pages
stay the same. The struct-tree walkers here are deliberately independent of
``corpus.mutations`` so a bug there cannot hide itself.
"""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pikepdf
import pymupdf
import pytest

from corpus.mutations import CRITERION_MUTATIONS, Mutation
from corpus.synthetic import LABELS, SUPPORTED_CRITERIA, build_synthetic_benchmark
from corpus.typst_docs import compile_base_doc, make_base_doc

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "pdf-accessibility-benchmark"
ITEM_KEYS = {"openalex_id", "title", "year", "venue", "type", "pdf_path", "input_pdfs", "mutation"}
HEADING = re.compile(r"^/H([1-6])$")


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_synthetic_benchmark(tmp_path_factory.mktemp("seed0"), seed=0, base_docs=3)


@pytest.fixture(scope="module")
def manifest(bench: Path) -> dict[str, Any]:
    return json.loads(bench.read_text())


@pytest.fixture(scope="module")
def base_pdf() -> bytes:
    return compile_base_doc(make_base_doc(0, seed=0))


# --------------------------------------------------------------------------- helpers


def _items(manifest: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for criterion, labels in manifest["tasks"].items():
        for label, items in labels.items():
            for item in items:
                yield criterion, label, item


def _kids(node: Any) -> list[Any]:
    k = node.get("/K")
    if k is None:
        return []
    return list(k) if isinstance(k, pikepdf.Array) else [k]


def _walk(pdf: pikepdf.Pdf) -> Iterator[tuple[Any, Any]]:
    """(element, parent) pairs in document order; the root's kids have the root as parent."""
    root = pdf.Root.StructTreeRoot
    stack = [(k, root) for k in reversed(_kids(root))]
    while stack:
        elem, parent = stack.pop()
        if isinstance(elem, pikepdf.Dictionary) and "/S" in elem:
            yield elem, parent
            stack.extend((k, elem) for k in reversed(_kids(elem)))


def _types(pdf: pikepdf.Pdf) -> list[str]:
    return [str(e.S) for e, _ in _walk(pdf)]


def _has_skipped_heading_level(pdf: pikepdf.Pdf) -> bool:
    previous = 0
    for stype in _types(pdf):
        match = HEADING.match(stype)
        if match:
            level = int(match.group(1))
            if level > previous + 1:
                return True
            previous = level
    return False


def _link_annots(pdf: pikepdf.Pdf) -> list[Any]:
    return [a for p in pdf.pages for a in p.obj.get("/Annots", []) if a.get("/Subtype") == "/Link"]


def _objr_targets(pdf: pikepdf.Pdf) -> set[tuple[int, int]]:
    """Annotations referenced from a Link element's OBJR kid."""
    return {k.Obj.objgen for e, _ in _walk(pdf) if e.S == "/Link"
            for k in _kids(e) if isinstance(k, pikepdf.Dictionary) and k.get("/Type") == "/OBJR"}


def _named_dests(pdf: pikepdf.Pdf) -> set[str]:
    names = pdf.Root.get("/Names")
    if names is None or "/Dests" not in names:
        return set()
    return set(pikepdf.NameTree(names.Dests))


def _uri_ok(uri: str) -> bool:
    parts = urlsplit(uri)
    return parts.scheme in {"http", "https"} and bool(parts.netloc) and not re.search(r"\s", uri) \
        and " " not in parts.netloc


def _dest_broken(dest: Any, named: set[str], pages: int) -> bool:
    if isinstance(dest, pikepdf.String):
        return str(dest) not in named
    # An explicit destination must start with a page; an index past the end goes nowhere.
    return isinstance(dest, pikepdf.Array) and isinstance(dest[0], int) and not 0 <= dest[0] < pages


def _broken_internal_links(pdf: pikepdf.Pdf) -> list[Any]:
    named, pages = _named_dests(pdf), len(pdf.pages)
    return [a for a in _link_annots(pdf) if _dest_broken(a.get("/Dest"), named, pages)]


def _malformed_uris(pdf: pikepdf.Pdf) -> list[str]:
    uris = [str(a.A.URI) for a in _link_annots(pdf) if "/A" in a and a.A.get("/S") == "/URI"]
    return [u for u in uris if not _uri_ok(u)]


def _has_marked_content_ids(pdf: pikepdf.Pdf) -> bool:
    return any(b"/MCID" in p.obj.Contents.read_bytes() for p in pdf.pages)


def _parents_consistent(pdf: pikepdf.Pdf) -> bool:
    """Every element's /P is the element that lists it, and the ParentTree agrees with /K."""
    tree = pikepdf.NumberTree(pdf.Root.StructTreeRoot.ParentTree)
    for elem, parent in _walk(pdf):
        if elem.P.objgen != parent.objgen:
            return False
        for kid in _kids(elem):
            if isinstance(kid, int) and "/Pg" in elem:
                owners = tree[int(elem.Pg.StructParents)]
                if owners[kid].objgen != elem.objgen:
                    return False
            is_objr = isinstance(kid, pikepdf.Dictionary) and kid.get("/Type") == "/OBJR"
            if is_objr and tree[int(kid.Obj.StructParent)].objgen != elem.objgen:
                return False
    return True


def _texts(data: bytes) -> list[str]:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return [page.get_text() for page in doc]


def _mutate(base: bytes, mutation: Mutation, seed: int = 0) -> bytes:
    with pikepdf.open(io.BytesIO(base)) as pdf:
        mutation(pdf, random.Random(seed))
        buf = io.BytesIO()
        pdf.save(buf)
        return buf.getvalue()


def _open(data: bytes) -> pikepdf.Pdf:
    return pikepdf.open(io.BytesIO(data))


# --------------------------------------------------------------------------- layout and determinism


def test_manifest_matches_upstream_layout(bench: Path, manifest: dict[str, Any]) -> None:
    out = bench.parent.parent
    assert bench == out / "data" / "dataset.json"
    assert {k: manifest[k] for k in ("name", "version", "seed", "split")} == {
        "name": "AccessBench-Synthetic", "version": "1", "seed": 0, "split": "synthetic"}
    assert tuple(manifest["tasks"]) == SUPPORTED_CRITERIA
    for criterion, labels in manifest["tasks"].items():
        assert tuple(labels) == LABELS
        for label, items in labels.items():
            assert [i["openalex_id"] for i in items] == ["SYN0001", "SYN0002", "SYN0003"]
            for item in items:
                assert set(item) == ITEM_KEYS
                assert item["pdf_path"] == f"data/processed/{criterion}/{label}/{item['openalex_id']}.pdf"
                assert (out / item["pdf_path"]).is_file()
                assert item["input_pdfs"] == [] and item["type"] == "synthetic"
                assert item["venue"] == "AccessBench synthetic"


@pytest.mark.benchmark_data
def test_item_shape_is_a_subset_of_upstream(manifest: dict[str, Any]) -> None:
    path = UPSTREAM / "data" / "dataset.json"
    if not path.exists():
        pytest.skip(f"upstream benchmark not found at {UPSTREAM}")
    upstream = json.loads(path.read_text())
    _, _, sample = next(_items(upstream))
    _, _, ours = next(_items(manifest))
    assert set(ours) - {"mutation"} <= set(sample)
    assert set(manifest["tasks"]) <= set(upstream["tasks"])


def test_same_seed_gives_identical_bytes(bench: Path, tmp_path: Path) -> None:
    again = build_synthetic_benchmark(tmp_path, seed=0, base_docs=3)
    assert again.read_bytes() == bench.read_bytes()
    for _, _, item in _items(json.loads(again.read_text())):
        assert (tmp_path / item["pdf_path"]).read_bytes() == (bench.parent.parent / item["pdf_path"]).read_bytes()


def test_different_seed_gives_different_content(bench: Path, tmp_path: Path) -> None:
    other = build_synthetic_benchmark(tmp_path, seed=1, base_docs=3)
    ours = json.loads(bench.read_text())
    theirs = json.loads(other.read_text())
    assert [i["title"] for _, _, i in _items(ours)] != [i["title"] for _, _, i in _items(theirs)]
    rel = "data/processed/semantic_tagging/passed/SYN0001.pdf"
    assert _texts((tmp_path / rel).read_bytes()) != _texts((bench.parent.parent / rel).read_bytes())


def test_criteria_argument_is_validated(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unsupported"):
        build_synthetic_benchmark(tmp_path, criteria=["color_contrast"])
    path = build_synthetic_benchmark(tmp_path, base_docs=1, criteria=["functional_hyperlinks"])
    assert list(json.loads(path.read_text())["tasks"]) == ["functional_hyperlinks"]


# --------------------------------------------------------------------------- variants as written


def test_variants_keep_pages_and_visible_text(bench: Path, manifest: dict[str, Any]) -> None:
    out = bench.parent.parent
    for criterion, labels in manifest["tasks"].items():
        for n, passed in enumerate(labels["passed"]):
            reference = _texts((out / passed["pdf_path"]).read_bytes())
            assert 1 <= len(reference) <= 2
            for label in LABELS:
                data = (out / labels[label][n]["pdf_path"]).read_bytes()
                assert _texts(data) == reference, (criterion, label)
                _open(data).close()


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
            source = [label for label in ("passed", "failed") if (out / labels[label][n]["pdf_path"]).read_bytes()
                      == data]
            assert source, item["pdf_path"]
            assert item["mutation"] == labels[source[0]][n]["mutation"]


def test_labels_record_known_mutations(manifest: dict[str, Any]) -> None:
    for criterion, label, item in _items(manifest):
        registry = CRITERION_MUTATIONS[criterion]
        expected = {"passed": {"none"}, "failed": set(registry.failed),
                    "not_present": {registry.not_present[0]},
                    "cannot_tell": {"none"} | set(registry.failed)}[label]
        assert item["mutation"] in expected


def test_written_files_carry_their_evidence(bench: Path, manifest: dict[str, Any]) -> None:
    out = bench.parent.parent
    for criterion, label, item in _items(manifest):
        with pikepdf.open(out / item["pdf_path"]) as pdf:
            if criterion == "semantic_tagging" and label == "not_present":
                assert "/StructTreeRoot" not in pdf.Root
            elif criterion == "functional_hyperlinks" and label == "not_present":
                assert not _link_annots(pdf)
            if item["mutation"] == "none":
                _assert_clean(pdf)


# --------------------------------------------------------------------------- the passing base


def _assert_clean(pdf: pikepdf.Pdf) -> None:
    types = _types(pdf)
    assert pdf.Root.MarkInfo.Marked
    assert not _has_skipped_heading_level(pdf)
    assert {"/P", "/H1", "/H2", "/L", "/LI", "/Table", "/TH", "/Figure", "/Link"} <= set(types)
    assert all(parent.S == "/L" for e, parent in _walk(pdf) if e.S == "/LI")
    annots = _link_annots(pdf)
    assert annots and {a.objgen for a in annots} == _objr_targets(pdf)
    assert not _broken_internal_links(pdf) and not _malformed_uris(pdf)
    assert _parents_consistent(pdf)


def test_base_document_is_tagged_and_well_linked(base_pdf: bytes) -> None:
    with _open(base_pdf) as pdf:
        _assert_clean(pdf)
        figures = [e for e, _ in _walk(pdf) if e.S == "/Figure"]
        assert figures and all(str(f.get("/Alt", "")).strip() for f in figures)
        headers = [e for e, _ in _walk(pdf) if e.S == "/TH"]
        assert all(any(a.get("/Scope") == "/Column" for a in h.A) for h in headers)
        assert any(isinstance(a.get("/Dest"), pikepdf.String) for a in _link_annots(pdf))  # internal link
        assert any("/A" in a and a.A.S == "/URI" for a in _link_annots(pdf))  # external link


# --------------------------------------------------------------------------- each mutation's effect

Check = Callable[[pikepdf.Pdf], bool]

EFFECTS: dict[str, Check] = {
    "heading_level_skip": _has_skipped_heading_level,
    "first_heading_demoted": _has_skipped_heading_level,
    "paragraphs_as_spans": lambda pdf: "/P" not in _types(pdf) and "/Span" in _types(pdf),
    "list_items_unwrapped": lambda pdf: any(e.S == "/LI" and parent.S != "/L" for e, parent in _walk(pdf)),
    "list_as_paragraph": lambda pdf: any(e.S == "/LI" and parent.S == "/P" for e, parent in _walk(pdf)),
    "headings_as_paragraphs": lambda pdf: not any(HEADING.match(t) for t in _types(pdf)),
    "untagged": lambda pdf: "/StructTreeRoot" not in pdf.Root and "/MarkInfo" not in pdf.Root
    and not _has_marked_content_ids(pdf) and not any("/StructParents" in p.obj for p in pdf.pages),
    "links_detached": lambda pdf: bool(_link_annots(pdf)) and not _objr_targets(pdf)
    and not any("/StructParent" in a for a in _link_annots(pdf)),
    "internal_dest_missing": lambda pdf: bool(_broken_internal_links(pdf)),
    "internal_dest_out_of_range": lambda pdf: bool(_broken_internal_links(pdf)),
    "uri_scheme_typo": lambda pdf: bool(_malformed_uris(pdf)),
    "uri_missing_colon": lambda pdf: bool(_malformed_uris(pdf)),
    "uri_embedded_space": lambda pdf: bool(_malformed_uris(pdf)),
    "links_removed": lambda pdf: not _link_annots(pdf) and "/Link" not in _types(pdf),
}

MUTATIONS: dict[str, Mutation] = {
    name: fn for spec in CRITERION_MUTATIONS.values()
    for name, fn in [*spec.failed.items(), spec.not_present]
}


def test_every_mutation_has_an_effect_check() -> None:
    assert set(MUTATIONS) == set(EFFECTS)


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_mutation_changes_evidence_not_pages(name: str, base_pdf: bytes) -> None:
    with _open(base_pdf) as base:
        assert not EFFECTS[name](base), "the base must not show the defect already"
    mutated = _mutate(base_pdf, MUTATIONS[name])
    with _open(mutated) as pdf:
        assert EFFECTS[name](pdf)
        if "/StructTreeRoot" in pdf.Root:
            assert _parents_consistent(pdf)
    assert _texts(mutated) == _texts(base_pdf)
