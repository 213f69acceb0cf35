"""Judge stage: every judge × repeat × page bundle → `judgments`."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from typing import Any

import pyarrow as pa

from judges.base import Judge, PageJudgment, get_judge
from judges.evidence import PageBundle
from tasks.runner import Stage, StageIO
from warehouse.catalog import TableSpec

JUDGMENTS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("judge", pa.string(), nullable=False),
        pa.field("model", pa.string()),
        pa.field("repeat", pa.int32(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("label", pa.string()),
        pa.field("sub_criteria", pa.string()),  # JSON: name → verdict
        pa.field("issues", pa.string()),  # JSON list of {sub_criterion, location, problem, remediation}
        pa.field("remediation", pa.string()),
        pa.field("summary", pa.string()),
        pa.field("raw_response", pa.string()),
        pa.field("prompt_version", pa.string()),
        pa.field("prompt_hash", pa.string()),
        pa.field("params", pa.string()),  # JSON of the parameters actually used
        pa.field("flags", pa.string()),  # JSON: hallucination flags (label without evidence, invented values)
        pa.field("review", pa.string()),  # why a person should look (hybrid judge); null otherwise
        pa.field("tier_labels", pa.string()),  # JSON: what each tier of the hybrid judge said
        pa.field("tokens_in", pa.int64()),
        pa.field("tokens_out", pa.int64()),
        pa.field("cost_usd", pa.float64()),
        pa.field("latency_s", pa.float64()),
        pa.field("error", pa.string()),
    ]
)
JUDGMENTS = TableSpec("judgments", "judge", JUDGMENTS_SCHEMA)

REVIEW_QUEUE_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),  # what `accessbench review resolve` takes
        pa.field("judge", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("label", pa.string()),  # the label the judge gave meanwhile
        pa.field("tier_labels", pa.string()),  # JSON: what each tier said
        pa.field("reason", pa.string(), nullable=False),
        pa.field("repeats", pa.int32()),  # how many repeats raised it
        pa.field("issues", pa.string()),
    ]
)
REVIEW_QUEUE = TableSpec("review_queue", "judge", REVIEW_QUEUE_SCHEMA)


def review_item_id(run_id: str, doc_id: str, criterion: str, page: int) -> str:
    return "r" + hashlib.sha1(f"{run_id}\0{doc_id}\0{criterion}\0{page}".encode()).hexdigest()[:10]


def review_queue(run_id: str, judgments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One queue item per page that any repeat flagged for review."""
    items: dict[str, dict[str, Any]] = {}
    for row in judgments:
        if not row.get("review"):
            continue
        item_id = review_item_id(run_id, row["doc_id"], row["criterion"], row["page"])
        if item_id in items:
            items[item_id]["repeats"] += 1
            continue
        items[item_id] = {"run_id": run_id, "item_id": item_id, "judge": row["judge"], "doc_id": row["doc_id"],
                          "criterion": row["criterion"], "page": row["page"], "label": row.get("label"),
                          "tier_labels": row.get("tier_labels"), "reason": row["review"], "repeats": 1,
                          "issues": row.get("issues")}
    return list(items.values())


def judge_rows(run_id: str, judge: Judge, items: list[tuple[dict[str, Any], int]]) -> list[dict[str, Any]]:
    """Judge (judge_inputs row, repeat) pairs; concurrently when the judge offers `judge_many`."""
    bundles = [(PageBundle(row["criterion"], row["page"], json.loads(row["evidence"]), row.get("image_path")), repeat)
               for row, repeat in items]
    many = getattr(judge, "judge_many", None)
    if many is not None:
        results: list[PageJudgment | Exception] = list(many(bundles))
    else:
        results = []
        for bundle, repeat in bundles:
            try:
                results.append(judge.judge_page(bundle, repeat))
            except Exception as exc:  # noqa: BLE001 - an error row; the report counts them
                results.append(exc)
    out = []
    for (row, repeat), result in zip(items, results, strict=True):
        keys = _keys(run_id, judge, repeat, row)
        if isinstance(result, Exception):
            out.append({**keys, "error": f"{type(result).__name__}: {result}"})
            continue
        out.append({
            **keys,
            "label": result.label.value if result.error is None else None,
            "sub_criteria": json.dumps(result.sub_criteria, sort_keys=True),
            "issues": result.issues_json(),
            "remediation": result.remediation or None,
            "summary": result.summary,
            "raw_response": result.raw_response,
            "prompt_hash": result.prompt_hash,
            "flags": json.dumps(result.flags, sort_keys=True) if result.flags else None,
            "review": result.review,
            "tier_labels": json.dumps(result.tier_labels, sort_keys=True) if result.tier_labels else None,
            "tokens_in": result.tokens_in, "tokens_out": result.tokens_out,
            "cost_usd": result.cost_usd, "latency_s": result.latency_s, "error": result.error,
        })
    return out


def _keys(run_id: str, judge: Judge, repeat: int, row: dict[str, Any]) -> dict[str, Any]:
    return {"run_id": run_id, "judge": judge.name, "model": judge.model, "repeat": repeat,
            "doc_id": row["doc_id"], "criterion": row["criterion"], "page": row["page"],
            "prompt_version": judge.prompt_version, "params": json.dumps(judge.params(), sort_keys=True)}


BATCH_PAGES = 64  # pages per resumable unit when a judge runs calls concurrently


def judge_body(io: StageIO) -> dict[str, Any]:
    cfg = io.cfg
    judge = get_judge(cfg.judge, cfg.judge_options())
    repeats = 1 if judge.name == "rules" else cfg.repeats
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in io.read("inputs", "judge_inputs"):
        by_doc[row["doc_id"]].append(row)
    units: list[tuple[str, list[tuple[dict[str, Any], int]]]] = []
    batch: list[tuple[dict[str, Any], int]] = []
    batch_docs: list[str] = []
    for doc_id, rows in by_doc.items():
        if not judge.supports(rows[0]["criterion"]):
            io.error(doc_id, "unsupported", f"judge {cfg.judge!r} does not cover {rows[0]['criterion']}; "
                     "choose another judge or leave this criterion out with --criteria")
            continue
        batch += [(row, repeat) for repeat in range(repeats) for row in rows]
        batch_docs.append(doc_id)
        # Concurrent judges get batches across documents; others resume document by document.
        if not hasattr(judge, "judge_many") or len(batch) >= BATCH_PAGES:
            units.append(("+".join(batch_docs), batch))
            batch, batch_docs = [], []
    if batch:
        units.append(("+".join(batch_docs), batch))
    tables = io.per_key(units, lambda items: {"judgments": judge_rows(cfg.run_id, judge, items)},
                        f"judge ({cfg.judge})")
    queue = review_queue(cfg.run_id, tables["judgments"].to_pylist())
    return {**tables, "review_queue": queue}


JUDGE = Stage(
    name="judge",
    upstream=("inputs",),
    config_keys=("judge", "repeats", "api_base", "temperature", "max_tokens"),
    tables=(JUDGMENTS, REVIEW_QUEUE),
    body=judge_body,
    code=("judges",),
)
