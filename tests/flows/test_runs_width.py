"""`accessbench runs` fits the terminal and keeps whole run ids; `--format csv|json` hold every column."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from flows.cli.app import main
from tasks.audit.registry import AUDIT_STAGES
from tasks.benchmark.registry import STAGES
from warehouse.store import ArtifactStore, StageRun

BENCH, AUDIT = "20261203T144547-b581", "20261203T150000-a1b2"


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    store = ArtifactStore(home)
    for run_id, source, stages in ((BENCH, "dataset", STAGES), (AUDIT, "audit", AUDIT_STAGES)):
        store.record_run({"run_id": run_id, "created": datetime(2026, 12, 3, tzinfo=UTC), "source": source,
                          "judge": "hybrid:rules+llm", "config": "{}", "status": "completed", "criteria": []})
        for stage in stages:
            store.record_stage(StageRun(run_id=run_id, stage=stage,
                                        status="failed" if stage == "judge" else "completed"))
    return home


def _runs(home: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert main(["--home", str(home), "runs", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("columns", [80, 100])
def test_runs_keeps_whole_run_ids_in_a_narrow_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch, columns: int) -> None:
    home = _home(tmp_path)
    monkeypatch.setenv("COLUMNS", str(columns))
    out = _runs(home, capsys)
    assert max(len(line) for line in out.splitlines()) <= columns
    assert BENCH in out and AUDIT in out  # whole, on one line each
    assert "…" not in out
    # The stages folded into one column (words kept whole, over lines), the failure still named.
    stages = " ".join(line.split("│")[-2].strip() for line in out.splitlines() if line.count("│") > 2)
    assert "failed: judge" in " ".join(stages.split())
    assert "hybrid:rules+llm" in out  # no word broken to make room


def test_runs_uses_a_wide_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    out = _runs(_home(tmp_path), capsys)
    assert "audit_metrics" in out and "category_judgments" in out and "…" not in out  # a column per stage


def test_runs_csv_and_json_hold_every_column(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    home = _home(tmp_path)
    monkeypatch.setenv("COLUMNS", "40")  # machine-readable output ignores the terminal's width
    text = _runs(home, capsys, "--format", "csv")
    assert "\r" not in text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["run_id"] for r in rows] == [BENCH, AUDIT]
    assert set(rows[0]) == {"run_id", "created", "source", "judge", "status",
                            *(f"stage:{s}" for s in [*STAGES, *AUDIT_STAGES])}
    assert rows[0]["judge"] == "hybrid:rules+llm" and rows[0]["stage:judge"] == "failed"
    assert rows[1]["stage:audit_metrics"] == "completed" and rows[1]["stage:render"] == ""
    data = json.loads(_runs(home, capsys, "--format", "json"))
    assert [r["run_id"] for r in data] == [BENCH, AUDIT]
    assert data[0]["created"] == "2026-12-03T00:00:00+00:00" and data[0]["judge"] == "hybrid:rules+llm"
    assert data[0]["stages"]["judge"] == "failed" and data[1]["stages"]["questions"] == "completed"
    assert set(data[0]["stages"]) == {*STAGES, *AUDIT_STAGES}


def test_rules_table_fits_the_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    capsys.readouterr()
    assert main(["--home", str(tmp_path), "rules"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 120
    assert "alt_text_quality.clarity.file_name" in out and "…" not in out
