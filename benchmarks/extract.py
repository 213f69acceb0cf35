"""Seconds per page of every extractor the pipeline runs, against a bare PyMuPDF pass over the same pages.

The bare pass is what any PDF tool pays anyway: open, ``get_text('dict')`` and one render at
the same DPI. Every extractor runs in this process over the dev benchmark's distinct files (by
sha256), after one warm-up file. Timings are interleaved file by file (bare pass, then each
extractor), so load from other processes on the machine drifts over all of them alike.
Extractors are called as ``tasks/extract.py`` calls them: the tag tree once, passed on, and
one ``PdfSource`` per file shared by all of them. Filling that source (opening the file,
display lists, text pages) is timed apart, as "shared page cache", and not charged to
whichever extractor happened to ask first. Page renders and the transcript are separate
stages in the pipeline, so each opens its own source here too, and is charged for it.
Layout (left out of the 3x target) runs first in a spawned child process, as the layout
stage runs in its own workers: its regions feed ``extract_tables``, and its model's memory
stays out of the extraction's peak. Peak memory is each process's maximum resident set
(``ru_maxrss``: C allocations included) after the whole run.

    python -m benchmarks.extract [--benchmark DIR] [--limit N] [--dpi 72] [--crop-dpi 110]
    python -m benchmarks.extract --pipeline   # every stage via tasks.runner.execute, wall time per stage
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing as mp
import resource
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from benchmarks.sample_pdfs import DEV_BENCHMARK, bare_pass
from extractors.contrast import extract_contrast
from extractors.figures import extract_figures, render_figure_crops
from extractors.fonts import extract_fonts, extract_text_spans
from extractors.layout import detect_layout
from extractors.links import extract_links, extract_orphan_link_elements
from extractors.pages import render_pages
from extractors.reading_order import extract_reading_order
from extractors.source import PdfSource
from extractors.structure import extract_struct_elements, struct_summary
from extractors.tables import extract_tables, render_table_crops
from extractors.transcript import transcribe

TARGET = 3.0  # all extraction except layout, times the bare pass
MEMORY_TARGET_MIB = 1024
DOC = "bench"
LAYOUT = "layout (pymupdf)"
SHARED = "shared page cache"
EXCLUDED = (LAYOUT, "tables visual=False")  # not part of the "all extraction" sum
Step = Callable[[Path, "FileState"], object]


class FileState:
    """What one file's earlier extractors produced and later ones are given, as in tasks/extract.py."""

    def __init__(self, out: Path, source: PdfSource) -> None:
        self.out = out
        self.source = source  # the extract stage's one source for this file
        self.elements: list[dict] = []
        self.links: list[dict] = []
        self.regions: list[dict] = []


def dev_pdfs(root: Path, limit: int | None) -> list[Path]:
    """Distinct (by sha256) processed PDFs plus the per-page alt_text_quality/passed inputs."""
    candidates = sorted(root.glob("processed/*/*/*.pdf")) + sorted(root.glob("inputs/alt_text_quality/passed/*/*.pdf"))
    seen: set[str] = set()
    paths = []
    for path in candidates:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest not in seen:
            seen.add(digest)
            paths.append(path)
    return paths[:limit]


