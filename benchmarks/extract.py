"""Seconds per page of every extractor the pipeline runs, against a bare PyMuPDF pass over the same pages.

The bare pass is what any PDF tool pays anyway: open, ``get_text('dict')`` and one render at
the same DPI. Every extractor runs in this process over the dev benchmark's distinct files (by
sha256), after one warm-up file. Timings are interleaved file by file (bare pass, then each
extractor), so load from other processes on the machine drifts over all of them alike.
Extractors are called as ``tasks/benchmark/extract.py`` calls them: the tag tree once, passed on, and
one ``PdfSource`` per file shared by all of them. Filling that source (opening the file,
display lists, text pages) is timed apart, as "shared page cache", and not charged to
whichever extractor happened to ask first. Page renders and the transcript are separate
stages in the pipeline, so each opens its own source here too, and is charged for it.
Layout (left out of the 3x target) runs first in a spawned child process, as the layout
stage runs in its own workers, on the pages the stage lays out (``layout_file``: the plan,
tag tree included, is charged to layout): its regions feed ``extract_tables``, and its
model's memory stays out of the extraction's peak. The judge inputs and the rules judge run
last per file, for every criterion a dev-benchmark document of that file is filed under, as
the inputs and judge stages do. ``PIPELINE incl. layout`` adds up every per-document stage:
render, layout, extract, transcript, judge inputs, rules judge. Peak memory is each
process's maximum resident set (``ru_maxrss``: C allocations included) after the whole run.

    python -m benchmarks.extract [--benchmark DIR] [--limit N] [--dpi 72] [--crop-dpi 110] [--layout-every-page]
    python -m benchmarks.extract --pipeline   # every stage via tasks.engine.runner.execute, wall time per stage
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import resource
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

from benchmarks.sample_pdfs import DEV_BENCHMARK, bare_pass
from extractors.contrast import extract_contrast
from extractors.figures import extract_figures, render_figure_crops
from extractors.fonts import extract_fonts, extract_text_spans
from extractors.layout import layout_file
from extractors.links import extract_links, extract_orphan_link_elements
from extractors.pages import render_pages
from extractors.reading_order import extract_reading_order, order_agreement
from extractors.source import PdfSource
from extractors.structure.records import extract_struct_elements
from extractors.structure.summary import struct_summary
from extractors.tables import extract_tables, render_table_crops
from extractors.transcript import transcribe
from judges.evidence import DocEvidence, PageBundle, build_bundles
from judges.rules import RulesJudge
from tasks.benchmark.work.extract import with_contrast
from tasks.benchmark.work.layout import LAYOUT_CRITERIA

TARGET = 3.0  # all extraction except layout, times the bare pass
LAYOUT_TARGET = 2.0  # the layout stage (plan and model), times the bare pass
PIPELINE_TARGET = 2.5  # every per-document stage, layout included (issue 35)
MEMORY_TARGET_MIB = 1024
DOC = "bench"
LAYOUT = "layout (pymupdf)"
JUDGE = "judge inputs + rules"
SHARED = "shared page cache"
EXCLUDED = (LAYOUT, JUDGE, "tables visual=False")  # not part of the "all extraction" sum
Step = Callable[[Path, "FileState"], object]


class FileState:
    """What one file's earlier extractors produced and later ones are given, as in tasks/benchmark/extract.py."""

    def __init__(self, out: Path, source: PdfSource, criteria: frozenset[str] = frozenset()) -> None:
        self.out = out
        self.source = source  # the extract stage's one source for this file
        self.criteria = criteria  # what the documents made of this file are judged on
        self.elements: list[dict] = []
        self.links: list[dict] = []
        self.regions: list[dict] = []
        self.rows: dict[str, list[dict]] = {}  # evidence tables, as the extract/render/transcript stages write them


def dev_files(root: Path, limit: int | None) -> list[tuple[Path, frozenset[str]]]:
    """Distinct (by sha256) files of :func:`dev_pdfs`, each with the criteria of every copy of it."""
    candidates = sorted(root.glob("processed/*/*/*.pdf")) + sorted(root.glob("inputs/alt_text_quality/passed/*/*.pdf"))
    first: dict[str, Path] = {}
    criteria: dict[str, set[str]] = defaultdict(set)
    for path in candidates:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        first.setdefault(digest, path)
        criteria[digest].add(path.relative_to(root).parts[1])
    return [(path, frozenset(criteria[digest])) for digest, path in first.items()][:limit]


def dev_pdfs(root: Path, limit: int | None) -> list[Path]:
    """Distinct (by sha256) processed PDFs plus the per-page alt_text_quality/passed inputs."""
    return [path for path, _ in dev_files(root, limit)]


