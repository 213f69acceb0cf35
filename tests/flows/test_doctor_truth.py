"""`accessbench doctor` tells the installation as it is (issue 31, point 8): every extra pyproject declares,
the Prefect server running when it runs, and install commands that work for a project not on PyPI."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from common.daemon import identity
from flows import server
from flows.cli import doctor
from flows.cli.app import EXIT_OK, main

REPO = Path(__file__).resolve().parents[2]

# Answers /api/health like a Prefect server; "prefect server" in its command line, as a server's pid has.
HEALTH = """
import http.server, sys
class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/api/health" else 404)
        self.end_headers()
        self.wfile.write(b"true")
    def log_message(self, *args):
        pass
httpd = http.server.HTTPServer(("127.0.0.1", 0), Health)
print(httpd.server_address[1], flush=True)
httpd.serve_forever()
"""


def _out(capsys: pytest.CaptureFixture[str]) -> str:
    return " ".join(capsys.readouterr().out.replace("│", " ").split())


def test_doctor_knows_every_extra_pyproject_declares() -> None:
    declared = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    assert {"embedding", "dask", "local"} <= declared
    assert set(doctor.installed_extras()) == declared


def test_install_hints_name_commands_that_can_work() -> None:
    for extra in doctor.installed_extras():
        hint = doctor.install_hint(extra)
        assert "'accessbench[" not in hint  # AccessBench is not on PyPI: installed from its source folder
        assert f".[{extra}]'" in hint or f"{REPO}[{extra}]'" in hint or extra == "local"
    assert "make install-local" in doctor.install_hint("local")
    assert "detectron2" in doctor.install_hint("layoutparser")  # the extra alone does not make it work


def test_the_missing_extras_row_carries_the_hints(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(doctor, "installed_extras", lambda: {"llm": True, "pdfix": False, "layoutparser": False})
    assert main(["--home", str(tmp_path), "doctor"]) == EXIT_OK
    out = _out(capsys)
    assert "pip install 'accessbench" not in out
    assert "pdfix (pip install -e" in out and "detectron2" in out


@pytest.fixture
def answering_server(tmp_path: Path) -> Iterator[server.ServerState]:
    (tmp_path / "prefect").mkdir()
    # Started in the home's folder and recorded as the daemon records its own child (common/daemon.py).
    proc = subprocess.Popen([sys.executable, "-c", HEALTH, "prefect", "server"], stdout=subprocess.PIPE, text=True,
                            cwd=tmp_path / "prefect")
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        me = identity(proc.pid)
        assert me is not None
        (tmp_path / "prefect" / "server.json").write_text(json.dumps({
            "pid": proc.pid, "port": port, "start_ticks": me.start_ticks, "exe": me.exe, "cwd": me.cwd}))
        state = server.running(tmp_path)
        assert state is not None
        yield state
    finally:
        proc.kill()
        proc.wait(timeout=60)


def test_doctor_shows_the_local_server_running_while_it_runs(
        answering_server: server.ServerState, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("PREFECT_HOME", raising=False)
    assert main(["--home", str(tmp_path), "doctor"]) == EXIT_OK
    out = _out(capsys)
    assert f"local, running: dashboard {answering_server.ui_url} (pid {answering_server.pid};" in out
    assert "started on first use" not in out


def test_doctor_shows_a_server_that_is_not_running_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("ACCESSBENCH_PREFECT", raising=False)
    assert main(["--home", str(tmp_path), "doctor"]) == EXIT_OK
    assert "local, not running: the first run starts it" in _out(capsys)
