"""Render stage: one PNG per page at the configured DPI, and the `pages` table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from tasks.engine.chain import Link
from tasks.engine.common import add_run_id, content_key, document_files, good_documents
from tasks.engine.runner import Stage, StageIO
from tasks.engine.stage_hash import stage_keys
from warehouse.tables import PAGES

if TYPE_CHECKING:  # annotations: a worker running the stage's work never loads the run's config classes
    from tasks.engine.context import RunConfig


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


def render_work(cfg: RunConfig) -> partial[dict[str, list[dict[str, Any]]]]:
    return partial(render_document, cfg.run_id, str(cfg.home / "artifacts" / "render" / "images"), cfg.dpi,
                   int(cfg.max_page_megapixels * 1e6))


def render_item(doc: dict[str, Any], results: Mapping[str, Mapping[str, pa.Table]], chained: frozenset[str],
                copies: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The document itself (`tasks.engine.chain`)."""
    return doc


def render_body(io: StageIO) -> dict[str, Any]:
    work = render_work(io.cfg)
    docs = good_documents(io)
    return io.per_key([(d["doc_id"], d) for d in docs], work, "render", isolated=True, same=content_key,
                      weight=pages_of, unit="pages")


def pages_of(doc: dict[str, Any]) -> int:
    """A document's pages, as the progress bar counts them (1 when the corpus could not count them)."""
    return int(doc.get("pages") or 1)


RENDER = Stage(
    name="render",
    upstream=("corpus",),
    config_keys=stage_keys("render"),
    tables=(PAGES,),
    body=render_body,
    code=("extractors", "common"),
    per_document=True,
    link=Link(work=render_work, item=render_item),
    worker_imports=("extractors.pages",),
)
