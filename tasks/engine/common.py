"""Helpers the stage modules share: run-scoped schemas, document iteration, error capture."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from tasks.engine.documents import add_run_id, content_key, document_files, document_of, error_row
from tasks.engine.runner import StageIO

__all__ = ["add_run_id", "content_key", "document_files", "document_of", "document_rows", "error_row",
           "good_documents"]


def good_documents(io: StageIO) -> list[dict[str, Any]]:
    """Documents the corpus stage could read; the others already have error rows."""
    return [row for row in io.read("corpus", "documents") if not row.get("error")]


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
