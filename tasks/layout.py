"""Layout stage: text/title/list/table/figure regions per page from the configured backend.

The model runs only on pages where its regions can change a result (an image, graphics or a
table candidate the tags do not cover; see :mod:`extractors.layout.plan`); ``layout_pages``
records for every page whether it ran and why.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from extractors.errors import ExtractionError
from extractors.layout import LAYOUT_PAGES_SCHEMA, LAYOUT_SCHEMA, get_backend, layout_file
from judges.criteria import SPECS
from tasks.common import add_run_id, content_key, document_files, error_row, good_documents, with_run_id
from tasks.runner import Stage, StageIO
from warehouse.catalog import TableSpec

LAYOUT_REGIONS = TableSpec("layout_regions", "layout", with_run_id(LAYOUT_SCHEMA))
LAYOUT_PAGES = TableSpec("layout_pages", "layout", with_run_id(LAYOUT_PAGES_SCHEMA))
# Regions feed table evidence (table regions, the search for drawn tables the tags miss); other
# criteria never read them, and the model costs ~0.4 s a page, so only these documents are laid out.
LAYOUT_CRITERIA = frozenset(spec.name for spec in SPECS if spec.needs_layout)


def layout_document(run_id: str, backend: str, weights: str | None, doc: dict[str, Any]
                    ) -> dict[str, list[dict[str, Any]]]:
    rows: list[dict[str, Any]] = []
    pages: list[dict[str, Any]] = []
    try:
        for path in document_files(doc):
            found, decided = layout_file(path, doc_id=doc["doc_id"], backend=backend, weights=weights,
                                         page_offset=len(pages))
            rows += found
            pages += decided
    except ExtractionError as exc:
        return {"layout_regions": [], "layout_pages": [],
                "errors": [error_row(run_id, "layout", doc, exc.kind, str(exc))]}
    except Exception as exc:  # noqa: BLE001 - a bad document is an error row
        return {"layout_regions": [], "layout_pages": [],
                "errors": [error_row(run_id, "layout", doc, "internal", f"{type(exc).__name__}: {exc}")]}
    return {"layout_regions": add_run_id(run_id, rows), "layout_pages": add_run_id(run_id, pages), "errors": []}


def layout_body(io: StageIO) -> dict[str, Any]:
    cfg = io.cfg
    get_backend(cfg.layout_backend, cfg.layout_weights)  # a misconfigured backend fails the stage up front
    docs = [d for d in good_documents(io) if d["criterion"] in LAYOUT_CRITERIA]
    work = partial(layout_document, cfg.run_id, cfg.layout_backend, cfg.layout_weights)
    return io.per_key([(d["doc_id"], d) for d in docs], work, f"layout ({cfg.layout_backend})",
                      isolated=True, same=content_key)


LAYOUT = Stage(
    name="layout",
    upstream=("corpus",),
    config_keys=("layout_backend", "layout_weights"),
    tables=(LAYOUT_REGIONS, LAYOUT_PAGES),
    body=layout_body,
    code=("extractors", "common"),
)
