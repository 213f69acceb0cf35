"""`accessbench model` and `llm:local` say what to do when the local model is absent or misnamed (no server
needed: the real one is exercised by tests/llm/test_local_model.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from models import local
from tests.flows.test_cli import cli


def test_status_without_a_server_says_how_to_start_one(tmp_path: Path) -> None:
    result = cli(tmp_path / "home", "model", "status", check=False)
    assert result.returncode == 3 and "accessbench model start" in result.stdout


def test_a_gguf_that_is_missing_or_not_a_gguf_is_refused_before_anything_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "llama-server"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("ACCESSBENCH_LLAMA_SERVER", str(fake))
    with pytest.raises(local.LocalModelError, match="no such file"):
        local.start(tmp_path / "home", tmp_path / "absent.gguf")
    not_gguf = tmp_path / "model.gguf"
    not_gguf.write_bytes(b"<html>not a model</html>")
    with pytest.raises(local.LocalModelError, match="not a GGUF"):
        local.start(tmp_path / "home", not_gguf)
    assert local.read_state(tmp_path / "home") is None


def test_a_server_that_exits_while_starting_is_reported_with_its_log(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "llama-server"
    fake.write_text("#!/bin/sh\necho 'error: out of memory loading the model' >&2\nexit 7\n")
    fake.chmod(0o755)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + b"\0" * 64)
    monkeypatch.setenv("ACCESSBENCH_LLAMA_SERVER", str(fake))
    with pytest.raises(local.LocalModelError, match=r"exited with status 7[\s\S]*out of memory"):
        local.start(tmp_path / "home", model, timeout_s=30)
    assert local.read_state(tmp_path / "home") is None


def test_judging_with_llm_local_and_no_server_stops_before_any_work(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = cli(home, "run", "--judge", "llm:local", "--criteria", "table_structure", check=False)
    assert run.returncode == 2 and "accessbench model start" in run.stderr


def test_an_audit_of_the_local_model_without_a_server_stops_before_any_run(tmp_path: Path) -> None:
    audit = cli(tmp_path / "home", "audit", "--models", "local", "--limit", "1", check=False)
    assert audit.returncode == 2 and "accessbench model start" in audit.stderr
    assert "audit run" not in audit.stderr  # no run was started


def test_the_rules_catalog_is_listed(tmp_path: Path) -> None:
    listed = cli(tmp_path / "home", "rules", "--format", "md")
    assert listed.stdout.startswith("| rule |")
    bad = cli(tmp_path / "home", "rules", "--criterion", "nope", check=False)
    assert bad.returncode == 2 and "unknown criterion" in bad.stderr


def test_the_model_server_asks_for_the_homes_key_which_no_command_line_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """llama-server gets `--api-key-file` (a per-home key, mode 0600) and the client the same key; the stand-in
    server here answers /health and records what it was started with."""
    import os
    import stat
    import sys

    fake = tmp_path / "llama-server"
    fake.write_text(f"""#!{sys.executable}
import http.server, sys
port = int(sys.argv[sys.argv.index("--port") + 1])
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"{{}}")
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
""")
    fake.chmod(0o755)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + b"\0" * 64)
    monkeypatch.setenv("ACCESSBENCH_LLAMA_SERVER", str(fake))
    home = tmp_path / "home"
    state, started = local.start(home, model, timeout_s=60)
    try:
        cmdline = (Path(f"/proc/{state.pid}/cmdline").read_bytes().split(b"\0"))
        key_file = local.key_file(home)
        assert started and cmdline[cmdline.index(b"--api-key-file") + 1] == os.fsencode(key_file)
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        key = key_file.read_text().strip()
        assert len(key) > 30 and key.encode() not in b" ".join(cmdline)
        assert local.client_options(home, "local")["api_key"] == key
    finally:
        assert local.stop(home)[0] is not None
