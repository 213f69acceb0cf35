"""Inputs stage: the evidence a judge may see per (document, criterion, page)."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from typing import Any

import pyarrow as pa

from extractors.reading_order import order_agreement
from judges.evidence import DocEvidence, build_bundles
from judges.labels import Label
from tasks.engine.common import good_documents
from tasks.engine.failures import WARNING_KINDS
from tasks.engine.runner import Stage, StageIO
from warehouse.tables import JUDGE_INPUTS

EVIDENCE_TABLES = ("struct_elements", "doc_structure", "links", "fonts", "text_spans", "reading_order", "tables",
                   "table_cells", "figures", "conformance")


class _ByDocument:
    """One upstream table's rows per document, without the run and document they belong to (the evidence
    builders never read them), kept in Arrow: a document's rows become Python objects only when its evidence
    is built, and two documents made from one file compare equal in Arrow."""

    def __init__(self, table: pa.Table | None) -> None:
        self.positions: dict[str, list[int]] = defaultdict(list)
        if table is None or table.num_rows == 0:
            self.table = None
            return
        for index, doc_id in enumerate(table.column("doc_id").to_pylist()):
            self.positions[doc_id].append(index)
        self.table = table.drop_columns([c for c in ("run_id", "doc_id") if c in table.column_names])

    def of(self, doc_id: str) -> pa.Table | None:
        indices = self.positions.get(doc_id)
        return self.table.take(indices) if self.table is not None and indices else None


def _same(a: dict[str, pa.Table | None], b: dict[str, pa.Table | None]) -> bool:
    for name, mine in a.items():
        theirs = b[name]
        if mine is None or theirs is None:
            if mine is not theirs:
                return False
        elif not mine.equals(theirs):
            return False
    return True


def _records(tables: dict[str, pa.Table | None]) -> dict[str, list[dict[str, Any]]]:
    records = {name: table.to_pylist() if table is not None else [] for name, table in tables.items()}
    records["pages"].sort(key=lambda p: p["page"])
    return records


def inputs_body(io: StageIO) -> dict[str, Any]:
    docs = good_documents(io)
    upstream = {"pages": _ByDocument(io.read_table("render", "pages")),
                "transcripts": _ByDocument(io.read_table("transcript", "transcripts")),
                "layout_regions": _ByDocument(io.read_table("layout", "layout_regions")),
                **{name: _ByDocument(io.read_table("extract", name)) for name in EVIDENCE_TABLES}}
    failed: dict[str, str] = {}
    for e in io.read("extract", "errors"):
        if e["kind"] in WARNING_KINDS:
            continue
        failed.setdefault(e["doc_id"], f"{e['kind']}: {e['message']}")
    no_transcript = {e["doc_id"] for e in io.read("transcript", "errors")}
    # Documents of one file (a screened file is one document per criterion, in a row) share their evidence and
    # the items built from it when their rows are the same. Only the current file's are kept: the run's
    # evidence as Python objects at once was its peak memory.
    current: tuple[str | None, bool] | None = None
    twins: list[tuple[dict[str, pa.Table | None], DocEvidence, dict]] = []
    rows = []
    for doc in docs:
        doc_id = doc["doc_id"]
        if doc_id in failed:
            # No evidence is not "cannot tell": the document is left unjudged (counted wrong, listed
            # in the `unjudged` view) rather than given a label the protocol reserves for withheld evidence.
            io.error(doc_id, "unjudged", f"not judged: extraction failed ({failed[doc_id][:300]})")
            continue
        key = (doc.get("sha256"), doc_id in no_transcript)
        if key != current:
            current, twins = key, []
        tables = {name: rows_of.of(doc_id) for name, rows_of in upstream.items()}
        found = next(((evidence, built) for other, evidence, built in twins if _same(tables, other)), None)
        if found is None:
            records = _records(tables)
            order = records["reading_order"]
            evidence = DocEvidence(doc_id, extract_failed=False, transcript_failed=doc_id in no_transcript,
                                   order_agreement={p: order_agreement(order, page=p)
                                                    for p in {r["page"] for r in order}},
                                   **records)
            found = (evidence, {})
            twins.append((tables, *found))
        evidence, built = found
        # The protocol: Cannot Tell items are judged without the criterion's starred evidence.
        withhold = doc.get("expected_label") == Label.CANNOT_TELL
        # A document without an expected label is a user's file being screened (judges.rules.is_screening).
        screening = doc.get("expected_label") is None
        for bundle, withheld in build_bundles(doc["criterion"], evidence, withhold=withhold, screening=screening,
                                              built=built):
            payload = json.dumps(bundle.evidence, sort_keys=True, default=str)
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
