"""The DuckDB catalog: one view per artifact table across runs, plus run state and metric views.

Views are plain SQL over the Parquet globs, so they see new runs without being rebuilt. Queries
run on an in-memory DuckDB that defines the same views, which means a query never waits on (or
crashes on) the file lock held while a run refreshes `warehouse.duckdb`; that file exists for
other tools (the duckdb CLI, notebooks) and holds views only, never data.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from warehouse.audit_metrics import AUDIT_METRIC_INPUTS, AUDIT_METRIC_VIEWS
from warehouse.metrics import METRIC_INPUTS, METRIC_VIEWS
from warehouse.store import RUNS_SCHEMA, STAGE_RUNS_SCHEMA, STATE

WAREHOUSE_FILE = "warehouse.duckdb"
READ_ONLY_TYPES = {"SELECT", "EXPLAIN"}


class ReadOnlyError(ValueError):
    """A statement other than a query was sent to the read-only entry point."""


@dataclass(frozen=True)
class TableSpec:
    """A table users query by name: which stage writes it and its declared schema."""

    name: str
    stage: str
    schema: pa.Schema
    pattern: str | None = None  # files under artifacts/, when not `<stage>/run=*/<name>.parquet`

    def glob(self, artifacts: Path) -> str:
        if self.pattern:
            return str(artifacts / self.pattern)
        return str(artifacts / self.stage / "run=*" / f"{self.name}.parquet")


STATE_TABLES = (
    TableSpec("runs", f"{STATE}/runs", RUNS_SCHEMA),
    TableSpec("stage_runs", f"{STATE}/stage_runs", STAGE_RUNS_SCHEMA),
)


def _state_glob(spec: TableSpec, artifacts: Path) -> str:
    return str(artifacts / spec.stage / "run=*" / "*.parquet")


def _duck_type(type_: pa.DataType) -> str:
    if pa.types.is_list(type_):
        return f"{_duck_type(type_.value_type)}[]"
    if pa.types.is_timestamp(type_):
        return "TIMESTAMPTZ" if type_.tz else "TIMESTAMP"
    mapping = {
        pa.string(): "VARCHAR",
        pa.large_string(): "VARCHAR",
        pa.int8(): "TINYINT",
        pa.int16(): "SMALLINT",
        pa.int32(): "INTEGER",
        pa.int64(): "BIGINT",
        pa.float32(): "FLOAT",
        pa.float64(): "DOUBLE",
        pa.bool_(): "BOOLEAN",
        pa.binary(): "BLOB",
    }
    return mapping.get(type_, "VARCHAR")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _view_sql(name: str, glob: str, schema: pa.Schema) -> str:
    if list(Path("/").glob(glob.lstrip("/"))):
        body = f"SELECT * FROM read_parquet({_quote(glob)}, union_by_name=true, hive_partitioning=false)"
    else:
        cols = ", ".join(f"CAST(NULL AS {_duck_type(f.type)}) AS \"{f.name}\"" for f in schema)
        body = f"SELECT {cols} WHERE false"
    return f'CREATE OR REPLACE VIEW "{name}" AS {body}'


def catalog_ddl(home: Path, tables: Iterable[TableSpec]) -> list[str]:
    artifacts = Path(home) / "artifacts"
    tables = list(tables)
    ddl = [_view_sql(s.name, _state_glob(s, artifacts), s.schema) for s in STATE_TABLES]
    ddl += [_view_sql(s.name, s.glob(artifacts), s.schema) for s in tables]
    if {spec.name for spec in tables} >= METRIC_INPUTS:
        ddl += [f'CREATE OR REPLACE VIEW "{name}" AS {sql}' for name, sql in METRIC_VIEWS]
    if {spec.name for spec in tables} >= AUDIT_METRIC_INPUTS:
        ddl += [f'CREATE OR REPLACE VIEW "{name}" AS {sql}' for name, sql in AUDIT_METRIC_VIEWS]
    return ddl


def connect(home: Path, tables: Iterable[TableSpec]) -> duckdb.DuckDBPyConnection:
    """An in-memory connection with every view defined; never touches the warehouse file lock."""
    con = duckdb.connect(":memory:")
    for statement in catalog_ddl(home, tables):
        con.execute(statement)
    return con


def refresh(home: Path, tables: Iterable[TableSpec], wait_s: float = 5.0) -> bool:
    """(Re)write the views into `<home>/warehouse.duckdb` for outside tools.

    Returns False (and leaves the old views, which still see new runs through their globs)
    when another process holds the file open for longer than `wait_s`.
    """
    path = Path(home) / WAREHOUSE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    ddl = catalog_ddl(home, tables)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            con = duckdb.connect(str(path))
        except duckdb.IOException:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
            continue
        try:
            for statement in ddl:
                con.execute(statement)
        finally:
            con.close()
        return True


def check_read_only(sql: str) -> None:
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise ReadOnlyError(f"could not parse the query: {exc}") from exc
    if not statements:
        raise ReadOnlyError("empty query: pass a SELECT statement, e.g. accessbench sql \"select * from runs\"")
    for statement in statements:
        kind = statement.type.name
        if kind not in READ_ONLY_TYPES:
            raise ReadOnlyError(
                f"refused: {kind} statements are not allowed; `accessbench sql` is read-only "
                "(SELECT/EXPLAIN). Change results by re-running a stage: accessbench rerun --run ID --stage NAME"
            )


def query(home: Path, tables: Iterable[TableSpec], sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run a read-only query over the warehouse; returns column names and rows."""
    check_read_only(sql)
    con = connect(home, tables)
    try:
        result = con.execute(sql)
        columns = [d[0] for d in result.description or []]
        return columns, result.fetchall()
    finally:
        con.close()


def column_names(con: duckdb.DuckDBPyConnection, view: str) -> Sequence[str]:
    return [row[0] for row in con.execute(f'DESCRIBE "{view}"').fetchall()]
