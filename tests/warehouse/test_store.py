"""Artifact store: atomic writes, schema refusal, staging parts, run state."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pytest

from warehouse.schema import SchemaError, conform
from warehouse.store import ArtifactStore, StageRun, ipc_digest, now

SCHEMA = pa.schema([pa.field("run_id", pa.string(), nullable=False), pa.field("doc_id", pa.string(), nullable=False),
                    pa.field("score", pa.float64())])


def test_write_and_read_round_trip(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    n = store.write_table("extract", "r1", "things", [{"run_id": "r1", "doc_id": "a", "score": 1.5}], SCHEMA)
    assert n == 1
    assert store.read_rows("extract", "r1", "things") == [{"run_id": "r1", "doc_id": "a", "score": 1.5}]
    assert store.table_path("extract", "r1", "things") == tmp_path / "artifacts/extract/run=r1/things.parquet"
    # no temporary files left behind
    assert [p.name for p in (tmp_path / "artifacts/extract/run=r1").iterdir()] == ["things.parquet"]


def test_rows_that_do_not_fit_are_refused_naming_the_column() -> None:
    with pytest.raises(SchemaError, match="'score'"):
        conform([{"run_id": "r", "doc_id": "a", "score": "high"}], SCHEMA, "things")
    with pytest.raises(SchemaError, match="'doc_id' is required"):
        conform([{"run_id": "r", "doc_id": None}], SCHEMA, "things")
    with pytest.raises(SchemaError, match="colour"):
        conform([{"run_id": "r", "doc_id": "a", "colour": "red"}], SCHEMA, "things")


def test_failed_write_keeps_the_previous_table(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    store.write_table("s", "r", "t", [{"run_id": "r", "doc_id": "old"}], SCHEMA)
    with pytest.raises(SchemaError):
        store.write_table("s", "r", "t", [{"run_id": "r", "doc_id": 3.5j}], SCHEMA)
    assert store.read_rows("s", "r", "t")[0]["doc_id"] == "old"


def test_staging_resumes_only_done_keys_and_resets_on_new_inputs(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    staging = store.staging("extract", "r", "hash-1")
    staging.put("a", {"t": conform([{"run_id": "r", "doc_id": "a"}], SCHEMA, "t")})
    again = store.staging("extract", "r", "hash-1")
    assert again.done("a") and not again.done("b")
    again.put("b", {"t": conform([{"run_id": "r", "doc_id": "b"}], SCHEMA, "t")})
    assert again.collect("t", ["b", "a"], SCHEMA).column("doc_id").to_pylist() == ["b", "a"]
    fresh = store.staging("extract", "r", "hash-2")
    assert not fresh.done("a")


def test_fingerprint_ignores_run_id(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    for run in ("r1", "r2"):
        store.write_table("s", run, "t", [{"run_id": run, "doc_id": "a"}], SCHEMA)
    store.write_table("s", "r3", "t", [{"run_id": "r3", "doc_id": "b"}], SCHEMA)
    assert store.fingerprint("s", "r1") == store.fingerprint("s", "r2") != store.fingerprint("s", "r3")


def _stream_digest(table: pa.Table) -> bytes:
    """The plain path: the whole IPC stream in memory, then hashed."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return hashlib.sha256(sink.getvalue().to_pybytes()).digest()


def test_a_table_is_fingerprinted_as_its_stream_is_written_with_the_digest_of_the_whole_stream(tmp_path: Path
                                                                                                 ) -> None:
    nested = pa.table({"doc_id": ["a", "b", None], "pages": [[1, 2], [], None], "box": [{"x": 1.0}, None, {"x": 2.5}],
                       "text": ["é" * 3000, "", "x"]})
    chunked = pa.concat_tables([nested, nested.slice(1), nested])  # several record batches, one sliced
    empty = nested.schema.empty_table()
    for table in (nested, chunked, empty):
        assert ipc_digest(table) == _stream_digest(table)
    store = ArtifactStore(tmp_path)
    store.write_table("s", "r1", "t", [{"run_id": "r1", "doc_id": f"d{i}", "score": i / 3} for i in range(5000)],
                      SCHEMA)
    store.write_table("s", "r1", "u", [], SCHEMA)
    plain = hashlib.sha256()
    for name in ("t", "u"):
        table = store.read_table("s", "r1", name)
        assert table is not None
        plain.update(f"{name}.parquet".encode())
        plain.update(_stream_digest(table.drop(["run_id"])))
    assert store.fingerprint("s", "r1") == plain.hexdigest()


