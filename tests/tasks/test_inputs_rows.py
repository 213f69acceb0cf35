"""The inputs stage keeps one copy of a file's upstream rows for its documents (one per criterion), and each
document still reads exactly its own rows (issue 56)."""

from __future__ import annotations

import gc
import json
from datetime import date

import pyarrow as pa

from tasks.benchmark.inputs import _ByDocument, _collector_paused, _payload
from tasks.engine.common import document_rows


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


def test_rows_are_grouped_by_document_in_first_row_order_whatever_the_column_holds() -> None:
    ids = ["b", "a", "b", None, "c", "a", None]
    for column in (pa.chunked_array([ids[:3], ids[3:]]), pa.chunked_array([pa.array(ids).dictionary_encode()])):
        got = {doc: indices.tolist() for doc, indices in document_rows(column).items()}
        assert list(got) == ["b", "a", None, "c"]
        assert got == {"b": [0, 2], "a": [1, 5], None: [3, 6], "c": [4]}


def test_the_unread_columns_are_left_out_of_every_documents_rows() -> None:
    table = _table([("a1", 1), ("a2", 1)]).append_column("mcids", pa.array([[1], [2]]))
    rows = _ByDocument(table, {"a1": "a1", "a2": "a1"}, ("mcids", "not_there"))
    assert rows.same_as_leader("a2", "a1")  # the rows differ only where no builder reads
    got = rows.of("a2", "a1")
    assert got is not None and got.column_names == ["page"]


def test_a_payload_is_the_text_json_dumps_gives_with_items_shared_between_bundles() -> None:
    shared = {"elements": [{"b": 1.5, "a": None}], "page": 3, "title": "Ünïcode \"quoted\"", "when": date(2024, 1, 2)}
    carrier = {**shared, "screening": True, "conformance": []}  # a criterion's carrier: a copy with two keys more
    bundles = [{"tag_structure": shared, "page_image": {"width_pt": 612.0}},
               {"tag_structure": carrier, "transcript": {"announcements": [], "truncated": False}},
               {"alt_texts": {1: "int keys", 2: [float("nan")]}, "tag_structure": shared},
               {"z": [], "a": "text", "m": {"nested": {2: "b", 1: "a"}}}, {}]
    dumped: dict = {}
    for evidence in bundles + bundles:  # the second time round from what `dumped` keeps
        assert _payload(evidence, dumped) == json.dumps(evidence, sort_keys=True, default=str)
    assert any(held is shared["elements"] for held, _ in dumped.values())  # the carrier's values were shared's


def test_the_stage_pauses_the_garbage_collector_and_restores_it() -> None:
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            with _collector_paused():
                assert not gc.isenabled()
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
