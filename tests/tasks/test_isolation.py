"""Per-document time limits: a hanging document becomes a timeout error; the others complete."""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from pathlib import Path

import pytest

from tasks.engine.isolation import DocumentTimeout, in_a_worker, run_isolated, shared_workers

pytestmark = pytest.mark.heavy  # worker pools and their time limits (not in make test-fast)


def slow_or_fast(arg: int) -> int:
    if arg == 2:
        time.sleep(600)  # stands for a parser stuck in C code (ended by its time limit or its pool's end)
    if arg == 3:
        raise ValueError("broken document")
    return arg * 10


def test_overdue_document_times_out_and_the_rest_finish() -> None:
    started = time.monotonic()
    results = dict(run_isolated(slow_or_fast, [0, 1, 2, 3, 4, 5], workers=2, timeout_s=3))
    assert time.monotonic() - started < 120  # generous for a loaded machine; the stuck document takes 600 s
    assert isinstance(results[2], DocumentTimeout)
    assert isinstance(results[3], ValueError)
    assert {i: results[i] for i in (0, 1, 4, 5)} == {0: 0, 1: 10, 4: 40, 5: 50}


def test_in_process_when_single_worker_and_no_limit() -> None:
    assert dict(run_isolated(slow_or_fast, [1, 4], workers=1, timeout_s=None)) == {0: 10, 1: 40}


def worker_pid(arg: int) -> int:
    import os

    return os.getpid()


def worker_has_imported(name: str) -> bool:
    import sys

    return name in sys.modules


def test_one_pool_serves_every_stage_of_a_run_and_is_gone_after_it() -> None:
    with shared_workers(2, preload=["tasks.benchmark.render"]) as pool:
        first = set(dict(run_isolated(worker_pid, [0, 1, 2, 3], workers=2, timeout_s=60)).values())
        second = set(dict(run_isolated(worker_pid, [0, 1, 2, 3], workers=2, timeout_s=60)).values())
        processes = list(pool.get()._pool)  # type: ignore[attr-defined]
        pids = {process.pid for process in processes}
        assert first | second <= pids and os.getpid() not in pids  # the same worker processes, not this one
        assert in_a_worker(worker_has_imported, "tasks.benchmark.render")  # preloaded by every worker
        assert in_a_worker(worker_pid, 0) in pids
    for process in processes:
        process.join(timeout=10)
        assert not process.is_alive()


def test_a_run_with_nothing_to_process_starts_no_worker() -> None:
    """A rerun whose per-document stages are all reused pays for no fork server and no worker."""
    before = set(mp.active_children())
    with shared_workers(2, preload=["tasks.benchmark.render"]) as pool:
        deadline = time.monotonic() + 3  # a pool started in the background would have workers by then
        while time.monotonic() < deadline:
            assert not pool.started and set(mp.active_children()) == before
            time.sleep(0.1)
        assert list(run_isolated(worker_pid, [], workers=2, timeout_s=60)) == []  # every document reused
        assert not pool.started and set(mp.active_children()) == before
        assert dict(run_isolated(worker_pid, [0], workers=2, timeout_s=60))[0] != os.getpid()
        assert pool.started  # the first work started it
    assert not pool.started


def test_a_time_limit_replaces_the_shared_pool_and_the_run_goes_on() -> None:
    with shared_workers(2, preload=[]):
        before = set(dict(run_isolated(worker_pid, [0, 1], workers=2, timeout_s=60)).values())
        results = dict(run_isolated(slow_or_fast, [0, 2, 4], workers=2, timeout_s=3))
        assert isinstance(results[1], DocumentTimeout) and results[0] == 0 and results[2] == 40
        after = set(dict(run_isolated(worker_pid, [0, 1], workers=2, timeout_s=60)).values())
        assert not before & after  # the stuck worker went with its pool


def test_work_the_caller_abandons_does_not_block_the_shared_pool() -> None:
    with shared_workers(2, preload=[]):
        results = run_isolated(slow_or_fast, [0, 2, 2], workers=2, timeout_s=None)
        assert next(results) == (0, 0)
        results.close()  # the caller stops reading (an interrupt) while a document still runs
        started = time.monotonic()
        assert dict(run_isolated(slow_or_fast, [1, 4], workers=2, timeout_s=None)) == {0: 10, 1: 40}
        assert time.monotonic() - started < 120  # not behind the stuck document's 600 s


HEAVY = ("duckdb", "pyarrow.dataset", "pyarrow.compute", "prefect")  # the command's, never a worker's


