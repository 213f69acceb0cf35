"""Seconds per page of ``extract_contrast`` against a bare PyMuPDF pass over the same pages.

The bare pass is what any PDF tool pays anyway: open, ``get_text('dict')`` and one render at
the same DPI. Both run in this process over the same files, bare pass first, after one
warm-up document, so caches and imports favour neither.

    python -m benchmarks.contrast [--benchmark DIR] [--limit N] [--synthetic N] [--dpi 72]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pymupdf

from benchmarks.sample_pdfs import DEV_BENCHMARK, bare_pass, benchmark_pdfs, synthetic_pdfs
from extractors.contrast import DEFAULT_DPI, extract_contrast


def _page_count(path: Path) -> int:
    with pymupdf.open(path) as doc:
        return int(doc.page_count)


def timed(paths: list[Path], run: Callable[[Path], object]) -> float:
    start = time.perf_counter()
    for path in paths:
        run(path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", type=Path, default=DEV_BENCHMARK, help="folder of benchmark PDFs")
    parser.add_argument("--limit", type=int, default=None, help="at most N distinct benchmark files")
    parser.add_argument("--synthetic", type=int, default=4, help="synthetic typst papers to add")
    parser.add_argument("--dpi", type=int, default=DEFAULT_DPI)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="accessbench-contrast-") as tmp:
        pdfs = benchmark_pdfs(args.benchmark, args.limit) + synthetic_pdfs(Path(tmp), args.synthetic)
        paths = [path for _, path in pdfs]
        if not paths:
            raise SystemExit("no PDFs to time: pass --benchmark DIR or --synthetic N")
        bare_pass(paths[0], args.dpi)  # warm-up: imports, font caches
        extract_contrast(paths[0], doc_id="warm-up", dpi=args.dpi)
        pages = sum(_page_count(p) for p in paths)
        bare = timed(paths, lambda p: bare_pass(p, args.dpi))
        contrast = timed(paths, lambda p: extract_contrast(p, doc_id="bench", dpi=args.dpi))

    print(f"{len(paths)} documents, {pages} pages, {args.dpi} dpi")
    print(f"{'pass':<22}{'s/page':>10}")
    print(f"{'bare PyMuPDF':<22}{bare / pages:>10.4f}")
    print(f"{'extract_contrast':<22}{contrast / pages:>10.4f}")
    print(f"ratio contrast / bare: {contrast / bare:.2f}")


if __name__ == "__main__":
    main()
