"""DuckDB catalog: views over Parquet across runs, read-only queries, no lock crashes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from warehouse import catalog
from warehouse.catalog import ReadOnlyError, TableSpec
from warehouse.store import ArtifactStore

SCHEMA = pa.schema([pa.field("run_id", pa.string(), nullable=False), pa.field("doc_id", pa.string())])
TABLES = [TableSpec("things", "extract", SCHEMA), TableSpec("later", "judge", SCHEMA)]


def test_views_span_runs_and_missing_tables_are_empty(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    for run in ("r1", "r2"):
        store.write_table("extract", run, "things", [{"run_id": run, "doc_id": "a"}], SCHEMA)
    cols, rows = catalog.query(tmp_path, TABLES, "select run_id, count(*) from things group by all order by 1")
    assert rows == [("r1", 1), ("r2", 1)]
    cols, rows = catalog.query(tmp_path, TABLES, "select * from later")
    assert cols == ["run_id", "doc_id"] and rows == []


@pytest.mark.parametrize("statement", [
    "insert into things values ('x', 'y')", "create table t (a int)", "drop view things",
    "copy (select 1) to 'out.csv'", "attach 'other.db'", "select 1; delete from things",
])
def test_writes_are_refused(tmp_path: Path, statement: str) -> None:
    with pytest.raises(ReadOnlyError, match="read-only"):
        catalog.query(tmp_path, TABLES, statement)


def test_query_works_while_another_process_holds_the_warehouse_file(tmp_path: Path) -> None:
    ArtifactStore(tmp_path).write_table("extract", "r", "things", [{"run_id": "r", "doc_id": "a"}], SCHEMA)
    assert catalog.refresh(tmp_path, TABLES)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb,sys,time; c=duckdb.connect(sys.argv[1]); print('ok', flush=True); "
         "time.sleep(30)", str(tmp_path / catalog.WAREHOUSE_FILE)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ok"
        with pytest.raises(duckdb.IOException):  # the lock is real ...
            duckdb.connect(str(tmp_path / catalog.WAREHOUSE_FILE), read_only=True)
        _, rows = catalog.query(tmp_path, TABLES, "select count(*) from things")  # ... and queries don't need it
        assert rows == [(1,)]
        # Nothing changed: the views stand, so refresh does not even need the file.
        assert catalog.refresh(tmp_path, TABLES, wait_s=0.3) is True
        # A new table changes the views: refresh needs the file, and gives up instead of crashing.
        ArtifactStore(tmp_path).write_table("judge", "r", "later", [{"run_id": "r", "doc_id": "b"}], SCHEMA)
        assert catalog.refresh(tmp_path, TABLES, wait_s=0.3) is False
    finally:
        holder.kill()
        holder.wait()


def test_warehouse_file_has_views_for_other_tools(tmp_path: Path) -> None:
    ArtifactStore(tmp_path).write_table("extract", "r", "things", [{"run_id": "r", "doc_id": "a"}], SCHEMA)
    catalog.refresh(tmp_path, TABLES)
    con = duckdb.connect(str(tmp_path / catalog.WAREHOUSE_FILE), read_only=True)
    assert con.execute("select doc_id from things").fetchall() == [("a",)]
    con.close()


def test_views_are_rewritten_only_when_they_change(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    store.write_table("extract", "r", "things", [{"run_id": "r", "doc_id": "a"}], SCHEMA)
    warehouse = tmp_path / catalog.WAREHOUSE_FILE
    assert catalog.refresh(tmp_path, TABLES)
    written = warehouse.stat().st_mtime_ns
    store.write_table("extract", "r2", "things", [{"run_id": "r2", "doc_id": "b"}], SCHEMA)  # same views
    assert catalog.refresh(tmp_path, TABLES)
    assert warehouse.stat().st_mtime_ns == written
    con = duckdb.connect(str(warehouse), read_only=True)
    assert sorted(con.execute("select doc_id from things").fetchall()) == [("a",), ("b",)]  # globs see r2
    assert con.execute("select count(*) from later").fetchall() == [(0,)]
    con.close()
    store.write_table("judge", "r", "later", [{"run_id": "r", "doc_id": "c"}], SCHEMA)  # a table's first files
    assert catalog.refresh(tmp_path, TABLES)
    con = duckdb.connect(str(warehouse), read_only=True)
    assert con.execute("select doc_id from later").fetchall() == [("c",)]
    con.close()
    warehouse.unlink()  # a deleted warehouse file is written again
    assert catalog.refresh(tmp_path, TABLES) and warehouse.exists()
