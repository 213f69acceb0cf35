"""Layout stage: text/title/list/table/figure regions per page from the configured backend.

The model runs only on pages where its regions can change a result (an image, graphics or a
table candidate the tags do not cover; see :mod:`extractors.layout.plan`); ``layout_pages``
records for every page whether it ran and why.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from extractors.layout import check_backend
from tasks.benchmark.render import pages_of
from tasks.benchmark.work.layout import (
    layout_document,
    layout_item,
    load_backend,
)
from tasks.engine.chain import Link
from tasks.engine.common import content_key, good_documents
from tasks.engine.isolation import in_a_worker
from tasks.engine.runner import Stage, StageIO
from tasks.engine.stage_hash import stage_keys
from warehouse.tables import LAYOUT_PAGES, LAYOUT_REGIONS

if TYPE_CHECKING:  # annotations: a worker running the stage's work never loads the run's config classes
    from tasks.engine.context import RunConfig


def layout_work(cfg: RunConfig) -> partial[dict[str, list[dict[str, Any]]]]:
    return partial(layout_document, cfg.run_id, cfg.layout_backend, cfg.layout_weights, cfg.layout_scope)


def layout_body(io: StageIO) -> dict[str, Any]:
    cfg = io.cfg
    documents = good_documents(io)
    copies: dict[str, list[dict[str, Any]]] = {}
    for d in documents:
        copies.setdefault(content_key(d), []).append(d)
    items = [(d["doc_id"], item) for d in documents
             if (item := layout_item(d, {}, frozenset(), copies[content_key(d)])) is not None]
    # A misconfigured backend fails the stage before its first document, loaded where the work will run; not
    # at all when the one pass laid out every document (the workers that did would load a model, its runtime
    # ~20 MB, for nothing: issue 56).
    return io.per_key(items, layout_work(cfg), f"layout ({cfg.layout_backend})", isolated=True,
                      same=lambda item: content_key(item["doc"]), weight=lambda item: pages_of(item["doc"]),
                      unit="pages", before=partial(in_a_worker, load_backend, cfg.layout_backend, cfg.layout_weights))


def check_layout(cfg: RunConfig) -> None:
    """A misconfigured backend (unknown name, missing package or weights) stops the run up front.

    Without loading the model here: the stage loads it in a worker, where the documents use it.
    """
    check_backend(cfg.layout_backend, cfg.layout_weights)


LAYOUT = Stage(
    name="layout",
    upstream=("corpus",),
    config_keys=stage_keys("layout", "layout_scope"),
    tables=(LAYOUT_REGIONS, LAYOUT_PAGES),
    body=layout_body,
    code=("extractors", "common"),
    validate=check_layout,
    per_document=True,
    releases_workers=True,  # the model stays with them otherwise, through extract and transcript
    link=Link(work=layout_work, item=layout_item),
    worker_imports=("tasks.benchmark.work.layout", "extractors.layout.plan", "extractors.layout.pymupdf_backend",
                    "extractors.source", "extractors.structure.records"),
)
