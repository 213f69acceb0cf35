"""Per-document time limits: a hanging document becomes a timeout error; the others complete."""

from __future__ import annotations

import time

from tasks.isolation import DocumentTimeout, run_isolated


def slow_or_fast(arg: int) -> int:
    if arg == 2:
        time.sleep(60)  # stands for a parser stuck in C code
    if arg == 3:
        raise ValueError("broken document")
    return arg * 10


def test_overdue_document_times_out_and_the_rest_finish() -> None:
    started = time.monotonic()
    results = dict(run_isolated(slow_or_fast, [0, 1, 2, 3, 4, 5], workers=2, timeout_s=3))
    assert time.monotonic() - started < 30
    assert isinstance(results[2], DocumentTimeout)
    assert isinstance(results[3], ValueError)
    assert {i: results[i] for i in (0, 1, 4, 5)} == {0: 0, 1: 10, 4: 40, 5: 50}


def test_in_process_when_single_worker_and_no_limit() -> None:
    assert dict(run_isolated(slow_or_fast, [1, 4], workers=1, timeout_s=None)) == {0: 10, 1: 40}
