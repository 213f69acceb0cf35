"""Run one stage: skip it when its inputs and config are unchanged, reuse another run's outputs
for identical inputs, resume a killed attempt from its per-document parts, and record state.

This module knows nothing about Prefect; `tasks.prefect_tasks` wraps `execute` as tasks.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pyarrow as pa

from common.progress import PageTally
from common.rows import Columns, Rows
from tasks.engine.failures import WARNING_KINDS, Incomplete, guarded, retryable
from tasks.engine.isolation import release_heap, run_isolated
from tasks.engine.shaping import Shaped, StageBug, doc_id_of, rows_for, shaped, with_retryable
from warehouse.catalog import TableSpec
from warehouse.schema import SchemaError, arrow_table, columns_of, conform
from warehouse.store import StageBusy, StageRun, StageStatus, Staging, now, stage_lock
from warehouse.tables import ERRORS_SCHEMA

if TYPE_CHECKING:  # the run's process only: a worker that computes a stage's rows needs neither the run's
    from rich.console import Console  # config classes (pydantic) nor its terminal (issue 56)

    from tasks.engine.context import RunBase

log = logging.getLogger("accessbench")
console: Console | None = None  # the run's stderr console, made on first use (`terminal`); a test may set its own


def terminal() -> Console:
    """The run's stderr console (the progress bars and the skipped/reused lines)."""
    global console
    if console is None:
        from rich.console import Console

        console = Console(stderr=True)
    return console


K = TypeVar("K")

# Runs `fn` over `args`, yielding (index, result or exception) as results arrive: `run_isolated`
# (local worker processes) by default, or a fan-out onto a cluster (`tasks.engine.fanout`).
FanOut = Callable[..., Iterator[tuple[int, Any]]]


class StageFailed(RuntimeError):
    """A stage could not complete (not one bad document: those are error rows)."""


class ConfigError(ValueError):
    """A stage's config is unusable; the message says what to change."""


@dataclass(frozen=True)
class Stage:
    """A stage: its upstream stages, the config it depends on, the tables it writes, its body."""

    name: str
    upstream: tuple[str, ...]
    config_keys: tuple[str, ...]
    tables: tuple[TableSpec, ...]
    body: Callable[[StageIO], Mapping[str, Iterable[Mapping[str, Any]] | pa.Table]]
    version: str = "1"
    reusable: bool = True  # may another run's identical outputs be reused?
    fresh: Callable[[Any], bool] | None = None  # a run for which this stage must compute, never reuse (cfg → bool)
    # Digest of inputs outside the artifact store (e.g. the dataset manifest and its files).
    external_inputs: Callable[[Any], str] | None = None  # (the study's run config) → a digest
    # Packages whose source decides the outputs: editing them makes the stage run again.
    code: tuple[str, ...] = ()
    # Validates the stage's config (raises ValueError saying what to change); see `check`.
    validate: Callable[[Any], None] | None = None  # (the study's run config) → raises ConfigError
    # Per-document stage: its outcome per document (ok, partial, failed) counts in `documents.status`.
    per_document: bool = False
    # Its workers keep what no later stage reads (a model): the run's workers are restarted after it.
    releases_workers: bool = False
    # A per-document stage that reads the document's PDF: run with the others, one document at a time,
    # ahead of the stages (a `tasks.engine.chain.Link`).
    link: Any = None
    # Modules its work imports where it runs, never in the run's own process (PyMuPDF and pikepdf through the
    # extractors): a worker pool started for the stage imports them first, before its memory ceiling.
    worker_imports: tuple[str, ...] = ()

    def check(self, cfg: RunBase) -> None:
        """Refuse a config this stage cannot run with (ValueError with what to change), before any work.

        The CLI checks every stage before the flow starts; `execute` checks again (a deployment's run).
        """
        if self.validate is None:
            return
        try:
            self.validate(cfg)
        except (ValueError, ImportError, RuntimeError) as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(str(exc)) from exc

    def schemas(self) -> dict[str, pa.Schema]:
        """Each table the stage writes, its `errors` included, with its schema."""
        return {name: self.schema(name) for name in [spec.name for spec in self.tables] + ["errors"]}

    def columns(self) -> dict[str, Columns]:
        """`schemas` as plain data (`common.rows.Column`), for a worker that imports no pyarrow."""
        return {name: columns_of(schema) for name, schema in self.schemas().items()}

    def schema(self, table: str) -> pa.Schema:
        if table == "errors":
            return ERRORS_SCHEMA
        for spec in self.tables:
            if spec.name == table:
                return spec.schema
        raise KeyError(f"stage {self.name!r} declares no table {table!r}")


