"""`stop` stops only what its data home started, and `start` says "started" only of its own healthy child
(issue 53, points 3 and 4), for both managed servers: the Prefect server and the local model server.

The processes here are real: a victim that carries "prefect server" or "llama" in its command line (what the
old liveness test looked for), squatters that answer /health on a port of 127.0.0.1, and a stand-in
`llama-server` (ACCESSBENCH_LLAMA_SERVER) that behaves as the real one does on a taken port.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from common import daemon
from common.daemon import Daemon, identity
from flows import server
from models import local
from tests.flows.test_cli import cli

SLEEPER = "import sys, time; time.sleep(600)"


@pytest.fixture
def spawn() -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start a process (its own session) that is killed at the end whatever the test did."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*words: str, cwd: Path | None = None) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([sys.executable, "-c", SLEEPER, *words], cwd=cwd, start_new_session=True)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)


class _Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def squatter() -> Iterator[int]:
    """Another process's server on a port of 127.0.0.1 that answers every health check with 200."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)  # shutdown() waits a poll
    thread.start()
    yield int(httpd.server_address[1])
    httpd.shutdown()
    httpd.server_close()


def _forge(folder: Path, pid: int, **extra: object) -> None:
    """A state file naming `pid` with every field the daemon records, taken from the live process."""
    me = identity(pid)
    assert me is not None
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "server.json").write_text(json.dumps({
        **extra, "pid": pid, "port": 9, "started": 0, "start_ticks": me.start_ticks, "exe": me.exe, "cwd": me.cwd,
        "name": "m", "gguf": "m.gguf", "threads": 1, "ctx": 512}))


@pytest.mark.parametrize(("folder", "words"), [("prefect", ("prefect", "server")), ("model", ("llama-server",))])
def test_a_forged_state_file_never_gets_another_process_killed(
        tmp_path: Path, folder: str, words: tuple[str, ...], spawn: Callable[..., subprocess.Popen[bytes]]) -> None:
    victim = spawn(*words, cwd=tmp_path)  # another program whose command line looks like the server's
    home = tmp_path / "home"
    _forge(home / folder, victim.pid)
    command = "server" if folder == "prefect" else "model"

    stop = cli(home, command, "stop", check=False)
    status = cli(home, command, "status", check=False)

    assert victim.poll() is None and identity(victim.pid) is not None  # not signalled
    assert f"pid {victim.pid}" in stop.stderr and "not signalled" in stop.stderr
    assert status.returncode == 3  # and never reported as this home's server


@pytest.mark.parametrize("folder", ["prefect", "model"])
def test_a_home_copied_from_another_neither_stops_nor_claims_the_other_homes_server(
        tmp_path: Path, folder: str, spawn: Callable[..., subprocess.Popen[bytes]]) -> None:
    original, copy = tmp_path / "a", tmp_path / "b"
    (original / folder).mkdir(parents=True)
    other = spawn(cwd=original / folder)  # the original home's server runs in its own folder
    _forge(original / folder, other.pid)
    shutil.copytree(original, copy)
    module = server if folder == "prefect" else local

    assert module.read_state(original) is not None  # its own home recognises it
    assert module.read_state(copy) is None
    assert module.stop(copy)[0] is None
    assert other.poll() is None and identity(other.pid) is not None


def test_a_recycled_pid_is_not_the_server(tmp_path: Path, spawn: Callable[..., subprocess.Popen[bytes]]) -> None:
    folder = tmp_path / "prefect"
    folder.mkdir()
    proc = spawn(cwd=folder)
    _forge(folder, proc.pid)
    managed = Daemon(folder, "the test server")
    assert managed.verified() is not None
    data = json.loads((folder / "server.json").read_text())
    data["start_ticks"] -= 1  # the same pid, started at another time: another process
    (folder / "server.json").write_text(json.dumps(data))
    assert managed.verified() is None and not managed.alive(proc.pid)
    assert managed.stop() == (None, f"{folder / 'server.json'} named pid {proc.pid}, which is not the test server "
                                    "this data home started; it was not signalled, and the stale state file was "
                                    "removed")
    assert proc.poll() is None


def _fake_llama_server(tmp_path: Path) -> Path:
    """Binds the port it is given like llama-server; on a taken port it logs the error and lingers a few
    seconds before exiting (the real one is slow to exit while it loads its model)."""
    script = tmp_path / "llama-server"
    script.write_text(f"""#!{sys.executable}
import socket, sys, time
port = int(sys.argv[sys.argv.index("--port") + 1])
sock = socket.socket()
try:
    sock.bind(("127.0.0.1", port))
except OSError as exc:
    print("couldn't bind HTTP server socket:", exc, flush=True)
    time.sleep(5)
    sys.exit(1)
sock.listen()
time.sleep(600)
""")
    script.chmod(0o755)
    return script


def _gguf(tmp_path: Path) -> Path:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + b"\0" * 64)
    return model


def test_model_start_on_a_busy_port_fails_and_says_so(tmp_path: Path, squatter: int,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCESSBENCH_LLAMA_SERVER", str(_fake_llama_server(tmp_path)))
    started = cli(tmp_path / "home", "model", "start", "--gguf", str(_gguf(tmp_path)), "--port", str(squatter),
                  "--timeout", "30", check=False)
    assert started.returncode == 1, started.stderr
    assert f"port {squatter}" in started.stderr and "already in use" in started.stderr
    assert "started" not in started.stderr.replace("was not started", "")
    assert local.recorded_state(tmp_path / "home") is None


def test_model_start_fails_when_a_racer_answers_on_its_port(tmp_path: Path, squatter: int,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The port was free when checked, then a racer bound it first: its answer is not the child's."""
    monkeypatch.setenv("ACCESSBENCH_LLAMA_SERVER", str(_fake_llama_server(tmp_path)))
    monkeypatch.setattr(daemon, "port_free", lambda port: True)  # the racer binds just after the check
    with pytest.raises(local.LocalModelError, match=rf"port {squatter} answers, but for another process"):
        local.start(tmp_path / "home", _gguf(tmp_path), port=squatter, timeout_s=30)
    assert local.recorded_state(tmp_path / "home") is None


def test_server_start_on_a_busy_port_fails_and_says_so(tmp_path: Path, squatter: int) -> None:
    with pytest.raises(server.ServerError, match=rf"port {squatter} .*already in use"):
        server.ensure(tmp_path / "home", timeout_s=30, port=squatter)
    assert server.read_state(tmp_path / "home") is None


def test_the_state_file_records_who_the_process_is(tmp_path: Path, spawn: Callable[..., subprocess.Popen[bytes]],
                                                    squatter: int) -> None:
    managed = Daemon(tmp_path / "d", "the test server")
    port = daemon.free_port()
    argv = [sys.executable, "-c", f"import socket, time; s = socket.socket(); s.bind(('127.0.0.1', {port})); "
                                  "s.listen(); time.sleep(600)"]
    with managed.lock():
        state = managed.start(argv, port, lambda recorded: daemon.port_owner_is(port, recorded["pid"]) is True, 30)
    try:
        me = identity(state["pid"])
        assert me is not None and (state["start_ticks"], state["exe"], state["cwd"]) == (
            me.start_ticks, me.exe, os.path.realpath(tmp_path / "d"))
        assert oct((tmp_path / "d" / "server.json").stat().st_mode & 0o777) == "0o600"
        assert managed.stop()[0] == state and identity(state["pid"]) is None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(state["pid"], signal.SIGKILL)
