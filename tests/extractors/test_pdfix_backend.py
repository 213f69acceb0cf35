"""The pdfix tag-tree backend reads the same tree as the default (pikepdf) backend.

Runs where pdfix-sdk is importable and skips with the install command elsewhere;
the registry and missing-package tests run everywhere.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pikepdf
import pytest

from extractors.errors import ExtractionError
from extractors.pdfix_backend import (
    TAG_TREE_BACKENDS,
    TagTreeBackendError,
    extract_struct_elements_pdfix,
    get_tag_tree_backend,
    load_pdfix,
)
from extractors.structure.records import extract_struct_elements
from tests.conftest import SHARED_BENCHMARK
from tests.extractors.conftest import assert_fits, compile_typst, first_element, mutate, red_png
from warehouse.tables import STRUCT_ELEMENTS_SCHEMA

PROCESSED = SHARED_BENCHMARK / "data" / "processed"
# Fields both backends read straight from the tree; PDFix pages, text and boxes are its own.
SAME_FIELDS = ("elem_id", "parent_id", "depth", "order", "raw_type", "type", "alt", "actual_text", "lang", "title",
               "attributes", "scope", "elem_key", "mcid_count", "mcids", "objr_count", "objr_annots", "obj_num")

TABLES_SOURCE = """#set text(lang: "en")
#set page(width: 420pt, height: 595pt, header: [Header])
= Tables and figures
#table(columns: 3, table.header([Region], [2020], [2021]), [North], [1], [2], [South], [3], [4])
#figure(image("red.png", width: 2cm, alt: "First red box"), caption: [One])
#figure(image("red.png", width: 1cm, alt: "Second red box"), caption: [Two])
See #link("https://example.org/a")[archive A], #link("https://example.org/b")[archive B] and
#link(<end>)[the end].
#pagebreak()
== The end <end>
+ one
+ two
"""


def pdfix_available() -> bool:
    try:
        load_pdfix()
    except TagTreeBackendError:
        return False
    return True


needs_pdfix = pytest.mark.skipif(not pdfix_available(),
                                 reason="pdfix-sdk is not importable here: pip install 'accessbench[pdfix]'")


@pytest.fixture(scope="module")
def typst_pdfs(tagged_pdf: Path, fixture_dir: Path) -> list[Path]:
    tables = compile_typst(TABLES_SOURCE, fixture_dir / "pdfix-tables.pdf", {"red.png": red_png()})

    def drop_alt_and_scope(pdf: pikepdf.Pdf) -> None:  # a failed variant: the counts must still agree
        del first_element(pdf, "/Figure")["/Alt"]
        del first_element(pdf, "/TH").A[0]["/Scope"]

    broken = mutate(tables, fixture_dir / "pdfix-tables-broken.pdf", drop_alt_and_scope)
    return [tagged_pdf, tables, broken]


def counts(records: list[dict]) -> dict[str, int]:
    return {
        "elements": len(records),
        "alt": sum(r["alt"] is not None for r in records),
        "th_scope": sum(r["type"] == "TH" and r["scope"] is not None for r in records),
        "objr": sum(r["objr_count"] for r in records),
    }


def test_registry_resolves_backends_by_name() -> None:
    assert get_tag_tree_backend("pikepdf") is extract_struct_elements
    assert get_tag_tree_backend("pdfix") is extract_struct_elements_pdfix
    assert TAG_TREE_BACKENDS.names() == ["pdfix", "pikepdf"]
    with pytest.raises(TagTreeBackendError, match="pdfix, pikepdf"):
        get_tag_tree_backend("pdfplumber")


def test_missing_pdfix_says_what_to_install(tagged_pdf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pdfixsdk", None)  # makes `import pdfixsdk` fail
    with pytest.raises(TagTreeBackendError, match=r"pip install 'accessbench\[pdfix\]'"):
        extract_struct_elements_pdfix(tagged_pdf, doc_id="d")


@needs_pdfix
def test_agrees_with_the_default_backend_on_typst_pdfs(typst_pdfs: list[Path]) -> None:
    for pdf in typst_pdfs:
        default = extract_struct_elements(pdf, doc_id="d", page_offset=3)
        pdfix = extract_struct_elements_pdfix(pdf, doc_id="d", page_offset=3)
        assert_fits(pdfix, STRUCT_ELEMENTS_SCHEMA)
        assert counts(pdfix) == counts(default), pdf.name
        for ours, theirs in zip(default, pdfix, strict=True):
            assert {f: theirs[f] for f in SAME_FIELDS} == {f: ours[f] for f in SAME_FIELDS}
            assert theirs["page"] == ours["page"]
    print(f"\ntypst: {[counts(extract_struct_elements_pdfix(p, doc_id='d')) for p in typst_pdfs]}")


@needs_pdfix
def test_leaf_text_and_boxes_match_the_default_backend(typst_pdfs: list[Path]) -> None:
    default = extract_struct_elements(typst_pdfs[1], doc_id="d")
    pdfix = extract_struct_elements_pdfix(typst_pdfs[1], doc_id="d")
    leaves = [(o, t) for o, t in zip(default, pdfix, strict=True) if t["text"] is not None]
    assert len(leaves) > 10
    for ours, theirs in leaves:
        assert theirs["text"] == ours["text"]
        # PDFix boxes hug the glyphs, MuPDF's span the font's ascent and descent.
        centre = [(a + b) / 2 for a, b in zip(theirs["bbox"][:2], theirs["bbox"][2:], strict=True)]
        x0, y0, x1, y1 = ours["bbox"]
        assert x0 - 1 <= centre[0] <= x1 + 1 and y0 - 1 <= centre[1] <= y1 + 1
    assert all(t["text"] is None and t["bbox"] is None for t in pdfix if any(r["parent_id"] == t["elem_id"]
                                                                          for r in pdfix))
    assert all(r["text"] is None and r["subtree_bbox"] is None
               for r in extract_struct_elements_pdfix(typst_pdfs[1], doc_id="d", content=False))


@needs_pdfix
def test_never_writes_the_pdf(typst_pdfs: list[Path]) -> None:
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in typst_pdfs}
    for pdf in typst_pdfs:
        extract_struct_elements_pdfix(pdf, doc_id="d")
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in typst_pdfs} == before


@needs_pdfix
def test_untagged_and_unreadable_input(untagged_pdf: Path, encrypted_pdf: Path, owner_only_pdf: Path,
                                       corrupt_pdf: Path, truncated_pdf: Path) -> None:
    assert extract_struct_elements_pdfix(untagged_pdf, doc_id="d") == []
    assert len(extract_struct_elements_pdfix(owner_only_pdf, doc_id="d")) > 0
    for pdf, kind in ((encrypted_pdf, "encrypted"), (corrupt_pdf, "corrupt"), (truncated_pdf, "corrupt")):
        with pytest.raises(ExtractionError) as caught:
            extract_struct_elements_pdfix(pdf, doc_id="d")
        assert caught.value.kind == kind


@needs_pdfix
@pytest.mark.benchmark_data
def test_agrees_with_the_default_backend_on_the_dev_benchmark() -> None:
    pdfs = sorted(PROCESSED.rglob("*.pdf"))
    if not pdfs:
        pytest.skip(f"no benchmark PDFs under {PROCESSED}; place the shared dev benchmark there to run this")
    totals = {"default": dict.fromkeys(("elements", "alt", "th_scope", "objr"), 0)}
    totals["pdfix"] = dict(totals["default"])
    for pdf in pdfs:
        try:
            default = counts(extract_struct_elements(pdf, doc_id="d"))
        except ExtractionError:
            continue
        pdfix = counts(extract_struct_elements_pdfix(pdf, doc_id="d", content=False))
        # A small tolerance: the two parsers may repair a damaged tree differently.
        assert abs(pdfix["elements"] - default["elements"]) <= max(2, default["elements"] // 50), pdf.name
        for key in ("alt", "th_scope", "objr"):
            assert abs(pdfix[key] - default[key]) <= max(1, default[key] // 50), (pdf.name, key)
        for key in default:
            totals["default"][key] += default[key]
            totals["pdfix"][key] += pdfix[key]
    print(f"\n{len(pdfs)} PDFs, default vs pdfix: {totals}")


def test_the_extract_stage_reads_the_tag_tree_with_the_chosen_backend(tagged_pdf: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`--tag-tree pdfix` hands the file to the pdfix reader (stood in for here: pdfix-sdk may be missing)."""
    from tasks.benchmark.work.extract import extract_file

    seen: list[Path] = []

    def reader(pdf: Path, *, doc_id: str, page_offset: int = 0) -> list[dict]:
        seen.append(Path(pdf))
        return extract_struct_elements(pdf, doc_id=doc_id, page_offset=page_offset)

    monkeypatch.setitem(TAG_TREE_BACKENDS._factories, "pdfix", reader)
    default = extract_file(tagged_pdf, "d", 0, 0, tmp_path / "a", 72, [])
    chosen = extract_file(tagged_pdf, "d", 0, 0, tmp_path / "b", 72, [], tag_tree="pdfix")
    assert seen == [tagged_pdf]
    assert chosen["struct_elements"] == default["struct_elements"] and default["struct_elements"]
