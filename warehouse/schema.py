"""Fit rows to a declared pyarrow schema (or refuse them with the column that does not fit); read stored tables as a
newer schema declares them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pyarrow as pa


class SchemaError(ValueError):
    """Rows do not fit the table's declared schema."""


def conform(rows: Iterable[Mapping[str, Any]], schema: pa.Schema, table: str) -> pa.Table:
    """Build a table with exactly `schema`; unknown or mistyped columns raise SchemaError.

    Missing nullable columns are filled with nulls, so producers may omit optional fields.
    """
    rows = list(rows)
    names = set(schema.names)
    for i, row in enumerate(rows):
        extra = set(row) - names
        if extra:
            raise SchemaError(
                f"table {table!r}: row {i} has column(s) {sorted(extra)} that the schema does not declare; "
                f"add them to the schema beside the producer or drop them"
            )
    columns = []
    for field in schema:
        values = [row.get(field.name) for row in rows]
        if _is_text(field.type):
            values = [_storable(v) for v in values]
        if not field.nullable:
            missing = next((i for i, v in enumerate(values) if v is None), None)
            if missing is not None:
                raise SchemaError(f"table {table!r}: column {field.name!r} is required but row {missing} has no value")
        try:
            columns.append(pa.array(values, type=field.type))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError) as exc:
            bad = _first_bad(values, field.type)
            raise SchemaError(
                f"table {table!r}: column {field.name!r} expects {field.type}, got {bad!r} ({exc})"
            ) from exc
    return pa.Table.from_arrays(columns, schema=schema)


def _is_text(type_: pa.DataType) -> bool:
    if pa.types.is_list(type_) or pa.types.is_large_list(type_):
        return _is_text(type_.value_type)
    return pa.types.is_string(type_) or pa.types.is_large_string(type_)


def _storable(value: Any) -> Any:
    """Text as UTF-8 can hold it: a lone surrogate (from a PDF string, or a file name that is not
    UTF-8) becomes a visible escape such as ``\\udce9`` instead of failing the whole table."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, list):
        return [_storable(v) for v in value]
    return value


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
