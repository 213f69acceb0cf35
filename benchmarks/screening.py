"""Throughput of the corpus screening stage (target: at least 20 documents per second on 2 cores).

Generates a folder of synthetic papers (tagged, and every fifth one untagged so the heuristic
paths run too) plus a few corrupt files, then times ``screen_folder`` and reports documents per
second and how many files came back as error rows. Run from the repository root::

    python -m benchmarks.screening --docs 200 --workers 2
"""

from __future__ import annotations

import argparse
import io
import random
import tempfile
import time
from pathlib import Path

import pikepdf
import pymupdf

from corpus.mutations import CRITERION_MUTATIONS
from corpus.screening import screen_folder
from corpus.typst_docs import compile_base_doc, make_base_doc

CORRUPT = {
    "corrupt-garbage.pdf": b"%PDF-1.7\nthis is not a real PDF body\n",
    "corrupt-empty.pdf": b"",
    "corrupt-html.pdf": b"<!doctype html><title>moved</title>",
}


def generate(folder: Path, count: int, seed: int) -> None:
    """Write ``count`` generated papers and the corrupt files into ``folder``."""
    untag = CRITERION_MUTATIONS["semantic_tagging"].not_present[1]  # type: ignore[index]
    last = b""
    for index in range(count):
        data = compile_base_doc(make_base_doc(index, seed))
        if index % 5 == 4:  # an untagged share exercises the caption/outline/bullet heuristics
            with pikepdf.open(io.BytesIO(data)) as pdf:
                untag(pdf, random.Random(index))  # type: ignore[operator]
                buf = io.BytesIO()
                pdf.save(buf)
                data = buf.getvalue()
        (folder / f"P{index:05d}.pdf").write_bytes(data)
        last = data
    for name, data in CORRUPT.items():
        (folder / name).write_bytes(data)
    (folder / "corrupt-truncated.pdf").write_bytes(last[: len(last) // 3])


def bare_open_rate(folder: Path) -> float:
    """Documents per second for opening each file and reading its page count: the floor to compare with."""
    paths = sorted(folder.glob("*.pdf"))
    start = time.perf_counter()
    for path in paths:
        try:
            with pymupdf.open(path) as doc:
                _ = doc.page_count
        except Exception:  # noqa: BLE001 - corrupt files count as visited
            continue
    return len(paths) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=200, help="generated documents (corrupt files come on top)")
    parser.add_argument("--workers", type=int, default=2, help="screening processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    args = parser.parse_args(argv)

    pymupdf.TOOLS.mupdf_display_errors(False)  # the corrupt files are expected; keep the report readable
    with tempfile.TemporaryDirectory(prefix="accessbench-screening-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        generate(folder, args.docs, args.seed)
        generated = time.perf_counter() - start

        start = time.perf_counter()
        rows = screen_folder(folder, workers=args.workers)
        elapsed = time.perf_counter() - start
        bad = [r for r in rows if r["error"]]
        rate = len(rows) / elapsed
        print(f"generated {args.docs} documents + {len(CORRUPT) + 1} corrupt files in {generated:.1f} s")
        print(f"screened {len(rows)} files with {args.workers} workers in {elapsed:.2f} s: {rate:.1f} docs/s "
              f"(target >= 20), bare PyMuPDF open: {bare_open_rate(folder):.0f} docs/s")
        print(f"error rows: {len(bad)} ({', '.join(sorted(Path(r['path']).name for r in bad))}); "
              f"repaired on open (kept): {sum(bool(r['repaired']) for r in rows)}")
        print(f"two-column: {sum(bool(r['two_column']) for r in rows)}, untagged: "
              f"{sum(r['tagged'] is False for r in rows)}")


if __name__ == "__main__":
    main()
