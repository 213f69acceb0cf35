"""The progress bar counts pages as a document's work does them, not only when the document is done.

Page counts are checked without timing: the recorder standing in for the bar notes, at each step, how
many page images exist, so a step taken inside the page loop is told from one taken at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from common.progress import PageTally, counting, in_shares, page_done
from extractors import pages as pages_module  # the render stage's work imports render_pages from it when it runs
from extractors.layout import layout_file
from extractors.pages import render_pages
from extractors.transcript.emulated import transcribe
from tasks.benchmark.registry import STAGES
from tasks.benchmark.work.extract import extract_file
from tasks.engine import runner
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute


def make_pdf(path: Path, pages: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = pymupdf.open()
    for number in range(pages):
        doc.new_page().insert_text((72, 72), f"Page {number + 1} of {path.stem}, with a sentence to read aloud.")
    doc.save(path)
    doc.close()
    return path


def counted_steps(work: Callable[[], Any], weight: int) -> list[int]:
    """The bar's steps while `work` runs as one counted unit of `weight` pages, in this process."""
    steps: list[int] = []
    with PageTally({"d": weight}, steps.append) as tally, counting(tally.token, "d"):
        work()
    return steps


# -- counting in the page loops ---------------------------------------------------------------------

def test_render_counts_each_page_of_a_document_once_as_it_goes(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "three.pdf", 3)
    seen: list[int] = []
    out = tmp_path / "images"

    def step(n: int) -> None:  # the images written when the bar moved
        seen.append(len(list(out.rglob("*.png"))))

    with PageTally({"d": 3}, step) as tally, counting(tally.token, "d") as unit:
        rows = render_pages(pdf, doc_id="d", out_dir=out)
    assert len(rows) == 3 and seen == [1, 2, 3]  # one step a page, each right after its image
    assert unit.reported and tally.counted == {"d": 3}
    assert counted_steps(lambda: render_pages(pdf, doc_id="d", out_dir=out), 3) == [1, 1, 1]  # again: 3 again


def test_layout_extract_and_transcript_count_a_page_once_per_stage(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "three.pdf", 3)
    # Text-only pages need no model: decided at once; with every page run, one step a page.
    assert sum(counted_steps(lambda: layout_file(pdf, doc_id="d"), 3)) == 3
    assert counted_steps(lambda: layout_file(pdf, doc_id="d", all_pages=True), 3) == [1, 1, 1]
    # Extraction is ten passes over the file: the pages are counted in shares of them, once in all.
    extracted = counted_steps(lambda: extract_file(pdf, "d", 0, 0, tmp_path / "crops", 50, []), 3)
    assert extracted == [1, 1, 1]
    assert counted_steps(lambda: transcribe(pdf, doc_id="d"), 3) == [1, 1, 1]  # untagged: page by page


def test_a_tally_never_goes_back_and_ends_at_each_units_weight() -> None:
    steps: list[int] = []
    with PageTally({"a": 3, "b": 2}, steps.append) as tally:
        tally.count("a", 2, False)
        tally.count("a", 5, False)  # more pages than the corpus counted: held at the weight
        tally.finish("a", 3, reported=False)
        tally.count("a", 1, False)  # a late count of a finished unit changes nothing
        tally.count("b", 1, False)
        tally.finish("b", 4, reported=False)  # b's result also stands for an identical document
    assert steps == [2, 1, 1, 3] and sum(steps) == 7


def test_nothing_counts_outside_a_counted_unit(tmp_path: Path) -> None:
    steps: list[int] = []
    with PageTally({"d": 3}, steps.append) as tally:
        page_done()  # no unit in progress
        with counting(None, "d"):  # a runner that cannot count pages
            page_done(2)
        with counting(tally.token, "d"):
            in_shares(3, 2)(None)  # 1 of 3 pages after the first of two passes
    assert steps == [1]


# -- the stage's bar ---------------------------------------------------------------------------------

