"""`accessbench server start|stop|status`, `accessbench deploy` and `accessbench worker`."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Any


def add_parsers(sub: Any) -> None:
    server = sub.add_parser("server", help="the data home's local Prefect server: start | stop | status")
    server.add_argument("action", choices=("start", "stop", "status"),
                        help="start (also done by the first run), stop, or status (prints the dashboard URL and "
                             "where its sign-in string is kept)")
    deploy = sub.add_parser("deploy", help="register prefect.yaml's deployments (weekly benchmark, nightly "
                                           "synthetic, audit) with the Prefect server")
    deploy.add_argument("--name", action="append", metavar="DEPLOYMENT",
                        help="only this deployment (repeatable; default: all): weekly-benchmark, nightly-synthetic, "
                             "audit")
    worker = sub.add_parser("worker", help="start a Prefect process worker for the accessbench pool, signed in to "
                                           "this data home's local server (or PREFECT_API_URL's)")
    worker.add_argument("--pool", default="accessbench", help="work pool (default: accessbench)")


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
              f"{server.prefect_home(home)}; log {server.log_file(home)}; {_sign_in(home)})")
        return EXIT_OK
    if args.action == "stop":
        stopped, note = server.stop(home)
        if note:
            print(f"note: {note}", file=sys.stderr)
        print(f"stopped the local Prefect server of {home} (pid {stopped.pid})" if stopped
              else f"no local Prefect server of {home} is running")
        return EXIT_OK
    current = server.running(home)
    if current is None:
        print(f"not running for {home}: the next run starts it, or: accessbench server start")
        return EXIT_NOT_FOUND
    print(f"running: dashboard {current.ui_url}  API {current.api_url}  pid {current.pid}  database "
          f"{server.prefect_home(home)}\n{_sign_in(home)}")
    return EXIT_OK


def _sign_in(home: Path) -> str:
    from flows import server

    return (f"the dashboard and every client sign in with the auth string in {server.auth_file(home)} (mode 0600; "
            "clients: PREFECT_API_AUTH_STRING)")


WORKER_GRACE_S = 8.0  # SIGTERM's time to end the worker's process group, before SIGKILL (issue 58: stop within 15 s)


def cmd_worker(home: Path, args: argparse.Namespace) -> int:
    """`prefect worker start` with this home's server URL and auth string in its environment (never on its
    command line, where other users' `ps` would show it).

    The worker and the flow runs it starts are a process group of their own, and SIGTERM or Ctrl-C of this
    command ends that group: SIGTERM first, SIGKILL after WORKER_GRACE_S. Prefect's worker alone, told
    SIGTERM, stops polling and then waits (over a minute here, with or without a run in progress); a flow run
    cut off is resumed with the same run id (`accessbench run --run-id ID`)."""
    import subprocess

    from common.processes import terminate_group
    from flows.cli.console import prepare_prefect as _prepare_prefect

    _prepare_prefect(home, args.verbose)
    env = {**os.environ, "ACCESSBENCH_HOME": str(home)}
    worker = subprocess.Popen([sys.executable, "-m", "prefect", "worker", "start", "--pool", args.pool], env=env,
                              start_new_session=True)  # Ctrl-C in the terminal reaches this command only
    try:
        return worker.wait()
    except KeyboardInterrupt:  # SIGTERM arrives as KeyboardInterrupt too (flows.cli.app's handler)
        print(f"stopping the worker (pid {worker.pid}) and the flow runs it started", file=sys.stderr)
        if not terminate_group(worker.pid, lambda pid: worker.poll() is None, WORKER_GRACE_S, kill_wait_s=5.0):
            print(f"the worker's processes outlived SIGKILL: kill -KILL -- -{worker.pid}", file=sys.stderr)
        raise


def cmd_deploy(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.console import EXIT_FAILED, EXIT_OK
    from flows.cli.console import error as _error
    from flows.cli.console import prepare_prefect as _prepare_prefect
    from flows.deploy import WORK_POOL, DeployError, register
    from flows.server import auth_file as _auth_file

    if os.environ.get("ACCESSBENCH_PREFECT") == "ephemeral" and not os.environ.get("PREFECT_API_URL"):
        return _error("deployments need a server that outlives this command: unset ACCESSBENCH_PREFECT, or set "
                      "PREFECT_API_URL")
    _prepare_prefect(home, args.verbose)
    try:
        register(args.name)
    except DeployError as exc:
        return _error(str(exc), EXIT_FAILED)
    api = os.environ["PREFECT_API_URL"]
    where = shlex.quote(str(home))  # the data home in use: the worker's runs write there
    which = ", ".join(args.name) if args.name else "every deployment in deployments/prefect.yaml"
    print(f"registered {which} with {api}.\n"
          f"Start a worker where the data lives: accessbench --home {where} worker (on this machine), or "
          f"ACCESSBENCH_HOME={where} PREFECT_API_URL={api} PREFECT_API_AUTH_STRING=\"$(cat "
          f"{shlex.quote(str(_auth_file(home)))})\" prefect worker start --pool {WORK_POOL}\n"
          "Run one now: prefect deployment run accessbench-benchmark/nightly-synthetic --params "
          "'{\"options\":{\"base_docs\":1}}'")
    return EXIT_OK
