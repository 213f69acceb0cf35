"""Layout stage: text/title/list/table/figure regions per page from the configured backend."""

from __future__ import annotations

from functools import partial
from typing import Any

from extractors.errors import ExtractionError
from extractors.layout import LAYOUT_SCHEMA, detect_layout, get_backend
from judges.criteria import SPECS
from tasks.common import add_run_id, content_key, document_files, error_row, good_documents, with_run_id
from tasks.runner import Stage, StageIO
from warehouse.catalog import TableSpec

LAYOUT_REGIONS = TableSpec("layout_regions", "layout", with_run_id(LAYOUT_SCHEMA))
# Regions feed figure and table evidence (untagged tables, crops); other criteria never read them,
# and the model costs ~0.4 s a page, so only these documents are laid out.
LAYOUT_CRITERIA = frozenset(spec.name for spec in SPECS if spec.needs_layout)


def layout_document(run_id: str, backend: str, weights: str | None, doc: dict[str, Any]
                    ) -> dict[str, list[dict[str, Any]]]:
    rows: list[dict[str, Any]] = []
    try:
        for path in document_files(doc):
            found = detect_layout(path, doc_id=doc["doc_id"], backend=backend, weights=weights,
                                  page_offset=max((r["page"] for r in rows), default=0))
            rows += found
    except ExtractionError as exc:
        return {"layout_regions": [], "errors": [error_row(run_id, "layout", doc, exc.kind, str(exc))]}
    except Exception as exc:  # noqa: BLE001 - a bad document is an error row
        return {"layout_regions": [], "errors": [error_row(run_id, "layout", doc, "internal",
                                                           f"{type(exc).__name__}: {exc}")]}
    return {"layout_regions": add_run_id(run_id, rows), "errors": []}


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
    tables=(LAYOUT_REGIONS,),
    body=layout_body,
    code=("extractors",),
)
