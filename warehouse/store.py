"""Parquet artifact store: `<root>/<stage>/run=<id>/<table>.parquet`, written atomically.

The root is `<home>/artifacts` or an S3 location (`warehouse.artifact_roots`). Every table is
written whole or not at all (a rename into place locally, a completed upload on S3), so a
reader sees the old table or the new one, never half of one. A stage that processes documents
one by one writes each document's rows as a *part*, one file under `<stage>/_staging/run=<id>/_done/`
(or `_retry/` after a transient failure); a killed run resumes from the parts in `_done/`, and the stage's final
tables appear only when every document is done. Run and stage state live beside the data as
Parquet too (`_state/`), so the DuckDB catalog can expose them without holding a lock.
Staging parts and locks need a real file system: they stay in the local home, whatever the root.

Run ids become folder names, so they must match RUN_ID_PATTERN; every path the store writes or
deletes is checked to lie inside the data home (or under the S3 prefix) and deletes never follow
a symlink (`warehouse.paths`).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.ipc  # noqa: F401 - pa.ipc

from warehouse.artifact_roots import ArtifactRoot, LocalRoot
from warehouse.home import open_home_root
from warehouse.paths import (  # noqa: F401 - re-exported: the store's path rules
    RUN_ID_PATTERN,
    UnsafePathError,
    atomic_write_parquet,
    check_run_id,
    inside,
    remove_tree,
)
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

class StageBusy(RuntimeError):
    """Another process is writing the same stage of the same run."""


class RunBusy(StageBusy):
    """Another process is running the same run: this one must leave the run's state alone."""


