"""The render stage's work in a worker: one PNG per page and the `pages` rows of one document."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from common.rows import Rows
from tasks.engine.documents import add_run_id, document_files


def render_document(run_id: str, image_root: str, dpi: int, max_pixels: int, doc: dict[str, Any]
                    ) -> dict[str, list[dict[str, Any]]]:
    """Page images and `pages` rows of one document (runs in a worker process).

    A document that cannot be rendered raises: the stage runner records its error row.
    """
    from extractors.pages import render_pages  # in the worker: the run's own process never loads PyMuPDF

    # Images are addressed by content and DPI, so identical documents and later runs share them.
    out_dir = Path(image_root) / f"{(doc.get('sha256') or doc['doc_id'])[:24]}-{dpi}dpi"
    rows: list[dict[str, Any]] = []
    for path in document_files(doc, verify=True):
        rows += render_pages(path, doc_id=doc["doc_id"], out_dir=out_dir, dpi=dpi, page_offset=len(rows),
                             max_pixels=max_pixels)
    return {"pages": add_run_id(run_id, rows), "errors": []}


def render_item(doc: dict[str, Any], results: Mapping[str, Mapping[str, Rows]], chained: frozenset[str],
                copies: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The document itself (`tasks.engine.chain`)."""
    return doc
