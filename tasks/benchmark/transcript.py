"""Transcript stage: what a screen reader announces, from the tag tree (or recorded audio)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from extractors.transcript import TranscriptError, check_transcriber, get_transcriber
from tasks.benchmark.render import pages_of
from tasks.engine.chain import Link
from tasks.engine.common import add_run_id, content_key, document_files, document_rows, good_documents
from tasks.engine.runner import Stage, StageIO
from tasks.engine.stage_hash import stage_keys
from warehouse.tables import LINKS_SCHEMA, STRUCT_ELEMENTS_SCHEMA, TRANSCRIPTS

if TYPE_CHECKING:  # annotations: a worker running the stage's work never loads the run's config classes
    from tasks.engine.context import RunConfig

AUDIO_SUFFIXES = (".wav", ".mp3", ".m4a", ".flac", ".ogg")
BUCKET_ENV = "ACCESSBENCH_TRANSCRIBE_BUCKET"


def _strip(rows: pa.Table) -> list[dict[str, Any]]:
    """A document's rows as the transcriber takes them: Python objects, without the run id. They travel to
    the worker as Arrow (the command never holds every document's elements as Python objects at once)."""
    return rows.drop_columns([c for c in ("run_id",) if c in rows.column_names]).to_pylist()


def _rows_by_document(table: pa.Table | None) -> dict[str, pa.Table]:
    """Each document's rows of an upstream table, in their order, as Arrow tables."""
    if table is None or table.num_rows == 0:
        return {}
    return {doc_id: table.take(indices) for doc_id, indices in document_rows(table.column("doc_id")).items()}


def transcribe_document(run_id: str, backend: str, item: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The transcript of one document; raises when there is none (the runner records the error row)."""
    doc = item["doc"]
    rows: list[dict[str, Any]] = []
    files = document_files(doc, verify=True)
    if backend == "aws-transcribe":
        rows = _from_audio(doc, files)
    elif len(files) == 1:
        # One file: reuse the extract stage's tree instead of reading it again.
        rows = get_transcriber(backend)(files[0], doc_id=doc["doc_id"], elements=_strip(item["elements"]) or None,
                                        links=_strip(item["links"]))
    else:
        for path in files:
            rows += get_transcriber(backend)(path, doc_id=doc["doc_id"],
                                             page_offset=max((r["page"] or 0 for r in rows), default=0))
        for seq, row in enumerate(rows):
            row["seq"] = seq
    return {"transcripts": add_run_id(run_id, rows), "errors": []}


def _from_audio(doc: dict[str, Any], files: list[Path]) -> list[dict[str, Any]]:
    """A recorded screen-reader session lies beside the PDF with the same stem (e.g. paper.mp3)."""
    audio = next((p.with_suffix(s) for p in files for s in AUDIO_SUFFIXES if p.with_suffix(s).exists()), None)
    if audio is None:
        raise TranscriptError(f"no recorded audio beside the PDF ({'/'.join(AUDIO_SUFFIXES)} with the same name)")
    bucket = os.environ.get(BUCKET_ENV)
    if not bucket:
        raise TranscriptError(f"set {BUCKET_ENV} to the S3 bucket Amazon Transcribe may read and write")
    return get_transcriber("aws-transcribe")(audio, doc_id=doc["doc_id"], bucket=bucket)


def transcript_work(cfg: RunConfig) -> partial[dict[str, list[dict[str, Any]]]]:
    return partial(transcribe_document, cfg.run_id, cfg.transcript_backend)


def transcript_item_of(doc: dict[str, Any], elements: pa.Table | None, links: pa.Table | None) -> dict[str, Any]:
    """One document's work item: the document and its rows of the extract stage's tag tree and links."""
    return {"doc": doc, "doc_id": doc["doc_id"], "sha256": content_key(doc),
            "elements": elements if elements is not None else STRUCT_ELEMENTS_SCHEMA.empty_table(),
            "links": links if links is not None else LINKS_SCHEMA.empty_table()}


def transcript_item(doc: dict[str, Any], results: Mapping[str, Mapping[str, pa.Table]], chained: frozenset[str],
                    copies: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The item from the rows the chain extracted (`tasks.engine.chain`): none without them, none for a document
    the extract stage recorded an error for (the stage leaves those out)."""
    extracted = results.get("extract")
    if extracted is None:
        return None
    errors = extracted.get("errors")
    if errors is not None and errors.num_rows:
        return None
    return transcript_item_of(doc, extracted.get("struct_elements"), extracted.get("links"))


def transcript_body(io: StageIO) -> dict[str, Any]:
    cfg = io.cfg
    elements = _rows_by_document(io.read_table("extract", "struct_elements"))
    links = _rows_by_document(io.read_table("extract", "links"))
    failed = {e["doc_id"] for e in io.read("extract", "errors")}
    items = [(d["doc_id"], transcript_item_of(d, elements.get(d["doc_id"]), links.get(d["doc_id"])))
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
    worker_imports=("extractors.transcript.emulated",),
)
