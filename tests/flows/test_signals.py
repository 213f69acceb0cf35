"""SIGTERM stops a run within seconds, leaves no worker behind, and the same run id resumes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli_process import run_cli
from tests.load import allowance

pytestmark = pytest.mark.slow


def _env(home: Path, own_prefect: bool = False) -> dict[str, str]:
    """With `own_prefect` the run starts its own Prefect server, which the signal must stop too."""
    env = {**os.environ, "ACCESSBENCH_HOME": str(home)}
    if own_prefect:
        env.pop("PREFECT_API_URL", None)
    env.pop("PREFECT_HOME", None)
    return env


def test_sigterm_stops_the_run_quickly_and_it_resumes(tmp_path: Path, synthetic_dataset: Path) -> None:
    home = tmp_path / "home"
    args = [sys.executable, "-m", "flows.cli.app", "run", "--dataset", str(synthetic_dataset), "--run-id", "t",
            "--criteria", "color_contrast", "fonts_readability"]
    # A high DPI keeps the render stage busy long enough to stop it in the middle.
    proc = subprocess.Popen([*args, "--dpi", "200"], env=_env(home, own_prefect=True), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    done = home / "artifacts/render/_staging/run=t/_done"
    try:
        deadline = time.monotonic() + 300
        while not (done.exists() and any(done.iterdir())):
            assert proc.poll() is None, "the run finished before it could be stopped"
            assert time.monotonic() < deadline, "the render stage never started"
            time.sleep(0.05)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=allowance(60))
        stopped_s = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    print(f"SIGTERM to exit: {stopped_s:.1f} s")
    assert proc.returncode == 130 and "resume with the same --run-id" in err
    assert stopped_s < allowance(30)  # issue 12 measured ~400 s before SIGTERM was honoured (tests/load.py)
    # No process of the run is left (workers, the Prefect server); multiprocessing's resource
    # tracker exits once it sees its parent gone and is reaped by init a moment later.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        pytest.fail("processes of the stopped run are still alive")
    assert not (home / "artifacts/render/run=t/pages.parquet").exists()  # nothing half-published
    # The run's own (throwaway) Prefect server kept its database in the data home.
    assert (home / "prefect" / "prefect.db").is_file()

    resumed = run_cli([*args[3:], "--dpi", "200"], env=_env(home), timeout=900)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "resuming run t" in resumed.stderr
    out = run_cli(["sql", "--format", "json",
                   "select count(*) as n, count(distinct (doc_id, page)) as u from pages where run_id='t'"],
                  env=_env(home))
    assert out.returncode == 0, out.stderr
    [row] = json.loads(out.stdout)
    assert row["n"] == row["u"] > 0  # every page once
