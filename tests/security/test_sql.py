"""`accessbench sql` is bounded: a time limit (the query is interrupted), a memory limit, SIGTERM ends it at once,
and terminal control characters in what it prints are shown escaped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from common.text import visible
from flows.cli.app import format_rows, main
from tests.load import allowance
from warehouse.catalog import QueryLimitError, query
from warehouse.tables import ALL_TABLES

REPO = Path(__file__).resolve().parents[2]
ENDLESS = "select sum(a.range * b.range) from range(1000000) a, range(1000000) b"  # 10^12 rows: hours


@pytest.mark.heavy
def test_a_query_past_its_time_limit_is_interrupted(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(QueryLimitError, match="ran past the 0.5 s limit"):
        query(tmp_path, ALL_TABLES, ENDLESS, timeout_s=0.5)
    assert time.monotonic() - started < 120  # interrupted, not run to the end (hours)
    assert query(tmp_path, ALL_TABLES, "select 41 + 1 as answer", timeout_s=30) == (["answer"], [(42,)])


def test_a_query_over_its_memory_limit_is_refused(tmp_path: Path) -> None:
    hungry = "select count(distinct (range::varchar || repeat('x', 40))) from range(100000000)"
    with pytest.raises(QueryLimitError, match="64 MiB memory limit"):
        query(tmp_path, ALL_TABLES, hungry, timeout_s=120, memory_mb=64)


def test_the_memory_limit_cannot_be_raised_from_the_query(tmp_path: Path) -> None:
    from warehouse.catalog import ReadOnlyError

    with pytest.raises(ReadOnlyError):
        query(tmp_path, ALL_TABLES, "set memory_limit = '100GB'", memory_mb=64)


def test_the_cli_reports_the_time_limit_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(tmp_path), "sql", ENDLESS, "--timeout", "0.5"]) != 0
    err = capsys.readouterr().err.strip()
    assert "--timeout" in err and len(err.splitlines()) == 1


def test_terminal_controls_in_printed_text_are_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = "select chr(27) || ']0;owned' || chr(7) || chr(27) || '[2J' || chr(13) || chr(155) || 'ok' || chr(10) " \
              "|| 'next' || chr(9) || 'tab' || chr(8238) as title"
    assert main(["--home", str(tmp_path), "sql", hostile]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out and "\x9b" not in out and "\u202e" not in out
    assert "\\x1b]0;owned\\x07\\x1b[2J\\x0d\\x9bok" in out and "\\u202e" in out
    assert visible("line\nnext\ttab") == "line\nnext\ttab"  # layout characters stay
    csv_text = format_rows(["t"], [("\x1b[31m",)], "csv", escape=True)
    assert "\x1b" not in csv_text and "\\x1b[31m" in csv_text
    assert "\x1b" not in format_rows(["t"], [("\x1b[31m",)], "json")  # JSON escapes it as \u001b


@pytest.mark.heavy
def test_sigterm_stops_a_running_query_within_seconds(tmp_path: Path) -> None:
    env = {**os.environ, "ACCESSBENCH_HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "flows.cli.app", "sql", ENDLESS, "--timeout", "600"], cwd=REPO,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Wait until the query runs: the main thread waits (sleeping) while another thread computes, seen
        # three times in a row (imports keep the main thread itself running).
        deadline, seen = time.monotonic() + 120, 0
        while time.monotonic() < deadline and proc.poll() is None and seen < 3:
            seen = seen + 1 if _querying(proc.pid) else 0
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=allowance(15))
        assert time.monotonic() - sent < allowance(15)  # 15 s at normal load (tests/load.py)
        assert proc.returncode != 0 and "interrupted" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _state(pid: int, task: int) -> str:
    try:
        return Path(f"/proc/{pid}/task/{task}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "?"


def _querying(pid: int) -> bool:
    """Whether `pid`'s main thread sleeps while one of its other threads runs (DuckDB executing the query)."""
    others = [int(task) for task in os.listdir(f"/proc/{pid}/task") if int(task) != pid]
    return _state(pid, pid) == "S" and any(_state(pid, task) == "R" for task in others)
