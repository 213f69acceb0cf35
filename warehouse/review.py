"""Human resolutions of review-queue items: append-only Parquet files, one per decision.

A resolution is never edited in place: a later decision on the same item supersedes an earlier
one, and the history stays queryable (`review_resolutions`).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from warehouse.schema import conform
from warehouse.store import ArtifactStore, atomic_write_parquet, check_run_id, inside, now

RESOLUTIONS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("label", pa.string(), nullable=False),
        pa.field("note", pa.string()),
        pa.field("reviewer", pa.string()),
        pa.field("resolved_at", pa.timestamp("us", tz="UTC"), nullable=False),
    ]
)
RESOLUTIONS_PATTERN = "review/run=*/resolutions/*.parquet"


def resolutions_dir(store: ArtifactStore, run_id: str) -> Path:
    return inside(store.home, store.artifacts / "review" / f"run={check_run_id(run_id)}" / "resolutions")


def add_resolution(store: ArtifactStore, row: dict[str, Any]) -> Path:
    row = {**row, "resolved_at": row.get("resolved_at") or now()}
    name = f"{row['resolved_at']:%Y%m%dT%H%M%S%f}-{uuid.uuid4().hex[:6]}.parquet"
    path = resolutions_dir(store, row["run_id"]) / name
    atomic_write_parquet(conform([row], RESOLUTIONS_SCHEMA, "review_resolutions"), path)
    return path


def latest_resolutions(store: ArtifactStore, run_id: str) -> dict[str, dict[str, Any]]:
    """item_id → the most recent resolution of it."""
    folder = resolutions_dir(store, run_id)
    files = sorted(folder.glob("*.parquet")) if folder.exists() else []
    rows = [r for p in files for r in pq.read_table(p).to_pylist()]
    latest: dict[str, dict[str, Any]] = {}
    for row in sorted(rows, key=lambda r: r["resolved_at"]):
        latest[row["item_id"]] = row
    return latest


def resolutions_digest(store: ArtifactStore, run_id: str) -> str:
    folder = resolutions_dir(store, run_id)
    return ",".join(sorted(p.name for p in folder.glob("*.parquet"))) if folder.exists() else ""
