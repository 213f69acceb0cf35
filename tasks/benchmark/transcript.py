"""Transcript stage: what a screen reader announces, from the tag tree (or recorded audio)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from common.rows import ArrowRows
from extractors.transcript import TranscriptError, check_transcriber
from tasks.benchmark.render import pages_of
from tasks.benchmark.work.transcript import (
    transcribe_document,
    transcript_item,
    transcript_item_of,
)
from tasks.engine.chain import Link
from tasks.engine.common import document_rows, good_documents
from tasks.engine.runner import Stage, StageIO
from tasks.engine.stage_hash import stage_keys
from warehouse.tables import LINKS_SCHEMA, STRUCT_ELEMENTS_SCHEMA, TRANSCRIPTS

if TYPE_CHECKING:  # annotations: a worker running the stage's work never loads the run's config classes
    from tasks.engine.context import RunConfig


def _rows_by_document(table: pa.Table | None) -> dict[str, pa.Table]:
    """Each document's rows of an upstream table, in their order, as Arrow tables."""
    if table is None or table.num_rows == 0:
        return {}
    return {doc_id: table.take(indices) for doc_id, indices in document_rows(table.column("doc_id")).items()}


def transcript_work(cfg: RunConfig) -> partial[dict[str, list[dict[str, Any]]]]:
    return partial(transcribe_document, cfg.run_id, cfg.transcript_backend)


def transcript_body(io: StageIO) -> dict[str, Any]:
    cfg = io.cfg
    elements = _rows_by_document(io.read_table("extract", "struct_elements"))
    links = _rows_by_document(io.read_table("extract", "links"))
    failed = {e["doc_id"] for e in io.read("extract", "errors")}
    no_elements, no_links = STRUCT_ELEMENTS_SCHEMA.empty_table(), LINKS_SCHEMA.empty_table()
    # Each document's rows as Arrow here, Python values only in the worker that takes them (`ArrowRows`).
    items = [(d["doc_id"], transcript_item_of(d, ArrowRows(elements.get(d["doc_id"], no_elements)),
                                              ArrowRows(links.get(d["doc_id"], no_links))))
             for d in good_documents(io) if d["doc_id"] not in failed]
    return io.per_key(items, transcript_work(cfg), "screen-reader transcript", isolated=True,
                      same=lambda item: item["sha256"], weight=lambda item: pages_of(item["doc"]), unit="pages")


def check_transcript(cfg: RunConfig) -> None:
    """An unknown backend stops the run up front (named only: the backend loads in the workers that use it)."""
    try:
        check_transcriber(cfg.transcript_backend)
    except TranscriptError as exc:
        raise ValueError(str(exc)) from exc


TRANSCRIPT = Stage(
    name="transcript",
    upstream=("corpus", "extract"),
    config_keys=stage_keys("transcript"),
    tables=(TRANSCRIPTS,),
    body=transcript_body,
    code=("extractors", "common"),
    validate=check_transcript,
    per_document=True,
    link=Link(work=transcript_work, item=transcript_item),
    worker_imports=("tasks.benchmark.work.transcript", "extractors.transcript.emulated"),
)
