"""One persistent local Prefect server per data home: started on first use, reused by every later command.

Starting Prefect's ephemeral server costs 14–18 s per command (and times out on a busy machine);
a server that outlives the command costs nothing the second time. Its database, log and state
file live in `<home>/prefect`; it listens on 127.0.0.1 only. `accessbench server stop` ends it.
`PREFECT_API_URL` (Prefect Cloud, a team server) bypasses all of this.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from common.processes import terminate_group

HOST = "127.0.0.1"
DEFAULT_START_TIMEOUT_S = 180.0  # a busy 2-core machine needs far more than Prefect's 20 s


class ServerError(Exception):
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


def _state_file(home: Path) -> Path:
    return prefect_home(home) / "server.json"


def log_file(home: Path) -> Path:
    return prefect_home(home) / "server.log"


def start_timeout_s() -> float:
    value = os.environ.get("ACCESSBENCH_SERVER_START_TIMEOUT", "")
    try:
        return float(value) if value else DEFAULT_START_TIMEOUT_S
    except ValueError:
        raise ServerError(f"ACCESSBENCH_SERVER_START_TIMEOUT={value!r} is not a number of seconds") from None


def read_state(home: Path) -> ServerState | None:
    try:
        data = json.loads(_state_file(home).read_text())
        return ServerState(pid=int(data["pid"]), port=int(data["port"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _alive(pid: int) -> bool:
    """Whether `pid` is still a Prefect server (not a zombie, not a recycled pid of something else)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    proc = Path(f"/proc/{pid}")
    if not proc.is_dir():
        return True  # no /proc (macOS): the signal test is all there is
    try:
        zombie = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
        cmdline = (proc / "cmdline").read_bytes().split(b"\0")
    except (OSError, IndexError):
        return False
    return not zombie and b"prefect" in cmdline and b"server" in cmdline


def healthy(state: ServerState, timeout_s: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{state.api_url}/health", timeout=timeout_s) as reply:  # noqa: S310 - our URL
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def running(home: Path) -> ServerState | None:
    """The server of this data home when it is up and answering, else None."""
    state = read_state(home)
    if state is not None and _alive(state.pid) and healthy(state):
        return state
    return None


@contextlib.contextmanager
def _start_lock(home: Path) -> Iterator[None]:
    """Two commands started at once share one server instead of racing to start two."""
    prefect_home(home).mkdir(parents=True, exist_ok=True)
    with open(prefect_home(home) / "server.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def server_env(home: Path) -> dict[str, str]:
    """The server's environment: its database in the data home, no telemetry, never a remote API."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(PREFECT_HOME=str(prefect_home(home)), PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1",
               PREFECT_LOGGING_LEVEL="WARNING")
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


def ensure(home: Path, timeout_s: float | None = None, port: int | None = None) -> tuple[ServerState, bool]:
    """The running server of `home`, started when none answers (on `port`, else a free one);
    (state, whether this call started it)."""
    state = running(home)
    if state is not None:
        return state, False
    timeout_s = start_timeout_s() if timeout_s is None else timeout_s
    with _start_lock(home):
        state = read_state(home)
        if state is not None and _alive(state.pid):
            # Another command started it and it is still coming up, or it hangs: wait for it, then give up.
            if _wait_healthy(state, timeout_s):
                return state, False
            _terminate(state.pid)
        _state_file(home).unlink(missing_ok=True)
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
    log = log_file(home)
    with open(log, "ab") as out:
        # A session of its own: Ctrl-C in the terminal of the command that started it leaves it running
        # (it is shared by later commands); `accessbench server stop` ends the whole group.
        proc = subprocess.Popen(
            [sys.executable, "-m", "prefect", "server", "start", "--host", HOST, "--port", str(port)],
            env=server_env(home), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, cwd=prefect_home(home))
    state = ServerState(pid=proc.pid, port=port)
    _state_file(home).write_text(json.dumps({"pid": proc.pid, "port": port, "started": time.time()}))
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _state_file(home).unlink(missing_ok=True)
            raise ServerError(f"the local Prefect server exited with status {proc.returncode} while starting.\n"
                              f"{_log_tail(log)}\nsee {log}; or point PREFECT_API_URL at a running Prefect server")
        if healthy(state):
            return state
        time.sleep(0.25)
    _terminate(proc.pid)
    _state_file(home).unlink(missing_ok=True)
    raise ServerError(f"the local Prefect server did not answer within {timeout_s:.0f} s (a busy machine?).\n"
                      f"{_log_tail(log)}\nTry again with more time: ACCESSBENCH_SERVER_START_TIMEOUT=600 "
                      "accessbench server start; or point PREFECT_API_URL at a running Prefect server; "
                      f"the server's log: {log}")


def _wait_healthy(state: ServerState, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and _alive(state.pid):
        if healthy(state):
            return True
        time.sleep(0.25)
    return False


def _log_tail(log: Path, lines: int = 8) -> str:
    try:
        tail = log.read_text(errors="replace").strip().splitlines()[-lines:]
    except OSError:
        return "(no server log)"
    return "last lines of the server log:\n  " + "\n  ".join(tail) if tail else "(the server log is empty)"


STOP_GRACE_S = 20.0  # SIGTERM's time to end the server, before SIGKILL


def _terminate(pid: int, grace_s: float | None = None) -> None:
    """End the server's process group (common.processes.terminate_group) and return once it is gone;
    ServerError when even SIGKILL left a process of it running."""
    if not terminate_group(pid, _alive, STOP_GRACE_S if grace_s is None else grace_s):
        raise ServerError(f"the local Prefect server (process group {pid}) is still running after SIGTERM and "
                          f"SIGKILL; see what is left with: ps -g {pid}; end it with: kill -KILL -{pid}")


def stop(home: Path) -> ServerState | None:
    """Stop the server of `home`; the state it had, or None when none was running."""
    state = read_state(home)
    if state is None:
        return None
    with _start_lock(home):
        was_alive = _alive(state.pid)
        if was_alive:
            _terminate(state.pid)
        _state_file(home).unlink(missing_ok=True)
    return state if was_alive else None