@dataclass
class StageIO:
    """What a stage body gets: its config, upstream tables, resumable per-key work, error rows."""

    cfg: Any  # the study's run config (a RunConfig or an AuditConfig): each stage body knows which it reads
    stage: Stage
    staging: Staging
    errors: list[dict[str, Any]] = field(default_factory=list)
    # Set by a body whose outputs are worth keeping but whose result must not count as done (e.g. too
    # many failed model calls): the tables are written, the stage is recorded failed, and a resume
    # recomputes every part (answered model calls come back from the response cache).
    failure: str | None = None
    fanout: FanOut | None = None  # where isolated per-document work runs (None: local worker processes)

    def read(self, stage: str, table: str) -> list[dict[str, Any]]:
        return self.cfg.store.read_rows(stage, self.cfg.run_id, table)

    def read_table(self, stage: str, table: str) -> pa.Table | None:
        return self.cfg.store.read_table(stage, self.cfg.run_id, table)

    def error(self, doc_id: str | None, kind: str, message: str) -> None:
        self.errors.append({"run_id": self.cfg.run_id, "stage": self.stage.name, "doc_id": doc_id,
                            "kind": kind, "message": message, "retryable": retryable(kind)})

    def per_key(
        self,
        items: Sequence[tuple[str, K]],
        work: Callable[[K], Mapping[str, list[dict[str, Any]]] | Incomplete],
        description: str | None = None,
        *,
        isolated: bool = False,
        same: Callable[[K], str] | None = None,
        weight: Callable[[K], int] | None = None,
        unit: str = "documents",
        before: Callable[[], Any] | None = None,
    ) -> dict[str, pa.Table]:
        """Run `work` for each (key, item) not done by an earlier attempt; persist each result.

        `work` returns rows per table; rows of the stage's `errors` table may be included. When it
        raises, the runner records the item's error row (`tasks.engine.failures.classify`); rows it had
        computed are kept when it raised `PartialFailure`. A transient failure leaves the item not
        done, so a resumed run retries it (as does returning `Incomplete(rows)`). `isolated` runs
        `work` (a picklable top-level function) in worker processes with the run's per-document
        time limit. Items with the same `same(item)` value (e.g. byte-identical PDFs) are computed
        once and their rows copied under each item's `doc_id`. Returns the stage's tables
        assembled from all parts in `items` order. The progress bar counts `unit`s: one an item, or
        `weight(item)` (e.g. a document's pages). `before` is called once before the first item is computed here
        (never when every item was done before or taken from the chain): a stage's up-front check in a worker.
        """
        todo = [(key, item) for key, item in items if not self.staging.done(key)]
        if len(todo) < len(items):
            log.info("%s: resuming, %d of %d already done", self.stage.name, len(items) - len(todo), len(items))
        groups: dict[str, list[tuple[str, K]]] = {}
        for key, item in todo:
            groups.setdefault(same(item) if same else key, []).append((key, item))
        members = list(groups.values())
        chained = self.stage.link.adopter(self.cfg, self.stage) if isolated and self.stage.link is not None else None
        if chained is not None:  # computed ahead, one document at a time, from equal items (`tasks.engine.chain`)
            members = [group for group in members if not chained.adopt(self.staging, group, relabel_tables)]
            todo = [unit for group in members for unit in group]
        if before is not None and todo:
            before()
        workers = self.cfg.workers if isolated else 1
        timeout = self.cfg.doc_timeout_s if isolated else None  # per-document stages: the benchmark's
        # Rows are fitted to the stage's tables where the work ran (a worker process, a Dask worker: columns,
        # required values, storable text); here they only become Arrow tables (the workers import no pyarrow).
        columns = self.stage.columns()
        size = weight or (lambda item: 1)
        total = sum(max(0, size(item)) for _, item in items)
        remaining = sum(max(0, size(item)) for _, item in todo)
        run = self.fanout if isolated and self.fanout is not None else run_isolated
        # The first of a chain reads each document for the later stages too (`tasks.engine.chain`).
        head = (self.stage.link.head(self.cfg, self.stage)
                if isolated and run is run_isolated and self.stage.link is not None and members else None)
        if head is not None:
            description = f"{description or self.stage.name} (+ {', '.join(name for name, *_ in head.links[1:])})"
        with _progress(self.cfg.progress and (len(todo) > 1 or (weight is not None and remaining > 1)),
                       description or self.stage.name, total, total - remaining, unit) as bar, \
                _Recorded(self.staging, bar, total, total - remaining, unit) as advance:
            # Pages done inside a document advance the bar (and the progress `accessbench runs` shows) as they
            # happen where the work reaches this process (here or its worker processes); on a cluster a
            # document counts when its result is in.
            tally = (PageTally({group[0][0]: max(0, size(group[0][1])) for group in members}, advance)
                     if weight is not None and run is run_isolated else None)
            token = tally.token if tally is not None else None
            shape: Callable[[Any], Any] = partial(shaped, partial(guarded, work), self.cfg.run_id, self.stage.name,
                                                  columns, pages=token)
            units: list[Any] = [group[0] for group in members]
            passes = [(shape, units, list(range(len(members))), timeout)]
            if head is not None:  # whole groups: a later stage may take another copy than this one's first
                passes = [(head.work(token), members, passes[0][2], timeout * head.stages if timeout else None)]
            with tally or nullcontext():
                while passes:
                    work_of, units, indexes, limit = passes.pop(0)
                    alone: list[int] = []
                    for at, result in run(work_of, units, workers=workers, timeout_s=limit):
                        index = indexes[at]
                        if head is not None and work_of is not shape:
                            result = head.take(result)
                            if not isinstance(result, Shaped):  # the chain failed (a time limit, a lost worker):
                                alone.append(index)  # this stage reads the document alone, as it would have
                                continue
                        self._record(members[index], result, size, advance, tally)
                    if alone:
                        passes.append((shape, [members[i][0] for i in alone], alone, timeout))
        keys = [key for key, _ in items]
        names = [spec.name for spec in self.stage.tables] + ["errors"]
        return {name: self.staging.collect(name, keys, self.stage.schema(name)) for name in names}

    def _record(self, group: Sequence[tuple[str, Any]], result: Any, size: Callable[[Any], int],
                advance: Callable[[int], None], tally: PageTally | None) -> None:
        """Stage one computed group's result (or what was raised) under each of its keys."""
        computed = arrow_tables(self.stage, result.tables) if isinstance(result, Shaped) else {}
        for key, item in group:
            if isinstance(result, Shaped):  # made Arrow once; an identical copy gets them under its own id
                doc_id = doc_id_of(item)
                tables = computed if doc_id in (None, result.doc_id) else relabel_tables(computed, doc_id)
                done = result.done
            else:  # raised outside the work: a time limit, a lost worker
                rows, done = rows_for(self.cfg.run_id, self.stage.name, key, item, result)
                tables = {name: conform(r, self.stage.schema(name), name) for name, r in rows.items()}
            self.staging.put(key, tables, done=done)
            if tally is None:
                advance(max(0, size(item)))
        if tally is not None:
            tally.finish(group[0][0], sum(max(0, size(item)) for _, item in group),
                         reported=isinstance(result, Shaped) and result.reported)


