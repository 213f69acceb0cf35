"""What a per-document stage's work reads of its document where it runs: its files, its id and content key, the
rows it adds. Light (no pyarrow): the worker processes that read the PDFs import it (issue 56)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from common.filenames import file_name


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
