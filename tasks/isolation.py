"""Run per-document work in worker processes with a per-document time limit.

A PDF can hang or crash the parser (deep trees, enormous pages, malformed streams) in C code
that no Python signal interrupts. Workers are separate processes, so a document that overruns its
limit is stopped by terminating the pool, recorded as a `timeout` error, and the others go on.
Two workers also use both cores of a laptop.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.pool import AsyncResult, Pool
from typing import Any

POLL_S = 0.05


class DocumentTimeout(Exception):
    """The document took longer than its time limit."""


def run_isolated(fn: Callable[[Any], Any], args: Sequence[Any], *, workers: int, timeout_s: float | None
                 ) -> Iterator[tuple[int, Any]]:
    """Yield (index, result or exception) for `fn(args[i])`, as results arrive.

    `fn` must be a picklable top-level function. With one worker and no time limit the work runs
    in this process (cheap for small runs and for debugging).
    """
    if workers <= 1 and timeout_s is None:
        for index, arg in enumerate(args):
            try:
                yield index, fn(arg)
            except Exception as exc:  # noqa: BLE001 - reported to the caller as a value
                yield index, exc
        return
    pending = list(range(len(args)))[::-1]
    context = mp.get_context("spawn")  # never fork a process that may hold Prefect's threads
    pool = _new_pool(context, workers)
    running: dict[int, tuple[AsyncResult[Any], float]] = {}
    try:
        while pending or running:
            while pending and len(running) < max(1, workers):
                index = pending.pop()
                running[index] = (pool.apply_async(fn, (args[index],)), time.monotonic())
            finished = [i for i, (result, _) in running.items() if result.ready()]
            for index in finished:
                result, _ = running.pop(index)
                try:
                    yield index, result.get()
                except Exception as exc:  # noqa: BLE001 - a worker exception is this document's error
                    yield index, exc
            overdue = [i for i, (_, started) in running.items()
                       if timeout_s is not None and time.monotonic() - started > timeout_s]
            if overdue:
                # A pool cannot cancel one task: stop all workers, requeue the innocent ones.
                pool.terminate()
                pool.join()
                for index in overdue:
                    running.pop(index)
                    yield index, DocumentTimeout(f"processing took longer than {timeout_s:.0f} s")
                pending.extend(sorted(running, reverse=True))
                running.clear()
                pool = _new_pool(context, workers)
            elif not finished:
                time.sleep(POLL_S)
    finally:
        pool.terminate()
        pool.join()


def _new_pool(context: Any, workers: int) -> Pool:
    return context.Pool(max(1, workers), maxtasksperchild=200)
