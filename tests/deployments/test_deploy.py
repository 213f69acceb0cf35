"""`accessbench deploy` against a real local Prefect server, a process worker, and a run that completes."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from flows import server
from tests.flows.prefect_server import api, cli, processes_of, server_env

pytestmark = pytest.mark.slow


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "home"
    yield root
    cli(root, "server", "stop", check=False)
    assert processes_of(root) == []


def test_scheduled_nightly_run_fires_and_completes_on_a_process_worker(home: Path, tmp_path: Path) -> None:
    def call(*args: Any, **kwargs: Any) -> Any:
        return api(*args, home=home, **kwargs)  # with the home's auth string

    deployed = cli(home, "deploy")
    url = deployed.stdout.split("registered every deployment in prefect.yaml with ")[1].split(".\n")[0]
    deployments = {d["name"]: d for d in call(url, "/deployments/filter", {})}
    assert set(deployments) == {"weekly-benchmark", "nightly-synthetic", "audit"}
    # The worker resolves the dataset path.
    assert deployments["weekly-benchmark"]["parameters"] == {"options": {"dataset": "$ACCESSBENCH_DATASET"}}
    assert str(tmp_path) not in str(deployments)  # no path of the deploying host
    # The persistent server schedules: the nightly deployment has runs waiting for their time.
    deadline = time.monotonic() + 120
    while not (scheduled := call(url, "/flow_runs/filter", {"flow_runs": {"deployment_id": {
            "any_": [deployments["nightly-synthetic"]["id"]]}, "state": {"type": {"any_": ["SCHEDULED"]}}},
            "sort": "EXPECTED_START_TIME_ASC"})):
        assert time.monotonic() < deadline, "the scheduler never created the nightly runs"
        time.sleep(1)
    # The next nightly run is due now (a smaller corpus than the nightly's, to keep the test short).
    run = scheduled[0]
    assert run["auto_scheduled"] and run["parameters"] == {"options": {"base_docs": 3}}
    call(url, f"/flow_runs/{run['id']}",
         {"parameters": {"options": {"base_docs": 1, "criteria": ["semantic_tagging"]}}}, method="PATCH")
    due = datetime.now(UTC).isoformat()
    call(url, f"/flow_runs/{run['id']}/set_state", {"state": {"type": "SCHEDULED", "name": "Scheduled",
                                                             "state_details": {"scheduled_time": due}},
                                                   "force": True})

    worker_home = tmp_path / "worker-data"  # the worker's own data home, from its environment
    worker = subprocess.Popen([sys.executable, "-m", "prefect", "worker", "start", "--pool", "accessbench"],
                              env=server_env(worker_home, PREFECT_API_URL=url, PREFECT_HOME=str(home / "prefect"),
                                             PREFECT_WORKER_QUERY_SECONDS="1",  # it polls every 10 s by default
                                             PREFECT_API_AUTH_STRING=server.auth_string(home) or ""),
                              cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 480
        while (state := call(url, f"/flow_runs/{run['id']}"))["state_type"] not in {"COMPLETED", "FAILED", "CRASHED"}:
            assert time.monotonic() < deadline, f"the run is still {state['state_type']}"
            time.sleep(2)
    finally:
        _stop(worker)
    assert state["state_type"] == "COMPLETED"
    run_id = state["name"]  # named by its AccessBench run id once the flow chose one
    labels = cli(worker_home, "sql", f"select count(*) as n from doc_labels where run_id='{run_id}'",
                 "--format", "csv").stdout
    assert labels.split() == ["n", "4"]  # one base document, four labels of semantic_tagging


def _stop(worker: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL: a Prefect worker's graceful shutdown has taken over a minute on a busy
    machine (after its run completed), and how it shuts down is not what this test checks."""
    worker.terminate()
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait(timeout=30)
