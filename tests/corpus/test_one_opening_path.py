"""`corpus sample` reads a damaged PDF as `run --pdfs` does (issue 31, point 8): a file the run repairs and
screens is not called unreadable by the sampler."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from corpus import manifest, screening
from corpus.manifest import load_pdf_folder
from corpus.screening import screen_folder
from flows.cli.app import main

# A tagged one-page PDF without a cross-reference table (MuPDF rebuilds it on open) whose second structure
# element is a dictionary MuPDF cannot parse ("invalid key in dict"): the kind of damage real files have.
DAMAGED = b"""%PDF-1.7
1 0 obj << /Type /Catalog /Pages 2 0 R /StructTreeRoot 5 0 R /MarkInfo << /Marked true >> >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R
  /Resources << /Font << /F1 8 0 R >> >> >> endobj
4 0 obj << /Length 44 >> stream
BT /F1 12 Tf 72 700 Td (Hello world) Tj ET
endstream endobj
5 0 obj << /Type /StructTreeRoot /K [6 0 R 7 0 R] >> endobj
6 0 obj << /Type /StructElem /S /P /P 5 0 R >> endobj
7 0 obj << /Type /StructElem /S /Figure /P 5 0 R 123 (broken) >> endobj
8 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj
trailer << /Root 1 0 R /Size 9 >>
%%EOF
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "pdfs"
    root.mkdir()
    (root / "damaged.pdf").write_bytes(DAMAGED)
    (root / "not_a_pdf.pdf").write_bytes(b"this is a text file, not a PDF\n" * 4)
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 72), "A sound file")
        doc.save(root / "sound.pdf")
    return root


def test_the_damaged_file_is_broken_as_the_fixture_says() -> None:
    with pymupdf.open(stream=DAMAGED, filetype="pdf") as doc:
        assert doc.is_repaired and doc.page_count == 1
        with pytest.raises(Exception, match="invalid key in dict"):
            doc.xref_get_key(7, "S")


def test_sampling_screens_what_the_run_reads_and_calls_unreadable_what_the_run_cannot(folder: Path) -> None:
    run = {Path(r["files"][0]).stem: r["error"] for r in load_pdf_folder(folder, "r1", ["semantic_tagging"])}
    screened = {r["doc_id"]: r for r in screen_folder(folder, workers=1)}
    assert run["damaged"] is None and run["sound"] is None and run["not_a_pdf"]
    assert {doc_id: bool(row["error"]) for doc_id, row in screened.items()} == {
        doc_id: bool(error) for doc_id, error in run.items()}
    damaged = screened["damaged"]
    assert damaged["repaired"] is True and damaged["pages"] == 1
    assert damaged["tagged"] is True and damaged["struct_elements"] == 1  # the parseable element counted
    assert damaged["text_chars"] and damaged["text_chars"] > 0


def test_both_open_a_file_through_one_function(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[int] = []
    real = manifest.open_pdf_data

    def counting(data: bytes) -> pymupdf.Document:
        opened.append(len(data))
        return real(data)

    monkeypatch.setattr(manifest, "open_pdf_data", counting)
    monkeypatch.setattr(screening, "open_pdf_data", counting)
    load_pdf_folder(folder, "r1", ["semantic_tagging"])
    screen_folder(folder, workers=1)
    assert sorted(opened) == sorted(2 * [len(DAMAGED), len((folder / "sound.pdf").read_bytes()),
                                         len((folder / "not_a_pdf.pdf").read_bytes())])


def test_corpus_sample_counts_only_the_unreadable_file(folder: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(tmp_path / "home"), "corpus", "sample", "--pdfs", str(folder), "--per-criterion", "1",
                 "--workers", "1", "--out", str(tmp_path / "sample")]) == 0
    out = capsys.readouterr().out
    assert "screened 3 PDFs" in out and "1 unreadable" in out  # not_a_pdf.pdf; damaged.pdf is screened
