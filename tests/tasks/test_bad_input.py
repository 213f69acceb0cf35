"""Bad input through the whole pipeline: every file gets a row (error or label); the run completes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pikepdf
import pymupdf
import pytest

from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from warehouse import catalog
from warehouse.tables import ALL_TABLES

CRITERIA = ["semantic_tagging", "functional_hyperlinks"]


def _good(dataset: Path) -> Path:
    return next(dataset.glob("data/processed/semantic_tagging/passed/*.pdf"))


def make_bad_folder(folder: Path, good: Path) -> None:
    folder.mkdir()
    shutil.copy(good, folder / "good.pdf")
    with pikepdf.open(good) as pdf:
        pdf.save(folder / "encrypted.pdf", encryption=pikepdf.Encryption(user="secret", owner="owner"))
    with pikepdf.new() as empty:
        empty.save(folder / "zero-pages.pdf")
    (folder / "corrupt.pdf").write_bytes(b"%PDF-1.7\n1 0 obj <</Type /Catalog>> garbage")
    (folder / "truncated.pdf").write_bytes(good.read_bytes()[:400])
    scan = pymupdf.open()
    page = scan.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 200), False)
    pix.clear_with(200)
    page.insert_image(page.rect, pixmap=pix)
    scan.save(folder / "scanned.pdf")
    with pikepdf.open(good) as pdf:  # a structure element that contains its own parent
        root = pdf.Root.StructTreeRoot
        first = root.K[0] if isinstance(root.K, pikepdf.Array) else root.K
        first.K = pikepdf.Array([first, *(first.K if isinstance(first.K, pikepdf.Array) else [first.K])])
        pdf.save(folder / "cyclic.pdf")
    with pikepdf.open(good) as pdf:  # 10,000 nested Div elements
        node = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.Div))
        top = node
        for _ in range(10_000):
            child = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.Div, P=node))
            node.K = child
            node = child
        root = pdf.Root.StructTreeRoot
        kids = root.K if isinstance(root.K, pikepdf.Array) else pikepdf.Array([root.K])
        kids.append(top)
        root.K = kids
        pdf.save(folder / "deep.pdf")
    huge = pymupdf.open()
    page = huge.new_page(width=14_400, height=14_400)  # 200 inches, the PDF maximum
    page.insert_text((100, 200), "A poster-sized page", fontsize=96)
    huge.save(folder / "enormous.pdf")


@pytest.mark.slow
def test_every_kind_of_bad_pdf_becomes_a_row(tmp_path: Path, synthetic_dataset: Path) -> None:
    folder = tmp_path / "pdfs"
    make_bad_folder(folder, _good(synthetic_dataset))
    home = tmp_path / "home"
    cfg = RunConfig(home=home, run_id="bad", source="pdfs", source_path=str(folder), criteria=CRITERIA,
                    progress=False, doc_timeout_s=60)
    for stage in STAGE_LIST:
        assert execute(cfg, stage).status == "completed"
    _, docs = catalog.query(home, ALL_TABLES, """
        select json_extract_string(d.metadata, '$.path') as file, d.criterion,
               any_value(l.label) as label, string_agg(distinct e.kind, ',') as errors
        from documents d
        left join doc_labels l using (run_id, doc_id)
        left join errors e using (run_id, doc_id)
        group by all""")
    outcome = {(file, criterion): (label, errors) for file, criterion, label, errors in docs}
    assert len(outcome) == 9 * len(CRITERIA)
    for (file, _), (label, errors) in outcome.items():
        assert label or errors, f"{file} has neither a label nor an error row"
    for bad in ("encrypted.pdf", "zero-pages.pdf", "corrupt.pdf"):
        assert outcome[(bad, "semantic_tagging")][1], bad
    # An untagged scan has no structure tree: Not Present, never Cannot Tell (issue 31).
    assert outcome[("scanned.pdf", "semantic_tagging")][0] == "not_present"
    for readable in ("good.pdf", "cyclic.pdf", "deep.pdf", "enormous.pdf"):
        assert outcome[(readable, "semantic_tagging")][0], readable
    _, pages = catalog.query(home, ALL_TABLES, """select p.width_px, p.height_px from pages p join documents d
        using (run_id, doc_id) where json_extract_string(d.metadata, '$.path') = 'enormous.pdf'""")
    assert max(pages[0]) <= 4000


def test_error_rows_say_the_kind_once() -> None:
    from tasks.engine.common import error_row

    row = error_row("r", "extract", {"doc_id": "d"}, "corrupt", "corrupt: qpdf cannot parse it; re-export it")
    assert row["kind"] == "corrupt" and row["message"] == "qpdf cannot parse it; re-export it"


@pytest.mark.slow
def test_a_file_name_that_is_not_utf8_is_labelled_like_any_other(tmp_path: Path, synthetic_dataset: Path) -> None:
    import os
    import shutil

    folder = tmp_path / "pdfs"
    folder.mkdir()
    shutil.copy(_good(synthetic_dataset), os.path.join(os.fsencode(folder), b"caf\xe9 r\xe9sum\xe9.pdf"))
    home = tmp_path / "home"
    cfg = RunConfig(home=home, run_id="latin", source="pdfs", source_path=str(folder),
                    criteria=["semantic_tagging", "fonts_readability"], progress=False, workers=1)
    for stage in STAGE_LIST:
        assert execute(cfg, stage).status == "completed"
    _, labels = catalog.query(home, ALL_TABLES, "select criterion, label from doc_labels where run_id='latin'")
    _, errors = catalog.query(home, ALL_TABLES, "select * from errors where run_id='latin'")
    assert len(labels) == 2 and not errors
    _, names = catalog.query(home, ALL_TABLES, "select json_extract_string(metadata, '$.path') from documents")
    assert names[0][0] == "caf\\xe9 r\\xe9sum\\xe9.pdf"  # shown with the undecodable bytes escaped
    _, screened = catalog.query(home, ALL_TABLES, "select file from screening where run_id='latin'")
    assert screened == [("caf\\xe9 r\\xe9sum\\xe9.pdf",)]  # the report's name too, not the stored fs64: form


def test_malformed_manifest_items_become_rows_with_reasons(tmp_path: Path) -> None:
    import json

    from corpus.manifest import load_dataset

    root = tmp_path / "ds"
    (root / "data").mkdir(parents=True)
    (root / "data" / "dataset.json").write_text(json.dumps({"tasks": {"semantic_tagging": {"passed": [
        7, {"pdf_path": 12}, {"pdf_path": "a\u0000b.pdf"}, {"pdf_path": "missing.pdf"}]}}}))
    rows = load_dataset(root, "r", ["semantic_tagging"], source="dataset")
    assert len(rows) == 4 and all(r["error"] for r in rows)
    assert "not an object" in rows[0]["error"] and "path strings" in rows[1]["error"]
    assert "path strings" in rows[2]["error"] and "no PDF found" in rows[3]["error"]


@pytest.mark.slow
def test_a_repaired_file_is_labelled_with_a_repaired_warning(tmp_path: Path, synthetic_dataset: Path) -> None:
    import re

    folder = tmp_path / "pdfs"
    folder.mkdir()
    data = _good(synthetic_dataset).read_bytes()
    broken = re.sub(rb"startxref\s+\d+", b"startxref\n999999", data)  # offsets point nowhere: MuPDF repairs
    assert broken != data
    (folder / "damaged.pdf").write_bytes(broken)
    home = tmp_path / "home"
    cfg = RunConfig(home=home, run_id="fix", source="pdfs", source_path=str(folder),
                    criteria=["semantic_tagging"], progress=False, workers=1)
    for stage in STAGE_LIST:
        assert execute(cfg, stage).status == "completed"
    _, labels = catalog.query(home, ALL_TABLES, "select label from doc_labels where run_id='fix'")
    _, errors = catalog.query(home, ALL_TABLES, "select kind, message from errors where run_id='fix'")
    assert labels == [("passed",)]  # still judged
    # The PDF/UA-1 validator may refuse the damaged file too: a warning of its own (its verdict is "not checked").
    kinds = [kind for kind, _ in errors if kind != "conformance"]
    assert kinds == ["repaired"] and "qpdf --check" in dict(errors)["repaired"]
