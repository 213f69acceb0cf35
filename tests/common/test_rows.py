"""Rows fitted to a schema without pyarrow (`common.rows`, issue 56) read back as the Arrow table made of them does,
pickle without pyarrow, and are refused for the same faults `warehouse.schema.conform` refuses."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from common.rows import ArrowRows, Rows, SchemaError, columnize
from tasks.engine.chain_work import item_digest
from warehouse.schema import arrow_table, columns_of, conform
from warehouse.tables import ALL_TABLES

SCHEMA = pa.schema([
    pa.field("doc_id", pa.string(), nullable=False),
    pa.field("page", pa.int32(), nullable=False),
    pa.field("big", pa.int64()),
    pa.field("score", pa.float32()),
    pa.field("ratio", pa.float64()),
    pa.field("passes", pa.bool_()),
    pa.field("bbox", pa.list_(pa.float32())),
    pa.field("marks", pa.list_(pa.string())),
    pa.field("glyphs", pa.list_(pa.struct([pa.field("page", pa.int32()), pa.field("size", pa.float32())]))),
])

ROWS = [
    {"doc_id": "a", "page": 1, "big": 2**40, "score": 0.1, "ratio": 3, "passes": True, "bbox": [0.1, 2, 1e39, -1e39],
     "marks": ["x", "caf\u00e9", "lone \udce9"], "glyphs": [{"page": 1, "size": 9.7}, {"page": 2}]},
    {"doc_id": "b", "page": np.int64(2), "score": np.float32(0.2), "ratio": np.float64(0.3), "passes": np.bool_(False),
     "bbox": [np.float32(1.5), True], "marks": [], "glyphs": []},
    {"doc_id": "c", "page": 1.9, "score": True, "ratio": None, "bbox": None, "marks": None, "glyphs": None},
    {"doc_id": "d", "page": -2.5, "score": float("nan"), "ratio": float("inf")},
]


def _same(one: list[dict], other: list[dict]) -> bool:
    """Equal rows, NaN equal to NaN."""
    return pickle.dumps(one) == pickle.dumps(other) or repr(one) == repr(other)


def test_rows_read_back_as_the_arrow_table_made_of_them() -> None:
    rows = columnize(ROWS, columns_of(SCHEMA), "t")
    table = arrow_table(rows, SCHEMA, "t")
    assert table.schema == SCHEMA and _same(table.to_pylist(), conform(ROWS, SCHEMA, "t").to_pylist())
    assert _same(rows.to_pylist(), table.to_pylist())
    assert _same(rows.to_pylist(drop=("bbox",)), table.drop_columns(["bbox"]).to_pylist())
    # ...and so digest alike, as the rows a worker made and as the stored table read back
    assert item_digest({"t": rows}) == item_digest({"t": table}) == item_digest({"t": ArrowRows(table)})


def test_every_declared_table_reads_back_its_own_rows() -> None:
    """Each table's columns are known without pyarrow: rows of every type read back as Arrow gives them."""
    for spec in ALL_TABLES:
        table = conform([], spec.schema, spec.name)
        columns = columns_of(spec.schema)
        assert [c.name for c in columns] == spec.schema.names
        assert all(c.kind != "other" for c in columns if c.name != "resolved_at"), spec.name
        assert columnize([], columns, spec.name).to_pylist() == table.to_pylist() == []


def test_rows_refuse_what_conform_refuses() -> None:
    columns = columns_of(SCHEMA)
    with pytest.raises(SchemaError, match=r"row 0 has column\(s\) \['colour'\]"):
        columnize([{"doc_id": "a", "page": 1, "colour": "red"}], columns, "t")
    with pytest.raises(SchemaError, match="column 'page' is required but row 1 has no value"):
        columnize([{"doc_id": "a", "page": 1}, {"doc_id": "b"}], columns, "t")
    typed = columnize([{"doc_id": "a", "page": "one"}], columns, "t")  # a type is checked where Arrow makes it
    with pytest.raises(SchemaError, match="column 'page' expects int32, got 'one'"):
        arrow_table(typed, SCHEMA, "t")


def test_rows_pickle_to_a_process_without_pyarrow() -> None:
    table = conform(ROWS, SCHEMA, "t")
    for value in (columnize(ROWS, columns_of(SCHEMA), "t"), ArrowRows(table)):
        data = pickle.dumps(value)
        script = ("import pickle, sys; rows = pickle.loads(sys.stdin.buffer.read()); "
                  "sys.stdout.buffer.write(pickle.dumps((type(rows).__name__, rows.to_pylist(), "
                  "'pyarrow' in sys.modules, None)))")
        done = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        kind, back, arrow, _ = pickle.loads(done.stdout)
        assert (kind, arrow) == ("Rows", False)
        assert _same(back, table.to_pylist())
    assert isinstance(pickle.loads(pickle.dumps(ArrowRows(table))), Rows)


def test_a_copy_under_another_id_relabels_only_the_document_column() -> None:
    rows = columnize(ROWS[:2], columns_of(SCHEMA), "t")
    copy = rows.with_value("doc_id", "z")
    assert [r["doc_id"] for r in copy.to_pylist()] == ["z", "z"]
    assert [r["page"] for r in copy.to_pylist()] == [r["page"] for r in rows.to_pylist()]
    assert rows.with_value("absent", 1) is rows
