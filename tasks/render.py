"""Render stage: one PNG per page at the configured DPI, and the `pages` table."""

from __future__ import annotations

from typing import Any

from extractors.errors import ExtractionError
from extractors.pages import PAGES_SCHEMA, render_pages

from tasks.common import ShaMemo, add_run_id, document_files, good_documents, with_run_id
from tasks.runner import Stage, StageIO
from warehouse.catalog import TableSpec

PAGES = TableSpec("pages", "render", with_run_id(PAGES_SCHEMA))


def render_body(io: StageIO) -> dict[str, Any]:
    cfg = io.cfg
    memo = ShaMemo()
    # Images are addressed by content and DPI, so identical documents and later runs share them.
    image_root = cfg.home / "artifacts" / "render" / "images"

    def work(doc: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        def compute() -> dict[str, list[dict[str, Any]]]:
            out_dir = image_root / f"{(doc.get('sha256') or doc['doc_id'])[:24]}-{cfg.dpi}dpi"
            rows: list[dict[str, Any]] = []
            try:
                for path in document_files(doc):
                    rows += render_pages(path, doc_id=doc["doc_id"], out_dir=out_dir, dpi=cfg.dpi,
                                         page_offset=len(rows))
            except ExtractionError as exc:
                return {"pages": [], "errors": [_error(cfg.run_id, doc, exc.kind, str(exc))]}
            except Exception as exc:  # noqa: BLE001 - one bad document must not stop the run
                return {"pages": [], "errors": [_error(cfg.run_id, doc, "internal", f"{type(exc).__name__}: {exc}")]}
            return {"pages": add_run_id(cfg.run_id, rows), "errors": []}

        return memo.get(doc, compute)

    docs = good_documents(io)
    return io.per_key([(d["doc_id"], d) for d in docs], work, "render pages")


def _error(run_id: str, doc: dict[str, Any], kind: str, message: str) -> dict[str, Any]:
    return {"run_id": run_id, "stage": "render", "doc_id": doc["doc_id"], "kind": kind, "message": message}


RENDER = Stage(
    name="render",
    upstream=("corpus",),
    config_keys=("dpi",),
    tables=(PAGES,),
    body=render_body,
    code=("extractors",),
)
