"""Run per-document work in worker processes with a per-document time limit.

A PDF can hang or crash the parser (deep trees, enormous pages, malformed streams) in C code
that no Python signal interrupts. Workers are separate processes, so a document that overruns its
limit is stopped by terminating the pool, recorded as a `timeout` error, and the others go on.
Two workers also use both cores of a laptop.

Each worker also has a memory ceiling (`worker_memory_mb`, 1536 MiB unless the run says otherwise):
its data segment and private memory mappings (`RLIMIT_DATA`: what the heap, MuPDF's and qpdf's
buffers and numpy arrays take) may grow by at most that much past what the started worker holds, so
an allocation over the ceiling fails in that worker with MemoryError, which its document's `limit`
error row reports, instead of the machine swapping or the kernel's OOM killer ending the run. Shared
libraries and file mappings do not count, so a worker stays under about 2 GiB resident.
"""

from __future__ import annotations

import atexit
import importlib
import multiprocessing as mp
import pickle
import queue
import resource
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from multiprocessing.connection import Connection
from multiprocessing.pool import Pool
from typing import Any

from common import exclusive, progress
from common.arrow_memory import use_system_allocator
from common.errors import DocumentTimeout as DocumentTimeout  # raised here; declared with the error kinds

WAIT_S = 1.0  # the longest wait for a result between checks of the time limit
DEFAULT_WORKER_MEMORY_MB = 1536.0  # what one worker may allocate for a document; see the module doc


class WorkerMemoryLimit(MemoryError):
    """A document's work needed more memory than its worker's ceiling: terminal, a `limit` error row."""

    kind = "limit"
    transient = False

    def __init__(self, memory_mb: float) -> None:
        self.memory_mb = memory_mb
        super().__init__(f"limit: the document needed more than the worker memory ceiling of {memory_mb:,.0f} MiB; "
                         "raise --worker-memory-mb to process it")

    def __reduce__(self) -> tuple[Any, tuple[float]]:  # crosses from the worker by pickle
        return type(self), (self.memory_mb,)


_ceiling_mb: float | None = None  # this worker's ceiling (set by the pool's initializer)


def _vm_data() -> int | None:
    """Bytes of this process's data segment and private mappings (what RLIMIT_DATA counts), where /proc says."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def set_memory_ceiling(memory_mb: float | None) -> None:
    """Let this process allocate at most `memory_mb` MiB more than it holds now (None or 0: no ceiling).

    Counted from now: a worker's imports (PyMuPDF, pyarrow, their allocators' reserved arenas) already
    map over a GiB that is mostly never touched; the ceiling bounds what a document adds to it. Never
    raises a hard limit set from outside: a lower one stays.
    """
    global _ceiling_mb
    if not memory_mb or memory_mb <= 0:
        return
    wanted = int(memory_mb * 2**20) + (_vm_data() or 0)
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (wanted, hard))
    _ceiling_mb = memory_mb


def within_ceiling(fn: Callable[[Any], Any], arg: Any) -> Any:
    """`fn(arg)` in a worker, its MemoryError past the ceiling reported as :class:`WorkerMemoryLimit`
    (a `memory` failure that `fn` classified itself becomes the same terminal `limit` failure)."""
    try:
        value = fn(arg)
    except MemoryError as exc:
        if _ceiling_mb is None:
            raise
        raise WorkerMemoryLimit(_ceiling_mb) from exc
    finally:
        release_heap()
    if _ceiling_mb is not None and getattr(value, "kind", None) == "memory" and hasattr(value, "transient"):
        from tasks.engine.failures import classify

        return classify(WorkerMemoryLimit(_ceiling_mb))
    return value


_malloc_trim: Callable[[int], int] | None = None


def release_heap() -> None:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim``; nothing elsewhere).

    A worker's C libraries (MuPDF, onnxruntime, pikepdf) free a document's memory into glibc's arenas,
    which keep it: each worker's resident size stayed at the high-water mark of its largest document,
    and the run's workers sat side by side at that mark. A trim after each document costs ~1 ms.
    What PyMuPDF's table search keeps from its last page is dropped first (`forget_table_search`).
    """
    global _malloc_trim
    forget_table_search()
    if _malloc_trim is None:
        import ctypes

        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # this process's own symbols: glibc's, if any
        _malloc_trim = trim if trim is not None else (lambda pad: 0)
    _malloc_trim(0)


