"""Artifacts on S3: the store, the SQL sandbox and home bindings against moto's S3 server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flows.cli.app import EXIT_FAILED, main
from tests.s3_server import ACCESS_KEY, SECRET_KEY, new_bucket, objects, s3_env
from warehouse import catalog
from warehouse.artifact_roots import ArtifactRootError, S3Root, parse_s3_url
from warehouse.catalog import ReadOnlyError, TableSpec
from warehouse.home import BINDING_FILE, artifact_url, bind_artifacts
from warehouse.store import ArtifactStore, StageRun, now

LABELS = pa.schema([pa.field("run_id", pa.string(), nullable=False), pa.field("doc_id", pa.string()),
                    pa.field("label", pa.string())])
TABLES = [TableSpec("doc_labels", "aggregate", LABELS)]
ROWS = [{"run_id": "r1", "doc_id": "a", "label": "failed"}, {"run_id": "r1", "doc_id": "b", "label": "passed"}]


@pytest.fixture()
def aws(monkeypatch: pytest.MonkeyPatch, s3_endpoint: str) -> str:
    """Credentials and endpoint in the environment, as a user sets them; returns the endpoint."""
    for name in ("AWS_ENDPOINT_URL_S3", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_REGION",
                 "ACCESSBENCH_ARTIFACTS", "ACCESSBENCH_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in s3_env(s3_endpoint).items():
        monkeypatch.setenv(name, value)
    return s3_endpoint


def _s3_home(tmp_path: Path, endpoint: str) -> tuple[Path, str]:
    bucket = new_bucket(endpoint)
    home = tmp_path / "home"
    bind_artifacts(home, f"s3://{bucket}/bench/team-a")
    return home, bucket


def _secret_free(blob: bytes) -> bool:
    return SECRET_KEY.encode() not in blob and ACCESS_KEY.encode() not in blob


def test_store_tables_and_run_state_live_under_the_prefix(tmp_path: Path, aws: str) -> None:
    home, bucket = _s3_home(tmp_path, aws)
    store = ArtifactStore(home)
    assert store.remote
    assert store.write_table("aggregate", "r1", "doc_labels", ROWS, LABELS) == 2
    store.write_table("aggregate", "r1", "stale", ROWS, LABELS)
    store.drop_tables_except("aggregate", "r1", {"doc_labels"})
    store.record_run({"run_id": "r1", "created": now(), "source": "synthetic", "status": "completed", "config": "{}"})
    store.record_stage(StageRun(run_id="r1", stage="aggregate", status="completed", input_hash="h1"))

    assert store.read_rows("aggregate", "r1", "doc_labels") == ROWS
    assert store.read_table("aggregate", "r9", "doc_labels") is None
    assert [r["run_id"] for r in store.runs()] == ["r1"]
    assert store.get_stage_run("r1", "aggregate").input_hash == "h1"  # type: ignore[union-attr]
    assert store.completed_with_hash("aggregate", "h1") is not None
    assert store.has_outputs("aggregate", "r1") and not store.has_outputs("aggregate", "r2")

    # Reuse for identical inputs: the copy carries the new run id and fingerprints the same.
    store.copy_outputs("aggregate", "r1", "r2")
    assert {r["run_id"] for r in store.read_rows("aggregate", "r2", "doc_labels")} == {"r2"}
    assert store.fingerprint("aggregate", "r2") == store.fingerprint("aggregate", "r1")
    local = ArtifactStore(tmp_path / "local")
    local.write_table("aggregate", "r1", "doc_labels", ROWS, LABELS)
    assert local.fingerprint("aggregate", "r1") == store.fingerprint("aggregate", "r1")  # same digest as a local home

    stored = objects(aws, bucket)
    assert sorted(stored) == [
        "bench/team-a/_state/runs/run=r1/run.parquet",
        "bench/team-a/_state/stage_runs/run=r1/aggregate.parquet",
        "bench/team-a/aggregate/run=r1/doc_labels.parquet",
        "bench/team-a/aggregate/run=r2/doc_labels.parquet",
    ]
    assert all(_secret_free(blob) for blob in stored.values())
    assert not list(home.rglob("*.parquet"))  # nothing of the tables in the local home
    assert json.loads((home / BINDING_FILE).read_text()) == {"url": f"s3://{bucket}/bench/team-a"}


def test_sql_reads_s3_tables_and_the_sandbox_still_refuses_files(tmp_path: Path, aws: str) -> None:
    home, bucket = _s3_home(tmp_path, aws)
    ArtifactStore(home).write_table("aggregate", "r1", "doc_labels", ROWS, LABELS)
    columns, rows = catalog.query(home, TABLES, "select doc_id, label from doc_labels order by doc_id")
    assert columns == ["doc_id", "label"] and rows == [("a", "failed"), ("b", "passed")]
    assert not (home / catalog.WAREHOUSE_FILE).exists() and catalog.refresh(home, TABLES)

    direct = f"s3://{bucket}/bench/team-a/aggregate/run=r1/doc_labels.parquet"
    attacks = [f"select * from read_parquet('{direct}')", f"select * from '{direct}'",
               "select * from read_text('/proc/self/environ')", "INSTALL httpfs", "LOAD httpfs",
               "SET s3_endpoint = '127.0.0.1'", "select current_setting('s3_secret_access_key')"]
    for attack in attacks:
        with pytest.raises((ReadOnlyError, duckdb.Error)):
            catalog.query(home, TABLES, attack)
    con = catalog.connect(home, TABLES)  # DuckDB itself, without the keyword check
    try:
        with pytest.raises(duckdb.Error):
            con.execute(f"select * from read_parquet('{direct}')").fetchall()
        assert con.execute("select count(*) from doc_labels").fetchone() == (2,)
    finally:
        con.close()


def test_queries_read_each_small_object_once_and_see_another_writer_at_once(
        tmp_path: Path, aws: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scan of a pyarrow dataset on S3 asks for its objects again: a report's dozens of queries made
    ~1,600 requests for a 25-document run. Small tables are read once per process and scanned in memory,
    and an object replaced by another process is read again at the next query."""
    from tests.s3_server import s3_client
    from warehouse import artifact_roots

    home, bucket = _s3_home(tmp_path, aws)
    store = ArtifactStore(home)
    store.write_table("aggregate", "r1", "doc_labels", ROWS, LABELS)
    old = pa.schema([pa.field("run_id", pa.string(), nullable=False), pa.field("doc_id", pa.string())])
    store.write_table("aggregate", "r0", "doc_labels", [{"run_id": "r0", "doc_id": "z"}], old)  # an older run
    reads: list[str] = []
    real_get = artifact_roots.S3Root._get
    monkeypatch.setattr(artifact_roots.S3Root, "_get", lambda self, key: reads.append(key) or real_get(self, key))

    query = "select run_id, doc_id, label from doc_labels order by all"
    expected = [("r0", "z", None), ("r1", "a", "failed"), ("r1", "b", "passed")]
    for _ in range(3):  # three connections (a report's parts), two scans each
        con = catalog.connect(home, TABLES)
        try:
            assert con.execute(query).fetchall() == expected  # the column the older run lacks reads as null
            assert con.execute("select count(*) from doc_labels where label = 'failed'").fetchone() == (1,)
        finally:
            con.close()
    assert sorted(reads) == ["aggregate/run=r0/doc_labels.parquet", "aggregate/run=r1/doc_labels.parquet"]

    # Another process replaces r1's table (a rerun): the next query lists a new size and reads it again.
    replaced = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist([{"run_id": "r1", "doc_id": "c", "label": "not_present"}] * 3,
                                        schema=LABELS), replaced)
    s3_client(aws).put_object(Bucket=bucket, Key="bench/team-a/aggregate/run=r1/doc_labels.parquet",  # type: ignore[attr-defined]
                              Body=replaced.getvalue().to_pybytes())
    assert catalog.query(home, TABLES, "select doc_id, count(*) from doc_labels group by all order by all")[1] == [
        ("c", 3), ("z", 1)]
    # This process's own write is never served from the old copy either.
    store.write_table("aggregate", "r0", "doc_labels", [{"run_id": "r0", "doc_id": "y"}], old)
    assert catalog.query(home, TABLES, "select doc_id from doc_labels where run_id = 'r0'")[1] == [("y",)]


