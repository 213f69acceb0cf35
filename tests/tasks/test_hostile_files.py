"""Hostile inputs in a `--pdfs` folder: FIFOs, devices, symlinks out, huge files and pages.

Each becomes an error row (`skipped` or `limit`) or renders within the pixel limit; none hangs
the corpus stage or is read without bound.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from corpus.manifest import FileLimits, load_pdf_folder
from extractors.contrast import extract_contrast
from extractors.pages import render_pages
from extractors.source import PdfSource

HUGE_PT = 14_400  # the largest page PDF allows: 200 x 200 inches


def make_pdf(path: Path, *, pages: int = 1, side: float = 612, text: str = "Hello accessible world") -> Path:
    doc = pymupdf.open()
    for _ in range(pages):
        page = doc.new_page(width=side, height=side)
        page.insert_text((72, 72), text, fontsize=12)
    doc.save(path)
    doc.close()
    return path


@pytest.fixture()
def no_hang() -> Iterator[None]:
    """Fail instead of blocking forever (a FIFO opened for reading waits for a writer)."""
    def _fail(*_: object) -> None:
        raise TimeoutError("the corpus stage blocked on a hostile file")
    previous = signal.signal(signal.SIGALRM, _fail)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture()
def hostile(tmp_path: Path) -> Path:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    make_pdf(folder / "good.pdf")
    os.mkfifo(folder / "x.pdf")
    (folder / "zero.pdf").symlink_to("/dev/zero")
    (folder / "passwd.pdf").symlink_to("/etc/passwd")
    (folder / "inside.pdf").symlink_to(folder / "good.pdf")
    (tmp_path / "elsewhere").mkdir()
    make_pdf(tmp_path / "elsewhere" / "far.pdf")
    (folder / "sub").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    return folder


def _by_file(rows: list[dict]) -> dict[str, dict]:
    return {row["files"][0]: row for row in rows}


def test_non_regular_files_and_symlinks_out_are_skipped_with_error_rows(hostile: Path, no_hang: None) -> None:
    rows = _by_file(load_pdf_folder(hostile, "r", ["fonts_readability"]))
    assert rows["good.pdf"]["error"] is None and rows["good.pdf"]["pages"] == 1
    assert rows["inside.pdf"]["error"] is None  # a symlink that stays in the folder is fine
    assert rows["x.pdf"]["error_kind"] == "skipped" and "not a regular file" in rows["x.pdf"]["error"]
    for name in ("zero.pdf", "passwd.pdf"):
        assert rows[name]["error_kind"] == "skipped" and "--follow-symlinks" in rows[name]["error"]
        assert rows[name].get("sha256") is None  # never read
    assert not any(name.startswith("sub/") for name in rows)  # symlinked folders are not descended into


def test_follow_symlinks_reads_regular_targets_but_never_devices(hostile: Path, no_hang: None) -> None:
    rows = _by_file(load_pdf_folder(hostile, "r", ["fonts_readability"], follow_symlinks=True))
    assert "not a regular file" in rows["zero.pdf"]["error"]  # /dev/zero is a device: not read at all
    assert rows["passwd.pdf"]["error_kind"] == "corpus" and "unreadable PDF" in rows["passwd.pdf"]["error"]


def test_file_and_page_limits_give_limit_rows(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    make_pdf(folder / "long.pdf", pages=5)
    with (folder / "big.pdf").open("wb") as handle:
        handle.write(b"%PDF-1.7\n" + b"0" * 3 * 2**20)
    rows = _by_file(load_pdf_folder(folder, "r", ["fonts_readability"], limits=FileLimits(max_bytes=2**20,
                                                                                          max_pages=3)))
    assert rows["big.pdf"]["error_kind"] == "limit" and "--max-file-mb" in rows["big.pdf"]["error"]
    assert rows["long.pdf"]["error_kind"] == "limit" and "--max-pages" in rows["long.pdf"]["error"]
    ok = _by_file(load_pdf_folder(folder, "r", ["fonts_readability"], limits=FileLimits(max_bytes=2**20,
                                                                                        max_pages=5)))
    assert ok["long.pdf"]["error"] is None


def test_a_huge_page_renders_at_a_lower_dpi_within_the_pixel_limit(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "huge.pdf", side=HUGE_PT)
    [row] = render_pages(pdf, doc_id="d", out_dir=tmp_path / "img", dpi=72, max_pixels=4_000_000)
    assert row["width_px"] * row["height_px"] <= 4_000_000
    assert row["dpi"] < 72 and Path(row["image_path"]).exists()
    with PdfSource(pdf, max_pixels=4_000_000) as source:
        [span] = [r for r in extract_contrast(source, doc_id="d") if r["text"].strip()]
    assert span["contrast_ratio"] == pytest.approx(21.0, rel=0.05)  # black on white, measured at the lower dpi


def test_page_renders_leave_no_temporary_files(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "a.pdf", pages=2)
    render_pages(pdf, doc_id="d", out_dir=tmp_path / "img", dpi=36)
    names = sorted(p.name for p in (tmp_path / "img" / "d").iterdir())
    assert names == ["page-0001.png", "page-0002.png"]


@pytest.mark.slow
def test_the_fault_corpus_finishes_under_a_2_gib_per_process_ceiling(tmp_path: Path) -> None:
    from benchmarks.hostile_files import build_fault_corpus, measure

    build_fault_corpus(tmp_path / "pdfs")
    result = measure(tmp_path / "pdfs", tmp_path / "home", api_url=True)  # on the session's Prefect server
    print(f"fault corpus: wall {result['wall_s']} s, peak RSS of any process {result['peak_rss_mib']} MiB")
    assert result["returncode"] == 0, result["stderr_tail"]
    assert result["peak_rss_mib"] < 2048
    kinds = {(row["file"], row["kind"]) for row in result["errors"]}
    assert kinds == {("x.pdf", "skipped"), ("zero.pdf", "skipped"), ("passwd.pdf", "skipped")}


def test_layout_model_renders_of_a_huge_page_are_capped_and_map_back_to_the_page(tmp_path: Path) -> None:
    from extractors.layout.base import pixels_to_page, render_page
    from extractors.source import DEFAULT_MAX_PIXELS

    with pymupdf.open(make_pdf(tmp_path / "huge.pdf", side=HUGE_PT)) as doc:
        page = doc[0]
        image, dpi = render_page(page, 150)
        height, width, _ = image.shape
        assert width * height <= DEFAULT_MAX_PIXELS and dpi < 150
        box = pixels_to_page(page, (0, 0, width, height), dpi)
        assert box == pytest.approx((0, 0, HUGE_PT, HUGE_PT), abs=HUGE_PT / width * 2)
