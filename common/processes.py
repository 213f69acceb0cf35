"""Ending a server's process group and knowing that it ended (the Prefect server, the local model server).

A server is started in a session of its own (`start_new_session=True`), so its pid is also its process
group's id and the group holds every process it started. `terminate_group` asks the group to stop
(SIGTERM), kills what is left after a grace period (SIGKILL), and returns only once the leader and every
member of the group are gone, or says that they are not: SIGKILL is a request the kernel carries out
when it can (a process in uninterruptible sleep, or a big one still unmapping its memory, outlives it).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

KILL_WAIT_S = 30.0  # how long SIGKILL is given before a process counts as still there


def _state(stat: str) -> tuple[str, int]:
    """(state letter, process group) of a /proc/<pid>/stat line (the command name may hold spaces)."""
    fields = stat.rsplit(")", 1)[1].split()
    return fields[0], int(fields[3])


def group_members(pgid: int) -> list[int] | None:
    """Live (not zombie) processes of process group `pgid`; None where /proc cannot tell (macOS)."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return None
    members = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state, group = _state((entry / "stat").read_text())
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        if group == pgid and state != "Z":
            members.append(int(entry.name))
    return members


def _group_gone(pgid: int) -> bool:
    members = group_members(pgid)
    if members is not None:
        return not members
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)  # a child of this process: collect it, so it is not left a zombie


def _wait_gone(pid: int, alive: Callable[[int], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while True:
        _reap(pid)
        if not alive(pid) and _group_gone(pid):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def terminate_group(pid: int, alive: Callable[[int], bool], grace_s: float,
                    kill_wait_s: float | None = None) -> bool:
    """SIGTERM the process group `pid`, SIGKILL it after `grace_s`, then wait up to `kill_wait_s` until
    the leader (`alive(pid)` false) and every member of the group are gone; whether they are.

    `alive` is the caller's test of its own server (a recycled pid of another program is not it).
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)
    if _wait_gone(pid, alive, grace_s):
        return True
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    return _wait_gone(pid, alive, KILL_WAIT_S if kill_wait_s is None else kill_wait_s)