def relabel_tables(tables: Mapping[str, pa.Table], doc_id: str | None) -> dict[str, pa.Table]:
    """Arrow tables under another document's id (an identical document computed once, `per_key`'s `same`)."""
    if doc_id is None:
        return dict(tables)
    relabelled = {}
    for name, table in tables.items():
        if "doc_id" in table.column_names:
            column = table.schema.get_field_index("doc_id")
            table = table.set_column(column, table.schema.field(column),
                                     pa.array([doc_id] * table.num_rows, table.schema.field(column).type))
        relabelled[name] = table
    return relabelled


def arrow_tables(stage: Stage, rows: Mapping[str, Rows]) -> dict[str, pa.Table]:
    """A unit's rows (`Shaped.tables`) as Arrow tables of the stage's schemas; StageBug for a value of the wrong
    type (a bug in the stage, not in the document)."""
    try:
        return {name: arrow_table(found, stage.schema(name), name) for name, found in rows.items()}
    except SchemaError as exc:
        raise StageBug(str(exc)) from None


def document_outcomes(run_id: str, stage: Stage, outputs: Mapping[str, pa.Table]) -> list[dict[str, Any]]:
    """Each document's outcome in a per-document stage: ok (no error), partial (an error, but rows
    were kept) or failed (an error and no rows). Warnings (e.g. a repaired file) are not errors."""
    with_rows: set[str] = set()
    for name, table in outputs.items():
        if name != "errors" and "doc_id" in table.column_names:
            with_rows.update(d for d in table.column("doc_id").to_pylist() if d is not None)
    errors = outputs.get("errors")
    failed: set[str] = set()
    if errors is not None:
        for row in errors.select(["doc_id", "kind"]).to_pylist():
            if row["doc_id"] is not None and row["kind"] not in WARNING_KINDS:
                failed.add(row["doc_id"])
    outcome = {doc: "ok" for doc in with_rows - failed}
    outcome.update({doc: "partial" if doc in with_rows else "failed" for doc in failed})
    return [{"run_id": run_id, "stage": stage.name, "doc_id": doc, "outcome": value}
            for doc, value in sorted(outcome.items())]


