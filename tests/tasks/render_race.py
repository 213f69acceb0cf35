"""A light module for the render race's child processes (they import this, not the test module and
its stages): render one PDF into one folder again and again, counting failures."""

from __future__ import annotations

from pathlib import Path


def render_repeatedly(args: tuple[str, str, int]) -> int:
    from extractors.pages import render_pages

    pdf, out, times = args
    failures = 0
    for _ in range(times):
        try:
            render_pages(pdf, doc_id="d", out_dir=Path(out), dpi=100)
        except Exception:  # noqa: BLE001 - counted: any failure is the race the test looks for
            failures += 1
    return failures
