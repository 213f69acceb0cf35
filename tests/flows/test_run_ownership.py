"""A process refused because another one is running the same run leaves that run alone (issue 31, point 2).

The first process is stood in for by a helper process that records run `big1` as running (as `run` does
when it starts) and holds what a running `run` holds: the run's lock and the lock of the stage it is in.
No timing is involved: the helper holds its locks until the test ends it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_process import run_cli
from warehouse.store import ArtifactStore

REPO = Path(__file__).resolve().parents[2]

HOLDER = """
import sys
from pathlib import Path

from tasks.engine.context import RunConfig
from tasks.engine.pipeline import record_run
from warehouse.store import StageStatus, run_lock, stage_lock

home = Path(sys.argv[1])
cfg = RunConfig(home=home, run_id="big1", base_docs=1, criteria=["alt_text_quality"], progress=False)
with run_lock(home, "big1"), stage_lock(home, "corpus", "big1"):
    record_run(cfg, StageStatus.RUNNING)
    print("held", flush=True)
    sys.stdin.read()  # until the test closes it
"""


@pytest.fixture
def first_process(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        holder.kill()
        holder.wait(timeout=60)


@pytest.mark.slow  # it starts flows: on the session's Prefect server
@pytest.mark.parametrize("command", [
    ["run", "--run-id", "big1", "--base-docs", "1", "--criteria", "alt_text_quality"],
    ["rerun", "--run", "big1", "--stage", "corpus"],
], ids=["run", "rerun"])
def test_a_refused_second_process_leaves_the_live_run_alone(
        command: list[str], first_process: subprocess.Popen[str], tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    before = store.get_run("big1")
    assert before is not None and before["status"] == "running"

    second = run_cli(command, env={**os.environ, "ACCESSBENCH_HOME": str(tmp_path)}, timeout=300)

    assert second.returncode == 1, second.stderr[-3000:]
    assert f"run big1 is being written by process {first_process.pid}" in second.stderr
    assert "Traceback" not in second.stderr
    assert store.get_run("big1") == before  # status, owner, finished: all the first process's
    assert store.stage_runs("big1") == []  # and no stage of it recorded by the refused one
    assert [r["status"] for r in store.runs() if r["run_id"] == "big1"] == ["running"]


def test_the_flow_itself_refuses_a_run_held_by_another_process(tmp_path: Path) -> None:
    """The guard where the status is written, for a second process that got past the command's own check."""
    from flows.benchmark import _run_stages
    from tasks.engine.context import RunConfig
    from tasks.engine.pipeline import record_run
    from warehouse.store import RunBusy, StageStatus, run_lock

    cfg = RunConfig(home=tmp_path, run_id="big1", base_docs=1, criteria=["alt_text_quality"], progress=False)
    store = ArtifactStore(tmp_path)
    with run_lock(tmp_path, "big1"):  # a lock is per open file: this process's own second open is refused too
        record_run(cfg, StageStatus.RUNNING)
        before = store.get_run("big1")
        with pytest.raises(RunBusy, match=f"run big1 is being written by process {os.getpid()}"):
            _run_stages(cfg, ["corpus"], force=False)
    assert store.get_run("big1") == before
    assert store.stage_runs("big1") == []
