"""Helpers for tests of the persistent server: the CLI as a subprocess, Prefect's REST API, leftover processes."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from tests.cli_process import run_cli

REPO = Path(__file__).resolve().parents[2]


def server_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment a user has: no ephemeral switch, no Prefect settings, the repo importable."""
    env = {k: v for k, v in os.environ.items() if k not in {"ACCESSBENCH_PREFECT", "PREFECT_API_URL", "PREFECT_HOME"}}
    env.update(ACCESSBENCH_HOME=str(home), PYTHONPATH=str(REPO), **extra)
    return env


def cli(home: Path, *args: str, check: bool = True, **extra: str) -> subprocess.CompletedProcess[str]:
    result = run_cli(args, env=server_env(home, **extra), cwd=home.parent)
    if check and result.returncode != 0:
        raise AssertionError(f"accessbench {' '.join(args)} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return result


def api(url: str, path: str, body: dict[str, Any] | None = None, method: str | None = None,
        home: Path | None = None) -> Any:
    """Prefect's REST API, without importing prefect into the test process (its settings are per process).

    As a client of AccessBench's local server must: with the auth string of `home`'s server (default: the
    session's, PREFECT_API_AUTH_STRING) and, for a write, a CSRF token of its own."""
    auth = (home / "prefect" / "api-auth").read_text().strip() if home else os.environ.get("PREFECT_API_AUTH_STRING")
    headers = {"Content-Type": "application/json"}
    if auth:
        headers["Authorization"] = "Basic " + base64.b64encode(auth.encode()).decode()
    method = method or ("GET" if body is None else "POST")
    if method != "GET":
        client = str(uuid.uuid4())
        token = _request(url, f"/csrf-token?client={client}", None, "GET", headers)
        if token:  # None: a server without CSRF protection (the ephemeral one)
            headers.update({"Prefect-Csrf-Token": token["token"], "Prefect-Csrf-Client": client})
    return _request(url, path, body, method, headers)


def _request(url: str, path: str, body: dict[str, Any] | None, method: str, headers: dict[str, str]) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{url}{path}", data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:  # noqa: S310 - the test's own server
            return json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as exc:
        if path.startswith("/csrf-token") and exc.code == 422:  # CSRF protection is off there
            return None
        raise


def processes_of(home: Path) -> list[int]:
    """Live processes whose Prefect home is this data home's (servers, workers, flow runs)."""
    marker = f"PREFECT_HOME={home / 'prefect'}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if marker in (proc / "environ").read_bytes().split(b"\0") and not _zombie(proc):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(proc.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    proc = Path(f"/proc/{pid}")
    return proc.exists() and not _zombie(proc)


def _zombie(proc: Path) -> bool:
    try:
        return (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True
