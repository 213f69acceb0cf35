"""One persistent local Prefect server per data home: started on first use, reused by every later command.

Starting Prefect's ephemeral server costs 14–18 s per command (and times out on a busy machine);
a server that outlives the command costs nothing the second time. Its database, log, state file and
API auth string live in `<home>/prefect`; it listens on 127.0.0.1 only. `accessbench server stop` ends it.
`PREFECT_API_URL` (Prefect Cloud, a team server) bypasses all of this.

Who can reach it (README, "Security"): only clients that send the data home's auth string (HTTP basic
auth, Prefect's `server.api.auth_string`; kept in `<home>/prefect/api-auth`, mode 0600), only with the
Host header `127.0.0.1:PORT` or `localhost:PORT` (a DNS-rebinding page names its own host), and a browser
page only from the server's own origin (CORS) with a CSRF token for every write (Prefect's CSRF protection).
The process is a `common.daemon.Daemon`: `stop` and `status` act only on the process this home started.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import sqlite3
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from common.daemon import Daemon, DaemonError, write_private
from common.daemon import free_port as free_port

HOST = "127.0.0.1"
DEFAULT_START_TIMEOUT_S = 180.0  # a busy 2-core machine needs far more than Prefect's 20 s
AUTH_USER = "accessbench"


class ServerError(DaemonError):
    """The local server could not be started or reached; the message says what to do."""


@dataclass(frozen=True)
class ServerState:
    pid: int
    port: int

    @property
    def api_url(self) -> str:
        return f"http://{HOST}:{self.port}/api"

    @property
    def ui_url(self) -> str:
        return f"http://{HOST}:{self.port}"


def prefect_home(home: Path) -> Path:
    return home / "prefect"


def daemon(home: Path) -> Daemon:
    return Daemon(prefect_home(home), "the local Prefect server", ServerError, grace_s=STOP_GRACE_S)


def _state_file(home: Path) -> Path:
    return daemon(home).state_file


def log_file(home: Path) -> Path:
    return daemon(home).log_file


def auth_file(home: Path) -> Path:
    return prefect_home(home) / "api-auth"


def auth_string(home: Path, create: bool = True) -> str | None:
    """The data home's API auth string (`accessbench:<random>`), made on first use and kept in
    `<home>/prefect/api-auth` with mode 0600; None when it does not exist and `create` is false."""
    path = auth_file(home)
    with contextlib.suppress(OSError):
        value = path.read_text().strip()
        if value:
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)  # never readable by others, even when copied in with looser bits
            return value
    if not create:
        return None
    value = f"{AUTH_USER}:{secrets.token_urlsafe(32)}"
    write_private(path, value + "\n")
    return value


def client_env(home: Path, state: ServerState) -> dict[str, str]:
    """What a Prefect client (this CLI, a worker started through AccessBench) needs to reach the server."""
    return {"PREFECT_API_URL": state.api_url, "PREFECT_API_AUTH_STRING": auth_string(home) or ""}


def start_timeout_s() -> float:
    value = os.environ.get("ACCESSBENCH_SERVER_START_TIMEOUT", "")
    try:
        return float(value) if value else DEFAULT_START_TIMEOUT_S
    except ValueError:
        raise ServerError(f"ACCESSBENCH_SERVER_START_TIMEOUT={value!r} is not a number of seconds") from None


def _as_state(data: dict[str, object] | None) -> ServerState | None:
    try:
        return ServerState(pid=int(data["pid"]), port=int(data["port"])) if data else None  # type: ignore[call-overload]
    except (KeyError, TypeError, ValueError):
        return None


def read_state(home: Path) -> ServerState | None:
    """The state file's server when its process is the one this home started (pid, start time, executable
    and working directory as recorded), else None."""
    return _as_state(daemon(home).verified())


def healthy(state: ServerState, timeout_s: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{state.api_url}/health", timeout=timeout_s) as reply:  # noqa: S310 - our URL
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def running(home: Path) -> ServerState | None:
    """The server of this data home when it is its own, up and answering, else None."""
    state = read_state(home)
    if state is not None and healthy(state):
        return state
    return None


# Settings of the user's shell that would point the server, or its dashboard, at another server.
INHERITED_PREFECT_URLS = frozenset({
    "PREFECT_API_URL", "PREFECT_API_AUTH_STRING", "PREFECT_API_KEY",
    "PREFECT_UI_API_URL", "PREFECT_SERVER_UI_API_URL", "PREFECT_UI_URL", "PREFECT_UI_SERVE_BASE",
    "PREFECT_SERVER_UI_SERVE_BASE"})


def server_env(home: Path, port: int) -> dict[str, str]:
    """The server's environment: its database in the data home, no telemetry, never a remote API; basic auth
    with the home's auth string, CORS for its own origin only, CSRF protection on, the Host header checked.

    The dashboard is told its own server's API (`server.ui.api_url`, what `/ui-settings` hands the browser):
    an API or UI URL inherited from the user's shell (a global PREFECT_SERVER_UI_API_URL of another server,
    Prefect's default 127.0.0.1:4200) would send the dashboard elsewhere, so none is passed on."""
    env = {k: v for k, v in os.environ.items() if k not in INHERITED_PREFECT_URLS}
    origins = f"http://{HOST}:{port},http://localhost:{port}"
    env.update(PREFECT_HOME=str(prefect_home(home)), PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1",
               PREFECT_LOGGING_LEVEL="WARNING", PREFECT_SERVER_API_HOST=HOST, PREFECT_SERVER_API_PORT=str(port),
               PREFECT_SERVER_UI_API_URL=ServerState(pid=0, port=port).api_url,
               PREFECT_SERVER_API_AUTH_STRING=auth_string(home) or "",
               PREFECT_SERVER_CORS_ALLOWED_ORIGINS=origins, PREFECT_SERVER_CSRF_PROTECTION_ENABLED="true",
               ACCESSBENCH_SERVER_ALLOWED_HOSTS=f"{HOST}:{port},localhost:{port}", PREFECT__SERVER_FINAL="1")
    return env


