"""Transcript stage: what a screen reader announces, from the tag tree (or recorded audio)."""

from __future__ import annotations

import os
from collections import defaultdict
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa

from extractors.transcript import TranscriptError, get_transcriber
from tasks.engine.common import add_run_id, content_key, document_files, good_documents
from tasks.engine.context import RunConfig
from tasks.engine.options import stage_keys
from tasks.engine.runner import Stage, StageIO
from warehouse.tables import LINKS_SCHEMA, STRUCT_ELEMENTS_SCHEMA, TRANSCRIPTS

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
    positions: dict[str, list[int]] = defaultdict(list)
    for index, doc_id in enumerate(table.column("doc_id").to_pylist()):
        positions[doc_id].append(index)
    return {doc_id: table.take(indices) for doc_id, indices in positions.items()}


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


def transcript_body(io: StageIO) -> dict[str, Any]:
    cfg = io.cfg
    elements = _rows_by_document(io.read_table("extract", "struct_elements"))
    links = _rows_by_document(io.read_table("extract", "links"))
    no_elements, no_links = STRUCT_ELEMENTS_SCHEMA.empty_table(), LINKS_SCHEMA.empty_table()
    failed = {e["doc_id"] for e in io.read("extract", "errors")}
    items = [(d["doc_id"], {"doc": d, "doc_id": d["doc_id"], "sha256": content_key(d),
                            "elements": elements.get(d["doc_id"], no_elements),
                            "links": links.get(d["doc_id"], no_links)})
             for d in good_documents(io) if d["doc_id"] not in failed]
    from tasks.benchmark.render import pages_of

    return io.per_key(items, partial(transcribe_document, cfg.run_id, cfg.transcript_backend),
                      "screen-reader transcript", isolated=True, same=lambda item: item["sha256"],
                      weight=lambda item: pages_of(item["doc"]), unit="pages")


def check_transcript(cfg: RunConfig) -> None:
    """An unknown backend stops the run up front."""
    try:
        get_transcriber(cfg.transcript_backend)
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
)
