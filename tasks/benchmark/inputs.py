"""Inputs stage: the evidence a judge may see per (document, criterion, page)."""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pyarrow as pa

from extractors.order_agreement import order_agreement
from judges.evidence import UNREAD_COLUMNS, DocEvidence, build_bundles
from judges.labels import Label
from tasks.engine.common import document_rows, good_documents
from tasks.engine.failures import WARNING_KINDS
from tasks.engine.runner import Stage, StageIO, release_memory
from warehouse.tables import JUDGE_INPUTS

EVIDENCE_TABLES = ("struct_elements", "doc_structure", "links", "fonts", "text_spans", "reading_order", "tables",
                   "table_cells", "figures", "conformance")


class _ByDocument:
    """One upstream table's rows per document, without the run and document they belong to and the `unread`
    columns (the evidence builders never read them), kept in Arrow: a document's rows become Python objects only
    when its evidence is built. A document whose rows equal its leader's (the first document of its file: a
    screened file is one document per criterion, each with the same rows) keeps none of its own, so that the table
    held while the stage runs is about one copy of each file's rows, not one per criterion."""

    def __init__(self, table: pa.Table | None, leader_of: dict[str, str], unread: tuple[str, ...] = ()) -> None:
        self.same: set[str] = set()  # documents whose rows are their leader's
        self.ranges: dict[str, tuple[int, int]] = {}  # document → (offset, length) in self.table
        self.table: pa.Table | None = None
        if table is None or table.num_rows == 0:  # no document has rows: each has its leader's (none)
            self.same = {doc_id for doc_id, leader in leader_of.items() if doc_id != leader}
            return
        positions = document_rows(table.column("doc_id"))
        table = table.drop_columns([c for c in ("run_id", "doc_id", *unread) if c in table.column_names])

        def rows(indices: np.ndarray) -> pa.Table:
            if indices[-1] - indices[0] + 1 == len(indices):  # contiguous, as the stages write them: no copy
                return table.slice(int(indices[0]), len(indices))
            return table.take(indices)

        kept: list[np.ndarray] = []
        count = 0
        leaders: dict[str, pa.Table] = {}  # a leader's rows, compared with each of its documents'
        for doc_id, indices in positions.items():
            leader = leader_of.get(doc_id, doc_id)
            theirs = positions.get(leader)
            if leader != doc_id and theirs is not None and len(theirs) == len(indices):
                if leader not in leaders:
                    leaders[leader] = rows(theirs)
                if leaders[leader].equals(rows(indices)):
                    self.same.add(doc_id)
                    continue
            self.ranges[doc_id] = (count, len(indices))
            kept.append(indices)
            count += len(indices)
        for doc_id, leader in leader_of.items():  # neither has rows: the same (none)
            if doc_id != leader and doc_id not in positions and leader not in positions:
                self.same.add(doc_id)
        order = np.concatenate(kept) if kept else np.empty(0, dtype=np.int64)
        if len(order) == table.num_rows and bool((order == np.arange(table.num_rows)).all()):
            self.table = table
        elif kept:
            self.table = table.take(order)  # a copy of the kept rows: the whole table is let go

    def of(self, doc_id: str, leader: str) -> pa.Table | None:
        span = self.ranges.get(leader if doc_id in self.same else doc_id)
        return self.table.slice(*span) if self.table is not None and span is not None else None

    def same_as_leader(self, doc_id: str, leader: str) -> bool:
        return doc_id in self.same or (doc_id == leader)


def _payload(evidence: dict[str, Any], dumped: dict[int, tuple[Any, str]]) -> str:
    """`json.dumps(evidence, sort_keys=True, default=str)`, the same text, built from the JSON of each item and each
    item's values, kept in `dumped` (by identity) for the next bundle that holds the same value: a file's documents
    (one per criterion) share most items (build_bundles: `built`), and a criterion's carrier item is a copy of a
    shared item with two keys added (its values are the shared item's). Values are not changed once built."""
    def text(value: Any) -> str:
        held = dumped.get(id(value))
        if held is None or held[0] is not value:
            held = dumped[id(value)] = (value, _JSON.encode(value))
        return held[1]

    def item(value: Any) -> str:
        held = dumped.get(id(value))
        if held is not None and held[0] is value:
            return held[1]
        if isinstance(value, dict) and all(type(k) is str for k in value):  # sort_keys orders str keys so
            return _object((k, text(value[k])) for k in sorted(value))
        return text(value)

    return _object((name, item(evidence[name])) for name in sorted(evidence))


def _object(members: Iterable[tuple[str, str]]) -> str:
    """A JSON object from (key, value JSON) in order, as json.dumps writes one (default separators)."""
    return "{" + ", ".join(f"{_JSON.encode(key)}: {value}" for key, value in members) + "}"


