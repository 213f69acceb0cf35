"""Judge stage: every judge × repeat × page bundle → `judgments`."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pyarrow as pa

from judges.base import Judge, get_judge
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
        pa.field("tokens_in", pa.int64()),
        pa.field("tokens_out", pa.int64()),
        pa.field("cost_usd", pa.float64()),
        pa.field("latency_s", pa.float64()),
        pa.field("error", pa.string()),
    ]
)
JUDGMENTS = TableSpec("judgments", "judge", JUDGMENTS_SCHEMA)


def judge_document(run_id: str, judge: Judge, repeats: int, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for repeat in range(repeats):
        for row in rows:
            bundle = PageBundle(row["criterion"], row["page"], json.loads(row["evidence"]), row.get("image_path"))
            try:
                result = judge.judge_page(bundle, repeat)
            except Exception as exc:  # noqa: BLE001 - an error row; the report counts them
                out.append({**_keys(run_id, judge, repeat, row), "error": f"{type(exc).__name__}: {exc}"})
                continue
            out.append({
                **_keys(run_id, judge, repeat, row),
                "label": result.label.value if result.error is None else None,
                "sub_criteria": json.dumps(result.sub_criteria, sort_keys=True),
                "issues": result.issues_json(),
                "remediation": result.remediation or None,
                "summary": result.summary,
                "raw_response": result.raw_response,
                "prompt_hash": result.prompt_hash,
                "tokens_in": result.tokens_in, "tokens_out": result.tokens_out,
                "cost_usd": result.cost_usd, "latency_s": result.latency_s, "error": result.error,
            })
    return out


def _keys(run_id: str, judge: Judge, repeat: int, row: dict[str, Any]) -> dict[str, Any]:
    return {"run_id": run_id, "judge": judge.name, "model": judge.model, "repeat": repeat,
            "doc_id": row["doc_id"], "criterion": row["criterion"], "page": row["page"],
            "prompt_version": judge.prompt_version, "params": json.dumps(judge.params(), sort_keys=True)}


def judge_body(io: StageIO) -> dict[str, Any]:
    judge = get_judge(io.cfg.judge)
    repeats = 1 if judge.name == "rules" else io.cfg.repeats
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in io.read("inputs", "judge_inputs"):
        by_doc[row["doc_id"]].append(row)
    items = []
    for doc_id, rows in by_doc.items():
        criterion = rows[0]["criterion"]
        if not judge.supports(criterion):
            io.error(doc_id, "unsupported", f"judge {io.cfg.judge!r} does not cover {criterion}; "
                     "choose another judge or leave this criterion out with --criteria")
            continue
        items.append((doc_id, rows))

    def work(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        return {"judgments": judge_document(io.cfg.run_id, judge, repeats, rows)}

    return io.per_key(items, work, f"judge ({io.cfg.judge})")


JUDGE = Stage(
    name="judge",
    upstream=("inputs",),
    config_keys=("judge", "repeats"),
    tables=(JUDGMENTS,),
    body=judge_body,
    code=("judges",),
    version="rules-1",
)
