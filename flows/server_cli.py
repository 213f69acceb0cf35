"""`accessbench server start|stop|status` and `accessbench deploy`."""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
WORK_POOL = "accessbench"  # the pool named in prefect.yaml; its type matches the worker image's worker


def add_parsers(sub: Any) -> None:
    server = sub.add_parser("server", help="the data home's local Prefect server: start | stop | status")
    server.add_argument("action", choices=("start", "stop", "status"),
                        help="start (also done by the first run), stop, or status (prints the dashboard URL)")
    deploy = sub.add_parser("deploy", help="register prefect.yaml's deployments (weekly benchmark, nightly "
                                           "synthetic, audit) with the Prefect server")
    deploy.add_argument("--name", action="append", metavar="DEPLOYMENT",
                        help="only this deployment (repeatable; default: all): weekly-benchmark, nightly-synthetic, "
                             "audit")


def cmd_server(home: Path, args: argparse.Namespace) -> int:
    from flows import server
    from flows.cli import EXIT_NOT_FOUND, EXIT_OK

    remote = os.environ.get("PREFECT_API_URL")
    if remote:
        print(f"note: PREFECT_API_URL is set: runs go to {remote}, not to this data home's local server",
              file=sys.stderr)
    if args.action == "start":
        state, started = server.ensure(home)
        print(f"{'started' if started else 'already running'}: {state.ui_url} (pid {state.pid}; database in "
              f"{server.prefect_home(home)}; log {server.log_file(home)})")
        return EXIT_OK
    if args.action == "stop":
        stopped = server.stop(home)
        print(f"stopped the local Prefect server of {home} (pid {stopped.pid})" if stopped
              else f"no local Prefect server is running for {home}")
        return EXIT_OK
    current = server.running(home)
    if current is None:
        print(f"not running for {home}: the next run starts it, or: accessbench server start")
        return EXIT_NOT_FOUND
    print(f"running: dashboard {current.ui_url}  API {current.api_url}  pid {current.pid}  database "
          f"{server.prefect_home(home)}")
    return EXIT_OK


def cmd_deploy(home: Path, args: argparse.Namespace) -> int:
    from flows.cli import EXIT_FAILED, EXIT_NOT_FOUND, EXIT_OK, _error, _prepare_prefect

    config = PROJECT_ROOT / "prefect.yaml"
    if not config.is_file():
        return _error(f"no prefect.yaml in {PROJECT_ROOT}: deploy from a checkout of AccessBench (or the worker "
                      "image, which ships it)", EXIT_NOT_FOUND)
    if os.environ.get("ACCESSBENCH_PREFECT") == "ephemeral" and not os.environ.get("PREFECT_API_URL"):
        return _error("deployments need a server that outlives this command: unset ACCESSBENCH_PREFECT, or set "
                      "PREFECT_API_URL")
    _prepare_prefect(home, args.verbose)
    _ensure_work_pool(WORK_POOL)
    names = [f"--name={name}" for name in args.name or []] or ["--all"]
    result = subprocess.run([sys.executable, "-m", "prefect", "--no-prompt", "deploy", *names], cwd=PROJECT_ROOT,
                            env=os.environ, text=True, capture_output=True)
    if result.returncode != 0:
        return _error(f"prefect deploy failed:\n{(result.stdout + result.stderr)[-3000:]}", EXIT_FAILED)
    api = os.environ["PREFECT_API_URL"]
    print(f"registered {', '.join(args.name) if args.name else 'every deployment in prefect.yaml'} with {api}.\n"
          f"Start a worker where the data lives: ACCESSBENCH_HOME=/data/accessbench PREFECT_API_URL={api} "
          f"prefect worker start --pool {WORK_POOL}\n"
          "Run one now: prefect deployment run accessbench-benchmark/nightly-synthetic")
    return EXIT_OK


def _ensure_work_pool(name: str) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectAlreadyExists

    with get_client(sync_client=True) as client, contextlib.suppress(ObjectAlreadyExists):
        client.create_work_pool(WorkPoolCreate(name=name, type="process"))
