"""The transcript stage's work in a worker: what a screen reader announces for one document, and its chain item."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from common.rows import ArrowRows, Rows
from extractors.transcript import TranscriptError, get_transcriber  # light: the backends load on use
from tasks.engine.documents import add_run_id, content_key, document_files

AUDIO_SUFFIXES = (".wav", ".mp3", ".m4a", ".flac", ".ogg")
BUCKET_ENV = "ACCESSBENCH_TRANSCRIBE_BUCKET"


def _strip(rows: Rows | ArrowRows) -> list[dict[str, Any]]:
    """A document's rows as the transcriber takes them: Python objects, without the run id. They travel to
    the worker as one table's columns (the command never holds every document's elements as Python objects at
    once: `ArrowRows`)."""
    return rows.to_pylist(drop=("run_id",))


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


def transcript_item_of(doc: dict[str, Any], elements: Rows | ArrowRows, links: Rows | ArrowRows) -> dict[str, Any]:
    """One document's work item: the document and its rows of the extract stage's tag tree and links."""
    return {"doc": doc, "doc_id": doc["doc_id"], "sha256": content_key(doc), "elements": elements, "links": links}


def transcript_item(doc: dict[str, Any], results: Mapping[str, Mapping[str, Rows]], chained: frozenset[str],
                    copies: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The item from the rows the chain extracted (`tasks.engine.chain`): none without them, none for a document
    the extract stage recorded an error for (the stage leaves those out)."""
    extracted = results.get("extract")
    if extracted is None:
        return None
    errors = extracted.get("errors")
    if errors is not None and errors.num_rows:
        return None
    return transcript_item_of(doc, extracted["struct_elements"], extracted["links"])