def steps(dpi: int, crop_dpi: int) -> dict[str, Step]:
    def structure(p: Path, s: FileState) -> None:
        struct_summary(s.source)
        s.elements = extract_struct_elements(s.source, doc_id=DOC)

    def links(p: Path, s: FileState) -> None:
        s.links = extract_links(s.source, doc_id=DOC)
        extract_orphan_link_elements(s.source, doc_id=DOC)

    def tables(p: Path, s: FileState) -> None:
        found, _ = extract_tables(s.source, doc_id=DOC, elements=s.elements, regions=s.regions)
        render_table_crops(s.source, found, s.out / "crops", crop_dpi)

    def figures(p: Path, s: FileState) -> None:
        found = extract_figures(s.source, doc_id=DOC, elements=s.elements)
        render_figure_crops(s.source, [f for f in found if not f.get("small")], s.out / "crops", crop_dpi)

    return {
        "structure": structure,
        "links": links,
        "fonts + text spans": lambda p, s: (extract_fonts(s.source, doc_id=DOC),
                                            extract_text_spans(s.source, doc_id=DOC)),
        "contrast": lambda p, s: extract_contrast(s.source, doc_id=DOC, dpi=dpi, off_page=False),  # as the stage
        "reading order": lambda p, s: extract_reading_order(s.source, doc_id=DOC, elements=s.elements),
        "tables + crops": tables,
        "tables visual=False": lambda p, s: extract_tables(s.source, doc_id=DOC, elements=s.elements, visual=False),
        "figures + crops": figures,
        # Separate stages: each opens the file itself (a path, not the extract stage's source).
        "transcript": lambda p, s: transcribe(p, doc_id=DOC, elements=s.elements, links=s.links),
        "render pages": lambda p, s: render_pages(p, doc_id=DOC, out_dir=s.out / "pages", dpi=dpi),
    }


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def layout_regions(paths: list[Path]) -> tuple[list[float], list[list[dict]], float]:
    """Seconds and layout records per file (after a warm-up file), and this process's peak RSS in MiB."""
    detect_layout(paths[0], doc_id="warm-up", backend="pymupdf")
    seconds, regions = [], []
    for path in paths:
        start = time.perf_counter()
        try:
            regions.append(detect_layout(path, doc_id=DOC, backend="pymupdf"))
        except Exception as exc:  # noqa: BLE001 - the pipeline turns these into error rows
            print(f"  {path.name}: layout failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            regions.append([])
        seconds.append(time.perf_counter() - start)
    return seconds, regions, rss_mib()


def measure(paths: list[Path], dpi: int, crop_dpi: int, regions: list[list[dict]]
            ) -> tuple[int, float, dict[str, float], dict[str, float]]:
    """Pages, bare seconds, seconds per extractor, and the peak RSS (MiB) first reached in each."""
    work = steps(dpi, crop_dpi)
    seconds: dict[str, float] = defaultdict(float)
    peak_step: dict[str, float] = {}
    bare = 0.0
    pages = 0
    with tempfile.TemporaryDirectory(prefix="accessbench-extract-") as tmp:
        with PdfSource(paths[0]) as source:  # imports, font caches
            warm = FileState(Path(tmp) / "warm-up", source)
            bare_pass(paths[0], dpi)
            for step in work.values():
                step(paths[0], warm)
        for index, path in enumerate(paths):
            start = time.perf_counter()
            pages += bare_pass(path, dpi)
            bare += time.perf_counter() - start
            with PdfSource(path) as source:
                state = FileState(Path(tmp) / str(index), source)
                state.regions = regions[index]
                for name, step in work.items():
                    before, filled = rss_mib(), source.seconds
                    start = time.perf_counter()
                    try:
                        step(path, state)
                    except Exception as exc:  # noqa: BLE001 - the pipeline turns these into error rows
                        print(f"  {path.name}: {name} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
                    shared = source.seconds - filled
                    seconds[name] += time.perf_counter() - start - shared
                    seconds[SHARED] += shared
                    if rss_mib() > before:
                        peak_step[name] = max(peak_step.get(name, 0.0), rss_mib())
    return pages, bare, dict(seconds), peak_step


def report(paths: list[Path], dpi: int, crop_dpi: int) -> None:
    with mp.get_context("spawn").Pool(1) as pool:
        layout_seconds, regions, layout_peak = pool.apply(layout_regions, (paths,))
    baseline = rss_mib()
    pages, bare, seconds, peak_step = measure(paths, dpi, crop_dpi, regions)
    seconds[LAYOUT] = sum(layout_seconds)
    peak = rss_mib()
    print(f"{len(paths)} distinct files, {pages} pages, pages at {dpi} dpi, crops at {crop_dpi} dpi")
    print(f"{'extractor':<22}{'total s':>10}{'s/page':>10}{'x bare':>9}")
    print(f"{'bare PyMuPDF':<22}{bare:>10.2f}{bare / pages:>10.4f}{1:>9.2f}")
    for name, total in sorted(seconds.items(), key=lambda kv: -kv[1]):
        note = "  (not in total)" if name in EXCLUDED else ""
        print(f"{name:<22}{total:>10.2f}{total / pages:>10.4f}{total / bare:>9.2f}{note}")
    everything = sum(total for name, total in seconds.items() if name not in EXCLUDED)
    ratio = everything / bare
    print(f"ALL extraction except layout: {everything / pages:.4f} s/page = {ratio:.2f}x bare "
          f"(target <= {TARGET:.0f}x){'' if ratio <= TARGET else '  MISSED'}")
    top = max(peak_step, key=lambda k: peak_step[k]) if peak_step else "-"
    print(f"peak RSS {peak:.0f} MiB (after imports {baseline:.0f} MiB, delta {peak - baseline:.0f} MiB; "
          f"peak first reached in {top}; target < {MEMORY_TARGET_MIB} MiB)"
          f"{'' if peak < MEMORY_TARGET_MIB else '  MISSED'}")
    print(f"layout process (pymupdf-layout model) peak RSS {layout_peak:.0f} MiB")


def run_pipeline(benchmark_root: Path, workers: int) -> None:
    """Every stage of a dataset run in this process via tasks.runner.execute; wall time per stage."""
    from tasks.context import RunConfig
    from tasks.registry import STAGE_LIST
    from tasks.runner import execute

    with tempfile.TemporaryDirectory(prefix="accessbench-pipeline-") as tmp:
        cfg = RunConfig(home=Path(tmp), run_id="bench", source="dataset", source_path=str(benchmark_root),
                        workers=workers, progress=False)
        print(f"{'stage':<12}{'status':>10}{'rows':>8}{'errors':>8}{'wall s':>9}{'s/page':>9}{'peak MiB':>10}")
        total, pages = 0.0, 0
        for stage in STAGE_LIST:
            start = time.perf_counter()
            result = execute(cfg, stage)
            wall = time.perf_counter() - start
            total += wall
            pages = (result.row_count or 0) if stage.name == "render" else pages  # one `pages` row per page
            per_page = f"{wall / pages:>9.4f}" if pages else f"{'-':>9}"
            print(f"{stage.name:<12}{result.status:>10}{result.row_count:>8}{result.error_count:>8}{wall:>9.2f}"
                  f"{per_page}{rss_mib():>10.0f}")  # this process's peak so far: the stage bodies run here
        print(f"{'total':<38}{total:>9.2f}{total / max(pages, 1):>9.4f}   ({pages} pages, {workers} worker processes)")
        largest_worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"peak RSS: this process {rss_mib():.0f} MiB, largest worker {largest_worker:.0f} MiB")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", type=Path, default=DEV_BENCHMARK.parent.parent,
                        help="the dev benchmark folder (with data/processed and data/inputs)")
    parser.add_argument("--limit", type=int, default=None, help="at most N distinct files")
    parser.add_argument("--dpi", type=int, default=72, help="page renders and the bare pass")
    parser.add_argument("--crop-dpi", type=int, default=110, help="figure and table crops (RunConfig.crop_dpi)")
    parser.add_argument("--pipeline", action="store_true", help="run every stage instead and time each")
    parser.add_argument("--workers", type=int, default=2, help="worker processes for --pipeline")
    args = parser.parse_args(argv)

    data = args.benchmark / "data"
    if not data.is_dir():
        print(f"skipped: no dev benchmark at {data} (pass --benchmark DIR)")
        return
    if args.pipeline:
        run_pipeline(args.benchmark, args.workers)
        return
    paths = dev_pdfs(data, args.limit)
    if not paths:
        print(f"skipped: no PDFs under {data}")
        return
    report(paths, args.dpi, args.crop_dpi)


if __name__ == "__main__":  # worker processes are spawned: they import this module, they must not run it
    main()
