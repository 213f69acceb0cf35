"""deployments/prefect.yaml: three deployments, their schedules, and parameters the flows accept and the worker
resolves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from prefect.flows import load_flow_from_entrypoint

from flows.benchmark import data_home, resolve_path
from flows.deploy import PREFECT_YAML, WORK_POOL


def _deployments() -> dict[str, dict[str, Any]]:
    config = yaml.safe_load(PREFECT_YAML.read_text())
    assert config["pull"] == []  # nothing of the deploying host (its working directory) is baked in
    return {d["name"]: d for d in config["deployments"]}


def test_weekly_nightly_and_on_demand_deployments_on_the_accessbench_pool() -> None:
    deployments = _deployments()
    assert set(deployments) == {"weekly-benchmark", "nightly-synthetic", "audit"}
    assert [s["cron"] for s in deployments["weekly-benchmark"]["schedules"]] == ["0 3 * * 1"]
    assert [s["cron"] for s in deployments["nightly-synthetic"]["schedules"]] == ["0 2 * * *"]
    assert "schedules" not in deployments["audit"]
    assert {d["work_pool"]["name"] for d in deployments.values()} == {WORK_POOL}


@pytest.mark.parametrize("name", ["weekly-benchmark", "nightly-synthetic", "audit"])
def test_parameters_fit_the_flow_and_hold_no_host_path(name: str) -> None:
    deployment = _deployments()[name]
    flow = load_flow_from_entrypoint(deployment["entrypoint"])
    parameters = deployment.get("parameters") or {}
    assert set(parameters) <= set(flow.parameters.properties)
    flow.validate_parameters(parameters)
    flat = {**parameters, **(parameters.get("options") or {})}  # the benchmark flow's options are one parameter
    assert "home" not in flat  # the worker's $ACCESSBENCH_HOME
    assert not any(isinstance(v, str) and v.startswith("/") for v in flat.values())


def test_paths_are_resolved_on_the_machine_that_runs_the_flow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    monkeypatch.setenv("ACCESSBENCH_DATASET", str(tmp_path / "bench"))
    monkeypatch.setenv("ACCESSBENCH_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    assert resolve_path("$ACCESSBENCH_DATASET", "dataset") == str(tmp_path / "bench")
    assert resolve_path("pdfs", "pdfs") == str(tmp_path / "pdfs")
    assert data_home(None) == tmp_path / "data"
    monkeypatch.delenv("ACCESSBENCH_DATASET")
    with pytest.raises(ValueError, match=r"does not set '\$ACCESSBENCH_DATASET'"):
        resolve_path("$ACCESSBENCH_DATASET", "dataset")
