"""The DuckDB catalog: one view per artifact table across runs, plus run state and metric views.

`warehouse.duckdb` holds plain SQL views over the Parquet globs for other tools (the duckdb CLI,
notebooks); it holds views only, never data. Our own queries (`accessbench sql`, reports, the
metrics stage) run on an in-memory DuckDB instead, so a query never waits on (or crashes on) the
file lock held while a run refreshes that file, and so it can be sandboxed: each table is a
pyarrow dataset over the current Parquet files, handed to DuckDB before DuckDB's own file access
is switched off (`enable_external_access = false`) and its configuration locked. A query can then
read the views and nothing else: no file, no directory listing, no extension, no setting.

When the home keeps its tables on S3 the datasets read them through pyarrow's S3 file system
(DuckDB's httpfs extension is neither needed nor loaded), and no `warehouse.duckdb` is written:
its views would need httpfs and credentials inside DuckDB.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from warehouse.artifact_roots import ArtifactRoot
from warehouse.audit_metrics import AUDIT_METRIC_INPUTS, AUDIT_METRIC_VIEWS
from warehouse.metrics import METRIC_INPUTS, METRIC_VIEWS
from warehouse.store import DOC_STATUS_SCHEMA, RUNS_SCHEMA, STAGE_RUNS_SCHEMA, STATE, ArtifactStore

if TYPE_CHECKING:  # imported where used: the worker processes import this module for `TableSpec` only
    import duckdb
    import pyarrow.dataset as pads

WAREHOUSE_FILE = "warehouse.duckdb"
# Settings fixed before a query runs; `lock_configuration` keeps a query from changing them back.
SANDBOX_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    # No spill folder: DuckDB adds its temp directory (<cwd>/.tmp/) to the paths a query may read
    # and write even with external access off.
    "temp_directory": "",
}
SANDBOX_LOCK = ("SET enable_external_access = false", "SET lock_configuration = true")


class ReadOnlyError(ValueError):
    """A statement other than a query was sent to the read-only entry point."""


class QueryLimitError(ValueError):
    """A query ran past its time limit (it was interrupted) or its memory limit."""


DEFAULT_QUERY_TIMEOUT_S = 60.0
DEFAULT_QUERY_MEMORY_MB = 2048.0


@dataclass(frozen=True)
class TableSpec:
    """A table users query by name: which stage writes it and its declared schema."""

    name: str
    stage: str
    schema: pa.Schema
    pattern: str | None = None  # files under artifacts/, when not `<stage>/run=*/<name>.parquet`

    @property
    def key_pattern(self) -> str:
        """Its files relative to the artifact root."""
        return self.pattern or f"{self.stage}/run=*/{self.name}.parquet"

    def glob(self, artifacts: Path) -> str:
        return str(artifacts / self.key_pattern)


STATE_TABLES = (
    TableSpec("runs", f"{STATE}/runs", RUNS_SCHEMA),
    TableSpec("stage_runs", f"{STATE}/stage_runs", STAGE_RUNS_SCHEMA),
)


def _state_pattern(spec: TableSpec) -> str:
    return f"{spec.stage}/run=*/*.parquet"


def _state_glob(spec: TableSpec, artifacts: Path) -> str:
    return str(artifacts / _state_pattern(spec))


# Each document's outcome per per-document stage (written by the stage runner); not a table of its own.
DOC_STATUS = TableSpec("doc_status", f"{STATE}/doc_status", DOC_STATUS_SCHEMA)

# `documents.status`: failed when the corpus could not read the document or no stage kept any of its
# rows; partial when a stage failed for it but rows were kept; ok otherwise (no stage failed for it).
DOCUMENTS_WITH_STATUS = """
SELECT d.*, CASE
    WHEN d.error IS NOT NULL THEN 'failed'
    WHEN coalesce(s.failed, 0) = 0 THEN 'ok'
    WHEN s.usable > 0 THEN 'partial'
    ELSE 'failed' END AS status