class _progress:
    """A rich progress bar on stderr ("render ━━━━ 120/352 pages 0:00:41"), or nothing when disabled."""

    def __init__(self, enabled: bool, description: str, total: int, completed: int, unit: str = "documents") -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.args = (description, total, completed, unit)

    def __enter__(self) -> Callable[[int], None]:
        if not self.enabled:
            return _no_progress
        description, total, completed, unit = self.args
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn(unit, markup=False), TimeElapsedColumn(), console=terminal(), transient=True)
        self.bar.start()
        task = self.bar.add_task(description, total=total, completed=completed)

        def advance(amount: int) -> None:
            self.bar.advance(task, amount)

        return advance

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.bar.stop()


def _no_progress(amount: int) -> None:
    pass


class _Recorded:
    """The bar's steps, also recorded in the stage's staging folder (`Staging.record_progress`) so that
    `accessbench runs` in another shell shows how far a running stage is: at its start, at most every
    RECORD_EVERY_S while it runs, and at its end. Steps may come from the thread that reads the workers'
    page counts as well as from the runner's."""

    RECORD_EVERY_S = 0.5

    def __init__(self, staging: Staging, bar: Callable[[int], None], total: int, completed: int, unit: str) -> None:
        self.staging, self.bar, self.total, self.done, self.unit = staging, bar, total, completed, unit
        self.lock = threading.Lock()
        self.recorded_at = 0.0

    def __enter__(self) -> Callable[[int], None]:
        self._record()
        return self.advance

    def advance(self, amount: int) -> None:
        self.bar(amount)
        with self.lock:
            self.done += amount
            if time.monotonic() - self.recorded_at >= self.RECORD_EVERY_S:
                self._record()

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self._record()

    def _record(self) -> None:
        try:
            self.staging.record_progress(min(self.done, self.total), self.total, self.unit)
        except OSError:  # progress is a courtesy: a full disk fails the stage's own writes, not this one
            log.debug("could not record the stage's progress", exc_info=True)
        self.recorded_at = time.monotonic()