@contextmanager
def _exclusive(home: Path, path: Path, busy: type[StageBusy], what: str) -> Iterator[None]:
    """An flock on `path` held for the block, or `busy` at once naming the holder's pid.

    The kernel drops the lock when the holder exits, so a killed process never leaves a stale lock.
    """
    path = inside(home, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "another process"
            raise busy(f"{what} is being written by process {holder}; wait for it to finish, or start a "
                       "separate run with another --run-id") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock


@contextmanager
def stage_lock(home: Path, stage: str, run_id: str) -> Iterator[None]:
    """Hold an exclusive lock on (run, stage) for this process, or raise StageBusy at once.

    An flock on `artifacts/_locks/<stage>/run=<id>.lock`.
    """
    path = Path(home) / "artifacts" / "_locks" / stage / f"run={check_run_id(run_id)}.lock"
    with _exclusive(home, path, StageBusy, f"stage {stage!r} of run {run_id}"):
        yield


@contextmanager
def run_lock(home: Path, run_id: str) -> Iterator[None]:
    """Hold an exclusive lock on a whole run while this process runs (and records the state of) it, or
    raise RunBusy at once, before the refused process writes anything of that run.

    An flock on `artifacts/_locks/_runs/run=<id>.lock` (no stage is named `_runs`); a stage's own lock
    is taken inside it.
    """
    path = Path(home) / "artifacts" / "_locks" / "_runs" / f"run={check_run_id(run_id)}.lock"
    with _exclusive(home, path, RunBusy, f"run {run_id}"):
        yield


def check_run_free(home: Path, run_id: str) -> None:
    """RunBusy now when another process holds the run (the command ends before it starts anything);
    `run_lock` itself stays the guard, taken where the run's state is written."""
    with run_lock(home, run_id):
        pass


def now() -> datetime:
    return datetime.now(UTC)


class StageStatus(StrEnum):
    """The status of a stage (`stage_runs.status`) or of a run (`runs.status`); stored as its string."""

    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    SKIPPED = "skipped"  # inputs and config unchanged: the outputs of an earlier attempt stand
    REUSED = "reused"  # another run's identical outputs were copied
    INTERRUPTED = "interrupted"  # read only: a run left running by a process that is gone

    @property
    def done(self) -> bool:
        """Its outputs are current: downstream stages may read them."""
        return self in DONE


DONE = frozenset({StageStatus.COMPLETED, StageStatus.REUSED, StageStatus.SKIPPED})


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


RETRY = "_retry"  # staging markers of keys that failed transiently
PROGRESS_FILE = "progress.json"  # a running stage's progress (`Staging.record_progress`)


# A key's part is one file holding each of its tables as an Arrow IPC stream (written and read back several times
# faster than compressed Parquet, and never seen outside the stage runner), behind a small header. It lies in
# `_done/` (the key is done) or `_retry/` (it failed transiently: its rows count, and a resume computes it again),
# so that one file written and renamed into place persists a key whole: a part per table and a marker beside
# them cost a dozen file operations a document, more than the rows. The stamp names the format, so parts of an
# older format are dropped, not misread.
PART_FORMAT = "arrow-ipc-2"
PART_MAGIC = b"ABPART2\n"


def _encode_part(key: str, tables: Mapping[str, pa.Table]) -> list[Any]:
    """A key's part as the buffers to write in turn: magic, header length, header (the key, then each non-empty
    table's name and byte count), then each table's IPC stream."""
    streams = []
    for name, table in tables.items():
        if not table.num_rows:  # an absent table collects as an empty one
            continue
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        streams.append((name, sink.getvalue()))
    header = json.dumps({"key": key, "tables": [[name, buf.size] for name, buf in streams]}).encode()
    return [PART_MAGIC, len(header).to_bytes(4, "little"), header, *(buf for _, buf in streams)]


def _write_part(path: Path, buffers: Sequence[Any]) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as file:
            for buf in buffers:
                file.write(buf)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@dataclass
class _Part:
    """A part read from disk: its key and each table's bytes (memory-mapped, read when a table is asked for)."""

    key: str
    data: Any  # a pyarrow Buffer over the file
    tables: dict[str, tuple[int, int]]  # name -> (offset, size)

    @classmethod
    def read(cls, path: Path) -> _Part:
        with pa.memory_map(str(path), "r") as source:
            data = source.read_buffer()
        magic = len(PART_MAGIC)
        if data.size < magic + 4 or data[:magic].to_pybytes() != PART_MAGIC:
            raise ValueError(f"{path} is not a staging part")
        size = int.from_bytes(data[magic:magic + 4].to_pybytes(), "little")
        header = json.loads(data[magic + 4:magic + 4 + size].to_pybytes())
        offset, tables = magic + 4 + size, {}
        for name, length in header["tables"]:
            tables[name] = (offset, length)
            offset += length
        return cls(header["key"], data, tables)

    def table(self, name: str) -> pa.Table | None:
        if name not in self.tables:
            return None
        offset, size = self.tables[name]
        return pa.ipc.open_stream(self.data.slice(offset, size)).read_all()


class _HashingSink:
    """A write-only file that hashes what is written to it and keeps none of it."""

    closed = False

    def __init__(self) -> None:
        self.hash = hashlib.sha256()

    def write(self, data: Any) -> int:
        view = memoryview(data)
        self.hash.update(view)
        return view.nbytes

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def ipc_digest(table: pa.Table) -> bytes:
    """The SHA-256 of `table`'s Arrow IPC stream (the bytes `pa.ipc.new_stream` writes), computed as the stream
    is written, without the stream in memory."""
    sink = _HashingSink()
    with pa.PythonFile(sink, mode="w") as file, pa.ipc.new_stream(file, table.schema) as writer:
        writer.write_table(table)
    return sink.hash.digest()


def _key_file(key: str) -> str:
    return hashlib.sha1(key.encode()).hexdigest()[:20]


@dataclass
class Staging:
    """Per-document parts of one stage of one run, for resuming a killed run."""

    root: Path
    input_hash: str
    home: Path
    _done_cache: set[str] = field(default_factory=set)
    _retry_cache: set[str] = field(default_factory=set)  # parts of keys that failed transiently
    # Parts put by this attempt, kept to be collected without reading them back.
    _parts: dict[str, Mapping[str, pa.Table]] = field(default_factory=dict)
    # Parts of an earlier attempt, read once (memory-mapped) when first collected.
    _read: dict[str, _Part | None] = field(default_factory=dict)
    # Folders under the root, checked to lie inside the home (and created) once per attempt.
    _folders: dict[str, Path] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.root = inside(self.home, self.root)
        stamp = inside(self.home, self.root / "input_hash")  # refuses a root that is a symlink out
        expected = f"{self.input_hash} {PART_FORMAT}"
        if stamp.exists() and stamp.read_text() != expected:
            # Parts computed for other inputs or config (or kept in another format) are not ours to reuse.
            remove_tree(self.home, self.root)
        if not stamp.exists():
            self.root.mkdir(parents=True, exist_ok=True)
            stamp.write_text(expected)
        self._done_cache = self._listed("_done")
        self._retry_cache = self._listed(RETRY)

    def _listed(self, name: str) -> set[str]:
        folder = self.root / name
        return {p.name for p in folder.iterdir() if not p.name.startswith(".")} if folder.exists() else set()

    def done(self, key: str) -> bool:
        return _key_file(key) in self._done_cache

    @property
    def done_count(self) -> int:
        return len(self._done_cache)

    @property
    def pending(self) -> list[str]:
        """Keys whose part records a transient failure: not done, a resume retries them."""
        folder = self.root / RETRY
        if not folder.exists():
            return []
        return sorted(_Part.read(p).key for p in folder.iterdir() if not p.name.startswith("."))

    def put(self, key: str, tables: Mapping[str, pa.Table], *, done: bool = True) -> None:
        """Persist one key's part; `done=False` (a transient failure) keeps the part for the stage's
        tables but leaves the key to be computed again by the next attempt."""
        name = _key_file(key)
        mine, other = (self._done_cache, self._retry_cache) if done else (self._retry_cache, self._done_cache)
        _write_part(self._folder("_done" if done else RETRY) / name, _encode_part(key, tables))
        if name in other:  # the key's earlier part, of the other kind, is replaced by this one
            (self._folder(RETRY if done else "_done") / name).unlink(missing_ok=True)
            other.discard(name)
        mine.add(name)
        self._parts[name] = tables
        self._read.pop(name, None)

    def adopt(self, key: str, part: Path) -> None:
        """Take a part file written elsewhere for `key` (`_encode_part`, on this file system) as the key's done
        part, moving it into place: `tasks.engine.chain` computed it ahead of the stage."""
        name = _key_file(key)
        os.replace(part, self._folder("_done") / name)
        if name in self._retry_cache:
            (self._folder(RETRY) / name).unlink(missing_ok=True)
            self._retry_cache.discard(name)
        self._done_cache.add(name)
        self._parts.pop(name, None)
        self._read.pop(name, None)

    def tables(self, key: str) -> dict[str, pa.Table]:
        """The tables of `key`'s done part (empty when it has none)."""
        name = _key_file(key)
        if name in self._parts:
            return dict(self._parts[name])
        found = self._from_disk(name)
        if found is None:
            return {}
        return {table: part for table in found.tables if (part := found.table(table)) is not None}

    def _folder(self, name: str) -> Path:
        """The root's subfolder `name`, checked to lie inside the home and created, once per attempt."""
        folder = self._folders.get(name)
        if folder is None:
            (self.root / name).mkdir(exist_ok=True)
            # Resolved as a parent (a symlinked folder is followed, and refused if it leads out of the home).
            folder = self._folders[name] = inside(self.home, self.root / name / "part").parent
        return folder

    def _from_disk(self, name: str) -> _Part | None:
        """The part an earlier attempt put for the key named `name`, or None."""
        if name not in self._read:
            kind = "_done" if name in self._done_cache else RETRY if name in self._retry_cache else None
            self._read[name] = _Part.read(self.root / kind / name) if kind else None
        return self._read[name]

    def collect(self, table_name: str, keys: Sequence[str], schema: pa.Schema) -> pa.Table:
        """Concatenate the parts of `table_name` in `keys` order (deterministic output)."""
        parts = []
        for key in keys:
            name = _key_file(key)
            tables = self._parts.get(name)
            if tables is not None:
                part = tables.get(table_name)
                part = part if part is not None and part.num_rows else None
            else:  # put by an earlier attempt
                found = self._from_disk(name)
                part = found.table(table_name) if found is not None else None
            if part is not None:  # conformed where it was computed: cast only a part of another schema
                parts.append(part if part.schema.equals(schema) else part.cast(schema))
        return pa.concat_tables(parts) if parts else schema.empty_table()

    def clear(self) -> None:
        remove_tree(self.home, self.root)
        self._folders.clear()  # checked again (and created) by the next put
        self._done_cache.clear()
        self._retry_cache.clear()
        self._parts.clear()
        self._read.clear()

    def record_progress(self, done: int, total: int, unit: str) -> None:
        """How far the stage's work is (`done` of `total` `unit`s), for `accessbench runs` in another shell:
        one small file, replaced whole, removed with the parts when the stage completes."""
        record = {"done": done, "total": total, "unit": unit, "updated": now().isoformat(), "pid": os.getpid()}
        target = inside(self.home, self.root / PROGRESS_FILE)
        tmp = target.with_name(f".{PROGRESS_FILE}.{uuid.uuid4().hex}.tmp")
        tmp.write_text(json.dumps(record))
        os.replace(tmp, target)


class ArtifactStore:
    """All reads and writes of stage artifacts and run state of one data home.

    Final tables and run state go to the home's artifact root (`<home>/artifacts`, or the S3
    location the home is bound to: `warehouse.home.artifact_url`); per-document staging parts and
    locks always stay in the local home.
    """

    def __init__(self, home: Path, root: ArtifactRoot | None = None) -> None:
        self.home = Path(home)
        self.artifacts = self.home / "artifacts"  # local: staging parts, locks, page images
        self.root = root if root is not None else open_home_root(self.home)

    @property
    def remote(self) -> bool:
        return self.root.remote

    # -- stage tables -------------------------------------------------------------------
    @staticmethod
    def run_key(stage: str, run_id: str) -> str:
        return f"{stage}/run={check_run_id(run_id)}"

    def run_dir(self, stage: str, run_id: str) -> Path:
        """The local folder of a stage's tables (a local root only: see `has_outputs` otherwise)."""
        if not isinstance(self.root, LocalRoot):
            raise ValueError(f"the tables of {self.home} are in {self.root.url}, not in a local folder")
        return self.root.path(self.run_key(stage, run_id))

    def table_path(self, stage: str, run_id: str, table: str) -> Path:
        return self.run_dir(stage, run_id) / f"{table}.parquet"

    def has_outputs(self, stage: str, run_id: str) -> bool:
        return self.root.has_folder(self.run_key(stage, run_id))

    def write_table(
        self,
        stage: str,
        run_id: str,
        table: str,
        rows: Iterable[Mapping[str, Any]] | pa.Table,
        schema: pa.Schema,
    ) -> int:
        key = f"{self.run_key(stage, run_id)}/{table}.parquet"
        data = rows.cast(schema) if isinstance(rows, pa.Table) else conform(rows, schema, table)
        self.root.write(key, data)
        return data.num_rows

    def read_table(self, stage: str, run_id: str, table: str) -> pa.Table | None:
        return self.root.read(f"{self.run_key(stage, run_id)}/{table}.parquet")

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
        for key in self.root.glob(f"{self.run_key(stage, run_id)}/*.parquet"):
            if key.rpartition("/")[2].removesuffix(".parquet") not in keep:
                self.root.delete(key)

    def staging(self, stage: str, run_id: str, input_hash: str) -> Staging:
        return Staging(self.artifacts / stage / "_staging" / f"run={check_run_id(run_id)}", input_hash, self.home)

    def clear_staging(self, stage: str, run_id: str) -> None:
        """Drop the per-document parts of a stage of a run (e.g. once another run's outputs replace them)."""
        remove_tree(self.home, self.artifacts / stage / "_staging" / f"run={check_run_id(run_id)}")

    def progress(self, stage: str, run_id: str) -> dict[str, Any] | None:
        """The progress a running stage last recorded (`Staging.record_progress`), or None."""
        path = self.artifacts / stage / "_staging" / f"run={check_run_id(run_id)}" / PROGRESS_FILE
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) else None

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
        keys = self.root.glob(f"{self.run_key(stage, run_id)}/*.parquet")
        # One table at a time, its IPC stream hashed as it is written: holding every upstream table and two
        # copies of each stream at once was the command's peak memory (it grew with the number of files).
        for key, table in zip(keys, self.root.iter_many(keys), strict=True):
            if "run_id" in table.column_names:
                table = table.drop(["run_id"])
            digest.update(key.rpartition("/")[2].encode())
            digest.update(ipc_digest(table))
            del table
        return digest.hexdigest()

    def copy_outputs(self, stage: str, from_run: str, to_run: str) -> None:
        """Reuse another run's outputs for identical inputs: hard links (or copies) where possible."""
        src, dst = self.run_key(stage, from_run), self.run_key(stage, to_run)
        for key in self.root.tree(src):
            target = dst + key[len(src):]
            if not key.endswith(".parquet"):
                self.root.copy(key, target)
                continue
            table = self.root.read(key)
            if table is None:  # removed since the listing
                continue
            if "run_id" in table.column_names:
                # Rows carry their run id, so the copy is rewritten rather than linked.
                idx = table.column_names.index("run_id")
                field = table.field(idx)
                table = table.set_column(idx, field, pa.array([to_run] * table.num_rows, type=field.type))
            self.root.write(target, table)

    # -- run state ----------------------------------------------------------------------
    @staticmethod
    def _state_key(kind: str, run_id: str, name: str) -> str:
        return f"{STATE}/{kind}/run={check_run_id(run_id)}/{name}.parquet"

    def record_stage(self, row: StageRun) -> None:
        table = conform([asdict(row)], STAGE_RUNS_SCHEMA, "stage_runs")
        self.root.write(self._state_key("stage_runs", row.run_id, row.stage), table)

    def get_stage_run(self, run_id: str, stage: str) -> StageRun | None:
        table = self.root.read(self._state_key("stage_runs", run_id, stage))
        return StageRun(**table.to_pylist()[0]) if table is not None else None

    def stage_runs(self, run_id: str | None = None) -> list[StageRun]:
        pattern = f"run={check_run_id(run_id)}" if run_id else "run=*"
        keys = self.root.glob(f"{STATE}/stage_runs/{pattern}/*.parquet")
        rows = [StageRun(**table.to_pylist()[0]) for table in self.root.read_many(keys)]
        return sorted(rows, key=lambda r: (r.run_id, r.started or datetime.min.replace(tzinfo=UTC)))

    def record_doc_status(self, run_id: str, stage: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Each document's outcome in `stage` of `run_id` (replacing an earlier attempt's)."""
        self.root.write(self._state_key("doc_status", run_id, stage), conform(rows, DOC_STATUS_SCHEMA, "doc_status"))

    def copy_doc_status(self, stage: str, from_run: str, to_run: str) -> None:
        source = self.root.read(self._state_key("doc_status", from_run, stage))
        if source is None:
            self.root.delete(self._state_key("doc_status", to_run, stage))
            return
        self.record_doc_status(to_run, stage, [{**row, "run_id": to_run} for row in source.to_pylist()])

    def completed_with_hash(self, stage: str, input_hash: str) -> StageRun | None:
        """Any run that completed `stage` for exactly these inputs and config (and retries nothing)."""
        # Each run's state of a stage is one file named by the stage: read only those.
        keys = self.root.glob(f"{STATE}/stage_runs/run=*/{stage}.parquet")
        rows = sorted((StageRun(**table.to_pylist()[0]) for table in self.root.read_many(keys)),
                      key=lambda r: (r.run_id, r.started or datetime.min.replace(tzinfo=UTC)))
        for row in rows:
            done = (row.status in {StageStatus.COMPLETED, StageStatus.REUSED} and self.has_outputs(stage, row.run_id)
                    and not self.retries_pending(stage, row.run_id))
            if row.stage == stage and row.input_hash == input_hash and done:
                return row
        return None

    def record_run(self, row: Mapping[str, Any]) -> None:
        row = {**row, "owner": row.get("owner") or (run_owner() if row.get("status") == StageStatus.RUNNING else None)}
        table = conform([row], RUNS_SCHEMA, "runs")
        self.root.write(self._state_key("runs", row["run_id"], "run"), table)

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        table = self.root.read(self._state_key("runs", run_id, "run"))
        return table.to_pylist()[0] if table is not None else None

    def runs(self) -> list[dict[str, Any]]:
        """Every run, oldest first; a run left `running` by a process that is gone reads `interrupted`."""
        keys = self.root.glob(f"{STATE}/runs/run=*/run.parquet")
        rows = [table.to_pylist()[0] for table in self.root.read_many(keys)]
        for row in rows:
            if row.get("status") == StageStatus.RUNNING and not owner_alive(row.get("owner")):
                row["status"] = str(StageStatus.INTERRUPTED)
        return sorted(rows, key=lambda r: (r["created"] or datetime.min.replace(tzinfo=UTC), r["run_id"]))

    def config_json(self, config: Mapping[str, Any]) -> str:
        return json.dumps(config, sort_keys=True, default=str)