FROM ({documents}) d
LEFT JOIN (
    SELECT run_id, doc_id, count(*) FILTER (WHERE outcome <> 'ok') AS failed,
           count(*) FILTER (WHERE outcome <> 'failed') AS usable
    FROM ({doc_status}) GROUP BY run_id, doc_id
) s ON s.run_id = d.run_id AND s.doc_id = d.doc_id
"""
DERIVED = frozenset({"documents"})  # tables whose view adds derived columns (above)


def _derived_view(name: str, source: str, doc_status: str) -> str:
    return f'CREATE OR REPLACE VIEW "{name}" AS ' + DOCUMENTS_WITH_STATUS.format(documents=source,
                                                                                doc_status=doc_status)


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


def _source_sql(glob: str, schema: pa.Schema) -> str:
    if list(Path("/").glob(glob.lstrip("/"))):
        return f"SELECT * FROM read_parquet({_quote(glob)}, union_by_name=true, hive_partitioning=false)"
    cols = ", ".join(f"CAST(NULL AS {_duck_type(f.type)}) AS \"{f.name}\"" for f in schema)
    return f"SELECT {cols} WHERE false"


def _view_sql(name: str, glob: str, schema: pa.Schema) -> str:
    return f'CREATE OR REPLACE VIEW "{name}" AS {_source_sql(glob, schema)}'


def metric_views(table_names: set[str]) -> list[tuple[str, str]]:
    """The metric views (benchmark and audit) whose input tables are all present; one list for the
    sandboxed query connection and the warehouse file alike."""
    views: list[tuple[str, str]] = []
    if table_names >= METRIC_INPUTS:
        views += METRIC_VIEWS
    if table_names >= AUDIT_METRIC_INPUTS:
        views += AUDIT_METRIC_VIEWS
    return views


def catalog_ddl(home: Path, tables: Iterable[TableSpec]) -> list[str]:
    artifacts = Path(home) / "artifacts"
    tables = list(tables)
    ddl = [_view_sql(s.name, _state_glob(s, artifacts), s.schema) for s in STATE_TABLES]
    doc_status = _source_sql(_state_glob(DOC_STATUS, artifacts), DOC_STATUS.schema)
    ddl += [_derived_view(s.name, _source_sql(s.glob(artifacts), s.schema), doc_status) if s.name in DERIVED
            else _view_sql(s.name, s.glob(artifacts), s.schema) for s in tables]
    ddl += [f'CREATE OR REPLACE VIEW "{name}" AS {sql}' for name, sql in metric_views({s.name for s in tables})]
    return ddl


def _dataset(root: ArtifactRoot, keys: list[str], schema: pa.Schema) -> pads.Dataset | None:
    """The Parquet files at `keys` as one dataset, or None.

    Columns are unioned by name across the files and the declared schema, so a column added to a
    table since older runs were written reads as null for those runs.
    """
    if not keys:
        return None
    unified = pa.unify_schemas([*root.read_schemas(keys), schema], promote_options="permissive")
    return root.dataset(keys, unified)


def _empty_view_sql(name: str, schema: pa.Schema) -> str:
    cols = ", ".join(f"CAST(NULL AS {_duck_type(f.type)}) AS \"{f.name}\"" for f in schema)
    return f'CREATE VIEW "{name}" AS SELECT {cols} WHERE false'


def _registered(con: duckdb.DuckDBPyConnection, spec: TableSpec, dataset: pads.Dataset | None) -> str:
    """A SELECT over `dataset` registered on `con` (or an empty one with the declared columns)."""
    if dataset is None:
        cols = ", ".join(f"CAST(NULL AS {_duck_type(f.type)}) AS \"{f.name}\"" for f in spec.schema)
        return f"SELECT {cols} WHERE false"
    hidden = f"__arrow_{spec.name}"
    con.register(hidden, dataset)
    return f'SELECT * FROM "{hidden}"'


def connect(home: Path, tables: Iterable[TableSpec], *, memory_mb: float | None = None
            ) -> duckdb.DuckDBPyConnection:
    """A sandboxed in-memory connection with every view defined (see the module doc).

    Never touches the warehouse file lock, and cannot read or write any file itself. `memory_mb` caps
    DuckDB's memory (`memory_limit`, locked with the other settings).
    """
    import duckdb

    root = ArtifactStore(home).root
    tables = list(tables)
    specs = [(s, _state_pattern(s)) for s in STATE_TABLES] + [(s, s.key_pattern) for s in tables]
    status_pattern = _state_pattern(DOC_STATUS)
    found = root.glob_many([pattern for _, pattern in specs] + [status_pattern])
    config = dict(SANDBOX_CONFIG)
    if memory_mb:
        config["memory_limit"] = f"{max(1, int(memory_mb))}MiB"
    con = duckdb.connect(":memory:", config=config)
    try:
        for spec, pattern in specs:
            dataset = _dataset(root, found[pattern], spec.schema)
            if spec.name in DERIVED:
                status = _dataset(root, found[status_pattern], DOC_STATUS.schema)
                con.execute(_derived_view(spec.name, _registered(con, spec, dataset),
                                          _registered(con, DOC_STATUS, status)))
                continue
            if dataset is None:
                con.execute(_empty_view_sql(spec.name, spec.schema))
                continue
            hidden = f"__arrow_{spec.name}"
            con.register(hidden, dataset)
            con.execute(f'CREATE VIEW "{spec.name}" AS SELECT * FROM "{hidden}"')
        for name, sql in metric_views({spec.name for spec in tables}):
            con.execute(f'CREATE VIEW "{name}" AS {sql}')
        for statement in SANDBOX_LOCK:
            con.execute(statement)
    except BaseException:
        con.close()
        raise
    return con


def rows(home: Path, tables: Iterable[TableSpec], sql: str, params: dict[str, Any] | None = None
         ) -> list[dict[str, Any]]:
    """The rows of one query over the warehouse, as dicts (for stages that snapshot views)."""
    con = connect(home, tables)
    try:
        result = con.execute(sql, params or {})
        names = [d[0] for d in result.description]
        return [dict(zip(names, values, strict=True)) for values in result.fetchall()]
    finally:
        con.close()


def refresh(home: Path, tables: Iterable[TableSpec], wait_s: float = 5.0) -> bool:
    """(Re)write the views into `<home>/warehouse.duckdb` for outside tools.

    Returns False (and leaves the old views, which still see new runs through their globs)
    when another process holds the file open for longer than `wait_s`. A home whose tables are on
    S3 gets no file.
    """
    import duckdb

    if ArtifactStore(home).remote:
        return True  # nothing to write: the views would need DuckDB's httpfs (see the module doc)
    path = Path(home) / WAREHOUSE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    ddl = catalog_ddl(home, tables)
    # The views read through globs, so new runs need no rewrite: only a changed DDL (a table's first
    # files, a new column) does. The stamp names the DDL and the file it was written into.
    stamp = path.with_name(path.name + ".views")
    digest = hashlib.sha256("\n".join(ddl).encode()).hexdigest()
    if _stamp_of(path, digest) == _read(stamp):
        return True
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
        partial = stamp.with_name(f"{stamp.name}.{os.getpid()}.partial")
        partial.write_text(_stamp_of(path, digest))
        partial.replace(stamp)
        return True


def _stamp_of(path: Path, digest: str) -> str:
    try:
        info = path.stat()
    except OSError:
        return ""
    return f"{digest} {info.st_size} {info.st_mtime_ns}"


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


_USAGE = 'pass one SELECT statement, e.g. accessbench sql "select * from runs"'


def _statements(sql: str) -> list[duckdb.Statement]:
    import duckdb

    try:
        return list(duckdb.extract_statements(sql))
    except duckdb.Error as exc:
        raise ReadOnlyError(f"could not parse the query: {exc}") from exc


def _explained(sql: str) -> str | None:
    """The statement an EXPLAIN [ANALYZE] wraps, comments skipped; None when `sql` is no EXPLAIN."""
    import duckdb

    raw = duckdb.tokenize(sql)
    ends = [pos for pos, _ in raw[1:]] + [len(sql)]
    tokens = [(pos, sql[pos:end].strip().lower())
              for (pos, kind), end in zip(raw, ends, strict=True) if kind != duckdb.token_type.comment]
    if not tokens or tokens[0][1] != "explain":
        return None
    rest = tokens[1:]
    if rest and rest[0][1] == "analyze":
        rest = rest[1:]
    return sql[rest[0][0]:] if rest else ""


def check_read_only(sql: str) -> None:
    """Refuse anything but one SELECT (or EXPLAIN [ANALYZE] of one SELECT), with a clear message.

    This is for the message only: the sandbox in `connect` is what stops a statement that gets
    past it from reading files, writing files, installing extensions or changing settings.
    """
    statements = _statements(sql)
    if not statements:
        raise ReadOnlyError(f"empty query: {_USAGE}")
    if len(statements) > 1:
        raise ReadOnlyError(f"refused: {len(statements)} statements; `accessbench sql` is read-only and runs one "
                            f"statement per call: {_USAGE}")
    kind = statements[0].type.name
    if kind == "EXPLAIN":
        inner = _explained(sql)
        inner_statements = _statements(inner) if inner else []
        if len(inner_statements) != 1 or inner_statements[0].type.name != "SELECT":
            raise ReadOnlyError("refused: EXPLAIN is allowed only of a plain SELECT; `accessbench sql` is read-only")
    elif kind != "SELECT":
        raise ReadOnlyError(
            f"refused: {kind} statements are not allowed; `accessbench sql` is read-only "
            "(SELECT/EXPLAIN SELECT). Change results by re-running a stage: "
            "accessbench rerun --run ID --stage NAME"
        )


def query(home: Path, tables: Iterable[TableSpec], sql: str, *, timeout_s: float | None = None,
          memory_mb: float | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run one read-only query over the warehouse, in the sandbox; returns column names and rows.

    A statement the sandbox stops (a file read, an extension, a setting) raises ReadOnlyError. With
    `timeout_s` the query is interrupted at that deadline and `memory_mb` caps DuckDB's memory: either
    raises QueryLimitError. The query runs in a thread while this one waits, so a signal (Ctrl-C,
    SIGTERM turned into KeyboardInterrupt) is handled at once: the query is interrupted and the
    exception goes on.
    """
    import duckdb

    check_read_only(sql)
    con = connect(home, tables, memory_mb=memory_mb)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            result = con.execute(sql)
            outcome["value"] = ([d[0] for d in result.description or []], result.fetchall())
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="accessbench-sql", daemon=True)
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic())))
            if deadline is not None and worker.is_alive() and time.monotonic() >= deadline:
                _stop(con, worker)
                raise QueryLimitError(f"the query ran past the {timeout_s:g} s limit and was stopped; narrow it "
                                      "(a WHERE, a LIMIT) or raise --timeout")
    except BaseException:
        _stop(con, worker)
        _close(con)
        raise
    try:
        if "error" in outcome:
            exc = outcome["error"]
            if isinstance(exc, duckdb.PermissionException):
                reason = str(exc).splitlines()[0]
                raise ReadOnlyError(f"refused: {reason}; `accessbench sql` reads the warehouse tables only") from exc
            if isinstance(exc, duckdb.InvalidInputException) and "configuration has been locked" in str(exc):
                raise ReadOnlyError("refused: settings cannot be changed in `accessbench sql`") from exc
            if isinstance(exc, duckdb.OutOfMemoryException):
                raise QueryLimitError(f"the query needed more than the {memory_mb:g} MiB memory limit; narrow it "
                                      "or raise --memory-mb") from exc
            if isinstance(exc, duckdb.InterruptException):
                raise KeyboardInterrupt
            raise exc
        columns, found = outcome["value"]
        return columns, found
    finally:
        _close(con)


def _stop(con: duckdb.DuckDBPyConnection, worker: threading.Thread, wait_s: float = 10.0) -> None:
    """Interrupt the query `worker` runs until it has returned (an interrupt sent before the query
    started is lost, so it is sent again)."""
    deadline = time.monotonic() + wait_s
    while worker.is_alive() and time.monotonic() < deadline:
        con.interrupt()
        worker.join(0.1)


def _close(con: duckdb.DuckDBPyConnection) -> None:
    import duckdb

    with contextlib.suppress(duckdb.Error):  # still busy with an interrupted query: the process is on its way out
        con.close()


def column_names(con: duckdb.DuckDBPyConnection, view: str) -> Sequence[str]:
    return [row[0] for row in con.execute(f'DESCRIBE "{view}"').fetchall()]
