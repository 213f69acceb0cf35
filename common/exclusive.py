"""Work that one process of a run's worker pool does at a time: its memory peak is not doubled.

A worker pool hands every worker one lock when it starts them (`tasks.engine.isolation`, through
`share`). Code whose transient memory is large next to what a worker holds otherwise (the layout
model's inference: ~120 MB for a page's image features) runs inside `exclusive()`, so two workers
never sit at that peak together; the rest of their work goes on side by side. In a process that was
given no lock (the command itself, a test) `exclusive()` does nothing.

A worker that died holding the lock (a crash in C code) must not stall the others for good: a wait
longer than `WAIT_S` goes on without the lock (as before there was one) and says so once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger("accessbench")

WAIT_S = 120.0  # far longer than any one inference; then the holder is taken for dead

_lock: Any = None  # a multiprocessing lock shared by the pool's workers, or None
_warned = False
_inside = threading.local()  # depth: this thread is inside `exclusive()`


def share(lock: Any) -> None:
    """Use `lock` (a `multiprocessing` lock that the pool gave each of its workers) from now on."""
    global _lock
    _lock = lock


def shared() -> bool:
    """Whether this process is a worker of a pool that shares a lock (see `share`)."""
    return _lock is not None


@contextmanager
def exclusive() -> Iterator[None]:
    """The block runs while no other worker of this pool is inside one (a no-op without a shared lock).

    Re-entrant within a thread: a block inside another (a document's model pages, each page's inference)
    runs at once.
    """
    global _warned
    lock = _lock
    depth: int = getattr(_inside, "depth", 0)
    if lock is None or depth:
        yield
        return
    held = lock.acquire(timeout=WAIT_S)
    if not held and not _warned:
        _warned = True
        log.warning("a worker held the shared lock for over %.0f s; going on without it", WAIT_S)
    _inside.depth = 1
    try:
        yield
    finally:
        _inside.depth = 0
        if held:
            lock.release()