def forget_table_search() -> None:
    """Drop the characters and edges PyMuPDF's ``find_tables`` leaves in its module state after a call.

    Each call starts from new lists (``pymupdf.table`` sets both context variables to ``[]`` first), but the last
    call's lists stay referenced until the next one: after a development PDF of dense pages a worker kept ~23,000
    character objects, ~12 MB resident, past the end of its document. Tables already found keep their own copy.
    Nothing is imported here: a process that never searched has nothing to drop.
    """
    table = sys.modules.get("pymupdf.table")
    for name in ("_CHARS_VAR", "_EDGES_VAR"):
        state = getattr(table, name, None)
        if state is not None and state.get() is not None:
            state.set(None)


class WorkerPool:
    """Worker processes kept for the stages of one run.

    Starting a pool costs a fork and the imports of the work it serves; a run keeps one pool while its
    stages want the same modules (see `_context`). It starts when a stage first has documents to process,
    so a run or rerun whose per-document stages are all reused starts no process. Its workers import
    `preload` before the work comes (the modules of the stages it is started for; the run sets them stage by
    stage, for the next start). A pool whose work was abandoned (a time limit, an interrupt) is terminated
    and started again on next use.
    """

    def __init__(self, workers: int, preload: Sequence[str] = (),
                 memory_mb: float | None = DEFAULT_WORKER_MEMORY_MB) -> None:
        self.workers = max(1, workers)
        self.preload = tuple(preload)
        self.memory_mb = memory_mb
        self._pool: Pool | None = None
        self._lock = threading.Lock()

    def get(self) -> Pool:
        with self._lock:
            if self._pool is None:
                pool = _new_pool(_context(), self.workers, self.preload, self.memory_mb)
                # Wait for a started worker, so starting processes never counts against a document's time.
                pool.apply(_ready)
                self._pool = pool
            return self._pool

    @property
    def started(self) -> bool:
        return self._pool is not None

    def reset(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()
            pool.join()


_shared: WorkerPool | None = None


@contextmanager
def shared_workers(workers: int, preload: Sequence[str] = (),
                   memory_mb: float | None = DEFAULT_WORKER_MEMORY_MB) -> Iterator[WorkerPool]:
    """Within the block, isolated work with `workers` processes reuses one pool, started by the first
    work that needs it (never, when every stage is reused); stopped on the way out. Each worker's memory
    is capped at `memory_mb` MiB (see the module doc)."""
    global _shared
    pool = WorkerPool(workers, preload, memory_mb)
    previous, _shared = _shared, pool
    try:
        yield pool
    finally:
        _shared = previous
        pool.reset()


def shared_pool() -> WorkerPool | None:
    """The pool of the run in progress in this process (`shared_workers`), if any."""
    return _shared


def in_a_worker(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)` in one of the run's shared worker processes (in this process without one).

    For up-front checks that load what the workers will use anyway (a layout model): the worker
    keeps it, and this process never pays for it.
    """
    if _shared is None or _shared.workers <= 1:
        return fn(*args)
    return _shared.get().apply(fn, args)


def _ready() -> bool:
    return True


def _preload(modules: tuple[str, ...], memory_mb: float | None = None, pages: Connection | None = None,
             lock: Any = None) -> None:
    use_system_allocator()  # inherited from the run's process, unless the fork server started before it chose
    progress.attach(pages)  # pages done inside a document reach the runner's bar (`common.progress`)
    exclusive.share(lock)  # the pool's one lock: the layout model's inference, one worker at a time
    for name in modules:  # before the ceiling: it bounds what a document adds to the started worker
        importlib.import_module(name)
    set_memory_ceiling(memory_mb)


_kept: WorkerPool | None = None


def kept_workers(workers: int) -> WorkerPool | None:
    """A pool kept for the life of this process (a Dask worker's), or None where this process may not
    have children (a daemonic process, as Dask workers are unless started with daemon off)."""
    global _kept
    if mp.current_process().daemon:
        return None
    if _kept is None or _kept.workers != max(1, workers):
        if _kept is not None:
            _kept.reset()
        _kept = WorkerPool(workers)
        atexit.register(_kept.reset)
    return _kept


def run_isolated(fn: Callable[[Any], Any], args: Sequence[Any], *, workers: int, timeout_s: float | None,
                 pool: WorkerPool | None = None) -> Iterator[tuple[int, Any]]:
    """Yield (index, result or exception) for `fn(args[i])`, as results arrive.

    `fn` must be a picklable top-level function. With one worker and no time limit the work runs
    in this process (cheap for small runs and for debugging). Worker processes come from `pool`,
    else the run's shared pool (see `shared_workers`), else a pool for this call.
    """
    if not args:  # nothing to do (every document reused or taken from the chain): no pool started for it
        return
    if workers <= 1 and timeout_s is None:
        for index, arg in enumerate(args):
            try:
                yield index, fn(arg)
            except Exception as exc:  # noqa: BLE001 - reported to the caller as a value
                yield index, exc
        return
    pending = list(range(len(args)))[::-1]
    shared = pool or (_shared if _shared is not None and _shared.workers == max(1, workers) else None)
    owner = shared or WorkerPool(workers)
    processes = owner.get()
    # Results arrive through the pool's callbacks, so the next document starts the moment a worker is
    # free (no polling interval between small documents). A time limit restarts the pool: results of
    # the pool it replaced carry an older generation and are dropped.
    arrived: queue.SimpleQueue[tuple[int, int, Any]] = queue.SimpleQueue()
    generation = 0
    running: dict[int, float] = {}
    clean = False
    try:
        while pending or running:
            while pending and len(running) < max(1, workers):
                index = pending.pop()
                running[index] = time.monotonic()
                processes.apply_async(
                    within_ceiling, (fn, args[index]),
                    callback=partial(_arrive, arrived, generation, index),
                    error_callback=partial(_arrive, arrived, generation, index))
            wait = WAIT_S
            if timeout_s is not None:
                wait = max(0.0, min(wait, min(running.values()) + timeout_s - time.monotonic()))
            try:
                got, index, value = arrived.get(timeout=wait)
            except queue.Empty:
                got = -1
            if got == generation and index in running:
                del running[index]
                yield index, value
                continue
            overdue = [i for i, started in running.items()
                       if timeout_s is not None and time.monotonic() - started > timeout_s]
            if overdue:
                # A pool cannot cancel one task: stop all workers, requeue the innocent ones.
                owner.reset()
                generation += 1
                for index in overdue:
                    running.pop(index)
                    yield index, DocumentTimeout(
                        f"processing took longer than {timeout_s:.0f} s; not retried on resume: raise --doc-timeout "
                        "and rerun the stage (accessbench rerun --run RUN --stage STAGE --downstream) to try again")
                pending.extend(sorted(running, reverse=True))
                running.clear()
                processes = owner.get()
        clean = True
    finally:
        # A shared pool outlives this call unless work was abandoned in it (an interrupt, a caller
        # that stopped reading); a private one always goes.
        if shared is None or not clean:
            owner.reset()


def run_pickled(fn: bytes, item: bytes) -> bytes:
    """`fn(item)` for a pickled function and item, its result (or the exception it raised) pickled: the
    process that hands work and results through (a Dask worker) never unpickles, or imports, the stages."""
    try:
        value = pickle.loads(fn)(pickle.loads(item))  # noqa: S301 - pickled by this run's flow process
    except Exception as exc:  # noqa: BLE001 - returned as the document's outcome
        value = exc
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _arrive(arrived: queue.SimpleQueue[tuple[int, int, Any]], generation: int, index: int, value: Any) -> None:
    """A pool callback (in the pool's result thread): hand the result or exception to `run_isolated`."""
    arrived.put((generation, index, value))


# What the fork server imports before it forks any worker: nothing (not even the multiprocessing default,
# `__main__`, the CLI). Each worker imports the modules of the stages its pool serves (`WorkerPool.preload`).
# Everything a fork server imports is resident in it and, counted again, in every worker forked from it: with
# every stage imported there (PyMuPDF, pikepdf, pyarrow, the judges: ~120 MB) the run's process tree held one
# more copy than it has workers, and the judge stage's workers carried the page stages' modules (issue 56).
FORK_SERVER_PRELOAD: list[str] = []


def _context() -> Any:
    """Workers forked from a clean, single-threaded fork server that imports nothing of its own (never forked
    from this process, which may hold Prefect's threads); spawned where there is no fork server."""
    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    context = mp.get_context("forkserver")
    context.set_forkserver_preload(FORK_SERVER_PRELOAD)  # no effect once the fork server runs
    return context


# A worker is replaced after this many documents (or judge units), so what a C library leaks stays bounded; a
# replacement imports its stages again (~0.5 s). A screening run's judge stage has one unit per file and
# criterion: 539 for 77 files, within one worker's share of two.
MAX_TASKS_PER_WORKER = 500


def _new_pool(context: Any, workers: int, preload: tuple[str, ...] = (), memory_mb: float | None = None) -> Pool:
    # A lock per pool (`common.exclusive`): a pool stopped because a worker overran its time limit, perhaps
    # holding the lock, is replaced by one with a new lock.
    lock = context.Lock() if workers > 1 else None
    return context.Pool(max(1, workers), maxtasksperchild=MAX_TASKS_PER_WORKER, initializer=_preload,
                        initargs=(preload, memory_mb, progress.worker_channel(), lock))
