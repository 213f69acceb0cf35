"""Extract stage: tag tree, links, fonts and text spans for every document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pymupdf
from extractors.errors import ExtractionError
from extractors.fonts import FONTS_SCHEMA, TEXT_SPANS_SCHEMA, extract_fonts, extract_text_spans
from extractors.links import LINKS_SCHEMA, extract_links
from extractors.structure import STRUCT_ELEMENTS_SCHEMA, extract_struct_elements, struct_summary

from tasks.common import ShaMemo, add_run_id, document_files, good_documents, with_run_id
from tasks.runner import Stage, StageIO
from warehouse.catalog import TableSpec

DOC_STRUCTURE_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("file_index", pa.int32()),
        pa.field("tagged", pa.bool_()),
        pa.field("marked", pa.bool_()),
        pa.field("has_rolemap", pa.bool_()),
        pa.field("element_count", pa.int64()),
        pa.field("orphan_mcids", pa.int64()),
        pa.field("lang", pa.string()),
        pa.field("has_title", pa.bool_()),
        pa.field("display_doc_title", pa.bool_()),
        pa.field("pages", pa.int32()),
        pa.field("truncated", pa.bool_()),
        pa.field("error", pa.string()),
    ]
)

STRUCT_ELEMENTS = TableSpec("struct_elements", "extract", with_run_id(STRUCT_ELEMENTS_SCHEMA))
LINKS = TableSpec("links", "extract", with_run_id(LINKS_SCHEMA))
FONTS = TableSpec("fonts", "extract", with_run_id(FONTS_SCHEMA))
TEXT_SPANS = TableSpec("text_spans", "extract", with_run_id(TEXT_SPANS_SCHEMA))
DOC_STRUCTURE = TableSpec("doc_structure", "extract", DOC_STRUCTURE_SCHEMA)

_ID_COLUMNS = ("elem_id", "parent_id")


def _page_count(path: Path) -> int:
    with pymupdf.open(path) as pdf:
        return int(pdf.page_count)


def extract_document(run_id: str, doc: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """All extract-stage rows for one document (possibly several files, pages numbered on)."""
    out: dict[str, list[dict[str, Any]]] = {t: [] for t in
                                            ("struct_elements", "links", "fonts", "text_spans", "doc_structure")}
    out["errors"] = []
    page_offset = 0
    for index, path in enumerate(document_files(doc)):
        doc_id = doc["doc_id"]
        try:
            summary = struct_summary(path)
            elements = extract_struct_elements(path, doc_id=doc_id, page_offset=page_offset)
            id_offset = len(out["struct_elements"])
            for element in elements:  # keep element ids unique across the document's files
                for column in _ID_COLUMNS:
                    if element.get(column) is not None:
                        element[column] += id_offset
            out["struct_elements"] += elements
            out["links"] += extract_links(path, doc_id=doc_id, page_offset=page_offset)
            out["fonts"] += extract_fonts(path, doc_id=doc_id, page_offset=page_offset)
            out["text_spans"] += extract_text_spans(path, doc_id=doc_id, page_offset=page_offset)
            known = set(DOC_STRUCTURE_SCHEMA.names)
            out["doc_structure"].append(
                {**{k: v for k, v in summary.items() if k in known}, "doc_id": doc_id, "file_index": index}
            )
            page_offset += _page_count(path)
        except ExtractionError as exc:
            out["errors"].append(_error(run_id, doc, exc.kind, str(exc)))
            break
        except Exception as exc:  # noqa: BLE001 - a bad document is an error row, the run goes on
            out["errors"].append(_error(run_id, doc, "internal", f"{type(exc).__name__}: {exc}"))
            break
    return {table: rows if table == "errors" else add_run_id(run_id, rows) for table, rows in out.items()}


def _error(run_id: str, doc: dict[str, Any], kind: str, message: str) -> dict[str, Any]:
    return {"run_id": run_id, "stage": "extract", "doc_id": doc["doc_id"], "kind": kind, "message": message}


def extract_body(io: StageIO) -> dict[str, Any]:
    memo = ShaMemo()
    docs = good_documents(io)
    return io.per_key(
        [(d["doc_id"], d) for d in docs],
        lambda doc: memo.get(doc, lambda: extract_document(io.cfg.run_id, doc)),
        "extract evidence",
    )


EXTRACT = Stage(
    name="extract",
    upstream=("corpus",),
    config_keys=(),
    tables=(STRUCT_ELEMENTS, LINKS, FONTS, TEXT_SPANS, DOC_STRUCTURE),
    body=extract_body,
)