class Bar:
    """Stands in for the runner's progress bar: its total, where it started, and the cumulative values
    with the number of page images on disk at each step."""

    bars: list[Bar] = []
    images: Path

    def __init__(self, enabled: bool, description: str, total: int, completed: int, unit: str = "documents") -> None:
        self.description, self.total, self.completed, self.unit = description, total, completed, unit
        self.steps: list[int] = []
        self.pngs: list[int] = []
        Bar.bars.append(self)

    def __enter__(self) -> Callable[[int], None]:
        def advance(n: int) -> None:
            self.steps.append(n)
            self.pngs.append(len(list(Bar.images.rglob("*.png"))))

        return advance

    def __exit__(self, *exc: object) -> None:
        pass

    @property
    def values(self) -> list[int]:
        return [self.completed + value for value in accumulate(self.steps)]


@pytest.fixture
def bars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Bar]]:
    monkeypatch.setattr(runner, "_progress", Bar)
    Bar.bars = []
    Bar.images = tmp_path / "home" / "artifacts" / "render" / "images"
    yield Bar.bars


def pdfs_config(tmp_path: Path, folder: Path, workers: int) -> RunConfig:
    return RunConfig(home=tmp_path / "home", run_id="r", source="pdfs", source_path=str(folder),
                     criteria=["semantic_tagging"], progress=True, workers=workers)


def render_bar(bars: Sequence[Bar]) -> Bar:
    (bar,) = [bar for bar in bars if bar.description == "render"]
    return bar


@pytest.mark.parametrize("workers", [1, 2])
def test_one_large_file_moves_the_bar_page_by_page_in_worker_processes(
        tmp_path: Path, bars: list[Bar], workers: int) -> None:
    # The stage runs its documents in worker processes (its time limit needs them): the counts cross
    # from the worker to this process, each before the document's result is counted.
    make_pdf(tmp_path / "pdfs" / "book.pdf", 3)
    cfg = pdfs_config(tmp_path, tmp_path / "pdfs", workers)
    execute(cfg, STAGES["corpus"])
    assert execute(cfg, STAGES["render"]).status == "completed"
    bar = render_bar(bars)
    assert (bar.unit, bar.total, bar.completed) == ("pages", 3, 0)
    assert bar.values == [1, 2, 3]  # moved inside the one file, and ended at its total
    assert all(images >= value for images, value in zip(bar.pngs, bar.values, strict=True))


def test_documents_done_before_a_resume_count_once_and_the_bar_ends_at_the_total(
        tmp_path: Path, bars: list[Bar], monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "pdfs" / "done.pdf", 2)
    make_pdf(tmp_path / "pdfs" / "flaky.pdf", 3)
    make_pdf(tmp_path / "pdfs" / "small.pdf", 1)
    cfg = pdfs_config(tmp_path, tmp_path / "pdfs", workers=2)
    execute(cfg, STAGES["corpus"])
    real = pages_module.render_pages

    def render_pages(path: Path, **kw: Any) -> list[dict[str, Any]]:
        if path.stem == "flaky":
            raise TimeoutError("the renderer timed out")  # transient: the resume retries it
        return real(path, **kw)

    monkeypatch.setattr(pages_module, "render_pages", render_pages)
    execute(cfg, STAGES["render"], fanout=in_process)  # a fan-out that cannot count pages: per document
    first = render_bar(bars)
    assert first.total == 6 and sorted(first.steps) == [1, 2, 3]
    monkeypatch.setattr(pages_module, "render_pages", real)
    bars.clear()
    execute(cfg, STAGES["render"])  # the resume renders flaky alone, in worker processes
    bar = render_bar(bars)
    assert (bar.total, bar.completed) == (6, 3)  # done and small were done: counted once, from the start
    assert bar.values == [4, 5, 6]


def in_process(fn: Callable[[Any], Any], args: Sequence[Any], *, workers: int, timeout_s: float | None
               ) -> Iterator[tuple[int, Any]]:
    """A fan-out of the runner's contract, in this process (so the monkeypatched renderer applies)."""
    for index, arg in enumerate(args):
        yield index, fn(arg)
