"""A full disk: one clear line naming the home and what is free, exit code non-zero, no process left behind."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq  # warehouse.paths imports it where it writes: patched here, seen there
import pytest

from warehouse.paths import DiskFull, atomic_write_parquet

pytestmark = pytest.mark.heavy  # whole runs on a full disk (not in make test-fast)

REPO = Path(__file__).resolve().parents[2]


def _full(*_: object, **__: object) -> None:
    raise OSError("[Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on device")


def test_a_full_disk_while_writing_a_table_is_disk_full_with_the_free_space(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pq, "write_table", _full)
    target = tmp_path / "home" / "artifacts" / "t.parquet"
    with pytest.raises(DiskFull) as caught:
        atomic_write_parquet(pa.table({"a": [1]}), target)
    assert caught.value.free is not None and str(target) in str(caught.value) and "free" in str(caught.value)
    assert list(target.parent.iterdir()) == []  # no temporary file left


def test_other_os_errors_stay_what_they_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(*_: object, **__: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(pq, "write_table", denied)
    with pytest.raises(PermissionError):
        atomic_write_parquet(pa.table({"a": [1]}), tmp_path / "t.parquet")


def test_the_cli_says_one_line_and_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    import flows.cli.app as cli
    from tasks.engine.runner import StageFailed

    def command(home: Path, args: object) -> int:
        try:
            raise DiskFull(home / "artifacts" / "x.parquet", 500)
        except DiskFull as exc:
            raise StageFailed("stage 'render' failed: no space") from exc

    monkeypatch.setattr(cli, "cmd_runs", command)
    home = tmp_path / "home"
    home.mkdir()
    assert cli.main(["--home", str(home), "runs"]) == cli.EXIT_FAILED
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(home) in err and "500 bytes free" in err and "resume" in err


def test_no_worker_or_fork_server_outlives_a_disk_full_exit(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import multiprocessing.forkserver as fs, os, sys
        from pathlib import Path
        from tasks.engine.isolation import run_isolated, shared_workers
        from tests.security.workload import vm_data_mib
        from warehouse.paths import DiskFull
        with shared_workers(2, preload=[]) as pool:
            list(run_isolated(vm_data_mib, [0, 1], workers=2, timeout_s=60))
            pids = [p.pid for p in pool.get()._pool] + [fs._forkserver._forkserver_pid]
            print(" ".join(map(str, pids)), flush=True)
            raise DiskFull(Path(sys.argv[1]), 0)
    """)
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and "DiskFull" in done.stderr
    pids = [int(pid) for pid in done.stdout.split()]
    assert len(pids) == 3
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.1)
    assert not [pid for pid in pids if _alive(pid)]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z" and os.path.exists(f"/proc/{pid}")


def test_a_run_that_fills_the_disk_is_marked_failed_and_resumes(synthetic_dataset: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk fills while the extract stage writes its tables: the run is recorded failed (the small
    status write still fits), and once space is back the same run id resumes from the stages it finished."""
    import flows.benchmark
    from tasks.engine.context import RunConfig
    from tasks.prefect_tasks import run_stage

    monkeypatch.setattr(flows.benchmark, "run_stage", run_stage.fn)  # the stage bodies without a Prefect server
    monkeypatch.setattr(flows.benchmark, "publish_summary", lambda cfg: None)
    cfg = RunConfig(home=tmp_path / "home", run_id="full", source="dataset", source_path=str(synthetic_dataset),
                    criteria=["fonts_readability"], progress=False)
    real = pq.write_table

    def filling(table: pa.Table, where: object, **options: object) -> None:
        if "extract" in str(where):
            _full()
        real(table, where, **options)

    monkeypatch.setattr(pq, "write_table", filling)
    with pytest.raises(BaseException) as raised:  # noqa: PT011 - StageFailed, caused by DiskFull
        flows.benchmark.benchmark_flow.fn(**flows.benchmark.flow_parameters(cfg))
    chain: list[BaseException] = []
    seen: BaseException | None = raised.value
    while seen is not None:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    assert any(isinstance(e, DiskFull) for e in chain)
    run = cfg.store.get_run("full")
    assert run is not None and run["status"] == "failed"
    render = cfg.store.get_stage_run("full", "render")
    assert render is not None and render.status == "completed"

    monkeypatch.setattr(pq, "write_table", real)  # space again
    results = flows.benchmark.benchmark_flow.fn(**flows.benchmark.flow_parameters(cfg))
    status = {r["stage"]: r["status"] for r in results}
    assert status["render"] == "skipped" and status["extract"] == "completed" and status["metrics"] == "completed"
    assert (cfg.store.get_run("full") or {}).get("status") == "completed"
