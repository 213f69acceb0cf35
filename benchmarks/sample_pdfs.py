"""PDFs the benchmark scripts run over: the dev benchmark's distinct files and synthetic typst papers."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pymupdf

from corpus.typst_docs import compile_base_doc, make_base_doc

DEV_BENCHMARK = Path(__file__).resolve().parents[2] / "shared" / "pdf-accessibility-benchmark" / "data" / "processed"


def benchmark_pdfs(
    root: Path = DEV_BENCHMARK, limit: int | None = None, *, one_per_paper: bool = False
) -> list[tuple[str, Path]]:
    """(doc_id, path) for each distinct file under ``root`` (many labels share one file); [] if absent.

    ``one_per_paper`` keeps one variant per paper, a ``passed`` one where there is one: the
    other variants were edited to break something, often the very tags used as ground truth.
    """
    seen: set[str] = set()
    found = []
    # criterion/label/paper.pdf: passed variants sort first, so they win the dedup.
    for path in sorted(root.glob("*/*/*.pdf"), key=lambda p: (p.parent.name != "passed", str(p))):
        key = path.stem if one_per_paper else hashlib.sha256(path.read_bytes()).hexdigest()
        if key not in seen:
            seen.add(key)
            found.append((str(path.relative_to(root).with_suffix("")), path))
    return sorted(found)[:limit]


def synthetic_pdfs(folder: Path, count: int, seed: int = 0) -> list[tuple[str, Path]]:
    """(doc_id, path) for ``count`` tagged typst papers (headings, list, table, figure) written to ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for index in range(count):
        doc = make_base_doc(index, seed)
        path = folder / f"{doc.doc_id}.pdf"
        path.write_bytes(compile_base_doc(doc))
        out.append((f"synthetic/{doc.doc_id}", path))
    return out


def bare_pass(path: Path, dpi: int) -> int:
    """Open, extract text as a dict and render every page once; returns the page count."""
    with pymupdf.open(path) as doc:
        for page in doc:
            page.get_text("dict")
            page.get_pixmap(dpi=dpi)
        return int(doc.page_count)
