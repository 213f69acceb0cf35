"""A server that outlives the command that started it, managed per data home: the local Prefect server
(`flows/server.py`) and the local model server (`models/local.py`) are both a `Daemon`.

A daemon's folder (`<home>/prefect`, `<home>/model`) holds its state file, log and start lock. The state
file records who the process is, not only its pid: the pid, its start time in clock ticks since boot
(`/proc/<pid>/stat`, field 22), its executable and its working directory (the daemon's own folder). A pid
is trusted, reported as running or signalled only while all four match what `/proc` says now, so a stale
state file (the pid recycled), a forged one (another program's pid) or one copied from another data home
(the other home's server: its working directory is that home's folder) is never acted on.

`start` launches the child in a session of its own (its pid is its process group's id) and returns only
once *that child* is healthy: it fails when the port is taken before the start, when the child exits, or
when the port answers but the listening socket belongs to another process.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.processes import group_members, terminate_group

HOST = "127.0.0.1"
PROC = Path("/proc")


class DaemonError(Exception):
    """The daemon could not be started or stopped; the message says what to do."""


@dataclass(frozen=True)
class Identity:
    """Who a process is, as /proc tells it: a pid alone may be recycled by another program."""

    pid: int
    start_ticks: int
    exe: str
    cwd: str


def has_proc() -> bool:
    return (PROC / "self" / "stat").exists()


def identity(pid: int) -> Identity | None:
    """The identity of live (not zombie) process `pid`, or None when it is gone or cannot be read (another
    user's process, no /proc)."""
    base = PROC / str(pid)
    try:
        fields = (base / "stat").read_text().rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            return None
        return Identity(pid=pid, start_ticks=int(fields[19]), exe=os.readlink(base / "exe"),
                        cwd=os.readlink(base / "cwd"))
    except (OSError, IndexError, ValueError):
        return None


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` atomically, readable by its owner only (0600) from the first byte on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.chmod(partial, 0o600)
        partial.replace(path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def port_free(port: int) -> bool:
    """Whether nothing listens on 127.0.0.1:`port` (a bind succeeds)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _listening_inodes(port: int) -> set[str]:
    """Socket inodes listening on `port` (any local address, IPv4 or IPv6), from /proc/net/tcp{,6}."""
    inodes = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (PROC / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes


def _socket_inodes(pid: int) -> set[str]:
    found = set()
    with contextlib.suppress(OSError):
        for fd in (PROC / str(pid) / "fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    found.add(target[8:-1])
    return found


def port_owner_is(port: int, pgid: int) -> bool | None:
    """Whether every socket listening on `port` belongs to a process of group `pgid`; None when /proc cannot
    tell (no /proc, or nothing listens yet)."""
    if not has_proc():
        return None
    listening = _listening_inodes(port)
    if not listening:
        return None
    ours: set[str] = set()
    for pid in group_members(pgid) or []:
        ours |= _socket_inodes(pid)
    return listening <= ours


class Daemon:
    """One managed server of a data home: `folder` holds `server.json`, `server.log` and `server.lock`."""

    def __init__(self, folder: Path, title: str, error: type[Exception] = DaemonError,
                 grace_s: float = 20.0) -> None:
        self.folder = Path(folder)
        self.title = title  # "the local Prefect server": how messages name it
        self.error = error
        self.grace_s = grace_s

    @property
    def state_file(self) -> Path:
        return self.folder / "server.json"

    @property
    def log_file(self) -> Path:
        return self.folder / "server.log"

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Two commands at once share one server instead of racing to start two (or stopping one twice)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / "server.lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def read(self) -> dict[str, Any] | None:
        """The state file as recorded (not verified), or None."""
        try:
            data = json.loads(self.state_file.read_text())
            return data if isinstance(data, dict) and isinstance(data.get("pid"), int) else None
        except (OSError, ValueError):
            return None

    def owns(self, data: Mapping[str, Any]) -> bool:
        """Whether the process the state names is the one this daemon started: pid, start time, executable
        and working directory (this daemon's folder) all as recorded. Without /proc (macOS) only the pid is
        checked, with a signal 0."""
        pid = data.get("pid")
        if not isinstance(pid, int) or pid <= 1:
            return False
        if not has_proc():
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                return False
            return True
        now = identity(pid)
        if now is None:
            return False
        try:
            folder = os.path.realpath(self.folder)
        except OSError:
            return False
        return (now.start_ticks == data.get("start_ticks") and now.exe == data.get("exe")
                and now.cwd == data.get("cwd") == folder)

    def alive(self, pid: int) -> bool:
        """Whether `pid` is still the process this daemon's state file records (for `terminate_group`)."""
        data = self.read()
        return data is not None and data.get("pid") == pid and self.owns(data)

    def verified(self) -> dict[str, Any] | None:
        """The state when its process is this daemon's own and alive, else None."""
        data = self.read()
        return data if data is not None and self.owns(data) else None

    def start(self, argv: Sequence[str], port: int, healthy: Callable[[dict[str, Any]], bool], timeout_s: float,
              env: Mapping[str, str] | None = None, extra: Mapping[str, Any] | None = None,
              slow_hint: str = "") -> dict[str, Any]:
        """Launch `argv` (which listens on 127.0.0.1:`port`) and return its state once `healthy(state)` and
        the listening socket is the child's. Call under `lock()`. Raises `self.error` when the port is
        taken, the child exits, the port answers for another process, or `timeout_s` passes."""
        if not port_free(port):
            raise self.error(f"port {port} on {HOST} is already in use by another process: {self.title} was not "
                             "started; choose another port, or leave it out for a free one")
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.log_file, "ab") as out:
            proc = subprocess.Popen(list(argv), env=dict(env) if env is not None else None, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True, cwd=self.folder)
        me = identity(proc.pid)
        state: dict[str, Any] = {**(extra or {}), "pid": proc.pid, "port": port, "started": time.time(),
                                 "start_ticks": me.start_ticks if me else None, "exe": me.exe if me else None,
                                 "cwd": me.cwd if me else None}
        write_private(self.state_file, json.dumps(state, indent=2))
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.state_file.unlink(missing_ok=True)
                raise self.error(f"{self.title} exited with status {proc.returncode} while starting.\n"
                                 f"{self.log_tail()}\nsee {self.log_file}")
            if healthy(state):
                owner = port_owner_is(port, proc.pid)
                if owner is False:
                    self._give_up(proc.pid)
                    raise self.error(f"port {port} answers, but for another process, not {self.title} this "
                                     f"command started (pid {proc.pid}); it was stopped. Choose another port.")
                if owner is True or not has_proc():
                    return state
            time.sleep(0.25)
        self._give_up(proc.pid)
        raise self.error(f"{self.title} did not answer within {timeout_s:.0f} s (a busy machine?).\n"
                         f"{self.log_tail()}\n{slow_hint}see {self.log_file}")

    def _give_up(self, pid: int) -> None:
        with contextlib.suppress(Exception):
            self.terminate(pid)
        self.state_file.unlink(missing_ok=True)

    def terminate(self, pid: int) -> None:
        """End the daemon's process group and return once it is gone; `self.error` when even SIGKILL left a
        process of it running. Only for a pid `owns` has confirmed."""
        if not terminate_group(pid, self.alive, self.grace_s):
            raise self.error(f"{self.title} (process group {pid}) is still running after SIGTERM and SIGKILL; "
                             f"see what is left with: ps -g {pid}; end it with: kill -KILL -{pid}")

    def stop(self) -> tuple[dict[str, Any] | None, str]:
        """Stop the daemon when the state file names this daemon's own live process: (its state or None,
        a note when the state file named a process that is not ours and was left alone)."""
        with self.lock():
            data = self.read()
            if data is None:
                return None, ""
            if not self.owns(data):
                self.state_file.unlink(missing_ok=True)
                if identity(int(data["pid"])) is not None:
                    return None, (f"{self.state_file} named pid {data['pid']}, which is not {self.title} this data "
                                  "home started; it was not signalled, and the stale state file was removed")
                return None, ""
            self.terminate(int(data["pid"]))
            self.state_file.unlink(missing_ok=True)
            return data, ""

    def log_tail(self, lines: int = 8) -> str:
        try:
            tail = self.log_file.read_text(errors="replace").strip().splitlines()[-lines:]
        except OSError:
            return "(no server log)"
        return "last lines of the server log:\n  " + "\n  ".join(tail) if tail else "(the server log is empty)"