def code_version(*packages: str) -> str:
    """A digest of the source of `packages`, so a changed extractor or judge invalidates outputs."""
    digest = hashlib.sha256()
    for package in packages:
        root = Path(importlib.import_module(package).__file__ or "").parent
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def stage_identity(cfg: RunBase, stage: Stage) -> dict[str, Any]:
    """What a stage computes with besides its inputs: its name, version, code and config."""
    return {"stage": stage.name, "version": stage.version, "code": code_version(*stage.code),
            "config": {key: getattr(cfg, key) for key in stage.config_keys}}


def input_hash(cfg: RunBase, stage: Stage) -> str:
    store = cfg.store
    parts = {
        **stage_identity(cfg, stage),
        "upstream": {name: store.fingerprint(name, cfg.run_id) for name in stage.upstream},
        "external": stage.external_inputs(cfg) if stage.external_inputs else None,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def execute(cfg: RunBase, stage: Stage, *, force: bool = False, fanout: FanOut | None = None,
            check: bool = True) -> StageRun:
    """Run `stage` for `cfg.run_id` unless its outputs are current; return the state row.

    Checks the stage's config first (`Stage.check`) unless the caller did (`check=False`: a pipeline
    checks every stage once, before the first starts). Holds the (run, stage) lock throughout: a second
    process on the same stage of the same run fails at once with StageFailed instead of writing over
    the first one's parts.
    """
    try:
        with stage_lock(cfg.home, stage.name, cfg.run_id):
            return _execute(cfg, stage, force=force, fanout=fanout, check=check)
    except StageBusy as exc:
        raise StageFailed(str(exc)) from exc
    finally:
        release_memory()


def will_compute(cfg: RunBase, stage: Stage, force: bool = False) -> bool | None:
    """Whether `execute` would compute `stage` now rather than skip it or reuse another run's outputs;
    None while an upstream stage has not completed (its outputs, part of the stage's inputs, are unknown)."""
    store = cfg.store
    for name in stage.upstream:
        state = store.get_stage_run(cfg.run_id, name)
        if state is None or not StageStatus(state.status).done:
            return None
    if force:
        return True
    digest = input_hash(cfg, stage)
    return not _current(cfg, stage, digest, store.get_stage_run(cfg.run_id, stage.name)) \
        and _donor(cfg, stage, digest) is None


def _current(cfg: RunBase, stage: Stage, digest: str, previous: StageRun | None) -> bool:
    """The run's own outputs of the stage are current: done, for these inputs, and no document waits for a retry."""
    store = cfg.store
    return (
        previous is not None
        and StageStatus(previous.status).done
        and previous.input_hash == digest
        and store.has_outputs(stage.name, cfg.run_id)
        # Documents that failed transiently are retried: the stage runs again for them alone.
        and not store.retries_pending(stage.name, cfg.run_id)
    )


def _donor(cfg: RunBase, stage: Stage, digest: str) -> StageRun | None:
    """Another run whose outputs of the stage, for identical inputs, this run may reuse."""
    if not stage.reusable or (stage.fresh is not None and stage.fresh(cfg)):
        return None
    donor = cfg.store.completed_with_hash(stage.name, digest)
    return donor if donor is not None and donor.run_id != cfg.run_id else None


def release_memory() -> None:
    """Hand what a finished stage freed back to the system: Arrow's pool and glibc's heap keep freed pages, so each
    stage's tables raised the floor the next stage's peak stood on (the command's resident size only grew)."""
    pa.default_memory_pool().release_unused()
    release_heap()


def _execute(cfg: RunBase, stage: Stage, *, force: bool, fanout: FanOut | None = None,
             check: bool = True) -> StageRun:
    store = cfg.store
    if check:
        try:
            stage.check(cfg)
        except ConfigError as exc:
            raise StageFailed(f"stage {stage.name!r}: {exc}") from exc
    for name in stage.upstream:
        state = store.get_stage_run(cfg.run_id, name)
        if state is None or not StageStatus(state.status).done:
            raise StageFailed(
                f"stage {stage.name!r} needs stage {name!r} of run {cfg.run_id}, which has not completed; "
                f"run: accessbench rerun --run {cfg.run_id} --stage {name} --downstream"
            )
    digest = input_hash(cfg, stage)
    config_json = json.dumps({key: getattr(cfg, key) for key in stage.config_keys}, sort_keys=True, default=str)
    previous = store.get_stage_run(cfg.run_id, stage.name)
    if not force and previous is not None and _current(cfg, stage, digest, previous):
        terminal().print(f"[dim]{stage.name}: skipped (inputs and config unchanged)[/dim]")
        return StageRun(**{**previous.__dict__, "status": StageStatus.SKIPPED})
    if not force:
        donor = _donor(cfg, stage, digest)
        if donor is not None:
            started = now()
            store.copy_outputs(stage.name, donor.run_id, cfg.run_id)
            store.copy_doc_status(stage.name, donor.run_id, cfg.run_id)
            store.clear_staging(stage.name, cfg.run_id)  # parts of an earlier attempt (e.g. retries) are moot
            row = StageRun(cfg.run_id, stage.name, StageStatus.REUSED, started, now(), digest, config_json,
                           donor.row_count, donor.error_count, None, donor.run_id)
            store.record_stage(row)
            terminal().print(f"[dim]{stage.name}: reused identical outputs of run {donor.run_id}[/dim]")
            return row

    staging = store.staging(stage.name, cfg.run_id, digest)
    if force and previous is not None and StageStatus(previous.status).done:
        staging.clear()  # a rerun of a finished stage recomputes everything
        staging = store.staging(stage.name, cfg.run_id, digest)
    started = now()
    store.record_stage(StageRun(cfg.run_id, stage.name, StageStatus.RUNNING, started, None, digest, config_json))
    io = StageIO(cfg, stage, staging, fanout=fanout)
    try:
        outputs = dict(stage.body(io))
        if io.errors:
            collected = outputs.get("errors")
            extra = conform(io.errors, ERRORS_SCHEMA, "errors")
            outputs["errors"] = pa.concat_tables([collected, extra]) if isinstance(collected, pa.Table) else extra
        errors = outputs.setdefault("errors", ERRORS_SCHEMA.empty_table())
        if not isinstance(errors, pa.Table):
            outputs["errors"] = conform([with_retryable(row) for row in errors], ERRORS_SCHEMA, "errors")
        counts = {}
        tables = {}
        for name, rows in outputs.items():
            schema = stage.schema(name)
            tables[name] = rows.cast(schema) if isinstance(rows, pa.Table) else conform(rows, schema, name)
            counts[name] = store.write_table(stage.name, cfg.run_id, name, tables[name], schema)
        store.drop_tables_except(stage.name, cfg.run_id, set(outputs))
        if stage.per_document:
            store.record_doc_status(cfg.run_id, stage.name, document_outcomes(cfg.run_id, stage, tables))
    except Exception as exc:
        store.record_stage(StageRun(cfg.run_id, stage.name, StageStatus.FAILED, started, now(), digest, config_json,
                                    error=f"{type(exc).__name__}: {exc}"))
        raise StageFailed(f"stage {stage.name!r} failed: {exc}") from exc
    error_count = counts.get("errors", 0)
    main_rows = sum(n for name, n in counts.items() if name != "errors")
    if io.failure:
        store.record_stage(StageRun(cfg.run_id, stage.name, StageStatus.FAILED, started, now(), digest, config_json,
                                    main_rows, error_count, error=io.failure))
        staging.clear()
        raise StageFailed(f"stage {stage.name!r} failed: {io.failure}")
    row = StageRun(cfg.run_id, stage.name, StageStatus.COMPLETED, started, now(), digest, config_json, main_rows,
                   error_count)
    store.record_stage(row)
    if staging.pending:
        # Kept for the resume that retries them: the done parts are not computed again.
        log.info("%s: %d document(s) failed transiently; resume the run to retry them", stage.name,
                 len(staging.pending))
    else:
        staging.clear()
    return row
