"""The warehouse's tables (`tasks.registry.ALL_TABLES`) for `accessbench sql`, without importing the stages.

A query needs each table's name, files and declared schema (a table no run has written yet is an empty
view of that schema), not the stages that declare them: importing those (every stage, extractor and
judge, PyMuPDF, the model client) was a third of a one-line query's second. So the specs are kept in
AccessBench's cache (`table-index.json`, in the folder the CLI passes), under a fingerprint of the
source files they come from: the path, size and modification time of every module of the packages
below flows/. The CLI reads that file while the fingerprint holds; when a source changed (an upgrade,
an edit), or the file is missing or unreadable, it imports the stages as before and writes the file
again. The file is a cache, never an input: deleting it costs one slower query.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa

from warehouse.catalog import TableSpec

INDEX_FILE = "table-index.json"
VERSION = 1  # of the file's layout
# The packages whose modules declare tables (flows/ adds none): a change to any of them may change a table.
SOURCE_PACKAGES = ("common", "warehouse", "extractors", "judges", "corpus", "tasks")


def all_tables(cache: Path) -> tuple[TableSpec, ...]:
    """ALL_TABLES: from the index in the `cache` folder while the sources are unchanged, else imported (and
    the index written)."""
    fingerprint = source_fingerprint()
    cached = read_index(cache / INDEX_FILE, fingerprint)
    if cached is not None:
        return cached
    from tasks.registry import ALL_TABLES

    write_index(cache / INDEX_FILE, fingerprint, ALL_TABLES)
    return ALL_TABLES


def source_fingerprint() -> str:
    """A digest of the path, size and modification time of every module that may declare a table."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(f"{VERSION}:{root}".encode())
    for package in SOURCE_PACKAGES:
        for dirpath, dirnames, filenames in os.walk(root / package):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(".py"):
                    stat = os.stat(os.path.join(dirpath, name))
                    digest.update(f"{dirpath}/{name}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def read_index(path: Path, fingerprint: str) -> tuple[TableSpec, ...] | None:
    """The specs in `path` when it was written for `fingerprint`, else None (missing, stale or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != VERSION or data.get("fingerprint") != fingerprint:
            return None
        return tuple(TableSpec(t["name"], t["stage"], _schema(t["schema"]), pattern=t["pattern"])
                     for t in data["tables"])
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException):
        return None


def write_index(path: Path, fingerprint: str, tables: tuple[TableSpec, ...]) -> None:
    """Write the specs atomically (a concurrent reader sees the old file or the new one); a cache that
    cannot be written (a read-only home directory) is left alone."""
    data: dict[str, Any] = {
        "version": VERSION, "fingerprint": fingerprint,
        "tables": [{"name": t.name, "stage": t.stage, "pattern": t.pattern,
                    "schema": base64.b64encode(t.schema.serialize().to_pybytes()).decode("ascii")} for t in tables],
    }
    partial = path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:12]}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(json.dumps(data), encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        pass
    finally:
        partial.unlink(missing_ok=True)


def _schema(encoded: str) -> pa.Schema:
    return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(encoded)))
