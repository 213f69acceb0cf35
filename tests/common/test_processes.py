"""`server stop` and `model stop` return only when the server's processes are gone (issue 31, point 6).

Each test stands in a real process group for the server: a leader that ignores SIGTERM (so only SIGKILL
ends it) with a child of its own that ignores it too. A slow death (SIGKILL is delivered, the process is
not gone yet: a big process unmapping its memory, one in uninterruptible sleep) is stood in for by the
server's own liveness test answering "alive" a few more times after SIGKILL: no timing is involved.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from common import processes
from common.daemon import Daemon, identity
from common.processes import group_members, terminate_group
from flows import server
from models import local

# Ignores SIGTERM, starts a child that ignores it too, says "ready" once both are up, then sleeps.
STUBBORN = """
import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                          "print('up', flush=True); time.sleep(600)"], stdout=subprocess.PIPE, text=True)
child.stdout.readline()
print("ready", flush=True)
time.sleep(600)
"""


@pytest.fixture
def stubborn_group() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Start a stubborn process group whose command line carries `marker` (what a server's liveness test
    looks for); every group started is killed at the end whatever the test did."""
    started: list[subprocess.Popen[str]] = []

    def start(marker: str, cwd: Path | None = None) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, "-c", STUBBORN, *marker.split()], stdout=subprocess.PIPE,
                                text=True, start_new_session=True, cwd=cwd)
        started.append(proc)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        assert len(group_members(proc.pid) or []) == 2
        return proc

    yield start
    for proc in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)


def test_terminate_group_kills_what_ignores_sigterm_and_returns_when_all_of_it_is_gone(
        stubborn_group: Callable[..., subprocess.Popen[str]]) -> None:
    proc = stubborn_group("prefect server")
    assert terminate_group(proc.pid, lambda pid: identity(pid) is not None, grace_s=0.2) is True
    assert group_members(proc.pid) == []  # the child too, the moment it returns
    assert identity(proc.pid) is None


def _slow_death(module: ModuleType, monkeypatch: pytest.MonkeyPatch, lingers: int | None) -> None:
    """After SIGKILL, the daemon's liveness test answers True `lingers` more times (None: for ever)."""
    real_alive, real_killpg = Daemon.alive, os.killpg
    killed: list[int] = []
    left = [lingers]

    def killpg(pgid: int, sig: int) -> None:
        if sig == signal.SIGKILL:
            killed.append(pgid)
        real_killpg(pgid, sig)

    def alive(self: Daemon, pid: int) -> bool:
        if pid in killed and (left[0] is None or left[0] > 0):
            if left[0] is not None:
                left[0] -= 1
            return True
        return bool(real_alive(self, pid))

    monkeypatch.setattr(os, "killpg", killpg)
    monkeypatch.setattr(Daemon, "alive", alive)
    monkeypatch.setattr(module, "STOP_GRACE_S", 0.2, raising=False)


def _record(folder: Path, pid: int, **extra: object) -> Path:
    """The state file the daemon writes for a process it started: pid, start time, executable, folder."""
    me = identity(pid)
    assert me is not None
    path = folder / "server.json"
    path.write_text(json.dumps({**extra, "pid": pid, "port": 9, "started": 0, "start_ticks": me.start_ticks,
                                "exe": me.exe, "cwd": me.cwd}))
    return path


def _server_state(home: Path, pid: int) -> Path:
    return _record(home / "prefect", pid)


def _model_state(home: Path, pid: int) -> Path:
    return _record(home / "model", pid, name="m", gguf="m.gguf", threads=1, ctx=512)


CASES = [(server, "prefect", _server_state), (local, "model", _model_state)]  # (module, its folder, state)


@pytest.mark.parametrize(("module", "marker", "write_state"), CASES, ids=["prefect", "model"])
def test_stop_returns_only_once_the_server_is_gone(
        module: ModuleType, marker: str, write_state: Callable[[Path, int], Path], tmp_path: Path,
        stubborn_group: Callable[..., subprocess.Popen[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / marker).mkdir()
    proc = stubborn_group("server", tmp_path / marker)  # started in its folder, as the daemon starts it
    state_file = write_state(tmp_path, proc.pid)
    assert module.read_state(tmp_path) is not None
    _slow_death(module, monkeypatch, lingers=5)

    stopped, _ = module.stop(tmp_path)

    assert stopped is not None and stopped.pid == proc.pid
    assert identity(proc.pid) is None  # "stopped" is said of a server that is gone
    assert group_members(proc.pid) == []
    assert not state_file.exists()


@pytest.mark.parametrize(("module", "marker", "write_state"), CASES, ids=["prefect", "model"])
def test_stop_says_so_when_the_server_outlives_sigkill(
        module: ModuleType, marker: str, write_state: Callable[[Path, int], Path], tmp_path: Path,
        stubborn_group: Callable[..., subprocess.Popen[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / marker).mkdir()
    proc = stubborn_group("server", tmp_path / marker)
    state_file = write_state(tmp_path, proc.pid)
    _slow_death(module, monkeypatch, lingers=None)
    monkeypatch.setattr(processes, "KILL_WAIT_S", 0.5)
    error = server.ServerError if module is server else local.LocalModelError

    with pytest.raises(error, match=rf"still running after SIGTERM and SIGKILL.*kill -KILL -{proc.pid}"):
        module.stop(tmp_path)
    assert state_file.exists()  # the server is still recorded: `status` and a later `stop` still find it
