"""`accessbench run --artifacts s3://…` end to end against moto's S3 server: same results as a local home,
stages reused by a second run, credentials written nowhere, unusable S3 one clear error."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.cli_process import run_cli
from tests.inprocess import run_synthetic
from tests.s3_server import ACCESS_KEY, SECRET_KEY, new_bucket, objects, s3_env

pytestmark = pytest.mark.slow
# Two criteria keep each run short; every stage still runs.
RUN = ("run", "--base-docs", "1", "--criteria", "table_structure", "functional_hyperlinks")


@dataclass
class Runs:
    endpoint: str
    bucket: str
    s3_home: Path
    local_home: Path
    outputs: list[str] = field(default_factory=list)  # every stdout and stderr the CLI printed

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/bench"

    def cli(self, home: Path, *args: str, check: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
        full = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PREFECT_HOME"))}
        full.update(s3_env(self.endpoint), ACCESSBENCH_HOME=str(home), **env)
        result = run_cli(args, env=full, cwd=home.parent)
        self.outputs += [result.stdout, result.stderr]
        if check and result.returncode != 0:
            raise AssertionError(f"accessbench {' '.join(args)} exited {result.returncode}:\n{result.stderr[-3000:]}")
        return result

    def sql(self, home: Path, query: str) -> list[dict[str, object]]:
        return json.loads(self.cli(home, "sql", query, "--format", "json").stdout)

    def sql_many(self, home: Path, queries: list[str]) -> list[list[dict[str, object]]]:
        """The rows of each query, all read by one `accessbench sql` command (one process, not one each)."""
        union = " union all ".join(f"select {i} as q, to_json(t)::varchar as r from ({query}) t"
                                   for i, query in enumerate(queries))
        found: list[list[dict[str, object]]] = [[] for _ in queries]
        for row in self.sql(home, union):
            found[int(str(row["q"]))].append(json.loads(str(row["r"])))
        return found


@pytest.fixture(scope="module")
def runs(s3_endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Run r1 once with S3 artifacts (the CLI) and once in a plain local home (the same pipeline, in-process)."""
    root = tmp_path_factory.mktemp("s3-cli")
    found = Runs(s3_endpoint, new_bucket(s3_endpoint), root / "s3-home", root / "local-home")
    found.cli(found.s3_home, "--artifacts", found.url, *RUN, "--run-id", "r1")
    run_synthetic(found.local_home, "r1", RUN[-2:])  # the reference the S3 home must read like
    return found


def _digest(rows: list[dict[str, object]]) -> str:
    return hashlib.sha256(json.dumps(sorted(rows, key=json.dumps), sort_keys=True).encode()).hexdigest()


def test_s3_run_stores_tables_in_the_bucket_and_reads_like_a_local_home(runs: Runs) -> None:
    keys = set(objects(runs.endpoint, runs.bucket))
    for key in ("aggregate/run=r1/doc_labels.parquet", "judge/run=r1/judgments.parquet",
                "extract/run=r1/struct_elements.parquet", "_state/runs/run=r1/run.parquet",
                "_state/stage_runs/run=r1/metrics.parquet"):
        assert f"bench/{key}" in keys
    assert not list(runs.s3_home.rglob("*.parquet"))  # tables live in the bucket only
    assert not [key for key in keys if "prefect" in key.lower()]  # Prefect's state stays local

    queries = ["select * exclude (run_id) from doc_labels",
               "select doc_id, criterion, page, label, issues from judgments",
               "select doc_id, criterion, expected_label from documents",
               "select * from accuracy_by_criterion"]
    s3_results, local_results = runs.sql_many(runs.s3_home, queries), runs.sql_many(runs.local_home, queries)
    for query, s3_rows, local_rows in zip(queries, s3_results, local_results, strict=True):
        assert s3_rows and _digest(s3_rows) == _digest(local_rows), query

    assert "r1" in runs.cli(runs.s3_home, "runs").stdout
    s3_report = runs.cli(runs.s3_home, "report", "--run", "r1").stdout
    assert "table_structure" in s3_report and "functional_hyperlinks" in s3_report
    assert s3_report == runs.cli(runs.local_home, "report", "--run", "r1").stdout


def test_second_run_reuses_every_stage_from_s3(runs: Runs) -> None:
    before = objects(runs.endpoint, runs.bucket)
    result = runs.cli(runs.s3_home, *RUN, "--run-id", "r2")  # the binding is remembered: no --artifacts
    assert "judge: reused identical outputs of run r1" in result.stderr
    labels = "select doc_id, criterion, label from doc_labels where run_id = '{}'"
    stages, r2_labels, r1_labels = runs.sql_many(runs.s3_home, [
        "select stage, status from stage_runs where run_id = 'r2'", labels.format("r2"), labels.format("r1")])
    states = {row["stage"]: row["status"] for row in stages}
    assert {stage for stage, status in states.items() if status != "reused"} <= {"corpus"}
    after = objects(runs.endpoint, runs.bucket)
    assert {k: v for k, v in after.items() if "run=r1" in k} == {k: v for k, v in before.items() if "run=r1" in k}
    assert r2_labels and _digest(r2_labels) == _digest(r1_labels)

    # The same run id resumes: nothing is recomputed.
    again = runs.cli(runs.s3_home, *RUN, "--run-id", "r2")
    assert "judge: skipped (inputs and config unchanged)" in again.stderr


def test_rerun_of_one_stage_rewrites_only_it_on_s3(runs: Runs) -> None:
    started = "select stage, cast(started as varchar) as started from stage_runs where run_id = 'r1'"
    before = {row["stage"]: row["started"] for row in runs.sql(runs.s3_home, started)}
    objects_before = objects(runs.endpoint, runs.bucket)
    runs.cli(runs.s3_home, "rerun", "--run", "r1", "--stage", "judge")
    after = {row["stage"]: row["started"] for row in runs.sql(runs.s3_home, started)}
    assert {stage for stage in before if after[stage] != before[stage]} == {"judge"}
    unchanged = "bench/extract/run=r1/struct_elements.parquet"
    assert objects(runs.endpoint, runs.bucket)[unchanged] == objects_before[unchanged]


def test_credentials_are_written_nowhere(runs: Runs) -> None:
    secrets = [SECRET_KEY, ACCESS_KEY]
    for key, blob in objects(runs.endpoint, runs.bucket).items():
        text = str(pq.read_table(io.BytesIO(blob)).to_pylist()) if key.endswith(".parquet") else ""
        assert not any(s in text or s.encode() in blob for s in secrets), key
    for path in runs.s3_home.rglob("*"):
        if path.is_file():
            assert not any(s.encode() in path.read_bytes() for s in secrets), path
    assert not any(s in output for s in secrets for output in runs.outputs)
    assert json.loads((runs.s3_home / "artifacts.json").read_text()) == {"url": runs.url}


def test_unusable_s3_is_one_line_before_any_work(tmp_path: Path, s3_endpoint: str) -> None:
    runs = Runs(s3_endpoint, "no-such-bucket", tmp_path / "home", tmp_path / "unused")
    result = runs.cli(runs.s3_home, "--artifacts", runs.url, *RUN, check=False)
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and "Traceback" not in result.stderr
    assert "bucket 'no-such-bucket' does not exist" in result.stderr
    assert not (runs.s3_home / "prefect").exists()  # refused before Prefect started

    result = runs.cli(runs.s3_home, "--artifacts", runs.url, "runs", check=False, AWS_ENDPOINT_URL="http://127.0.0.1:9")
    assert result.returncode == 1 and "S3 access check failed" in result.stderr and "Traceback" not in result.stderr
