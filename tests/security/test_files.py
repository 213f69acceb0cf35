"""Paths after symlink resolution: links planted in the data home are refused, a file changed after the
corpus stage is an error row naming the change (never read), and a symlink loop in --pdfs is one row."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from corpus.manifest import InputChanged, load_pdf_folder, verify_files
from tasks.benchmark.registry import STAGES
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from warehouse import catalog
from warehouse.home import HomeLinkError, check_home_links
from warehouse.tables import ALL_TABLES


def make_pdf(path: Path, text: str = "Hello") -> Path:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text)
    doc.save(path)
    doc.close()
    return path


@pytest.mark.parametrize("entry", ["reports", "cache", "prefect", "warehouse.duckdb", "artifacts/render/images",
                                   "artifacts/extract/crops", "anything"])
def test_a_symlink_in_the_home_that_leads_outside_is_refused(tmp_path: Path, entry: str) -> None:
    home, outside = tmp_path / "home", tmp_path / "outside"
    outside.mkdir()
    link = home / entry
    link.parent.mkdir(parents=True, exist_ok=True)
    # warehouse.duckdb dangling: DuckDB would create the file where it points.
    link.symlink_to(outside / "gone.duckdb" if entry == "warehouse.duckdb" else outside)
    with pytest.raises(HomeLinkError) as caught:
        check_home_links(home)
    message = str(caught.value)
    assert entry in message and str(outside) in message and "remove the link" in message


def test_links_that_stay_inside_the_home_and_plain_folders_are_fine(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "artifacts" / "render" / "images").mkdir(parents=True)
    (home / "old-reports").mkdir()
    (home / "reports").symlink_to(home / "old-reports")
    assert check_home_links(home) is None  # raises HomeLinkError on a link out of the home
    assert check_home_links(tmp_path / "missing") is None  # a home not made yet: nothing to check


def test_the_cli_refuses_a_home_with_a_planted_link_in_one_line(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli.app import main

    home = tmp_path / "home"
    home.mkdir()
    (home / "reports").symlink_to(tmp_path)
    assert main(["--home", str(home), "runs"]) != 0
    err = capsys.readouterr().err.strip()
    assert "reports is a symlink to" in err and len(err.splitlines()) == 1


def test_a_symlink_loop_in_the_pdfs_folder_is_one_skipped_row(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    make_pdf(folder / "good.pdf")
    (folder / "a.pdf").symlink_to(folder / "b.pdf")
    (folder / "b.pdf").symlink_to(folder / "a.pdf")
    rows = {row["files"][0]: row for row in load_pdf_folder(folder, "r", ["fonts_readability"])}
    assert rows["good.pdf"]["error"] is None
    for name in ("a.pdf", "b.pdf"):
        assert rows[name]["error_kind"] == "skipped" and "symlink loop" in rows[name]["error"]
    followed = {row["files"][0]: row for row in load_pdf_folder(folder, "r", ["fonts_readability"],
                                                                 follow_symlinks=True)}
    assert followed["a.pdf"]["error_kind"] == "skipped" and followed["good.pdf"]["error"] is None


def test_verify_files_names_a_changed_file_and_a_swapped_symlink(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    pdf = make_pdf(folder / "a.pdf")
    [row] = load_pdf_folder(folder, "r", ["fonts_readability"])
    assert verify_files([pdf], row["sha256"]) == [pdf]
    make_pdf(pdf, "Edited")
    with pytest.raises(InputChanged, match="a.pdf changed after the corpus stage"):
        verify_files([pdf], row["sha256"])
    pdf.unlink()
    pdf.symlink_to("/etc/passwd")
    with pytest.raises(InputChanged, match="now a symlink to /etc/passwd"):
        verify_files([pdf], row["sha256"])


def in_process(fn: Any, args: Sequence[Any], *, workers: int, timeout_s: float | None) -> Iterator[tuple[int, Any]]:
    for index, arg in enumerate(args):
        try:
            yield index, fn(arg)
        except Exception as exc:  # noqa: BLE001 - the fan-out contract: exceptions are values
            yield index, exc


def test_a_rerun_does_not_render_a_file_swapped_after_the_corpus_stage(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    make_pdf(folder / "kept.pdf")
    make_pdf(folder / "swapped.pdf")
    cfg = RunConfig(home=tmp_path / "home", run_id="r", source="pdfs", source_path=str(folder),
                    criteria=["fonts_readability"], progress=False)
    execute(cfg, STAGES["corpus"])
    (folder / "swapped.pdf").unlink()
    (folder / "swapped.pdf").symlink_to("/etc/passwd")
    assert execute(cfg, STAGES["render"], force=True, fanout=in_process).status == "completed"
    _, rows = catalog.query(cfg.home, ALL_TABLES, "select e.kind, e.message, d.files from errors e join documents d "
                                                  "using (run_id, doc_id) where e.stage = 'render'")
    assert [(kind, files) for kind, _, files in rows] == [("corpus", ["swapped.pdf"])]
    assert "changed after the corpus stage" in rows[0][1] and "/etc/passwd" in rows[0][1]
    _, pages = catalog.query(cfg.home, ALL_TABLES, "select doc_id from pages")
    assert len(pages) == 1  # only the unchanged file was rendered
