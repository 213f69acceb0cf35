"""The persistent local Prefect server of a data home, as a user drives it from the CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from common.processes import group_members
from flows import server
from tests import prefect_env
from tests.flows.prefect_server import alive, api, cli, descendants, processes_of, server_env

pytestmark = pytest.mark.slow

# Generous deadlines for a loaded machine (make test at load 10): each wait ends as soon as its event happens.
START_TIMEOUT = "600"  # s: ACCESSBENCH_SERVER_START_TIMEOUT for the starts here
DEADLINE_S = 300.0


def _wait_for(what: str, done: Callable[[], bool], seconds: float = DEADLINE_S) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"{what}: not within {seconds:.0f} s"
        time.sleep(0.1)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """A data home whose server (if a test starts one) is stopped at the end, leaving no process behind."""
    root = tmp_path / "home"
    yield root
    cli(root, "server", "stop", check=False)
    # `server stop` returns once the server's process group is gone; a command of the test's that was
    # still exiting (none should be) gets the deadline.
    _wait_for("every process of the data home gone", lambda: processes_of(root) == [])


def _state(home: Path) -> dict[str, int]:
    data = json.loads((home / "prefect/server.json").read_text())
    return {"pid": data["pid"], "port": data["port"]}


def test_server_is_started_once_reused_named_runs_and_stopped(home: Path, tmp_path: Path) -> None:
    status = cli(home, "server", "status", check=False)
    assert status.returncode == 3 and "not running" in status.stdout

    had_template = (server.template_dir() / server.DATABASE).is_file()  # the session's first server made it
    started = cli(home, "server", "start", ACCESSBENCH_SERVER_START_TIMEOUT=START_TIMEOUT)
    state = _state(home)
    assert f"http://127.0.0.1:{state['port']}" in started.stdout
    # A new home's database is a copy of the cached migrated one, or (the first time) becomes that copy.
    assert ("copied from the migrated one" in (home / "prefect/server.log").read_text()) == had_template
    assert (server.template_dir() / server.DATABASE).is_file()
    status = cli(home, "server", "status")
    assert f"dashboard http://127.0.0.1:{state['port']}" in status.stdout
    assert "already running" in cli(home, "server", "start", ACCESSBENCH_SERVER_START_TIMEOUT=START_TIMEOUT).stdout

    run = cli(home, "run", "--run-id", "named", "--base-docs", "1", "--criteria", "semantic_tagging",
              ACCESSBENCH_SERVER_START_TIMEOUT=START_TIMEOUT)
    assert "started the local Prefect server" not in run.stderr  # reused, not started again
    assert _state(home) == state and alive(state["pid"])
    url = f"http://127.0.0.1:{state['port']}/api"
    runs = api(url, "/flow_runs/filter", {}, home=home)
    assert [(r["name"], r["state_type"]) for r in runs] == [("named", "COMPLETED")]
    assert runs[0]["parameters"]["options"]["criteria"] == ["semantic_tagging"]  # typed options, as the UI shows them
    # Prefect's database is in the data home; nothing in the working directory.
    assert (home / "prefect/prefect.db").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]

    # PREFECT_API_URL is honoured: another data home's run goes to this server, and no server starts for it.
    other = tmp_path / "other"
    cli(other, "run", "--run-id", "elsewhere", "--base-docs", "1", "--criteria", "semantic_tagging",
        PREFECT_API_URL=url, PREFECT_API_AUTH_STRING=server.auth_string(home) or "")
    assert not (other / "prefect/server.json").exists()
    assert {r["name"] for r in api(url, "/flow_runs/filter", {}, home=home)} == {"named", "elsewhere"}

    stopped = cli(home, "server", "stop")
    # Said only once it is so: no waiting here (issue 31: it said "stopped" while the server still ran).
    assert f"pid {state['pid']}" in stopped.stdout and not alive(state["pid"])
    assert group_members(state["pid"]) == []  # and every process of its group
    assert cli(home, "server", "status", check=False).returncode == 3
    assert "no local Prefect server" in cli(home, "server", "stop").stdout


def test_first_run_starts_the_server_and_a_slow_start_says_what_to_do(home: Path) -> None:
    failed = cli(home, "server", "start", check=False, ACCESSBENCH_SERVER_START_TIMEOUT="0.5")
    assert failed.returncode == 1
    assert "did not answer within 0 s" in failed.stderr or "did not answer within 1 s" in failed.stderr
    assert "ACCESSBENCH_SERVER_START_TIMEOUT=600" in failed.stderr and "Traceback" not in failed.stderr
    assert processes_of(home) == [] and not (home / "prefect/server.json").exists()

    run = cli(home, "run", "--run-id", "first", "--base-docs", "1", "--criteria", "semantic_tagging",
              ACCESSBENCH_SERVER_START_TIMEOUT=START_TIMEOUT)
    assert "started the local Prefect server" in run.stderr
    assert cli(home, "server", "status").returncode == 0


def _running_server(home: Path) -> tuple[int, dict[str, str]]:
    """A persistent server the run did not start: the session's (tests/prefect_env.py), or one started
    here for `home`; its pid and the environment of a run that uses it."""
    session_home, url = os.environ.get(prefect_env.OWNER_VAR), os.environ.get("PREFECT_API_URL")
    if session_home and url:
        prefect_env.wait()
        return _state(Path(session_home))["pid"], server_env(home, PREFECT_API_URL=url)
    cli(home, "server", "start", ACCESSBENCH_SERVER_START_TIMEOUT=START_TIMEOUT)
    return _state(home)["pid"], server_env(home)


def test_sigterm_of_a_run_leaves_no_process_it_started(home: Path, synthetic_dataset: Path) -> None:
    server_pid, env = _running_server(home)
    # A high DPI keeps the render stage busy long enough to stop the run in the middle of it.
    proc = subprocess.Popen([sys.executable, "-m", "flows.cli.app", "run", "--dataset", str(synthetic_dataset),
                             "--run-id", "t", "--dpi", "400"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    done = home / "artifacts/render/_staging/run=t/_done"
    deadline = time.monotonic() + 300
    while not (done.exists() and any(done.iterdir())):
        assert proc.poll() is None, "the run finished before it could be stopped"
        assert time.monotonic() < deadline, "render stage never started"
        time.sleep(0.05)
    started = descendants(proc.pid)
    assert started  # the per-document worker processes
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode in (130, 143) and "Traceback" not in stderr
    _wait_for("the run's worker processes gone", lambda: not [pid for pid in started if alive(pid)])
    assert alive(server_pid)  # the shared server is not the run's: it stays for the next command
