"""One local Prefect server for the whole test session, shared by every flow the tests run.

Without it each CLI run of a test starts Prefect's throwaway server (14–18 s each, dozens of them).
The session's server is AccessBench's own persistent server (flows/server.py) in a temporary data
home, started in the background when pytest starts (while tests are collected) and stopped when it
ends. Only the `slow` tests run flows: they wait for the server's start, and a session whose mark
expression deselects them (`make test-fast`) starts no server. `PREFECT_API_URL` points every test
process and every command a test starts at it; with pytest-xdist the workers inherit it from the
controller, which owns the server.

Tests of the server itself, and of a data home's own Prefect database, drop `PREFECT_API_URL` from
the environment of the commands they start (tests/flows/prefect_server.py); `ACCESSBENCH_PREFECT=
ephemeral` (tests/conftest.py) keeps such commands from leaving a persistent server behind.
`ACCESSBENCH_TEST_PREFECT=ephemeral` turns the shared server off. A `PREFECT_API_URL` of the shell
(Prefect Cloud, a team server) never receives the tests' runs: the session's server replaces it, or
with the shared server off it is dropped.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

OWNER_VAR = "ACCESSBENCH_TEST_PREFECT_HOME"  # set by the process that started the server
_started: dict[str, object] = {}


def own_cache() -> None:
    """The session's own AccessBench cache (flows/server.py keeps a migrated Prefect database there): a copy
    of the user's when there is one, else the session's first server builds it; every data home the tests
    start copies it, and the user's stays untouched. Inherited by pytest-xdist's workers and the commands
    the tests start."""
    from flows import server

    users = server.template_dir()  # before ACCESSBENCH_CACHE names the session's own
    cache = Path(tempfile.mkdtemp(prefix="accessbench-test-cache-"))
    os.environ["ACCESSBENCH_CACHE"] = str(cache)
    _started["cache"] = cache
    _seed_cache(users, server.template_dir(), (server.DATABASE, server.MEMO))


def _seed_cache(users: Path, ours: Path, names: tuple[str, ...]) -> None:
    """Copy the user's migrated template into the session's cache, so the session's server starts without
    migrating a new database (~6 s at the start of every session, while the first flow tests wait for it).
    The user's copy is only read. Without one, the session's first server migrates and keeps the template,
    as before; tests of the template itself (tests/flows/test_server_template.py) use caches of their own."""
    if not (users / names[0]).is_file():
        return
    try:
        ours.mkdir(parents=True, exist_ok=True)
        for name in names:
            if (users / name).is_file():
                shutil.copyfile(users / name, ours / f"{name}.partial")
                (ours / f"{name}.partial").replace(ours / name)
    except OSError:  # best effort: the session's first server migrates its own
        shutil.rmtree(ours, ignore_errors=True)


def wanted() -> bool:
    return os.environ.get("ACCESSBENCH_TEST_PREFECT", "shared") != "ephemeral"


def start() -> None:
    """Start the session's server in the background and point this process (and its children) at it."""
    from flows import server

    home = Path(tempfile.mkdtemp(prefix="accessbench-test-prefect-"))
    port = server.free_port()
    os.environ["PREFECT_API_URL"] = f"http://{server.HOST}:{port}/api"
    os.environ["PREFECT_API_AUTH_STRING"] = server.auth_string(home) or ""  # the server refuses clients without it
    os.environ[OWNER_VAR] = str(home)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            server.ensure(home, timeout_s=max(180.0, server.start_timeout_s()), port=port)
        except BaseException as exc:  # noqa: BLE001 - reported by wait()
            errors.append(exc)

    thread = threading.Thread(target=run, name="prefect-test-server", daemon=True)
    thread.start()
    _started.update(home=home, thread=thread, errors=errors)


def wait(timeout_s: float = 240.0) -> None:
    """Block until the session's server answers (the first test that runs pays for its start, once)."""
    url = os.environ.get("PREFECT_API_URL")
    if not url or not os.environ.get(OWNER_VAR) or _started.get("answered"):
        return
    thread = _started.get("thread")
    if isinstance(thread, threading.Thread):
        thread.join(timeout_s)
        errors = _started.get("errors")
        if errors:
            raise RuntimeError(f"the tests' Prefect server did not start: {errors[0]}")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as reply:  # noqa: S310 - our server
                if reply.status == 200:
                    _started["answered"] = True
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.25)
    raise RuntimeError(f"the tests' Prefect server at {url} did not answer within {timeout_s:.0f} s")


def stop() -> None:
    cache = _started.pop("cache", None)
    if isinstance(cache, Path):
        shutil.rmtree(cache, ignore_errors=True)
    home = _started.get("home")
    if not isinstance(home, Path):
        return
    from flows import server

    thread = _started.get("thread")
    if isinstance(thread, threading.Thread):
        thread.join(240)
    server.stop(home)
    shutil.rmtree(home, ignore_errors=True)
