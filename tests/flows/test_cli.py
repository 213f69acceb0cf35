"""The `accessbench` command end to end, through Prefect, as a user runs it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import duckdb
import pytest

from judges.criteria import CRITERIA
from tests.cli_process import run_cli
from tests.flows.prefect_server import api

pytestmark = pytest.mark.slow


def cli(home: Path, *args: str, check: bool = True, cwd: Path | None = None,
        own_prefect: bool = False) -> subprocess.CompletedProcess[str]:
    """The CLI on the session's Prefect server (tests/prefect_env.py), or with `own_prefect` on the data
    home's own Prefect database, as a user's command without PREFECT_API_URL runs."""
    env = {**os.environ, "ACCESSBENCH_HOME": str(home)}
    if own_prefect:
        env.pop("PREFECT_API_URL", None)
    env.pop("PREFECT_HOME", None)
    result = run_cli(args, env=env, cwd=cwd)
    if check and result.returncode != 0:
        raise AssertionError(f"accessbench {' '.join(args)} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return result


def sql(home: Path, query: str) -> list[dict[str, object]]:
    return json.loads(cli(home, "sql", query, "--format", "json").stdout)


def test_default_run_then_sql_report_runs_and_rerun(tmp_path: Path) -> None:
    # On the session's Prefect server (a throwaway server per command costs ~7 s of CPU): that a run's
    # Prefect database lives in its data home is tested with the persistent server (test_server.py) and
    # the throwaway one (test_signals.py).
    home = tmp_path / "home"
    result = cli(home, "run", "--run-id", "demo", "--base-docs", "1", cwd=tmp_path)
    assert "accuracy" in result.stdout
    labels = sql(home, "select criterion, label, count(*) as n from doc_labels group by all")
    assert {row["criterion"] for row in labels} == set(CRITERIA)  # the default: every criterion
    assert {row["label"] for row in labels} >= {"passed", "failed", "not_present", "cannot_tell"}
    # Nothing lands in the working directory.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
    # The run ends by saying where its HTML report is and what to run next.
    assert f"report: {home / 'reports' / 'demo.html'}" in result.stderr and "accessbench sql" in result.stderr
    assert "<table" in (home / "reports" / "demo.html").read_text(encoding="utf-8")
    scored = sql(home, "select (select count(*) from remediation_scores where run_id='demo') as scored, "
                       "(select count(*) from judgments where run_id='demo' and label='failed') as failed")
    assert scored[0]["scored"] == scored[0]["failed"] > 0  # every Failed judgment has its remediation scored
    # The summary is a Prefect artifact of the flow run.
    url = os.environ["PREFECT_API_URL"]
    artifacts = api(url, "/artifacts/filter", {"artifacts": {"key": {"any_": ["accessbench-demo"]}}})
    [artifact] = [a for a in artifacts if a["flow_run_id"]
                  and api(url, f"/flow_runs/{a['flow_run_id']}")["name"] == "demo"]
    assert "Leaderboard" in artifact["data"] and "rules" in artifact["data"]
    # Outside tools see every table of the run in warehouse.duckdb, whose views the run writes once, at its end.
    with closing(duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)) as con:
        in_file = con.execute("select count(*) from doc_labels where run_id = 'demo'").fetchone()
    assert in_file is not None and in_file[0] == sum(int(r["n"]) for r in labels)

    assert "demo" in cli(home, "runs").stdout
    report = cli(home, "report", "--run", "demo").stdout
    assert "confusion" not in report.lower() or "expected" in report
    assert "semantic_tagging" in report

    extract = home / "artifacts/extract/run=demo/struct_elements.parquet"
    judge = home / "artifacts/judge/run=demo/judgments.parquet"
    doc_labels = home / "artifacts/aggregate/run=demo/doc_labels.parquet"
    before = {p: p.stat().st_mtime_ns for p in (extract, judge, doc_labels)}
    cli(home, "rerun", "--run", "demo", "--stage", "judge")
    assert extract.stat().st_mtime_ns == before[extract]
    assert judge.stat().st_mtime_ns != before[judge]
    assert doc_labels.stat().st_mtime_ns == before[doc_labels]  # not downstream unless asked
    cli(home, "rerun", "--run", "demo", "--stage", "judge", "--downstream")
    assert doc_labels.stat().st_mtime_ns != before[doc_labels]
    assert extract.stat().st_mtime_ns == before[extract]
    assert len(sql(home, "select * from doc_labels where run_id='demo'")) == sum(int(r["n"]) for r in labels)


def test_sql_refuses_writes_with_a_clear_message(tmp_path: Path) -> None:
    result = cli(tmp_path, "sql", "drop view documents", check=False)
    assert result.returncode == 2
    assert "read-only" in result.stderr


def test_unknown_run_and_missing_dataset_are_clear_errors(tmp_path: Path) -> None:
    result = cli(tmp_path, "rerun", "--run", "nope", "--stage", "judge", check=False)
    assert result.returncode == 3 and "accessbench runs" in result.stderr
    result = cli(tmp_path, "run", "--dataset", str(tmp_path / "missing"), check=False)
    assert result.returncode == 3 and "no such folder" in result.stderr  # not "has no data/dataset.json"
    (tmp_path / "empty").mkdir()
    result = cli(tmp_path, "run", "--dataset", str(tmp_path / "empty"), check=False)
    assert result.returncode == 3 and "dataset.json" in result.stderr


def test_killed_run_is_completed_by_rerun_without_duplicates(tmp_path: Path, synthetic_dataset: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "ACCESSBENCH_HOME": str(home)}
    # A high DPI makes rendering slow enough to kill the process in the middle of the stage. Three criteria
    # whose documents use every per-document stage: 11 of the 25 documents.
    proc = subprocess.Popen([sys.executable, "-m", "flows.cli.app", "run", "--dataset", str(synthetic_dataset),
                             "--run-id", "k", "--dpi", "200", "--criteria", "alt_text_quality", "table_structure",
                             "color_contrast"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    done = home / "artifacts/render/_staging/run=k/_done"
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            if done.exists() and len(list(done.iterdir())) >= 3:
                break
            if proc.poll() is not None:
                pytest.fail("the run finished before it could be killed")
            time.sleep(0.02)
        else:
            pytest.fail("render stage never started")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    partial = len(list(done.iterdir()))
    assert not (home / "artifacts/render/run=k/pages.parquet").exists()  # no half table was published
    cli(home, "rerun", "--run", "k", "--stage", "render", "--downstream")
    pages = sql(home, "select doc_id, page from pages where run_id='k'")
    assert len(pages) == len({(r["doc_id"], r["page"]) for r in pages})  # no duplicates
    expected = sql(home, "select sum(pages) as n from documents where run_id='k' and error is null")[0]["n"]
    assert len(pages) == expected  # nothing missing
    assert partial < len(sql(home, "select doc_id from documents where run_id='k'"))
    status = {r["stage"]: r["status"] for r in sql(home, "select stage, status from stage_runs where run_id='k'")}
    assert status["render"] == "completed" and status["metrics"] == "completed"


def test_dev_benchmark_two_criteria(tmp_path: Path, dev_benchmark: Path) -> None:
    home = tmp_path / "home"
    # Two criteria of the upstream layout with the fewest pages (36 of 232): 24 documents.
    cli(home, "run", "--dataset", str(dev_benchmark), "--criteria", "semantic_tagging", "alt_text_quality",
        "--run-id", "dev")
    rows = sql(home, "select criterion, label, count(*) as n from doc_labels group by all")
    assert sum(int(r["n"]) for r in rows) == 24
    acc = sql(home, "select criterion, accuracy from accuracy_by_criterion where run_id='dev'")
    assert {r["criterion"] for r in acc} == {"semantic_tagging", "alt_text_quality"}
