"""Parquet artifact store: `<home>/artifacts/<stage>/run=<id>/<table>.parquet`, written atomically.

Every file is written to a temporary name in the same folder and renamed into place, so a
reader sees the old table or the new one, never half of one. A stage that processes documents
one by one writes each document's rows as a *part* under `<stage>/_staging/run=<id>/` with a
done-marker; a killed run resumes from the parts whose marker exists, and the stage's final
tables appear only when every document is done. Run and stage state live beside the data as
Parquet too (`_state/`), so the DuckDB catalog can expose them without holding a lock.

Run ids become folder names, so they must match RUN_ID_PATTERN; every path the store writes or
deletes is checked to lie inside the data home after symlinks are resolved, and deletes never
follow a symlink.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import socket
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from warehouse.schema import conform

STAGE_RUNS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("stage", pa.string(), nullable=False),
        pa.field("status", pa.string(), nullable=False),  # running|completed|failed|skipped|reused
        pa.field("started", pa.timestamp("us", tz="UTC")),
        pa.field("finished", pa.timestamp("us", tz="UTC")),
        pa.field("input_hash", pa.string()),
        pa.field("config", pa.string()),  # JSON
        pa.field("row_count", pa.int64()),
        pa.field("error_count", pa.int64()),
        pa.field("error", pa.string()),
        pa.field("reused_from", pa.string()),
    ]
)

RUNS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("created", pa.timestamp("us", tz="UTC")),
        pa.field("source", pa.string()),  # synthetic|dataset|pdfs
        pa.field("source_path", pa.string()),
        pa.field("criteria", pa.list_(pa.string())),
        pa.field("judge", pa.string()),
        pa.field("config", pa.string()),  # JSON
        pa.field("status", pa.string()),
        pa.field("finished", pa.timestamp("us", tz="UTC")),
        pa.field("owner", pa.string()),  # "host:pid" of the process running it, while it runs
    ]
)

# Each document's outcome in each per-document stage (ok|partial|failed): `documents.status` is derived
# from it. Kept with the run state, not the stage's tables, so it never enters a stage's fingerprint.
DOC_STATUS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("stage", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("outcome", pa.string(), nullable=False),  # ok|partial|failed
    ]
)

STATE = "_state"


def run_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_alive(owner: str | None) -> bool:
    """Whether the process that marked a run `running` still exists (unknown owners count as alive:
    a run recorded on another machine, or before owners were recorded, is not second-guessed)."""
    host, _, pid = (owner or "").rpartition(":")
    if not host or host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

# Letters, digits, '.', '_', '-'; starts with a letter or digit; at most 128 characters.
RUN_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class UnsafePathError(ValueError):
    """A run id or path that would reach outside the data home."""


def check_run_id(run_id: str) -> str:
    """Return `run_id` if it is safe as a folder name, else raise UnsafePathError."""
    if not isinstance(run_id, str) or not RUN_ID_PATTERN.fullmatch(run_id):
        raise UnsafePathError(
            f"invalid run id {run_id!r}: use 1-128 letters, digits, '.', '_' or '-', starting with a letter "
            "or digit (e.g. 2025-weekly.1)"
        )
    return run_id


def inside(home: Path, path: Path) -> Path:
    """`path` if it lies inside `home` once symlinks in its folders are resolved; else raise.

    The last component is not resolved: a symlink there is the object acted on (replaced or
    unlinked), never its target.
    """
    root = Path(home).resolve()
    path = Path(path)
    # A last component of '..' or '.' names a folder, not an entry: resolve it like the rest.
    where = path.resolve() if path.name in ("", ".", "..") else path.parent.resolve() / path.name
    if where != root and not where.is_relative_to(root):
        raise UnsafePathError(f"refusing to touch {path}: it resolves outside the data home {root}")
    return where


class StageBusy(RuntimeError):
    """Another process is writing the same stage of the same run."""


@contextmanager
def stage_lock(home: Path, stage: str, run_id: str) -> Iterator[None]:
    """Hold an exclusive lock on (run, stage) for this process, or raise StageBusy at once.

    An flock on `artifacts/_locks/<stage>/run=<id>.lock`: the kernel drops it when the holder
    exits, so a killed run never leaves a stale lock behind.
    """
    path = inside(home, Path(home) / "artifacts" / "_locks" / stage / f"run={check_run_id(run_id)}.lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "another process"
            raise StageBusy(f"stage {stage!r} of run {run_id} is being written by process {holder}; wait for it "
                            "to finish, or start a separate run with another --run-id") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def remove_tree(home: Path, path: Path) -> None:
    """Delete the folder `path` inside `home`; a symlink is unlinked, never followed."""
    target = inside(home, path)
    if target == Path(home).resolve():
        raise UnsafePathError(f"refusing to delete the data home itself ({target})")
    if target.is_symlink():
        target.unlink()
    elif target.exists():
        shutil.rmtree(target)  # rmtree unlinks symlinks inside the tree without following them


def now() -> datetime:
    return datetime.now(UTC)


@dataclass
class StageRun:
    """One row of `stage_runs`: what happened to one stage of one run."""

    run_id: str
    stage: str
    status: str
    started: datetime | None = None
    finished: datetime | None = None
    input_hash: str | None = None
    config: str | None = None
    row_count: int | None = None
    error_count: int | None = None
    error: str | None = None
    reused_from: str | None = None


def atomic_write_parquet(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


RETRY = "_retry"  # staging markers of keys that failed transiently


def _key_file(key: str) -> str:
    return hashlib.sha1(key.encode()).hexdigest()[:20]


@dataclass
class Staging:
    """Per-document parts of one stage of one run, for resuming a killed run."""

    root: Path
    input_hash: str
    home: Path
    _done_cache: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.root = inside(self.home, self.root)
        stamp = inside(self.home, self.root / "input_hash")  # refuses a root that is a symlink out
        if stamp.exists() and stamp.read_text() != self.input_hash:
            # Parts computed for other inputs or config are not ours to reuse.
            remove_tree(self.home, self.root)
        if not stamp.exists():
            self.root.mkdir(parents=True, exist_ok=True)
            stamp.write_text(self.input_hash)
        done_dir = self.root / "_done"
        self._done_cache = {p.name for p in done_dir.iterdir()} if done_dir.exists() else set()

    def done(self, key: str) -> bool:
        return _key_file(key) in self._done_cache

    @property
    def done_count(self) -> int:
        return len(self._done_cache)

    @property
    def pending(self) -> list[str]:
        """Keys whose part records a transient failure: not done, a resume retries them."""
        folder = self.root / RETRY
        return sorted(p.read_text() for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []

    def put(self, key: str, tables: Mapping[str, pa.Table], *, done: bool = True) -> None:
        """Persist one key's part; `done=False` (a transient failure) keeps the part for the stage's
        tables but leaves the key to be computed again by the next attempt."""
        name = _key_file(key)
        for table_name, table in tables.items():
            atomic_write_parquet(table, inside(self.home, self.root / table_name / f"{name}.parquet"))
        marker = inside(self.home, self.root / ("_done" if done else RETRY) / name)
        marker.parent.mkdir(exist_ok=True)
        tmp = marker.with_name(f".{name}.{uuid.uuid4().hex}.tmp")
        tmp.write_text(key)
        os.replace(tmp, marker)
        other = inside(self.home, self.root / (RETRY if done else "_done") / name)
        other.unlink(missing_ok=True)
        if done:
            self._done_cache.add(name)
        else:
            self._done_cache.discard(name)

    def collect(self, table_name: str, keys: Sequence[str], schema: pa.Schema) -> pa.Table:
        """Concatenate the parts of `table_name` in `keys` order (deterministic output)."""
        parts = []
        for key in keys:
            path = self.root / table_name / f"{_key_file(key)}.parquet"
            if path.exists():
                parts.append(pq.read_table(path).cast(schema))
        return pa.concat_tables(parts) if parts else schema.empty_table()

    def clear(self) -> None:
        remove_tree(self.home, self.root)


class ArtifactStore:
    """All reads and writes of stage artifacts and run state under one data home."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.artifacts = self.home / "artifacts"

    # -- stage tables -------------------------------------------------------------------
    def run_dir(self, stage: str, run_id: str) -> Path:
        return inside(self.home, self.artifacts / stage / f"run={check_run_id(run_id)}")

    def table_path(self, stage: str, run_id: str, table: str) -> Path:
        return self.run_dir(stage, run_id) / f"{table}.parquet"

    def write_table(
        self,
        stage: str,
        run_id: str,
        table: str,
        rows: Iterable[Mapping[str, Any]] | pa.Table,
        schema: pa.Schema,
    ) -> int:
        data = rows.cast(schema) if isinstance(rows, pa.Table) else conform(rows, schema, table)
        atomic_write_parquet(data, inside(self.home, self.table_path(stage, run_id, table)))
        return data.num_rows

    def read_table(self, stage: str, run_id: str, table: str) -> pa.Table | None:
        path = self.table_path(stage, run_id, table)
        return pq.read_table(path) if path.exists() else None

    def read_rows(self, stage: str, run_id: str, table: str) -> list[dict[str, Any]]:
        data = self.read_table(stage, run_id, table)
        return data.to_pylist() if data is not None else []

    def latest_rows(self, stage: str, table: str, run_id: str | None = None) -> tuple[str | None, list[dict[str, Any]]]:
        """`table` of `run_id`, or (without one) of the newest run that has rows in it."""
        runs = [run_id] if run_id else [r["run_id"] for r in reversed(self.runs())]
        for run in runs:
            rows = self.read_rows(stage, run, table)
            if rows or run_id:
                return run, rows
        return None, []

    def drop_tables_except(self, stage: str, run_id: str, keep: set[str]) -> None:
        """Remove tables a previous attempt wrote that this attempt no longer produces."""
        folder = self.run_dir(stage, run_id)
        if folder.exists():
            for path in folder.glob("*.parquet"):
                if path.stem not in keep:
                    inside(self.home, path).unlink()

    def staging(self, stage: str, run_id: str, input_hash: str) -> Staging:
        return Staging(self.artifacts / stage / "_staging" / f"run={check_run_id(run_id)}", input_hash, self.home)

    def clear_staging(self, stage: str, run_id: str) -> None:
        """Drop the per-document parts of a stage of a run (e.g. once another run's outputs replace them)."""
        remove_tree(self.home, self.artifacts / stage / "_staging" / f"run={check_run_id(run_id)}")

    def retries_pending(self, stage: str, run_id: str) -> bool:
        """Whether documents of this stage of this run failed transiently and wait for a retry."""
        folder = self.artifacts / stage / "_staging" / f"run={check_run_id(run_id)}" / RETRY
        return folder.is_dir() and any(not p.name.startswith(".") for p in folder.iterdir())

    def fingerprint(self, stage: str, run_id: str) -> str:
        """A digest of a stage's committed rows, used in the input hash of downstream stages.

        The run id is left out, so identical outputs of two runs have the same fingerprint and
        a later run can reuse downstream work done by an earlier one.
        """
        digest = hashlib.sha256()
        folder = self.run_dir(stage, run_id)
        for path in sorted(folder.glob("*.parquet")) if folder.exists() else []:
            table = pq.read_table(path)
            if "run_id" in table.column_names:
                table = table.drop(["run_id"])
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
            digest.update(path.name.encode())
            digest.update(hashlib.sha256(sink.getvalue().to_pybytes()).digest())
        return digest.hexdigest()

    def copy_outputs(self, stage: str, from_run: str, to_run: str) -> None:
        """Reuse another run's outputs for identical inputs: hard links where possible."""
        src, dst = self.run_dir(stage, from_run), self.run_dir(stage, to_run)
        dst.mkdir(parents=True, exist_ok=True)
        for path in src.rglob("*"):
            if path.is_dir():
                continue
            target = inside(self.home, dst / path.relative_to(src))
            target.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".parquet":
                table = pq.read_table(path)
                if "run_id" in table.column_names:
                    # Rows carry their run id, so the copy is rewritten rather than linked.
                    idx = table.column_names.index("run_id")
                    field = table.field(idx)
                    table = table.set_column(idx, field, pa.array([to_run] * table.num_rows, type=field.type))
                atomic_write_parquet(table, target)
            else:
                _link_or_copy(path, target)

    # -- run state ----------------------------------------------------------------------
    def _state_path(self, kind: str, run_id: str, name: str) -> Path:
        return inside(self.home, self.artifacts / STATE / kind / f"run={check_run_id(run_id)}" / f"{name}.parquet")

    def record_stage(self, row: StageRun) -> None:
        table = conform([asdict(row)], STAGE_RUNS_SCHEMA, "stage_runs")
        atomic_write_parquet(table, self._state_path("stage_runs", row.run_id, row.stage))

    def get_stage_run(self, run_id: str, stage: str) -> StageRun | None:
        path = self._state_path("stage_runs", run_id, stage)
        if not path.exists():
            return None
        return StageRun(**pq.read_table(path).to_pylist()[0])

    def stage_runs(self, run_id: str | None = None) -> list[StageRun]:
        pattern = f"run={check_run_id(run_id)}" if run_id else "run=*"
        rows = [
            StageRun(**pq.read_table(p).to_pylist()[0])
            for p in (self.artifacts / STATE / "stage_runs").glob(f"{pattern}/*.parquet")
        ]
        return sorted(rows, key=lambda r: (r.run_id, r.started or datetime.min.replace(tzinfo=UTC)))

    def record_doc_status(self, run_id: str, stage: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Each document's outcome in `stage` of `run_id` (replacing an earlier attempt's)."""
        atomic_write_parquet(conform(rows, DOC_STATUS_SCHEMA, "doc_status"),
                             self._state_path("doc_status", run_id, stage))

    def copy_doc_status(self, stage: str, from_run: str, to_run: str) -> None:
        source = self._state_path("doc_status", from_run, stage)
        target = self._state_path("doc_status", to_run, stage)
        if not source.exists():
            target.unlink(missing_ok=True)
            return
        rows = [{**row, "run_id": to_run} for row in pq.read_table(source).to_pylist()]
        self.record_doc_status(to_run, stage, rows)

    def completed_with_hash(self, stage: str, input_hash: str) -> StageRun | None:
        """Any run that completed `stage` for exactly these inputs and config (and retries nothing)."""
        for row in self.stage_runs():
            done = (row.status in {"completed", "reused"} and self.run_dir(stage, row.run_id).exists()
                    and not self.retries_pending(stage, row.run_id))
            if row.stage == stage and row.input_hash == input_hash and done:
                return row
        return None

    def record_run(self, row: Mapping[str, Any]) -> None:
        row = {**row, "owner": row.get("owner") or (run_owner() if row.get("status") == "running" else None)}
        table = conform([row], RUNS_SCHEMA, "runs")
        atomic_write_parquet(table, self._state_path("runs", row["run_id"], "run"))

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        path = self._state_path("runs", run_id, "run")
        return pq.read_table(path).to_pylist()[0] if path.exists() else None

    def runs(self) -> list[dict[str, Any]]:
        """Every run, oldest first; a run left `running` by a process that is gone reads `interrupted`."""
        rows = [pq.read_table(p).to_pylist()[0] for p in (self.artifacts / STATE / "runs").glob("run=*/run.parquet")]
        for row in rows:
            if row.get("status") == "running" and not owner_alive(row.get("owner")):
                row["status"] = "interrupted"
        return sorted(rows, key=lambda r: (r["created"] or datetime.min.replace(tzinfo=UTC), r["run_id"]))

    def config_json(self, config: Mapping[str, Any]) -> str:
        return json.dumps(config, sort_keys=True, default=str)


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        if dst.exists():
            dst.unlink()
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
