"""Helpers the stage modules share: run-scoped schemas, document iteration, error capture."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

from tasks.runner import StageIO


def with_run_id(schema: pa.Schema) -> pa.Schema:
    """Artifact tables carry the run id in front of the extractor's own columns."""
    if "run_id" in schema.names:
        return schema
    return pa.schema([pa.field("run_id", pa.string(), nullable=False), *schema])


def good_documents(io: StageIO) -> list[dict[str, Any]]:
    """Documents the corpus stage could read; the others already have error rows."""
    return [row for row in io.read("corpus", "documents") if not row.get("error")]


def document_files(doc: dict[str, Any]) -> list[Path]:
    return [Path(doc["root"]) / rel for rel in doc["files"]]


def add_run_id(run_id: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"run_id": run_id, **row} for row in rows]


class ShaMemo:
    """Byte-identical documents are processed once; their rows are copied under each doc id."""

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, list[dict[str, Any]]]] = {}

    def get(self, doc: dict[str, Any], compute: Callable[[], dict[str, list[dict[str, Any]]]]
            ) -> dict[str, list[dict[str, Any]]]:
        sha = doc.get("sha256") or doc["doc_id"]
        if sha not in self._rows:
            self._rows[sha] = compute()
        return {
            table: [{**row, "doc_id": doc["doc_id"]} for row in rows]
            for table, rows in self._rows[sha].items()
        }
