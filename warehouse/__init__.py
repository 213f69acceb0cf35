"""Artifact store (Parquet per stage per run, atomic writes) and the DuckDB catalog over it."""

from warehouse.home import resolve_home
from warehouse.schema import SchemaError, conform
from warehouse.store import ArtifactStore, StageRun

__all__ = ["ArtifactStore", "SchemaError", "StageRun", "conform", "resolve_home"]
