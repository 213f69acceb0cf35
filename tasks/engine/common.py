"""Helpers the stage modules share: run-scoped schemas, document iteration, error capture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from common.filenames import file_name
from tasks.engine.runner import StageIO


def good_documents(io: StageIO) -> list[dict[str, Any]]:
    """Documents the corpus stage could read; the others already have error rows."""
    return [row for row in io.read("corpus", "documents") if not row.get("error")]


def document_of(item: dict[str, Any]) -> dict[str, Any]:
    """The document (a `documents` row) of a per-document stage's work item: the row itself, or its "doc"."""
    return item.get("doc", item)




def document_files(doc: dict[str, Any], *, verify: bool = False) -> list[Path]:
    """The document's files; with `verify`, first checked against the sha256 the corpus stage recorded
    (`corpus.manifest.verify_files`: a file edited or swapped for a symlink since is an error, not read)."""
    paths = [Path(doc["root"]) / file_name(rel) for rel in doc["files"]]
    if not verify:
        return paths
    from corpus.manifest import verify_files

    return verify_files(paths, doc.get("sha256"))


def add_run_id(run_id: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"run_id": run_id, **row} for row in rows]


def content_key(doc: dict[str, Any]) -> str:
    """Byte-identical documents are processed once (their rows are copied under each doc id)."""
    return str(doc.get("sha256") or doc["doc_id"])


def error_row(run_id: str, stage: str, doc: dict[str, Any], kind: str, message: str) -> dict[str, Any]:
    """One `errors` row. The kind has its own column, so a message that starts with it drops it."""
    message = message.removeprefix(f"{kind}: ")
    return {"run_id": run_id, "stage": stage, "doc_id": doc["doc_id"], "kind": kind, "message": message}


def document_rows(doc_ids: pa.ChunkedArray) -> dict[str, np.ndarray]:
    """Each document's row numbers in an upstream table's ``doc_id`` column (ascending), documents in the order of
    their first row: grouped in Arrow and numpy rather than row by row in Python (a table holds a run's rows)."""
    column = doc_ids.combine_chunks()
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    encoded = column.dictionary_encode(null_encoding="encode")  # one code per distinct value (null included)
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    names = encoded.dictionary.to_pylist()
    by_code = np.argsort(codes, kind="stable")  # row numbers grouped by code, ascending within each group
    ends = np.cumsum(np.bincount(codes, minlength=len(names))).tolist()
    present, first = np.unique(codes, return_index=True)  # each code's first row
    return {names[code]: by_code[(ends[code - 1] if code else 0):ends[code]]
            for code in present[np.argsort(first, kind="stable")].tolist()}
