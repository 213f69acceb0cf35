"""`accessbench server start|stop|status` and `accessbench deploy`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any


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
    from flows.cli.console import EXIT_NOT_FOUND, EXIT_OK

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
    from flows.cli.console import EXIT_FAILED, EXIT_OK
    from flows.cli.console import error as _error
    from flows.cli.console import prepare_prefect as _prepare_prefect
    from flows.deploy import WORK_POOL, DeployError, register

    if os.environ.get("ACCESSBENCH_PREFECT") == "ephemeral" and not os.environ.get("PREFECT_API_URL"):
        return _error("deployments need a server that outlives this command: unset ACCESSBENCH_PREFECT, or set "
                      "PREFECT_API_URL")
    _prepare_prefect(home, args.verbose)
    try:
        register(args.name)
    except DeployError as exc:
        return _error(str(exc), EXIT_FAILED)
    api = os.environ["PREFECT_API_URL"]
    print(f"registered {', '.join(args.name) if args.name else 'every deployment in prefect.yaml'} with {api}.\n"
          f"Start a worker where the data lives: ACCESSBENCH_HOME=/data/accessbench PREFECT_API_URL={api} "
          f"prefect worker start --pool {WORK_POOL}\n"
          "Run one now: prefect deployment run accessbench-benchmark/nightly-synthetic")
    return EXIT_OK
