"""Which tables a query over the warehouse sees: those its stages write, plus the tables every stage
shares.

Tables more than one stage writes are one view over every stage's files ("*"): errors, and the call log
(the PDF judges, the audit's respondents and its LLM category judge all write `llm_calls`). Here, below
the stages that snapshot views (`tasks.metrics`, `tasks.audit`) and the registry that lists every stage
(`tasks.registry`), so each of them can ask for the tables of the stages it reads without importing the
others.
"""

from __future__ import annotations

from collections.abc import Iterable

from tasks.judge import LLM_CALLS_SCHEMA
from tasks.runner import ERRORS_SCHEMA, Stage
from warehouse.catalog import TableSpec

SHARED_TABLES: tuple[TableSpec, ...] = (
    TableSpec("errors", "*", ERRORS_SCHEMA),
    TableSpec("llm_calls", "*", LLM_CALLS_SCHEMA),
)
_SHARED = {spec.name for spec in SHARED_TABLES}


def stage_tables(stages: Iterable[Stage]) -> tuple[TableSpec, ...]:
    """The tables `stages` write, in stage order, less the shared ones (each stage's own `llm_calls` files
    are read through the shared view)."""
    return tuple(spec for stage in stages for spec in stage.tables if spec.name not in _SHARED)


def tables_of(stages: Iterable[Stage]) -> tuple[TableSpec, ...]:
    """Every table a query over the outputs of `stages` needs: theirs and the shared ones."""
    return (*stage_tables(stages), *SHARED_TABLES)
