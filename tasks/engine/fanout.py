"""Per-document work as Prefect task runs over batches of documents on a Dask cluster (prefect-dask).

`--runner dask` starts a LocalCluster of `--workers` single-threaded worker processes for the run;
`--runner dask://HOST:PORT` uses an existing scheduler (a real cluster, whose workers have
AccessBench installed and see the data home at the same path). The stage runner stays in charge:
it persists each batch's results as they arrive, so resume, reuse and error rows are the same as
with the local runner. A document whose work raises is its error row; `--doc-timeout` is enforced in
a child process each Dask worker keeps (on a cluster whose workers are daemonic, Dask's default
outside `--runner dask`, documents run unlimited in the worker).
"""

from __future__ import annotations

import contextlib
import logging
import math
import pickle
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from functools import partial
from pathlib import Path
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.futures import as_completed

from tasks.engine.cluster import cluster_kwargs, configure, take_prestarted
from tasks.engine.context import check_runner
from tasks.engine.isolation import kept_workers, run_isolated, run_pickled
from tasks.engine.warm_up import WARM_UP_WAIT_S, submit_warm_up

log = logging.getLogger("accessbench")

# A task run costs a worker about 0.1–0.2 s (its API calls), so each worker gets as few batches as
# possible, of at most MAX_BATCH documents (which bounds what a killed run recomputes). Four batches a
# worker, to overlap the flow's persisting with work, measured no better (benchmarks.scale).
MAX_BATCH = 64


def batch_sizes(documents: int, workers: int) -> list[int]:
    """How many documents each batch takes: the same number of batches for every worker (one, unless a
    batch would exceed MAX_BATCH documents), sizes differing by at most one."""
    if documents <= 0:
        return []
    workers = max(1, workers)
    rounds = max(1, math.ceil(documents / (workers * MAX_BATCH)))  # batches per worker
    batches = min(documents, workers * rounds)
    size, extra = divmod(documents, batches)
    return [size + 1 if number < extra else size for number in range(batches)]


# The fan-out of the flow run in progress, read by the stage tasks (set by `fanout_for`).
CURRENT: ContextVar[Callable[..., Iterator[tuple[int, Any]]] | None] = ContextVar("accessbench_fanout",
                                                                                  default=None)


def current_fanout() -> Callable[..., Iterator[tuple[int, Any]]] | None:
    """The fan-out of the flow run in progress (tasks call this function: a ContextVar does not pickle)."""
    return CURRENT.get()


@task(name="documents", task_run_name="{stage} batch {index}", cache_policy=NO_CACHE)
def process_batch(payload: bytes, stage: str, index: int, timeout_s: float | None = None) -> bytes:
    """One batch of per-document work; a document that raises yields its exception (its error row).

    The work and each document travel pickled (`payload`: the pickled `(fn, [item, ...])`, each pickled
    on its own), and so do the results: Prefect walks every container among a task's parameters and
    result looking for futures, which costs more than the work for a batch of documents with their
    evidence rows. The Dask worker passes the bytes through to its child process unopened, so it never
    imports the stages.

    With a time limit each document runs in a child process the Dask worker keeps (as the local
    runner's workers do), so a document stuck in C code becomes a `timeout` error and the batch goes
    on. A daemonic Dask worker may not have children: there the work runs in the worker, unlimited.
    """
    fn, items = pickle.loads(payload)  # noqa: S301 - pickled by this run's flow process: bytes only
    pool = kept_workers(1) if timeout_s is not None else None
    results: list[Any] = []
    if pool is not None:
        done = dict(run_isolated(partial(run_pickled, fn), items, workers=1, timeout_s=timeout_s, pool=pool))
        results = [done[i] for i in range(len(items))]
    else:
        results = [run_pickled(fn, item) for item in items]
    return pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)


def batch_payload(fn: Callable[[Any], Any], items: Sequence[Any]) -> bytes:
    """`process_batch`'s payload: `fn` and each item pickled on their own, inside one pickled pair."""
    return pickle.dumps((pickle.dumps(fn, protocol=pickle.HIGHEST_PROTOCOL),
                         [pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL) for item in items]),
                        protocol=pickle.HIGHEST_PROTOCOL)


