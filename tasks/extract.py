"""Extract stage: tag tree, links, fonts, text spans with colour contrast, per document."""

from __future__ import annotations

from functools import partial
from typing import Any

import pyarrow as pa

from extractors.contrast import CONTRAST_SCHEMA, extract_contrast
from extractors.errors import ExtractionError
from extractors.fonts import FONTS_SCHEMA, TEXT_SPANS_SCHEMA, extract_fonts, extract_text_spans
from extractors.links import (
    LINKS_SCHEMA,
    ORPHAN_LINK_ELEMENTS_SCHEMA,
    extract_links,
    extract_orphan_link_elements,
)
from extractors.structure import STRUCT_ELEMENTS_SCHEMA, STRUCT_SUMMARY_SCHEMA, extract_struct_elements, struct_summary
from tasks.common import add_run_id, content_key, document_files, error_row, good_documents, with_run_id
from tasks.runner import Stage, StageIO
from warehouse.catalog import TableSpec

DOC_STRUCTURE_SCHEMA = pa.schema(
    [pa.field("run_id", pa.string(), nullable=False), pa.field("doc_id", pa.string(), nullable=False),
     pa.field("file_index", pa.int32(), nullable=False), *STRUCT_SUMMARY_SCHEMA]
)

# text_spans carries each span's contrast against its rendered background (DESIGN: text_spans).
_CONTRAST_COLUMNS = ("background_color", "contrast_ratio", "large_text", "threshold", "passes", "invisible",
                     "invisible_reason")
TEXT_SPANS_WITH_CONTRAST = pa.schema(
    [*TEXT_SPANS_SCHEMA, *(CONTRAST_SCHEMA.field(name).with_nullable(True) for name in _CONTRAST_COLUMNS)]
)

STRUCT_ELEMENTS = TableSpec("struct_elements", "extract", with_run_id(STRUCT_ELEMENTS_SCHEMA))
LINKS = TableSpec("links", "extract", with_run_id(LINKS_SCHEMA))
ORPHAN_LINK_ELEMENTS = TableSpec("orphan_link_elements", "extract", with_run_id(ORPHAN_LINK_ELEMENTS_SCHEMA))
FONTS = TableSpec("fonts", "extract", with_run_id(FONTS_SCHEMA))
TEXT_SPANS = TableSpec("text_spans", "extract", with_run_id(TEXT_SPANS_WITH_CONTRAST))
DOC_STRUCTURE = TableSpec("doc_structure", "extract", DOC_STRUCTURE_SCHEMA)

EXTRACT_TABLES = (STRUCT_ELEMENTS, LINKS, ORPHAN_LINK_ELEMENTS, FONTS, TEXT_SPANS, DOC_STRUCTURE)
_ID_COLUMNS = {
    "struct_elements": ("elem_id", "parent_id"),
    "links": ("element_id",),
    "orphan_link_elements": ("elem_id",),
}


def _span_key(row: dict[str, Any]) -> tuple[Any, ...]:
    x0, y0, _, _ = row["bbox"]
    return row["page"], row["text"].strip(), round(x0), round(y0)


def with_contrast(spans: list[dict[str, Any]], contrast: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Attach each span's measured contrast (matched on page, text and position)."""
    measured = {_span_key(row): row for row in contrast if row.get("bbox")}
    out = []
    for span in spans:
        match = measured.get(_span_key(span)) if span["text"].strip() else None
        out.append({**span, **{c: (match or {}).get(c) for c in _CONTRAST_COLUMNS}})
    return out


def extract_file(path: Any, doc_id: str, page_offset: int, id_offset: int) -> dict[str, list[dict[str, Any]]]:
    spans = extract_text_spans(path, doc_id=doc_id, page_offset=page_offset)
    rows = {
        "struct_elements": extract_struct_elements(path, doc_id=doc_id, page_offset=page_offset),
        "links": extract_links(path, doc_id=doc_id, page_offset=page_offset),
        "orphan_link_elements": extract_orphan_link_elements(path, doc_id=doc_id, page_offset=page_offset),
        "fonts": extract_fonts(path, doc_id=doc_id, page_offset=page_offset),
        "text_spans": with_contrast(spans, extract_contrast(path, doc_id=doc_id, page_offset=page_offset)),
    }
    for table, columns in _ID_COLUMNS.items():  # element ids stay unique across a document's files
        for row in rows[table]:
            for column in columns:
                if row.get(column) is not None:
                    row[column] += id_offset
    return rows


def extract_document(run_id: str, doc: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """All extract-stage rows for one document (possibly several files, pages numbered on)."""
    out: dict[str, list[dict[str, Any]]] = {spec.name: [] for spec in EXTRACT_TABLES}
    errors: list[dict[str, Any]] = []
    page_offset = 0
    doc_id = doc["doc_id"]
    for index, path in enumerate(document_files(doc)):
        try:
            summary = struct_summary(path)
            out["doc_structure"].append({**summary, "doc_id": doc_id, "file_index": index})
            if summary.get("error"):
                raise ExtractionError("corrupt", summary["error"], path=path)
            for table, rows in extract_file(path, doc_id, page_offset, len(out["struct_elements"])).items():
                out[table] += rows
            page_offset += int(summary.get("pages") or 0)
        except ExtractionError as exc:
            errors.append(error_row(run_id, "extract", doc, exc.kind, str(exc)))
            break
        except Exception as exc:  # noqa: BLE001 - a bad document is an error row, the run goes on
            errors.append(error_row(run_id, "extract", doc, "internal", f"{type(exc).__name__}: {exc}"))
            break
    return {**{table: add_run_id(run_id, rows) for table, rows in out.items()}, "errors": errors}


def extract_body(io: StageIO) -> dict[str, Any]:
    docs = good_documents(io)
    return io.per_key([(d["doc_id"], d) for d in docs], partial(extract_document, io.cfg.run_id),
                      "extract evidence", isolated=True, same=content_key)


EXTRACT = Stage(
    name="extract",
    upstream=("corpus",),
    config_keys=(),
    tables=EXTRACT_TABLES,
    body=extract_body,
    code=("extractors",),
)