def steps(dpi: int, crop_dpi: int) -> dict[str, Step]:
    def structure(p: Path, s: FileState) -> None:
        s.rows["doc_structure"] = [struct_summary(s.source)]
        s.elements = s.rows["struct_elements"] = extract_struct_elements(s.source, doc_id=DOC)

    def links(p: Path, s: FileState) -> None:
        s.links = s.rows["links"] = extract_links(s.source, doc_id=DOC)
        extract_orphan_link_elements(s.source, doc_id=DOC)

    def fonts(p: Path, s: FileState) -> None:
        s.rows["fonts"] = extract_fonts(s.source, doc_id=DOC)
        s.rows["text_spans"] = extract_text_spans(s.source, doc_id=DOC)

    def contrast(p: Path, s: FileState) -> None:  # as the stage: measured spans joined to text_spans
        s.rows["text_spans"] = with_contrast(s.rows.get("text_spans", []),
                                             extract_contrast(s.source, doc_id=DOC, dpi=dpi, off_page=False))

    def reading_order(p: Path, s: FileState) -> None:
        s.rows["reading_order"] = extract_reading_order(s.source, doc_id=DOC, elements=s.elements)

    def tables(p: Path, s: FileState) -> None:
        found, cells = extract_tables(s.source, doc_id=DOC, elements=s.elements, regions=s.regions)
        crops = render_table_crops(s.source, found, s.out / "crops", crop_dpi)
        s.rows["tables"] = [{**t, "crop_path": c} for t, c in zip(found, crops, strict=True)]
        s.rows["table_cells"] = cells

    def figures(p: Path, s: FileState) -> None:
        found = s.rows["figures"] = extract_figures(s.source, doc_id=DOC, elements=s.elements)
        render_figure_crops(s.source, [f for f in found if not f.get("small")], s.out / "crops", crop_dpi)

    def transcript(p: Path, s: FileState) -> None:
        s.rows["transcripts"] = transcribe(p, doc_id=DOC, elements=s.elements, links=s.links)

    def pages(p: Path, s: FileState) -> None:
        s.rows["pages"] = render_pages(p, doc_id=DOC, out_dir=s.out / "pages", dpi=dpi)

    return {
        "structure": structure,
        "links": links,
        "fonts + text spans": fonts,
        "contrast": contrast,
        "reading order": reading_order,
        "tables + crops": tables,
        "tables visual=False": lambda p, s: extract_tables(s.source, doc_id=DOC, elements=s.elements, visual=False),
        "figures + crops": figures,
        # Separate stages: each opens the file itself (a path, not the extract stage's source).
        "transcript": transcript,
        "render pages": pages,
        JUDGE: judge,
    }


