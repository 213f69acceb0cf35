"""`accessbench runs` in another shell shows how far a running stage is inside one many-page file (issue 58):
the pages its worker processes have rendered, not only the documents finished."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli_process import run_cli
from tests.tasks.test_page_progress import make_pdf

pytestmark = pytest.mark.slow

PAGES = 500


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "ACCESSBENCH_HOME": str(home), **extra}
    env.pop("PREFECT_HOME", None)
    return env


def test_runs_shows_the_pages_done_inside_one_large_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_pdf(tmp_path / "pdfs" / "book.pdf", PAGES)
    run = subprocess.Popen([sys.executable, "-m", "flows.cli.app", "run", "--pdfs", str(tmp_path / "pdfs"),
                            "--run-id", "big", "--criteria", "semantic_tagging"], env=_env(home),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    recorded = home / "artifacts/render/_staging/run=big/progress.json"
    try:
        deadline = time.monotonic() + 300
        while True:  # until the render stage has recorded pages of the one file, and not all of them
            assert run.poll() is None, f"the run ended first:\n{run.stderr.read() if run.stderr else ''}"
            assert time.monotonic() < deadline, "the render stage recorded no progress"
            try:
                if json.loads(recorded.read_text())["done"] > 0:
                    break
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.02)
        os.killpg(run.pid, signal.SIGSTOP)  # hold the run where it is while another shell looks
        try:
            listed = run_cli(["runs", "--format", "json"], env=_env(home))
            table = run_cli(["runs"], env=_env(home, COLUMNS="250"))
        finally:
            os.killpg(run.pid, signal.SIGCONT)
        assert listed.returncode == 0, listed.stderr
        (entry,) = json.loads(listed.stdout)
        assert entry["stages"]["render"] == "running"
        render = entry["progress"]["render"]
        assert render["unit"] == "pages" and render["total"] == PAGES
        assert 0 < render["done"] < PAGES  # inside the one document: counted by page, from its worker process
        assert f"running {render['done']}/{PAGES} pages" in table.stdout
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGTERM)  # resumable; what follows is not what this test checks
            try:
                run.wait(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(run.pid, signal.SIGKILL)
                run.wait()