_JSON = json.JSONEncoder(sort_keys=True, default=str)  # what json.dumps(value, sort_keys=True, default=str) uses


def _records(tables: dict[str, pa.Table | None]) -> dict[str, list[dict[str, Any]]]:
    records = {name: table.to_pylist() if table is not None else [] for name, table in tables.items()}
    records["pages"].sort(key=lambda p: p["page"])
    return records


UPSTREAM = (("pages", "render", "pages"), ("transcripts", "transcript", "transcripts"),
            ("layout_regions", "layout", "layout_regions"), *((name, "extract", name) for name in EVIDENCE_TABLES))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the stage: turning a run's rows into dicts and lists (which form
    no cycles) triggered full collections that walk every object of the command's process (issue 56)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def inputs_body(io: StageIO) -> dict[str, Any]:
    with _collector_paused():
        return _inputs(io)


def _inputs(io: StageIO) -> dict[str, Any]:
    docs = good_documents(io)
    failed: dict[str, str] = {}
    for e in io.read("extract", "errors"):
        if e["kind"] in WARNING_KINDS:
            continue
        failed.setdefault(e["doc_id"], f"{e['kind']}: {e['message']}")
    no_transcript = {e["doc_id"] for e in io.read("transcript", "errors")}
    # Documents of one file (a screened file is one document per criterion, in a row) share their evidence and
    # the items built from it when their rows are the same: each document's leader is the first document of its
    # run of documents with the same file (and transcript outcome).
    leader_of: dict[str, str] = {}
    current: tuple[str | None, bool] | None = None
    leader = ""
    for doc in docs:
        if doc["doc_id"] in failed:
            continue
        key = (doc.get("sha256"), doc["doc_id"] in no_transcript)
        if key != current:
            current, leader = key, doc["doc_id"]
        leader_of[doc["doc_id"]] = leader
    # One upstream table read at a time, and only one copy of a file's rows kept: every table of the run at once,
    # a copy per criterion, was the command's peak memory.
    upstream = {}
    for name, stage, table in UPSTREAM:
        upstream[name] = _ByDocument(io.read_table(stage, table), leader_of, UNREAD_COLUMNS.get(name, ()))
        release_memory()
    # Only the current file's evidence is kept as Python objects: the run's evidence at once was its peak memory.
    evidence_of: tuple[str, DocEvidence, dict, dict] | None = None
    rows = []
    for doc in docs:
        doc_id = doc["doc_id"]
        if doc_id in failed:
            # No evidence is not "cannot tell": the document is left unjudged (counted wrong, listed
            # in the `unjudged` view) rather than given a label the protocol reserves for withheld evidence.
            io.error(doc_id, "unjudged", f"not judged: extraction failed ({failed[doc_id][:300]})")
            continue
        leader = leader_of[doc_id]
        shared = (evidence_of is not None and evidence_of[0] == leader and doc_id != leader
                  and all(rows_of.same_as_leader(doc_id, leader) for rows_of in upstream.values()))
        if not shared:
            records = _records({name: rows_of.of(doc_id, leader) for name, rows_of in upstream.items()})
            order = records["reading_order"]
            evidence = DocEvidence(doc_id, extract_failed=False, transcript_failed=doc_id in no_transcript,
                                   order_agreement={p: order_agreement(order, page=p)
                                                    for p in {r["page"] for r in order}},
                                   **records)
            if doc_id == leader:
                evidence_of = (leader, evidence, {}, {})
            built: dict = evidence_of[2] if doc_id == leader and evidence_of is not None else {}
            dumped: dict = evidence_of[3] if doc_id == leader and evidence_of is not None else {}
        else:
            assert evidence_of is not None
            _, evidence, built, dumped = evidence_of
        # The protocol: Cannot Tell items are judged without the criterion's starred evidence.
        withhold = doc.get("expected_label") == Label.CANNOT_TELL
        # A document without an expected label is a user's file being screened (judges.rules.is_screening).
        screening = doc.get("expected_label") is None
        for bundle, withheld in build_bundles(doc["criterion"], evidence, withhold=withhold, screening=screening,
                                              built=built):
            payload = _payload(bundle.evidence, dumped)
            rows.append({
                "run_id": io.cfg.run_id, "doc_id": doc_id, "criterion": bundle.criterion, "page": bundle.page,
                "image_path": bundle.image_path, "evidence": payload, "available": sorted(bundle.evidence),
                "withheld": withheld, "input_hash": hashlib.sha256(payload.encode()).hexdigest()[:16],
            })
    return {"judge_inputs": rows}


INPUTS = Stage(
    name="inputs",
    upstream=("corpus", "render", "layout", "extract", "transcript"),
    config_keys=(),
    tables=(JUDGE_INPUTS,),
    body=inputs_body,
    code=("judges", "extractors", "common"),
)
