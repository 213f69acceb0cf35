"""One unit of a stage's work where it runs (a worker process, a Dask worker): its rows, or its error row, fitted
to the stage's tables as plain Python columns (`common.rows.Rows`).

Nothing here imports pyarrow: a worker process that reads PDFs never loads it (~45 MB each, issue 56). The
run's own process makes each `Rows` an Arrow table (`tasks.engine.runner.StageIO.per_key`, with
`warehouse.schema.arrow_table`), where a value of the wrong type fails the stage (`StageBug`), as a column the
stage does not declare or a required value missing does here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from common.progress import counting
from common.rows import Columns, Rows, SchemaError, columnize
from tasks.engine.failures import Failure, Incomplete, classify, retryable


class StageBug(Exception):
    """A stage produced rows that do not fit its declared tables: the stage fails (not one document)."""


@dataclass
class Shaped:
    """One unit's outcome as rows of its stage's tables (`common.rows.Rows`), and whether the unit is done (False:
    retry it on resume). Built where the work ran (`shaped`)."""

    tables: dict[str, Rows]
    done: bool
    doc_id: str | None  # the document the rows were computed for
    reported: bool = False  # its page counts reached the runner's tally (`common.progress.counting`)

    def for_document(self, doc_id: str | None) -> dict[str, Rows]:
        """The tables, re-labelled for an identical document computed once (`per_key`'s `same`)."""
        if doc_id is None or doc_id == self.doc_id:
            return self.tables
        return {name: rows.with_value("doc_id", doc_id) for name, rows in self.tables.items()}


def shaped(work: Callable[[Any], Any], run_id: str, stage: str, columns: Mapping[str, Columns],
           unit: tuple[str, Any], pages: str | None = None) -> Shaped:
    """`work(item)` for one (key, item) unit, with its rows (or its error row) fitted to the stage's tables
    (`columns`, `tasks.engine.runner.Stage.columns`); the pages it reports done (`common.progress.page_done`)
    count for the runner's tally `pages`.

    Runs where the work runs. A row with a column its table does not declare, a required value missing, or a
    table the stage does not declare, is a bug in the stage, not in the document: it comes back as a `StageBug`,
    which `rows_for` raises in the runner, failing the stage.
    """
    key, item = unit
    with counting(pages, key) as counted:
        result = work(item)
    rows, done = rows_for(run_id, stage, key, item, result)
    for name in rows:
        if name not in columns:
            raise StageBug(f"stage {stage!r} declares no table {name!r}")
    try:
        tables = {name: columnize(r, columns[name], name) for name, r in rows.items()}
    except SchemaError as exc:
        raise StageBug(str(exc)) from None
    return Shaped(tables, done, doc_id_of(item), counted.reported)


def doc_id_of(item: Any) -> str | None:
    return item.get("doc_id") if isinstance(item, dict) else None


def rows_for(run_id: str, stage: str, key: str, item: Any, result: Any
             ) -> tuple[Mapping[str, list[dict[str, Any]]], bool]:
    """The rows to persist for one item, and whether it is done (False: retry it on resume)."""
    doc_id = doc_id_of(item)
    done = True
    if isinstance(result, StageBug):
        raise result
    if isinstance(result, BaseException):  # raised outside the work: a time limit, a lost worker
        result = classify(result)
    if isinstance(result, Incomplete):  # rows to keep, but some of the work failed transiently
        result, done = result.rows, False
    if isinstance(result, Failure):
        done = not result.transient
        error = {"run_id": run_id, "stage": stage, "doc_id": doc_id or key,
                 "kind": result.kind, "message": result.message, "retryable": result.transient}
        result = {**result.rows, "errors": [*result.rows.get("errors", []), error]}
    return {table: [with_retryable(row) for row in rows] if table == "errors" else rows
            for table, rows in result.items()}, done


def with_retryable(row: Mapping[str, Any]) -> dict[str, Any]:
    """An `errors` row with its `retryable` flag (from its kind, when the producer left it out)."""
    if row.get("retryable") is not None:
        return dict(row)
    return {**row, "retryable": retryable(str(row.get("kind") or ""))}
