"""The warehouse's tables for the report commands, from the table index (tasks/table_index.py).

A report reads tables by name; the index gives their specs without importing every stage, extractor
and judge that declares them (PyMuPDF, pikepdf, the model client): about half of `accessbench report`'s
second, as it was for `accessbench sql`.
"""

from __future__ import annotations

from warehouse.catalog import TableSpec


def report_tables() -> tuple[TableSpec, ...]:
    """Every table of the warehouse (tasks.registry.ALL_TABLES), from the index in AccessBench's cache."""
    from flows.server import cache_dir
    from tasks.table_index import all_tables

    return all_tables(cache_dir())
