"""Aggregate stage: page labels → one label per (judge, model, repeat, document, criterion); for a run
without expected labels, one screening verdict per file (`tasks.benchmark.screening`)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pyarrow as pa

from judges.criteria import SPECS
from judges.labels import Label, aggregate_labels
from tasks.benchmark.judge import review_item_id
from tasks.benchmark.screening import screening_rows
from tasks.engine.failures import WARNING_KINDS
from tasks.engine.runner import Stage, StageIO
from warehouse.metrics import UNJUDGED
from warehouse.review import latest_resolutions, resolutions_digest
from warehouse.tables import BENCHMARK_STAGE_NAMES, DOC_LABELS, SCREENING_VERDICTS

HUMAN_TIER = "+human"

# Criteria that evaluate the structure tree, and the evidence through which their judge sees it.
TAG_TREE_EVIDENCE = {spec.name: spec.tree_evidence for spec in SPECS if spec.tree_evidence}


def untagged_items(doc_structure: pa.Table | None, judge_inputs: pa.Table | None) -> set[tuple[str, str]]:
    """(doc_id, criterion) of documents without a structure tree, for the criteria that evaluate it, where
    the judge was shown the tree's evidence (the Cannot Tell protocol's withheld evidence never counts)."""
    if doc_structure is None or judge_inputs is None:
        return set()
    tagged: dict[str, bool] = {}
    for doc_id, is_tagged in zip(doc_structure.column("doc_id").to_pylist(),
                                 doc_structure.column("tagged").to_pylist(), strict=True):
        tagged[doc_id] = tagged.get(doc_id, False) or bool(is_tagged)
    out = set()
    for doc_id, criterion, available in zip(judge_inputs.column("doc_id").to_pylist(),
                                            judge_inputs.column("criterion").to_pylist(),
                                            judge_inputs.column("available").to_pylist(), strict=True):
        shown = TAG_TREE_EVIDENCE.get(criterion)
        if shown and shown in (available or ()) and tagged.get(doc_id) is False:
            out.add((doc_id, criterion))
    return out


def with_resolutions(judgments: list[dict[str, Any]], resolved: dict[str, dict[str, Any]], run_id: str
                     ) -> list[dict[str, Any]]:
    """The judgments again, under `<judge>+human`, with the pages people resolved relabelled."""
    if not resolved:
        return []
    out = []
    for row in judgments:
        decision = resolved.get(review_item_id(run_id, row["doc_id"], row["criterion"], row["page"]))
        out.append({**row, "judge": row["judge"] + HUMAN_TIER,
                    "label": decision["label"] if decision else row["label"]})
    return out


def aggregate_body(io: StageIO) -> dict[str, Any]:
    judgments = io.read("judge", "judgments")
    resolved = latest_resolutions(io.cfg.store, io.cfg.run_id)
    untagged = untagged_items(io.read_table("extract", "doc_structure"), io.read_table("inputs", "judge_inputs"))
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in judgments + with_resolutions(judgments, resolved, io.cfg.run_id):
        groups[(row["judge"], row["model"], row["repeat"], row["doc_id"], row["criterion"])].append(row)
    rows = []
    for (judge, model, repeat, doc_id, criterion), pages in sorted(groups.items(), key=lambda kv: str(kv[0])):
        labelled = [p for p in pages if p["label"] is not None]
        row = {"run_id": io.cfg.run_id, "judge": judge, "model": model, "repeat": repeat, "doc_id": doc_id,
               "criterion": criterion, "pages": len(pages), "error_pages": len(pages) - len(labelled)}
        if not labelled:
            # Still in the denominator: an unusable reply must never score better than a wrong one.
            rows.append({**row, "label": UNJUDGED, "failed_pages": [],
                         "reason": f"no page got a usable judgment: {pages[0]['error']}"})
            continue
        rows.append({**row, "label": aggregate_labels(
                         (p["label"] for p in labelled), untagged=(doc_id, criterion) in untagged).value,
                     "failed_pages": sorted(p["page"] for p in labelled if p["label"] == Label.FAILED)})
    return {"doc_labels": rows, "screening": _verdicts(io, rows)}


# The stages whose error rows can keep a file from being checked (every stage before this one).
CHECKING_STAGES = BENCHMARK_STAGE_NAMES[:BENCHMARK_STAGE_NAMES.index("aggregate")]


def _verdicts(io: StageIO, doc_labels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per screened file its overall verdict (`tasks.benchmark.screening`); none for a run with expected labels."""
    documents = io.read("corpus", "documents")
    if not documents or any(d.get("expected_label") for d in documents):
        return []
    errors = [e for stage in CHECKING_STAGES for e in io.read(stage, "errors")]
    return screening_rows(io.cfg.run_id, documents, doc_labels, errors, WARNING_KINDS,
                          io.read("extract", "conformance"))


AGGREGATE = Stage(
    name="aggregate",
    upstream=("judge",),
    config_keys=(),
    tables=(DOC_LABELS, SCREENING_VERDICTS),
    version="3",  # 2: screening; Not Present for the tag-tree criteria of an untagged document; 3: PDF/UA-1 verdict
    body=aggregate_body,
    # Human review decisions live outside the stage artifacts; a new one re-aggregates.
    external_inputs=lambda cfg: resolutions_digest(cfg.store, cfg.run_id),
    code=("judges", "common"),
)
