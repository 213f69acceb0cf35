"""Runs sharing one data home cannot change each other's results."""

from __future__ import annotations

import multiprocessing as mp
import os
import subprocess
import sys
import time
from pathlib import Path

import pymupdf
import pytest

from tasks.benchmark.registry import STAGE_LIST, STAGES
from tasks.engine.context import RunConfig
from tasks.engine.runner import StageFailed, execute
from tests.cli_process import run_cli
from tests.tasks.render_race import render_repeatedly
from warehouse import catalog
from warehouse.store import StageBusy, stage_lock
from warehouse.tables import ALL_TABLES


@pytest.mark.heavy
def test_two_processes_rendering_one_document_into_one_folder_never_collide(tmp_path: Path) -> None:
    # Page images are shared by content across runs. With one fixed temporary name per page
    # (page-0001.png.partial) this failed 15 times in 80 renders: one writer renamed the other's file.
    doc = pymupdf.open()
    for number in range(4):
        doc.new_page().insert_text((72, 72), f"page {number} " * 20)
    doc.save(tmp_path / "a.pdf")
    doc.close()
    job = (str(tmp_path / "a.pdf"), str(tmp_path / "out"), 40)
    with mp.get_context("spawn").Pool(2) as pool:
        assert pool.map(render_repeatedly, [job, job]) == [0, 0]
    assert sorted(p.name for p in (tmp_path / "out" / "d").iterdir()) == [f"page-000{n}.png" for n in range(1, 5)]


# Three criteria whose documents use every per-document stage (page images, figure and table crops, layout,
# contrast renders): 11 of the 25 documents, shared by every run of the test.
RUN = ("run", "--base-docs", "1", "--judge", "rules", "--criteria", "alt_text_quality", "table_structure",
       "color_contrast")


def _env(home: Path, own_prefect: bool = False) -> dict[str, str]:
    """A run on the session's Prefect server, or with `own_prefect` as a user's run: on the data home's
    own persistent server, started by whichever run comes first (two runs starting at once on a new
    home must start one server, and migrate its new database once)."""
    env = {**os.environ, "ACCESSBENCH_HOME": str(home)}
    if own_prefect:
        env.pop("PREFECT_API_URL", None)
        env.pop("ACCESSBENCH_PREFECT", None)
    env.pop("PREFECT_HOME", None)
    return env


def _start(home: Path, run_id: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "flows.cli.app", *RUN, "--run-id", run_id],
                            env=_env(home, own_prefect=True), text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _finish(proc: subprocess.Popen[str]) -> None:
    out, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err[-3000:]


def _labels(home: Path, run_id: str) -> set[tuple[object, ...]]:
    sql = f"select doc_id, criterion, label from doc_labels where run_id='{run_id}'"
    _, rows = catalog.query(home, ALL_TABLES, sql)
    return set(rows)


def _errors(home: Path, run_id: str) -> list[tuple[object, ...]]:
    return catalog.query(home, ALL_TABLES, f"select stage, doc_id, message from errors where run_id='{run_id}'")[1]


@pytest.mark.slow
def test_two_concurrent_runs_give_the_labels_of_two_lone_runs(tmp_path: Path) -> None:
    # The labels of a lone run, computed in this process: the same stages the CLI's flow runs (the process,
    # Prefect and a shared data home are what the concurrent runs below test).
    lone = tmp_path / "lone"
    cfg = RunConfig(home=lone, run_id="lone", base_docs=1, judges=["rules"], criteria=list(RUN[-3:]), progress=False)
    for stage in STAGE_LIST:
        execute(cfg, stage)
    expected = _labels(lone, "lone")
    assert len(expected) > 10 and not _errors(lone, "lone")

    shared = tmp_path / "shared"
    # Same documents, same page images, same time, and a new Prefect server and database for both runs.
    first, second = _start(shared, "a"), _start(shared, "b")
    try:
        _finish(first)
        _finish(second)
    finally:
        stop = run_cli(["server", "stop"], env={**os.environ, "ACCESSBENCH_HOME": str(shared)}, timeout=120)
    assert "stopped the local Prefect server" in stop.stdout + stop.stderr  # one server, started by a run
    for run_id in ("a", "b"):
        assert _labels(shared, run_id) == expected
        assert _errors(shared, run_id) == []
    leftovers = [p for p in shared.rglob("*") if p.name.endswith((".partial", ".tmp"))]
    assert leftovers == []


@pytest.mark.heavy
def test_a_second_writer_of_the_same_stage_and_run_is_refused(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from warehouse.store import stage_lock\n"
         "with stage_lock(Path(sys.argv[1]), 'corpus', 'r1'):\n    print('held', flush=True); time.sleep(60)",
         str(tmp_path)], stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        cfg = RunConfig(home=tmp_path, run_id="r1", base_docs=1, progress=False)
        started = time.monotonic()
        with pytest.raises(StageFailed, match=f"being written by process {holder.pid}"):
            execute(cfg, STAGES["corpus"])
        assert time.monotonic() - started < 30  # refused at once, not after waiting for the 60 s holder
        with stage_lock(tmp_path, "corpus", "r2"):  # another run's stage is free
            pass
    finally:
        holder.kill()
        holder.wait()
    # The kernel dropped the killed holder's lock; a second holder in this process is refused too.
    with stage_lock(tmp_path, "corpus", "r1"), pytest.raises(StageBusy), stage_lock(tmp_path, "corpus", "r1"):
        pass