# Prefect's database of a new data home is copied from a migrated, empty one kept per Prefect version in
# the user's cache: migrating a new SQLite database costs about as much CPU as the rest of a server's start.
DATABASE = "prefect.db"
MEMO = "memo_store.toml"  # Prefect's note that its block types are registered in that database
USER_TABLES = ("flow_run", "task_run", "flow", "deployment", "artifact", "log", "block_document", "work_pool",
               "variable", "automation")


def cache_dir() -> Path:
    """AccessBench's per-user cache: $ACCESSBENCH_CACHE, else $XDG_CACHE_HOME/accessbench, else ~/.cache/accessbench."""
    if os.environ.get("ACCESSBENCH_CACHE"):
        return Path(os.environ["ACCESSBENCH_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "accessbench"


def template_dir() -> Path:
    from importlib.metadata import version

    return cache_dir() / "prefect-db" / f"prefect-{version('prefect')}"


def seed_database(home: Path) -> bool:
    """Give a data home without a Prefect database a copy of the cached migrated one; whether it did."""
    target = prefect_home(home) / DATABASE
    source = template_dir() / DATABASE
    if target.exists() or not source.is_file():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / "seed.lock", "w") as lock:  # two commands starting at once seed it once
        fcntl.flock(lock, fcntl.LOCK_EX)
        return not target.exists() and _copy_template(source, target)


def _copy_template(source: Path, target: Path) -> bool:
    for stale in ("-wal", "-shm", "-journal"):  # a left-over journal of another database must never meet the copy
        target.with_name(DATABASE + stale).unlink(missing_ok=True)
    partial = target.with_name(f"{DATABASE}.{os.getpid()}.partial")
    try:
        shutil.copyfile(source, partial)
        if (source.parent / MEMO).is_file() and not (target.parent / MEMO).exists():
            shutil.copyfile(source.parent / MEMO, target.parent / MEMO)
        partial.replace(target)
    except OSError:
        partial.unlink(missing_ok=True)
        return False
    return True


def save_template(home: Path) -> bool:
    """Keep a copy of `home`'s freshly migrated Prefect database for new data homes; whether it did.

    A consistent snapshot (SQLite's backup API), refused when it already holds any flow, run, log or
    deployment; the events of the server's own start are dropped. Best effort: a cache that cannot be
    written only costs the next new home its migration.
    """
    source = prefect_home(home) / DATABASE
    folder = template_dir()
    if (folder / DATABASE).is_file() or not source.is_file():
        return False
    partial = folder / f"{DATABASE}.{os.getpid()}.partial"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        read_only = f"file:{urllib.parse.quote(str(source))}?mode=ro"  # a path with '#' or '?' stays a path
        with contextlib.closing(sqlite3.connect(read_only, uri=True, timeout=30)) as db, \
                contextlib.closing(sqlite3.connect(partial)) as copy:
            db.backup(copy)
            if any(copy.execute(f"select count(*) from {table}").fetchone()[0] for table in USER_TABLES):
                raise ValueError("the database is in use already")
            for table in ("event_resources", "events"):
                copy.execute(f"delete from {table}")
            copy.commit()
            copy.execute("vacuum")
        if (source.parent / MEMO).is_file():
            shutil.copyfile(source.parent / MEMO, folder / f"{MEMO}.{os.getpid()}.partial")
            (folder / f"{MEMO}.{os.getpid()}.partial").replace(folder / MEMO)
        partial.replace(folder / DATABASE)
    except (OSError, sqlite3.Error, ValueError):
        partial.unlink(missing_ok=True)
        return False
    return True


STOP_GRACE_S = 20.0  # SIGTERM's time to end the server, before SIGKILL


def ensure(home: Path, timeout_s: float | None = None, port: int | None = None) -> tuple[ServerState, bool]:
    """The running server of `home`, started when none answers (on `port`, else a free one);
    (state, whether this call started it)."""
    state = running(home)
    if state is not None:
        return state, False
    timeout_s = start_timeout_s() if timeout_s is None else timeout_s
    managed = daemon(home)
    with managed.lock():
        state = read_state(home)
        if state is not None:
            # Another command started it and it is still coming up, or it hangs: wait for it, then give up.
            if _wait_healthy(managed, state, timeout_s):
                return state, False
            managed.terminate(state.pid)
        managed.state_file.unlink(missing_ok=True)
        new = not (prefect_home(home) / DATABASE).exists()
        seeded = new and seed_database(home)
        if seeded:
            with open(log_file(home), "a") as log:
                log.write(f"accessbench: {DATABASE} copied from the migrated one in {template_dir()}\n")
        state = _start(home, timeout_s, port)
        fresh = new and not seeded
        if fresh:
            save_template(home)
        return state, True


def _start(home: Path, timeout_s: float, port: int | None = None) -> ServerState:
    port = port or free_port()
    # Prefect's own app (`prefect server start` runs the same factory), behind AccessBench's Host-header check.
    # A session of its own: Ctrl-C in the terminal of the command that started it leaves it running (it is
    # shared by later commands); `accessbench server stop` ends the whole group.
    argv = [sys.executable, "-m", "uvicorn", "--factory", "flows.server_app:create_app", "--host", HOST,
            "--port", str(port), "--log-level", "warning"]
    data = daemon(home).start(
        argv, port, lambda recorded: healthy(ServerState(pid=recorded["pid"], port=port)), timeout_s,
        env=server_env(home, port),
        slow_hint="Try again with more time: ACCESSBENCH_SERVER_START_TIMEOUT=600 accessbench server start; or "
                  "point PREFECT_API_URL at a running Prefect server; ")
    return ServerState(pid=int(data["pid"]), port=port)


def _wait_healthy(managed: Daemon, state: ServerState, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and managed.alive(state.pid):
        if healthy(state):
            return True
        time.sleep(0.25)
    return False


def stop(home: Path) -> tuple[ServerState | None, str]:
    """Stop the server of `home`: (the state it had, or None when none of its own was running; a note when
    the state file named a process that is not this home's server, which is left alone)."""
    data, note = daemon(home).stop()
    return _as_state(data), note