def render_then_loaded(folder: str) -> list[str]:
    """Render a one-page PDF as the render stage does; the HEAVY modules this worker then holds."""
    import sys
    from pathlib import Path

    import pymupdf

    from extractors.pages import render_pages

    pdf = Path(folder) / "one.pdf"
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 72), "Hello")
        doc.save(pdf)
    assert render_pages(pdf, doc_id="d1", out_dir=Path(folder) / "pages")
    return [name for name in HEAVY if name in sys.modules]


def test_workers_and_their_fork_server_hold_no_database_no_arrow_datasets_and_no_prefect(tmp_path: Path) -> None:
    """Whatever the fork server imports, every worker holds, and the run's process tree counts it once per
    process: the per-document stages need PyMuPDF, pikepdf and Arrow's tables, not DuckDB (the command's
    warehouse queries), Arrow's datasets and compute kernels, or Prefect."""
    from tasks.benchmark.registry import STAGE_LIST

    with shared_workers(2, preload=[stage.body.__module__ for stage in STAGE_LIST if stage.per_document]):
        assert in_a_worker(render_then_loaded, str(tmp_path)) == []


def inside_exclusive(arg: int) -> tuple[float, float]:
    from common.exclusive import exclusive

    time.sleep(0.3)  # both workers reach the block together
    with exclusive():
        started = time.monotonic()
        time.sleep(0.3)
        return started, time.monotonic()


def test_the_workers_of_a_pool_enter_exclusive_blocks_one_at_a_time() -> None:
    with shared_workers(2):
        spans = sorted(dict(run_isolated(inside_exclusive, [0, 1, 2, 3], workers=2, timeout_s=120)).values())
    assert all(earlier[1] <= later[0] for earlier, later in zip(spans, spans[1:], strict=False)), spans
    assert inside_exclusive(0)  # no pool's lock in this process: the block just runs


def test_a_worker_hands_its_free_heap_back_after_each_document(monkeypatch: pytest.MonkeyPatch) -> None:
    """glibc keeps what MuPDF frees; each document's work is followed by a trim, even when it raises."""
    import tasks.engine.isolation as isolation

    trims: list[str] = []
    monkeypatch.setattr(isolation, "release_heap", lambda: trims.append("trim"))
    assert isolation.within_ceiling(lambda x: x + 1, 1) == 2
    with pytest.raises(ValueError):
        isolation.within_ceiling(int, "not a number")
    assert trims == ["trim", "trim"]
    monkeypatch.undo()
    isolation.release_heap()  # the real one runs here (glibc's malloc_trim, or nothing)


def test_the_heap_release_drops_what_the_table_search_kept_from_its_last_page() -> None:
    """PyMuPDF's find_tables leaves its last page's characters in module state; after a document they go, and the
    next search finds the same tables."""
    import pymupdf
    import pymupdf.table

    import tasks.engine.isolation as isolation
    from extractors.tables import _LINE_BASED  # as the extractors search (no layout model, loaded or not)

    with pymupdf.open() as doc:
        page = doc.new_page()
        for y in (100, 130, 160):
            page.draw_line((72, y), (300, y))
        for x in (72, 186, 300):
            page.draw_line((x, 100), (x, 160))
        page.insert_text((80, 120), "Site")
        page.insert_text((190, 120), "Mean")
        first = [t.extract() for t in page.find_tables(**_LINE_BASED).tables]
        assert first and pymupdf.table._CHARS_VAR.get()  # the characters of the page, still referenced
        isolation.release_heap()
        assert pymupdf.table._CHARS_VAR.get() is None and pymupdf.table._EDGES_VAR.get() is None
        assert [t.extract() for t in page.find_tables(**_LINE_BASED).tables] == first


def modules_loaded(names: list[str]) -> list[str]:
    import sys

    return [name for name in names if name in sys.modules]


PAGE_STAGES = ["tasks.benchmark.render", "tasks.benchmark.extract", "tasks.benchmark.transcript"]


def test_workers_import_the_stages_of_their_pool_and_the_fork_server_nothing() -> None:
    """Whatever the fork server imports is resident in it and again in every worker it forks (issue 56): it
    imports nothing, and a pool's workers import the modules of the stages it is started for, no others."""
    with shared_workers(2, preload=()) as pool:
        assert in_a_worker(modules_loaded, ["pymupdf", "pikepdf", "pyarrow", *PAGE_STAGES]) == []
        pool.reset()
        pool.preload = ("tasks.benchmark.judge",)  # a later stage's pool: the judge's modules only
        loaded = in_a_worker(modules_loaded, ["tasks.benchmark.judge", *PAGE_STAGES])
        assert loaded == ["tasks.benchmark.judge"]
        pool.reset()
        pool.preload = tuple(PAGE_STAGES)
        assert in_a_worker(modules_loaded, PAGE_STAGES) == PAGE_STAGES