def batch_results(reply: bytes) -> list[Any]:
    """`process_batch`'s reply: each document's result, or the exception it raised or was stopped with."""
    results = pickle.loads(reply)  # noqa: S301 - pickled by this run's own task
    return [pickle.loads(r) if isinstance(r, bytes) else r for r in results]  # noqa: S301 - as above


class DaskFanOut:
    """`run_isolated`'s contract, on a started DaskTaskRunner: (index, result or exception) as batches finish."""

    def __init__(self, task_runner: Any, workers: int) -> None:
        self.task_runner = task_runner
        self.workers = workers
        self.stage = "documents"
        self._warming: list[Any] = []

    def warm_up(self) -> None:
        """Have every worker import the stages and start its child process now, while the corpus stage
        runs, instead of in its first batch (seconds per worker). Fire and forget: a failure here
        shows again, as an error row, when the work runs."""
        try:
            self._warming = submit_warm_up(self.task_runner.client)
        except Exception as exc:  # noqa: BLE001 - an optimisation only
            log.debug("could not warm the Dask workers up: %s", exc)

    def ready(self, timeout_s: float = WARM_UP_WAIT_S) -> None:
        """Wait (once) for the warm-up: a worker still warming up looks busy to the scheduler, which would
        queue a second batch behind the first on the other worker instead of waiting for it."""
        warming, self._warming = self._warming, []
        if warming:
            try:
                from distributed import wait

                wait(warming, timeout=timeout_s)
            except Exception as exc:  # noqa: BLE001 - an optimisation only
                log.debug("the Dask workers' warm-up did not finish: %s", exc)

    def __call__(self, fn: Callable[[Any], Any], args: Sequence[Any], *, workers: int, timeout_s: float | None
                 ) -> Iterator[tuple[int, Any]]:
        if not args:
            return
        self.ready()
        batches, start = [], 0
        for size in batch_sizes(len(args), self.workers):
            batches.append(list(range(start, start + size)))
            start += size
        futures = {}
        for number, batch in enumerate(batches):
            payload = batch_payload(fn, [args[i] for i in batch])
            future = self.task_runner.submit(process_batch, {"payload": payload, "stage": self.stage,
                                                             "index": number, "timeout_s": timeout_s})
            futures[future] = batch
        for future in as_completed(list(futures)):
            batch = futures[future]
            try:
                results = batch_results(future.result())
            except Exception as exc:  # noqa: BLE001 - a lost worker: every document of the batch gets the error
                results = [exc] * len(batch)
            yield from zip(batch, results, strict=True)


@contextlib.contextmanager
def fanout_for(runner: str, workers: int, scratch: Path) -> Iterator[DaskFanOut | None]:
    """The fan-out of one flow run: None for the local runner, else a Dask cluster kept for the whole run.

    `scratch` (in the data home) holds the LocalCluster's worker files: nothing is written outside the home.
    """
    check_runner(runner)
    if runner == "local":
        yield None
        return
    configure(scratch)
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError:
        raise ImportError("--runner dask needs prefect-dask: pip install 'accessbench[dask]'") from None
    cluster = take_prestarted(workers, scratch) if runner == "dask" else None
    if cluster is not None:  # started and warmed up ahead of the flow (`prestart`)
        task_runner = DaskTaskRunner(address=cluster.scheduler_address)
    elif runner == "dask":
        task_runner = DaskTaskRunner(cluster_kwargs=cluster_kwargs(workers, scratch))
    else:
        task_runner = DaskTaskRunner(address="tcp://" + runner.removeprefix("dask://"))
    try:
        with task_runner:
            fanout = DaskFanOut(task_runner, workers)
            if cluster is None:
                fanout.warm_up()
            token = CURRENT.set(fanout)
            try:
                yield fanout
            finally:
                CURRENT.reset(token)
    finally:
        if cluster is not None:
            cluster.close()