def test_bindings_are_remembered_and_never_silently_changed(tmp_path: Path, aws: str) -> None:
    bucket = new_bucket(aws)
    home = tmp_path / "home"
    assert artifact_url(home) is None
    url = bind_artifacts(home, f"s3://{bucket}/p/")
    assert url == f"s3://{bucket}/p" and artifact_url(home) == url
    assert bind_artifacts(home, url) == url  # idempotent
    with pytest.raises(ArtifactRootError, match=f"keeps its artifacts in s3://{bucket}/p"):
        bind_artifacts(home, f"s3://{bucket}/other")
    local = tmp_path / "local"
    ArtifactStore(local).record_run({"run_id": "r1", "created": now(), "status": "completed"})
    with pytest.raises(ArtifactRootError, match="already holds runs"):
        bind_artifacts(local, url)


@pytest.mark.parametrize(("url", "message"), [
    ("http://bucket/x", "only s3://BUCKET/PREFIX"),
    ("s3://Bad_Bucket/x", "not a valid bucket name"),
    ("s3://bucket/a/../b", "prefix segment '..'"),
    ("s3://bucket/a//b", "prefix segment ''"),
    (f"s3://{ACCESS_KEY}:{SECRET_KEY}@bucket/x", "no credentials"),
])
def test_malformed_urls_say_what_is_wrong(url: str, message: str) -> None:
    with pytest.raises(ArtifactRootError, match=message) as caught:
        parse_s3_url(url)
    assert SECRET_KEY not in str(caught.value)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.heavy
