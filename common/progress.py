"""Pages done inside one document's work, counted on the stage's progress bar as they happen.

A per-page loop (rendering, the layout model, an untagged transcript) calls :func:`page_done`; outside
a counted unit of work the call does nothing, so extractors stay plain functions. The stage runner
counts a unit (`counting`, in the process where the work runs) for a :class:`PageTally` that it
listens with; the tally holds each unit at most at its weight (its pages) while it works, and at
exactly its weight once its result is in: the bar never goes back and ends at the stage's total.

Work in this process reaches the tally directly. A worker process writes each count to a pipe that its
pool hands it (`worker_channel`, `attach`): one short message is one write under PIPE_BUF, so workers
need no lock (a worker terminated mid-count leaves nothing held) and messages never interleave. A thread
of the runner's process reads the pipe and hands each count to its tally. Work elsewhere (a Dask
worker) reaches no tally: its document advances the bar when its result comes in.
"""

from __future__ import annotations

import itertools
import json
import logging
import multiprocessing as mp
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

log = logging.getLogger("accessbench")

# (unit key, pages, ended): what a tally is told; `ended` says the unit's work has sent all its counts.
Listener = Callable[[str, int, bool], None]

MESSAGE_MAX = 4000  # bytes: one write to a pipe up to PIPE_BUF (4096 on Linux) is atomic
ENDED_WAIT_S = 5.0  # the longest wait for a finished unit's last counts (already in the pipe)

_unit: ContextVar[tuple[str, str] | None] = ContextVar("accessbench_page_unit", default=None)  # (tally, key)
_listeners: dict[str, Listener] = {}  # this process's tallies, by token
_tokens = itertools.count()
_lock = threading.Lock()
_writer: Connection | None = None  # in a worker process: where its counts go (set by `attach`)
_channel: Connection | None = None  # in the runner's process: the pipe's write end that its pools hand on


def page_done(n: int = 1) -> None:
    """`n` more pages of the unit of work in progress are done (nothing outside a counted unit)."""
    unit = _unit.get()
    if unit is None or n <= 0:
        return
    parts = _parts.get()
    if parts is not None:  # each page is reported once per pass: every `passes`-th report counts
        passes, seen = parts
        parts[1] = seen + n
        n = (seen + n) // passes - seen // passes
        if n <= 0:
            return
    _send(unit, n, ended=False)


_parts: ContextVar[list[int] | None] = ContextVar("accessbench_page_parts", default=None)  # [passes, reported]


@contextmanager
def in_parts(passes: int) -> Iterator[None]:
    """Within the block, work passes over each page `passes` times (several stages one after another): every
    `passes` pages reported count as one."""
    previous = _parts.set([max(1, passes), 0])
    try:
        yield
    finally:
        _parts.reset(previous)


@dataclass
class Counted:
    """A counted unit: `reported` is set on the way out when its tally got (or will get) all its counts."""

    reported: bool = False


@contextmanager
def counting(token: str | None, key: str) -> Iterator[Counted]:
    """Within the block, `page_done` counts for unit `key` of the tally `token` (None: nothing counts).

    On the way out the tally is told the unit ended, after its last count: the runner waits for that
    before it counts the unit's result, so no count of a finished unit is still on its way.
    """
    counted = Counted()
    if token is None:
        yield counted
        return
    previous = _unit.set((token, key))
    try:
        yield counted
    finally:
        _unit.reset(previous)
        counted.reported = _send((token, key), 0, ended=True)


def _send(unit: tuple[str, str], n: int, *, ended: bool) -> bool:
    token, key = unit
    if _writer is not None:
        message = json.dumps([token, key, n, ended]).encode()
        if len(message) > MESSAGE_MAX:  # a key too long to send in one write: the result counts instead
            return False
        try:
            _writer.send_bytes(message)
        except (OSError, ValueError):  # the runner's end is gone: nothing to count for
            return False
        return True
    listener = _listeners.get(token)
    if listener is None:
        return False
    listener(key, n, ended)
    return True


def attach(writer: Connection | None) -> None:
    """In a worker process (its pool's initializer): counts go to `writer`, the runner's pipe."""
    global _writer
    _writer = writer


def worker_channel() -> Connection:
    """The write end that a new pool hands its workers (`attach`); the first call starts the thread
    that reads the pipe in this process."""
    global _channel
    with _lock:
        if _channel is None:
            reader, _channel = mp.Pipe(duplex=False)
            threading.Thread(target=_read, args=(reader,), name="accessbench-page-counts", daemon=True).start()
        return _channel


def _read(reader: Connection) -> None:
    while True:
        try:
            message = reader.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            token, key, n, ended = json.loads(message)
            listener = _listeners.get(str(token))
            if listener is not None:
                listener(str(key), int(n), bool(ended))
        except Exception:  # noqa: BLE001 - a bad message, or a bar that failed to draw, costs one count
            log.debug("a page count was dropped", exc_info=True)


class PageTally:
    """A stage's counted pages: each unit at most its weight while it works, its full weight when done.

    `advance(n)` gets each step (n > 0); the steps add up to the weights of the units finished, so the
    bar ends exactly at its total, however many pages a unit's work reported (more or fewer than the
    corpus counted, or none: a tagged transcript, work in a Dask worker).
    """

    def __init__(self, weights: Mapping[str, int], advance: Callable[[int], None]) -> None:
        self.weights = {key: max(0, weight) for key, weight in weights.items()}
        self.advance = advance
        self.counted: dict[str, int] = {}
        self.ended: set[str] = set()
        self.changed = threading.Condition()
        self.token = f"{mp.current_process().pid}-{next(_tokens)}"

    def __enter__(self) -> PageTally:
        _listeners[self.token] = self.count
        return self

    def __exit__(self, *exc: object) -> None:
        _listeners.pop(self.token, None)

    def count(self, key: str, n: int, ended: bool) -> None:
        """`n` pages of unit `key` are done (its work said so); `ended`: it sent its last count."""
        with self.changed:
            if ended:
                self.ended.add(key)
                self.changed.notify_all()
            self._raise(key, min(self.weights.get(key, 0), self.counted.get(key, 0) + n))

    def finish(self, key: str, weight: int, reported: bool) -> None:
        """Unit `key`'s result is in: it counts `weight` pages (its own and those of identical documents
        that share its result). `reported`: its work sent an end mark, which is awaited first."""
        with self.changed:
            if reported:
                self.changed.wait_for(lambda: key in self.ended, timeout=ENDED_WAIT_S)
            self._raise(key, max(0, weight))

    def _raise(self, key: str, value: int) -> None:
        have = self.counted.get(key, 0)
        if value > have:
            self.counted[key] = value
            self.advance(value - have)


def in_shares(pages: int, parts: int) -> Callable[[Any], Any]:
    """For work done in `parts` passes over `pages` pages with no page loop of its own to count in:
    each call (wrapped round a pass's result, returned as it is) counts the next share of the pages."""
    done = itertools.count(1)

    def share(result: Any) -> Any:
        step = next(done)
        if step <= parts:
            page_done(pages * step // parts - pages * (step - 1) // parts)
        return result

    return share
