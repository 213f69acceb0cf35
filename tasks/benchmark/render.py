"""Render stage: one PNG per page at the configured DPI, and the `pages` table.

The work each worker runs on a document is `tasks.benchmark.work.render`.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from tasks.benchmark.work.render import render_document, render_item
from tasks.engine.chain import Link
from tasks.engine.common import content_key, good_documents
from tasks.engine.runner import Stage, StageIO
from tasks.engine.stage_hash import stage_keys
from warehouse.tables import PAGES

if TYPE_CHECKING:  # annotations: a worker running the stage's work never loads the run's config classes
    from tasks.engine.context import RunConfig


def render_work(cfg: RunConfig) -> partial[dict[str, list[dict[str, Any]]]]:
    return partial(render_document, cfg.run_id, str(cfg.home / "artifacts" / "render" / "images"), cfg.dpi,
                   int(cfg.max_page_megapixels * 1e6))


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
    worker_imports=("tasks.benchmark.work.render", "extractors.pages"),
)