def test_unusable_s3_is_one_clear_error(tmp_path: Path, aws: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ArtifactRootError, match="bucket 'missing-bucket' does not exist"):
        S3Root("s3://missing-bucket/x").check()
    bucket = new_bucket(aws)
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{_free_port()}")
    with pytest.raises(ArtifactRootError, match="S3 access check failed") as caught:
        S3Root(f"s3://{bucket}/x").check()
    assert _secret_free(str(caught.value).encode())
    monkeypatch.setenv("AWS_ENDPOINT_URL", "ftp://127.0.0.1")
    with pytest.raises(ArtifactRootError, match=r"use http\(s\)://HOST\[:PORT\]"):
        S3Root(f"s3://{bucket}/x")
    monkeypatch.setenv("AWS_ENDPOINT_URL", aws)
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    with pytest.raises(ArtifactRootError, match="no S3 credentials in the environment"):
        S3Root(f"s3://{bucket}/x")


def test_cli_errors_are_one_line_and_bind_nothing(tmp_path: Path, aws: str, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # main() points it into the home
    home = tmp_path / "home"
    assert main(["--home", str(home), "--artifacts", "s3://missing-bucket/x", "runs"]) == EXIT_FAILED
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err and "Traceback" not in err
    assert not (home / BINDING_FILE).exists()  # a typo in the URL does not stick to the home

    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{_free_port()}")
    assert main(["--home", str(home), "--artifacts", "s3://any-bucket/x", "runs"]) == EXIT_FAILED
    err = capsys.readouterr().err
    assert err.startswith("accessbench: error: S3 access check failed") and _secret_free(err.encode())


def test_server_commands_of_an_s3_home_need_no_s3(tmp_path: Path, aws: str, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The local Prefect server never reads the tables: a shell without the AWS variables, or with S3 down,
    can still ask about it and stop it."""
    home, _ = _s3_home(tmp_path, aws)
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{_free_port()}")  # nothing answers there
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    assert main(["--home", str(home), "server", "status"]) == 3  # not running: no S3 error
    assert main(["--home", str(home), "server", "stop"]) == 0
    assert "no local Prefect server" in capsys.readouterr().out
    assert main(["--home", str(home), "runs"]) == EXIT_FAILED  # the tables still need S3
    assert "AWS_SECRET_ACCESS_KEY" in capsys.readouterr().err


def test_cli_home_url_gets_a_local_home_of_its_own(tmp_path: Path, aws: str, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("ACCESSBENCH_HOME", str(tmp_path / "base"))
    bucket = new_bucket(aws)
    assert main(["--home", f"s3://{bucket}/p", "runs"]) == 0
    assert "no runs" in capsys.readouterr().out
    local = tmp_path / "base" / "s3" / bucket / "p"
    assert json.loads((local / BINDING_FILE).read_text()) == {"url": f"s3://{bucket}/p"}
    assert main(["--home", f"s3://{bucket}/p", "--artifacts", f"s3://{bucket}/q", "runs"]) == EXIT_FAILED
    assert "disagree" in capsys.readouterr().err


def test_review_decisions_are_stored_and_queried_on_s3(tmp_path: Path, aws: str) -> None:
    from datetime import UTC, datetime

    from warehouse.review import add_resolution, latest_resolutions
    from warehouse.tables import RESOLUTIONS_PATTERN, RESOLUTIONS_SCHEMA

    home, bucket = _s3_home(tmp_path, aws)
    store = ArtifactStore(home)
    decision = {"run_id": "r1", "item_id": "i1", "doc_id": "a", "criterion": "table_structure", "page": 1}
    first = add_resolution(store, {**decision, "label": "failed", "resolved_at": datetime(2026, 1, 1, tzinfo=UTC)})
    add_resolution(store, {**decision, "label": "passed", "resolved_at": datetime(2026, 1, 2, tzinfo=UTC)})
    assert first.startswith(f"s3://{bucket}/bench/team-a/review/run=r1/resolutions/")
    assert latest_resolutions(store, "r1")["i1"]["label"] == "passed"
    spec = TableSpec("review_resolutions", "review", RESOLUTIONS_SCHEMA, pattern=RESOLUTIONS_PATTERN)
    _, rows = catalog.query(home, [spec], "select label from review_resolutions order by resolved_at")
    assert rows == [("failed",), ("passed",)]
