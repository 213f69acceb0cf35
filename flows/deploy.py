"""`accessbench deploy`: register `deployments/prefect.yaml`'s deployments (and their work pool) with the Prefect server
in PREFECT_API_URL.

Here, beside the local server's management (`flows/server.py`), because the CLI runs it: the deployments
themselves sit above the flows (their entrypoints are `flows.benchmark:benchmark_flow`, `flows.audit:audit_flow`),
and nothing in `flows/` imports `deployments/`.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PREFECT_YAML = PROJECT_ROOT / "deployments" / "prefect.yaml"
WORK_POOL = "accessbench"  # the pool named in prefect.yaml
WORK_POOL_TYPE = "process"  # the worker that docker/Dockerfile runs


class DeployError(Exception):
    """Registration failed; the message carries Prefect's own output."""


def ensure_work_pool(name: str = WORK_POOL) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectAlreadyExists

    with get_client(sync_client=True) as client, contextlib.suppress(ObjectAlreadyExists):
        client.create_work_pool(WorkPoolCreate(name=name, type=WORK_POOL_TYPE))


def register(names: list[str] | None = None) -> None:
    """`prefect deploy` for the named deployments (all when none), from the project root (module entrypoints)."""
    if not PREFECT_YAML.is_file():
        raise DeployError(f"no {PREFECT_YAML}: reinstall AccessBench (the file ships with the `deployments` "
                          "package)")
    ensure_work_pool()
    selection = [f"--name={name}" for name in names or []] or ["--all"]
    command = [sys.executable, "-m", "prefect", "--no-prompt", "deploy", "--prefect-file", str(PREFECT_YAML)]
    result = subprocess.run([*command, *selection], cwd=PROJECT_ROOT, env=os.environ, text=True, capture_output=True)
    if result.returncode != 0:
        raise DeployError(f"prefect deploy failed:\n{(result.stdout + result.stderr)[-3000:]}")
