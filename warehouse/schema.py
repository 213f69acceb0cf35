"""Fit rows to a declared pyarrow schema (or refuse them with the column that does not fit); read stored tables as a
newer schema declares them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pyarrow as pa

from common.rows import Column, Columns, Rows, SchemaError, columnize

__all__ = ["Column", "Columns", "Rows", "SchemaError", "arrow_table", "columns_of", "conform", "read_as"]


def conform(rows: Iterable[Mapping[str, Any]], schema: pa.Schema, table: str) -> pa.Table:
    """Build a table with exactly `schema`; unknown or mistyped columns raise SchemaError.

    Missing nullable columns are filled with nulls, so producers may omit optional fields.
    """
    return arrow_table(columnize(rows, columns_of(schema), table), schema, table)


def arrow_table(rows: Rows, schema: pa.Schema, table: str) -> pa.Table:
    """The Arrow table of `rows` (`common.rows.columnize`d to `schema`'s columns); SchemaError for a value
    that does not fit its column's type."""
    columns = []
    for field in schema:
        values = rows.values.get(field.name)
        if values is None:  # columnized to another schema of the table: an older producer's
            values = [None] * rows.num_rows
        try:
            columns.append(pa.array(values, type=field.type))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError) as exc:
            bad = _first_bad(values, field.type)
            raise SchemaError(
                f"table {table!r}: column {field.name!r} expects {field.type}, got {bad!r} ({exc})"
            ) from exc
    return pa.Table.from_arrays(columns, schema=schema)


_COLUMNS: dict[pa.Schema, Columns] = {}


def columns_of(schema: pa.Schema) -> Columns:
    """`schema`'s columns as plain data (`common.rows.Column`), for a process without pyarrow."""
    found = _COLUMNS.get(schema)
    if found is None:
        found = _COLUMNS[schema] = tuple(Column(f.name, _kind(f.type), f.nullable) for f in schema)
    return found


def _kind(type_: pa.DataType) -> Any:
    if pa.types.is_list(type_) or pa.types.is_large_list(type_):
        return ("list", _kind(type_.value_type))
    if pa.types.is_struct(type_):
        return ("struct", tuple((type_.field(i).name, _kind(type_.field(i).type)) for i in range(type_.num_fields)))
    if pa.types.is_string(type_) or pa.types.is_large_string(type_):
        return "string"
    if pa.types.is_boolean(type_):
        return "bool"
    if pa.types.is_integer(type_):
        return "int"
    if pa.types.is_float32(type_):
        return "float32"
    if pa.types.is_float64(type_):
        return "float64"
    return "other"


def _first_bad(values: list[Any], type_: pa.DataType) -> Any:
    for value in values:
        try:
            pa.array([value], type=type_)
        except Exception:  # noqa: BLE001 - we only want the offending value for the message
            return value
    return None


def read_as(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """A stored table as a reader of `schema` sees it: exactly its columns, in its order and types, a column
    the table lacks (written before the column was added) null, as a pyarrow dataset of that schema reads it."""
    columns = [table.column(field.name).cast(field.type) if field.name in table.column_names
               else pa.nulls(table.num_rows, field.type) for field in schema]
    return pa.Table.from_arrays(columns, schema=schema)