def test_stage_state_round_trip(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    store.record_stage(StageRun("r", "corpus", "completed", now(), now(), "h", "{}", 3, 0))
    assert store.get_stage_run("r", "corpus").status == "completed"
    assert store.completed_with_hash("corpus", "h") is None  # no outputs on disk: nothing to reuse
    store.write_table("corpus", "r", "t", [{"run_id": "r", "doc_id": "a"}], SCHEMA)
    assert store.completed_with_hash("corpus", "h").run_id == "r"


def test_text_no_utf8_can_hold_is_stored_escaped_not_refused() -> None:
    import pyarrow as pa

    from warehouse.schema import conform

    schema = pa.schema([pa.field("name", pa.string()), pa.field("names", pa.list_(pa.string()))])
    table = conform([{"name": "caf\udce9.pdf", "names": ["ok", "\ud800 lone"]}, {"name": "x\x00y" + "z" * 100_000}],
                    schema, "t")
    assert table.column("name")[0].as_py() == "caf\\udce9.pdf"
    assert table.column("names")[0].as_py() == ["ok", "\\ud800 lone"]
    assert len(table.column("name")[1].as_py()) == 100_003


def test_a_run_whose_process_is_gone_reads_interrupted(tmp_path: Path) -> None:
    import socket
    import subprocess

    from warehouse.store import ArtifactStore

    gone = subprocess.Popen(["true"])
    gone.wait()
    store = ArtifactStore(tmp_path)
    store.record_run({"run_id": "killed", "status": "running", "owner": f"{socket.gethostname()}:{gone.pid}"})
    store.record_run({"run_id": "alive", "status": "running"})  # this process owns it
    store.record_run({"run_id": "elsewhere", "status": "running", "owner": "another-host:1"})
    status = {r["run_id"]: r["status"] for r in store.runs()}
    assert status == {"killed": "interrupted", "alive": "running", "elsewhere": "running"}


def test_staging_parts_of_another_format_are_dropped_not_misread(tmp_path: Path) -> None:
    import pyarrow as pa

    from warehouse.store import Staging

    schema = pa.schema([pa.field("doc_id", pa.string())])
    root = tmp_path / "artifacts/extract/_staging/run=r"
    first = Staging(root, "h1", tmp_path)
    first.put("a", {"things": pa.table({"doc_id": ["a"]})})
    assert Staging(root, "h1", tmp_path).collect("things", ["a"], schema).to_pylist() == [{"doc_id": "a"}]  # from disk
    (root / "input_hash").write_text("h1")  # a stamp written by an older AccessBench (Parquet parts)
    again = Staging(root, "h1", tmp_path)
    assert not again.done("a") and again.collect("things", ["a"], schema).num_rows == 0


@pytest.mark.heavy
def test_a_table_replaced_while_it_is_read_is_read_whole(tmp_path: Path) -> None:
    """Runs sharing a home read each other's run state while it is rewritten (renamed into place). Read by
    path, pyarrow took one file's size and the other's bytes ("Page was smaller than expected") and a run
    failed; through one open file the reader sees the old table or the new one, whole."""
    import threading

    from warehouse.artifact_roots import LocalRoot

    root = LocalRoot(tmp_path)
    small = pa.table({"x": ["a"]})
    large = pa.table({"x": [f"value {n}" for n in range(2000)]})
    root.write("_state/t.parquet", small)
    stop = threading.Event()

    def replace() -> None:
        while not stop.is_set():
            for table in (large, small):
                root.write("_state/t.parquet", table)

    writer = threading.Thread(target=replace)
    writer.start()
    try:
        seen = {root.read("_state/t.parquet").num_rows for _ in range(1500)}  # type: ignore[union-attr]
        schemas = {root.read_schema("_state/t.parquet").names[0] for _ in range(300)}
    finally:
        stop.set()
        writer.join()
    assert seen <= {1, 2000} and schemas == {"x"}


def test_a_part_holds_every_table_of_its_key_and_a_retried_key_replaces_its_part(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    staging = store.staging("extract", "r", "h")
    rows = {"t": conform([{"run_id": "r", "doc_id": "a"}, {"run_id": "r", "doc_id": "a2"}], SCHEMA, "t"),
            "u": conform([], SCHEMA, "u"), "v": conform([{"run_id": "r", "doc_id": "va"}], SCHEMA, "v")}
    staging.put("a", rows)
    staging.put("b", {"t": conform([{"run_id": "r", "doc_id": "b-first"}], SCHEMA, "t")}, done=False)
    root = tmp_path / "artifacts/extract/_staging/run=r"
    assert len(list((root / "_done").iterdir())) == 1 and len(list((root / "_retry").iterdir())) == 1
    again = store.staging("extract", "r", "h")  # a resumed attempt reads the parts back from disk
    assert again.done("a") and not again.done("b") and again.pending == ["b"] and store.retries_pending("extract", "r")
    assert again.collect("t", ["b", "a"], SCHEMA).column("doc_id").to_pylist() == ["b-first", "a", "a2"]
    assert again.collect("u", ["a", "b"], SCHEMA).num_rows == 0
    assert again.collect("v", ["a", "b"], SCHEMA).column("doc_id").to_pylist() == ["va"]
    again.put("b", {"t": conform([{"run_id": "r", "doc_id": "b-retried"}], SCHEMA, "t")})
    assert again.pending == [] and not store.retries_pending("extract", "r")
    third = store.staging("extract", "r", "h")
    assert third.done("b") and third.collect("t", ["a", "b"], SCHEMA).column("doc_id").to_pylist() == \
        ["a", "a2", "b-retried"]
