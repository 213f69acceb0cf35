"""Layout regions (text, title, list, table, figure) per page, from a backend chosen by name.

``pymupdf`` (default, offline, bundled) | ``fasterrcnn`` (torchvision, local PubLayNet weights)
| ``layoutparser`` (detectron2, local PubLayNet config and weights). Every backend maps its
own classes onto PubLayNet's five ``kind`` values and keeps its own class in ``raw_kind``.
"""

from __future__ import annotations

from collections.abc import Collection
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from common.lazy_exports import lazy_exports
from common.progress import page_done
from extractors.errors import ExtractionError, open_pdf, reading
from extractors.layout import fasterrcnn_backend, layoutparser_backend, pymupdf_backend  # noqa: F401 - registers
from extractors.layout.base import (
    PUBLAYNET_KINDS,
    LayoutBackend,
    LayoutBackendError,
    Region,
    available_backends,
    check_backend,
    clear_backend_cache,
    get_backend,
    register_backend,
)

# The page plan (which reads PDFs with PyMuPDF and pikepdf) is imported when first asked for (PEP 562): the
# backends' registry and checks, which the run's own process uses, load no PDF library.
_PLAN_NAMES = ("RUN_REASONS", "SKIP_REASONS", "PagePlan", "every_page", "plan_pages")
# The tables' schemas too (pyarrow): a worker that lays pages out imports none (issue 56).
__getattr__ = lazy_exports(globals(), {**dict.fromkeys(_PLAN_NAMES, "extractors.layout.plan"),
                                       **dict.fromkeys(("LAYOUT_PAGES_SCHEMA", "LAYOUT_SCHEMA"), "warehouse.tables")})


__all__ = [
    "LAYOUT_PAGES_SCHEMA",
    "LAYOUT_SCHEMA",
    "PUBLAYNET_KINDS",
    "RUN_REASONS",
    "SKIP_REASONS",
    "LayoutBackend",
    "LayoutBackendError",
    "PagePlan",
    "Region",
    "available_backends",
    "clear_backend_cache",
    "detect_layout",
    "every_page",
    "layout_file",
    "plan_pages",
    "check_backend",
    "get_backend",
    "register_backend",
]


def detect_layout(
    pdf: str | Path,
    *,
    doc_id: str,
    backend: str = "pymupdf",
    weights: str | Path | None = None,
    page_offset: int = 0,
    pages: Collection[int] | None = None,
) -> list[dict[str, Any]]:
    """Layout records (``LAYOUT_SCHEMA``) for every page of ``pdf``, or only ``pages`` (0-based).

    Raises LayoutBackendError before opening the file when the backend cannot run as
    configured, and :class:`extractors.errors.ExtractionError` when the file cannot be read.
    """
    detector = get_backend(backend, weights)
    records: list[dict[str, Any]] = []
    scope = getattr(detector, "for_document", None)  # a backend that holds its model for a document's pages
    with open_pdf(pdf) as doc, (scope() if scope is not None else nullcontext()):
        for number in range(doc.page_count) if pages is None else sorted(pages):
            page = doc.load_page(number)
            for index, region in enumerate(detector.detect(page)):
                records.append({
                    "doc_id": doc_id,
                    "page": page.number + 1 + page_offset,
                    "region_index": index,
                    "kind": region.kind,
                    "raw_kind": region.raw_kind,
                    "bbox": list(region.bbox),
                    "score": region.score,
                    "backend": backend,
                })
            page_done()
    return records


def layout_file(
    pdf: str | Path,
    *,
    doc_id: str,
    backend: str = "pymupdf",
    weights: str | Path | None = None,
    page_offset: int = 0,
    all_pages: bool = False,
    drawn_tables_only: bool = False,
    whole_document: bool = True,
    regions_searched: bool = True,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Layout records of the pages that need the model (see :mod:`extractors.layout.plan`), and
    one ``LAYOUT_PAGES_SCHEMA`` record per page saying whether the model ran there and why.

    ``all_pages`` runs the model on every page; ``drawn_tables_only`` only on the planned pages where a
    line-drawn table is found (a run whose judges read no other region: see the plan), and none when the
    file has no structure tree and is the ``whole_document`` (a document of several files is tagged when
    any of them is); with ``regions_searched`` False (the regions never reach the drawn-table search) only the pages
    that search looks at on its own count (see the plan). Raises as :func:`detect_layout`. The model is loaded only
    when a page needs it (a process that lays out text-only files never holds it).
    """
    from extractors.layout.plan import every_page, plan_pages
    from extractors.source import pdf_source
    from extractors.structure.records import extract_struct_elements

    check_backend(backend, weights)
    with pdf_source(pdf) as source:
        if all_pages:
            plans = every_page(source)
        else:
            broken = False
            try:
                elements = extract_struct_elements(source, doc_id=doc_id)
            except ExtractionError:  # a broken tag tree accounts for nothing: plan as untagged
                elements, broken = [], True
            with reading(source, "layout plan"):
                plans = plan_pages(source, elements, drawn_tables_only=drawn_tables_only,
                                   untagged=whole_document and not elements and not broken,
                                   regions_searched=regions_searched)
        if any(p.run for p in plans):
            # The model's inference is a worker's memory peak: a source the next stages share
            # (`extractors.source.shared_sources`) does not hold the pages' caches beside it.
            source.drop_pages()
    page_done(sum(1 for p in plans if not p.run))  # decided without the model: done
    run = [p.number for p in plans if p.run]
    regions = detect_layout(pdf, doc_id=doc_id, backend=backend, weights=weights, page_offset=page_offset,
                            pages=run) if run else []
    decisions = [{"doc_id": doc_id, "page": p.number + 1 + page_offset, "ran": p.run, "reason": p.reason,
                  "backend": backend} for p in plans]
    return regions, decisions
