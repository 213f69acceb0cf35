"""The inputs stage keeps one copy of a file's upstream rows for its documents (one per criterion), and each
document still reads exactly its own rows (issue 56)."""

from __future__ import annotations

import pyarrow as pa

from tasks.benchmark.inputs import _ByDocument


def _table(rows: list[tuple[str, int]]) -> pa.Table:
    return pa.table({"run_id": ["r"] * len(rows), "doc_id": [d for d, _ in rows], "page": [p for _, p in rows]})


def test_each_document_reads_its_own_rows_and_twins_keep_none_of_their_own() -> None:
    # a1..a3: one file (leader a1); a2 has the same rows, a3 different ones, a4's rows are not contiguous; b1 alone.
    leader_of = {"a1": "a1", "a2": "a1", "a3": "a1", "a4": "a1", "b1": "b1", "b2": "b1"}
    table = _table([("a1", 1), ("a1", 2), ("a2", 1), ("a2", 2), ("a3", 9), ("a4", 1), ("b1", 5), ("a4", 2)])
    rows = _ByDocument(table, leader_of)
    own = {doc: [r["page"] for r in table.to_pylist() if r["doc_id"] == doc] for doc in leader_of}
    for doc, leader in leader_of.items():
        got = rows.of(doc, leader)
        assert (got.column("page").to_pylist() if got is not None else []) == own[doc]
        assert got is None or got.column_names == ["page"]  # the run and document columns are left out
    assert {doc for doc, leader in leader_of.items() if rows.same_as_leader(doc, leader)} == {"a1", "a2", "a4", "b1"}
    assert rows.table is not None and rows.table.num_rows == 4  # a1's, a3's and b1's rows, one copy each
    assert not rows.same_as_leader("b2", "b1")  # b1 has rows, b2 none


def test_a_table_without_rows_gives_every_document_its_leaders_none() -> None:
    leader_of = {"a1": "a1", "a2": "a1"}
    for table in (None, _table([])):
        rows = _ByDocument(table, leader_of)
        assert rows.of("a1", "a1") is None and rows.of("a2", "a1") is None and rows.same_as_leader("a2", "a1")