def judge(p: Path, s: FileState) -> None:
    """The inputs stage's bundles (serialised as it stores them) and the rules judge's verdict on each."""
    order = s.rows.get("reading_order", [])
    tables = ("struct_elements", "doc_structure", "links", "fonts", "text_spans", "reading_order", "tables",
              "table_cells", "figures")
    evidence = DocEvidence(DOC, pages=sorted(s.rows.get("pages", []), key=lambda r: r["page"]), extract_failed=False,
                           transcript_failed=False, transcripts=s.rows.get("transcripts", []),
                           layout_regions=s.regions,
                           order_agreement={n: order_agreement(order, page=n) for n in {r["page"] for r in order}},
                           **{name: s.rows.get(name, []) for name in tables})
    rules = RulesJudge()
    for criterion in sorted(s.criteria):
        for bundle, _ in build_bundles(criterion, evidence, withhold=False):
            stored = json.loads(json.dumps(bundle.evidence, sort_keys=True, default=str))
            if rules.supports(criterion):
                rules.judge_page(PageBundle(criterion, bundle.page, stored, bundle.image_path, doc_ref=DOC), 0)


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def layout_regions(paths: list[Path], needed: list[bool], every_page: bool = False
                   ) -> tuple[list[float], list[list[dict]], list[list[dict]], float]:
    """Seconds, layout records and page decisions per file (after a warm-up file), and this
    process's peak RSS in MiB. Each file is laid out as the layout stage does it: only when a
    criterion it is judged on needs layout. ``every_page`` lays out every page of every file."""
    layout_file(paths[0], doc_id="warm-up", all_pages=True)
    seconds, regions, decisions = [], [], []
    for path, need in zip(paths, needed, strict=True):
        if not (need or every_page):
            seconds.append(0.0)
            regions.append([])
            decisions.append([])
            continue
        start = time.perf_counter()
        try:
            found, decided = layout_file(path, doc_id=DOC, all_pages=every_page)
        except Exception as exc:  # noqa: BLE001 - the pipeline turns these into error rows
            print(f"  {path.name}: layout failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            found, decided = [], []
        seconds.append(time.perf_counter() - start)
        regions.append(found)
        decisions.append(decided)
    return seconds, regions, decisions, rss_mib()


def measure(files: list[tuple[Path, frozenset[str]]], dpi: int, crop_dpi: int, regions: list[list[dict]]
            ) -> tuple[int, float, dict[str, float], dict[str, float]]:
    """Pages, bare seconds, seconds per extractor, and the peak RSS (MiB) first reached in each."""
    work = steps(dpi, crop_dpi)
    seconds: dict[str, float] = defaultdict(float)
    peak_step: dict[str, float] = {}
    bare = 0.0
    pages = 0
    with tempfile.TemporaryDirectory(prefix="accessbench-extract-") as tmp:
        with PdfSource(files[0][0]) as source:  # imports, font caches
            warm = FileState(Path(tmp) / "warm-up", source, files[0][1])
            bare_pass(files[0][0], dpi)
            for step in work.values():
                step(files[0][0], warm)
        for index, (path, criteria) in enumerate(files):
            start = time.perf_counter()
            pages += bare_pass(path, dpi)
            bare += time.perf_counter() - start
            with PdfSource(path) as source:
                state = FileState(Path(tmp) / str(index), source, criteria)
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


def report(files: list[tuple[Path, frozenset[str]]], dpi: int, crop_dpi: int, every_page: bool) -> None:
    paths = [path for path, _ in files]
    with mp.get_context("spawn").Pool(1) as pool:
        needed = [bool(criteria & LAYOUT_CRITERIA) for _, criteria in files]
        layout_seconds, regions, decisions, layout_peak = pool.apply(layout_regions, (paths, needed, every_page))
    baseline = rss_mib()
    pages, bare, seconds, peak_step = measure(files, dpi, crop_dpi, regions)
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
          f"(target <= {TARGET:g}x){'' if ratio <= TARGET else '  MISSED'}")
    reasons = Counter(d["reason"] for doc in decisions for d in doc)
    ran = sum(1 for doc in decisions for d in doc if d["ran"])
    layout_ratio = seconds[LAYOUT] / bare
    why = [f"{k} {v}" for k, v in reasons.most_common()] + [f"no layout criterion {pages - sum(reasons.values())}"]
    print(f"layout model ran on {ran} of {pages} pages ({', '.join(why)})")
    print(f"LAYOUT (plan + model): {seconds[LAYOUT] / pages:.4f} s/page = {layout_ratio:.2f}x bare "
          f"(target <= {LAYOUT_TARGET:g}x){'' if layout_ratio <= LAYOUT_TARGET else '  MISSED'}")
    pipeline = everything + seconds[LAYOUT] + seconds[JUDGE]
    print(f"PIPELINE incl. layout: {pipeline / bare:.2f}x bare (render, layout, extract, transcript, judge inputs, "
          f"rules judge; target <= {PIPELINE_TARGET:g}x){'' if pipeline / bare <= PIPELINE_TARGET else '  MISSED'}")
    top = max(peak_step, key=lambda k: peak_step[k]) if peak_step else "-"
    print(f"peak RSS {peak:.0f} MiB (after imports {baseline:.0f} MiB, delta {peak - baseline:.0f} MiB; "
          f"peak first reached in {top}; target < {MEMORY_TARGET_MIB} MiB)"
          f"{'' if peak < MEMORY_TARGET_MIB else '  MISSED'}")
    print(f"layout process (pymupdf-layout model) peak RSS {layout_peak:.0f} MiB")


def run_pipeline(benchmark_root: Path, workers: int) -> None:
    """Every stage of a dataset run in this process via tasks.engine.runner.execute; wall time per stage."""
    from tasks.benchmark.registry import STAGE_LIST
    from tasks.engine.context import RunConfig
    from tasks.engine.runner import execute

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
    parser.add_argument("--layout-every-page", action="store_true",
                        help="run the layout model on every page (as before the layout plan) to compare")
    parser.add_argument("--workers", type=int, default=2, help="worker processes for --pipeline")
    args = parser.parse_args(argv)

    data = args.benchmark / "data"
    if not data.is_dir():
        print(f"skipped: no dev benchmark at {data} (pass --benchmark DIR)")
        return
    if args.pipeline:
        run_pipeline(args.benchmark, args.workers)
        return
    files = dev_files(data, args.limit)
    if not files:
        print(f"skipped: no PDFs under {data}")
        return
    report(files, args.dpi, args.crop_dpi, args.layout_every_page)


if __name__ == "__main__":  # worker processes are spawned: they import this module, they must not run it
    main()
