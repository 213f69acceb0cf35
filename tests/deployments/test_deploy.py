"""`accessbench deploy` against a real local Prefect server, a process worker, and a run that completes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flows import server
from tests.flows.prefect_server import alive, api, cli, descendants, processes_of, server_env

pytestmark = pytest.mark.slow


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "home"
    yield root
    cli(root, "server", "stop", check=False)
    assert processes_of(root) == []


README = Path(__file__).resolve().parents[2] / "README.md"


def readme_deployment_runs() -> list[str]:
    """The `prefect deployment run` lines of README's Deployments section, as a user would paste them."""
    section = README.read_text().split("**Deployments.**", 1)[1].split("**Worker image.**", 1)[0]
    return [line for line in section.splitlines() if line.startswith("prefect deployment run ")]


def test_readme_passes_parameters_as_the_flows_take_them() -> None:
    lines = readme_deployment_runs()
    assert len(lines) >= 2 and all(" --params '{\"options\":" in line for line in lines)
    assert not any(" --param " in line for line in lines)  # flat parameters: refused by the deployment


def test_scheduled_nightly_run_fires_and_readme_runs_complete_on_a_worker_that_stops_on_sigterm(
        home: Path, tmp_path: Path) -> None:
    def call(*args: Any, **kwargs: Any) -> Any:
        return api(*args, home=home, **kwargs)  # with the home's auth string

    deployed = cli(home, "deploy")
    url = deployed.stdout.split("registered every deployment in deployments/prefect.yaml with ")[1].split(".\n")[0]
    # The worker commands it suggests name this data home, not an example path.
    assert f"accessbench --home {home} worker" in deployed.stdout
    assert f"ACCESSBENCH_HOME={home} PREFECT_API_URL={url} " in deployed.stdout
    assert "/data/accessbench" not in deployed.stdout
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
    assert scheduled[0]["auto_scheduled"] and scheduled[0]["parameters"] == {"options": {"base_docs": 3}}

    # README's commands, exactly as written, in the environment README tells a client to have.
    client = {**server_env(tmp_path / "client-home"), "PREFECT_API_URL": url, "PREFECT_HOME": str(tmp_path / "client"),
              "PREFECT_API_AUTH_STRING": server.auth_string(home) or "",
              "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    created = []
    for line in readme_deployment_runs():
        result = subprocess.run(["bash", "-c", line], env=client, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{line}\n{result.stdout}{result.stderr}"
        run_id = re.search(r"UUID: ([0-9a-f-]{36})", result.stdout)
        assert run_id, result.stdout
        run = call(url, f"/flow_runs/{run_id[1]}")
        asked = json.loads(line.split(" --params ", 1)[1].strip("'"))
        assert run["parameters"] == asked  # the options as given, nothing dropped or renamed
        created.append(run)
    nightly = created[0]
    assert nightly["deployment_id"] == deployments["nightly-synthetic"]["id"]

    worker_home = tmp_path / "worker-data"  # the worker's own data home, from its command line
    worker = subprocess.Popen([sys.executable, "-m", "flows.cli.app", "--home", str(worker_home), "worker"],
                              env=server_env(worker_home, PREFECT_API_URL=url, PREFECT_HOME=str(home / "prefect"),
                                             PREFECT_WORKER_QUERY_SECONDS="1",  # it polls every 10 s by default
                                             PREFECT_API_AUTH_STRING=server.auth_string(home) or ""),
                              cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 480
        while (state := call(url, f"/flow_runs/{nightly['id']}"))["state_type"] not in {"COMPLETED", "FAILED",
                                                                                      "CRASHED"}:
            assert time.monotonic() < deadline, f"the run is still {state['state_type']}"
            time.sleep(2)
        worker_processes = {worker.pid} | descendants(worker.pid)
        # SIGTERM ends the worker and everything it started (a run of the audit may be in progress) in 15 s.
        sent = time.monotonic()
        worker.terminate()
        worker.wait(timeout=15)
        left = [pid for pid in worker_processes if alive(pid)]
        assert not left and time.monotonic() - sent < 15, f"still running after SIGTERM: {left}"
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(timeout=30)
    assert state["state_type"] == "COMPLETED"
    run_id = state["name"]  # named by its AccessBench run id once the flow chose one
    labels = cli(worker_home, "sql", f"select count(*) as n from doc_labels where run_id='{run_id}'",
                 "--format", "csv").stdout
    assert labels.split() == ["n", "4"]  # one base document, four labels of semantic_tagging
