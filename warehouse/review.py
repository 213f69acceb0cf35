"""Human resolutions of review-queue items: append-only Parquet files, one per decision.

A resolution is never edited in place: a later decision on the same item supersedes an earlier
one, and the history stays queryable (`review_resolutions`).
"""

from __future__ import annotations

import uuid
from typing import Any

from warehouse.schema import conform
from warehouse.store import ArtifactStore, check_run_id, now
from warehouse.tables import RESOLUTIONS_SCHEMA


def _folder(run_id: str) -> str:
    return f"review/run={check_run_id(run_id)}/resolutions"


def add_resolution(store: ArtifactStore, row: dict[str, Any]) -> str:
    """Store one decision; returns where it went (a path, or an s3:// URL)."""
    row = {**row, "resolved_at": row.get("resolved_at") or now()}
    key = f"{_folder(row['run_id'])}/{row['resolved_at']:%Y%m%dT%H%M%S%f}-{uuid.uuid4().hex[:6]}.parquet"
    store.root.write(key, conform([row], RESOLUTIONS_SCHEMA, "review_resolutions"))
    return store.root.location(key)


def latest_resolutions(store: ArtifactStore, run_id: str) -> dict[str, dict[str, Any]]:
    """item_id → the most recent resolution of it."""
    keys = store.root.glob(f"{_folder(run_id)}/*.parquet")
    rows = [r for table in store.root.read_many(keys) for r in table.to_pylist()]
    latest: dict[str, dict[str, Any]] = {}
    for row in sorted(rows, key=lambda r: r["resolved_at"]):
        latest[row["item_id"]] = row
    return latest


def resolutions_digest(store: ArtifactStore, run_id: str) -> str:
    return ",".join(key.rpartition("/")[2] for key in store.root.glob(f"{_folder(run_id)}/*.parquet"))
