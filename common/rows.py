"""A table's rows as plain Python columns, fitted to a declared schema without pyarrow (issue 56).

The worker processes that read the PDFs compute rows; the run's own process makes them Arrow tables
(`warehouse.schema.arrow_table`). A worker checks what can be checked without Arrow (`columnize`: no column
the schema does not declare, a value in every required column, text UTF-8 can hold) and sends a `Rows`: each
declared column's values in row order. So a worker never imports pyarrow (~45 MB a process).

A column's `kind` is its Arrow type as plain data (`warehouse.schema.columns_of` derives it from the schema):
``"string"``, ``"bool"``, ``"int"``, ``"float32"``, ``"float64"``, ``("list", kind)``, ``("struct", ((name,
kind), ...))`` or ``"other"``. `Rows.to_pylist` reads the rows back as the Arrow table made of them would give
them (`pyarrow.Table.to_pylist`): a float32 column's 0.1 as 0.10000000149011612, an int in a float column as a
float. A later stage given these rows (`tasks.engine.chain`) sees what it would read from the stored table.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

Kind = Any  # str | tuple[str, Kind] | tuple[str, tuple[tuple[str, Kind], ...]]


class SchemaError(ValueError):
    """Rows do not fit the table's declared schema."""


@dataclass(frozen=True)
class Column:
    """One declared column: its name, its type as plain data (see the module docstring), whether it may be null."""

    name: str
    kind: Kind
    nullable: bool = True


Columns = tuple[Column, ...]


class Rows:
    """A table's rows as Python columns in declared order (`columnize`): what a worker sends for a table."""

    __slots__ = ("columns", "num_rows", "values")

    def __init__(self, columns: Columns, values: Mapping[str, list[Any]], num_rows: int) -> None:
        self.columns = columns
        self.values = dict(values)  # column name → its values, one per row
        self.num_rows = num_rows

    def __reduce__(self) -> tuple[Any, ...]:
        return (Rows, (self.columns, self.values, self.num_rows))

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def __len__(self) -> int:
        return self.num_rows

    def to_pylist(self, drop: Sequence[str] = ()) -> list[dict[str, Any]]:
        """The rows as dicts, as Arrow would read them back (`read_back`), without the columns in `drop`."""
        return list(self.iter_rows(drop))

    def iter_rows(self, drop: Sequence[str] = ()) -> Iterator[dict[str, Any]]:
        kept = [c for c in self.columns if c.name not in drop]
        for at in range(self.num_rows):
            yield {c.name: read_back(self.values[c.name][at], c.kind) for c in kept}

    def with_value(self, name: str, value: Any) -> Rows:
        """The rows with every value of column `name` replaced by `value` (a copy under another document's id)."""
        if name not in self.values:
            return self
        return Rows(self.columns, {**self.values, name: [value] * self.num_rows}, self.num_rows)


def columnize(rows: Iterable[Mapping[str, Any]], columns: Columns, table: str) -> Rows:
    """`rows` as `Rows` of `columns`; SchemaError for a column the schema does not declare or a required value
    missing. Missing nullable columns are null; text is made storable as UTF-8 (`storable`). Types are checked
    where the Arrow table is made (`warehouse.schema.arrow_table`)."""
    rows = rows if isinstance(rows, list) else list(rows)
    names = {c.name for c in columns}
    for i, row in enumerate(rows):
        if not names.issuperset(row):
            extra = set(row) - names
            raise SchemaError(
                f"table {table!r}: row {i} has column(s) {sorted(extra)} that the schema does not declare; "
                f"add them to the schema beside the producer or drop them"
            )
    values: dict[str, list[Any]] = {}
    for column in columns:
        found = [row.get(column.name) for row in rows]
        if is_text(column.kind):
            found = [storable(v) for v in found]
        if not column.nullable:
            missing = next((i for i, v in enumerate(found) if v is None), None)
            if missing is not None:
                raise SchemaError(f"table {table!r}: column {column.name!r} is required but row {missing} has no value")
        values[column.name] = found
    return Rows(columns, values, len(rows))


def is_text(kind: Kind) -> bool:
    if isinstance(kind, tuple) and kind[0] == "list":
        return is_text(kind[1])
    return kind == "string"


def storable(value: Any) -> Any:
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
        return [storable(v) for v in value]
    return value


_FLOAT32 = struct.Struct("<f")
ROWS_AT_ONCE = 1024  # an Arrow table's rows made Python values a batch at a time (`ArrowRows.iter_rows`)


def read_back(value: Any, kind: Kind) -> Any:
    """`value` as an Arrow column of `kind` holds it and gives it back (what `to_pylist` returns): numbers in the
    column's type (a float32 rounded to single precision, an int in a float column a float, a float in an int
    column truncated), numpy scalars as Python ones. A value Arrow would refuse is returned as it is (the table
    made of it fails where it is made)."""
    if value is None:
        return None
    if isinstance(kind, tuple):
        if kind[0] == "list" and isinstance(value, list | tuple):
            return [read_back(v, kind[1]) for v in value]
        if kind[0] == "struct" and isinstance(value, Mapping):
            return {name: read_back(value.get(name), inner) for name, inner in kind[1]}
        return value
    if kind == "float32" or kind == "float64":
        if isinstance(value, Real) and not isinstance(value, Integral | bool):
            number = float(value)
        elif isinstance(value, Integral):  # bool included
            number = float(int(value))
        else:
            return value
        if kind == "float64":
            return number
        try:
            return _FLOAT32.unpack(_FLOAT32.pack(number))[0]
        except OverflowError:  # beyond single precision: Arrow's cast gives an infinity
            return float("inf") if number > 0 else float("-inf")
    if kind == "int":
        if isinstance(value, bool):
            return value
        if isinstance(value, Integral):
            return int(value)
        if isinstance(value, Real):
            return int(float(value))  # Arrow truncates towards zero
        return value
    if kind == "bool":
        return bool(value) if type(value).__module__ == "numpy" else value  # numpy.bool_ as Arrow reads it back
    return value


class ArrowRows:
    """An Arrow table's rows (in the run's process), read like `Rows`; sent to a worker process it is a `Rows` of
    the table's values (pickled as Python values: the worker needs no pyarrow to read it)."""

    __slots__ = ("table",)

    def __init__(self, table: Any) -> None:
        self.table = table  # a pyarrow.Table

    def __reduce__(self) -> tuple[Any, ...]:
        names = self.table.column_names
        return (Rows, (tuple(Column(name, "other") for name in names),  # values already as Arrow gives them
                       {name: self.table.column(name).to_pylist() for name in names}, self.table.num_rows))

    @property
    def column_names(self) -> list[str]:
        return list(self.table.column_names)

    @property
    def num_rows(self) -> int:
        return int(self.table.num_rows)

    def __len__(self) -> int:
        return self.num_rows

    def to_pylist(self, drop: Sequence[str] = ()) -> list[dict[str, Any]]:
        return list(self.iter_rows(drop))

    def iter_rows(self, drop: Sequence[str] = ()) -> Iterator[dict[str, Any]]:
        """The rows a batch at a time (never the whole table as Python objects at once)."""
        table = self.table.drop_columns([c for c in drop if c in self.table.column_names])
        for batch in table.to_batches(max_chunksize=ROWS_AT_ONCE):
            yield from batch.to_pylist()
