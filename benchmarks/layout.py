"""Layout backends against the tag tree: precision/recall of figure and table regions, seconds per page.

Ground truth is each tagged document's own Figure and Table elements (boxes of their content,
captions excluded, as PubLayNet draws them). A detected region matches one of the same kind
on the same page at IoU >= 0.5, greedily by IoU. Backends that cannot run here (no weights,
no torch) are listed with the reason. Tag trees of real documents are imperfect ground truth:
decorative images tagged Figure, tables tagged as text, figures with no box.

    python -m benchmarks.layout [--benchmark DIR] [--limit N] [--synthetic N] [--weights fasterrcnn=PATH]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pymupdf

from benchmarks.sample_pdfs import DEV_BENCHMARK, benchmark_pdfs, synthetic_pdfs
from extractors.errors import ExtractionError
from extractors.layout import LayoutBackendError, available_backends, get_backend
from extractors.structure.records import extract_struct_elements

KINDS = ("figure", "table")
IOU = 0.5
Box = tuple[float, float, float, float]
PageBoxes = dict[tuple[int, str], list[Box]]  # (page, kind) -> boxes


def iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def tagged_regions(path: Path) -> PageBoxes:
    """Figure and Table boxes from the tag tree: the union of the element's content, captions left out."""
    rows = extract_struct_elements(path, doc_id="gt")
    kids: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["parent_id"] is not None:
            kids[row["parent_id"]].append(row)
    truth: PageBoxes = defaultdict(list)
    for row in rows:
        kind = {"Figure": "figure", "Table": "table"}.get(row["type"])
        if kind is None:
            continue
        boxes = [(r["page"], r["bbox"]) for r in _content(row, kids) if r["bbox"] is not None]
        page = row["page"] or next((p for p, _ in boxes), None)
        box = _union([b for p, b in boxes if p == page])
        if page is not None and box is not None and box not in truth[(page, kind)]:
            truth[(page, kind)].append(box)
    return truth


def _content(row: dict[str, Any], kids: dict[int, list[dict[str, Any]]]) -> Iterable[dict[str, Any]]:
    stack = [row]
    while stack:
        node = stack.pop()
        yield node
        stack += [k for k in kids[node["elem_id"]] if k["type"] != "Caption"]


def _union(boxes: list[Any]) -> Box | None:
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def match(truth: list[Box], found: list[Box]) -> int:
    """True positives: greedy one-to-one matching by IoU, at IoU >= 0.5."""
    pairs = sorted(((iou(t, f), i, j) for i, t in enumerate(truth) for j, f in enumerate(found)), reverse=True)
    used_t: set[int] = set()
    used_f: set[int] = set()
    for score, i, j in pairs:
        if score >= IOU and i not in used_t and j not in used_f:
            used_t.add(i)
            used_f.add(j)
    return len(used_t)


def run_backend(name: str, weights: Path | None, docs: list[tuple[str, Path, PageBoxes]]) -> dict[str, Any]:
    try:
        backend = get_backend(name, weights)
    except LayoutBackendError as exc:
        return {"backend": name, "skipped": str(exc)}
    counts: Counter[str] = Counter()
    seconds, pages = 0.0, 0
    for _, path, truth in docs:
        with pymupdf.open(path) as doc:
            for page in doc:
                start = time.perf_counter()
                regions = backend.detect(page)
                seconds += time.perf_counter() - start
                pages += 1
                for kind in KINDS:
                    t = truth.get((page.number + 1, kind), [])
                    f = [r.bbox for r in regions if r.kind == kind]
                    tp = match(t, f)
                    counts[f"{kind}_tp"] += tp
                    counts[f"{kind}_fp"] += len(f) - tp
                    counts[f"{kind}_fn"] += len(t) - tp
    return {"backend": name, "pages": pages, "s_per_page": seconds / max(pages, 1), **counts}


def precision_recall(r: dict[str, Any], kind: str) -> tuple[float | None, float | None]:
    tp, fp, fn = (r.get(f"{kind}_{k}", 0) for k in ("tp", "fp", "fn"))
    return (tp / (tp + fp) if tp + fp else None, tp / (tp + fn) if tp + fn else None)


def _cell(value: float | None) -> str:
    return f"{value:>10.2f}" if value is not None else f"{'-':>10}"


def print_table(source: str, results: list[dict[str, Any]]) -> None:
    print(f"\n{source}")
    print(f"{'backend':<13}{'pages':>6}{'s/page':>8}" + "".join(f"{k + ' P':>10}{k + ' R':>10}" for k in KINDS)
          + f"{'truth':>8}")
    for r in results:
        if "skipped" in r:
            print(f"{r['backend']:<13}skipped: {r['skipped']}")
            continue
        cells = "".join(_cell(v) for k in KINDS for v in precision_recall(r, k))
        truth = sum(r.get(f"{k}_tp", 0) + r.get(f"{k}_fn", 0) for k in KINDS)
        print(f"{r['backend']:<13}{r['pages']:>6}{r['s_per_page']:>8.3f}{cells}{truth:>8}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", type=Path, default=DEV_BENCHMARK, help="folder of benchmark PDFs")
    parser.add_argument("--limit", type=int, default=None, help="at most N distinct benchmark files")
    parser.add_argument("--synthetic", type=int, default=4, help="synthetic typst papers to add")
    parser.add_argument("--weights", action="append", default=[], metavar="BACKEND=PATH")
    parser.add_argument("--backends", default=",".join(available_backends()))
    args = parser.parse_args(argv)
    weights = {k: Path(v) for k, v in (w.split("=", 1) for w in args.weights)}

    with tempfile.TemporaryDirectory(prefix="accessbench-layout-") as tmp:
        sources = {
            "dev benchmark (tag tree as truth)": benchmark_pdfs(args.benchmark, args.limit, one_per_paper=True),
            "synthetic typst papers": synthetic_pdfs(Path(tmp), args.synthetic),
        }
        for source, pdfs in sources.items():
            docs = []
            for doc_id, path in pdfs:
                try:
                    truth = tagged_regions(path)
                except ExtractionError as exc:
                    print(f"{doc_id}: skipped ({exc})")
                    continue
                if truth:  # only documents whose tags name a figure or table with a box
                    docs.append((doc_id, path, truth))
            if docs:
                results = [run_backend(name, weights.get(name), docs) for name in args.backends.split(",")]
                print_table(f"{source}: {len(docs)} of {len(pdfs)} documents tag a figure or table with a box", results)


if __name__ == "__main__":
    main()
