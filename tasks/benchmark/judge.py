"""Judge stage: every judge × repeat × page bundle → `judgments`, and every model call → `llm_calls`.

Several judges (e.g. the paper's five models) judge the same extracted evidence in one run. Before
any call, each LLM judge checks that its provider's credentials are in the environment; after the
calls, a judge whose share of failed pages exceeds `max_error_rate` fails the stage (its rows are
kept for inspection, and every failed page is counted wrong, never dropped).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from functools import partial
from typing import Any

import pyarrow as pa

from judges.base import Judge, JudgeSpec, is_deterministic
from judges.checkers.judge import CheckerJudge
from judges.rules.catalog import box, catalog
from tasks.benchmark.work.judge import (
    checker_document,
    judge_isolated,
    judge_unit,
)
from tasks.engine.common import content_key, good_documents
from tasks.engine.runner import Stage, StageFailed, StageIO
from tasks.engine.stage_hash import stage_keys
from warehouse.tables import (
    CHECKER_FINDINGS,
    CHECKER_RUNS,
    FINDINGS,
    JUDGED_PAGE_KEYS,
    JUDGMENTS,
    LLM_CALLS,
    REVIEW_QUEUE,
)


def review_item_id(run_id: str, doc_id: str, criterion: str, page: int) -> str:
    return "r" + hashlib.sha1(f"{run_id}\0{doc_id}\0{criterion}\0{page}".encode()).hexdigest()[:10]


def findings_rows(judgments: list[dict[str, Any]], screened: set[str]) -> list[dict[str, Any]]:
    """One `findings` row per issue of every judgment. A catalog rule's severity is the one it has where the
    document was judged: a screened file (`screened`: doc ids without an expected label) or a benchmark item."""
    rules = catalog()
    out = []
    for row in judgments:
        try:
            issues = json.loads(row.get("issues") or "[]")
        except ValueError:
            continue
        found = [issue for issue in (issues if isinstance(issues, list) else []) if isinstance(issue, dict)]
        for seq, issue in enumerate(found):
            rule = rules.get(str(issue.get("rule_id") or ""))
            out.append({k: row[k] for k in JUDGED_PAGE_KEYS}
                       | {"seq": seq, "rule_id": rule.id if rule else None,
                          "severity": rule.severity_in(row["doc_id"] in screened) if rule else "error",
                          "bbox": box(issue.get("bbox")),
                          **{k: _text(issue.get(k)) for k in ("sub_criterion", "location", "problem", "remediation")}})
    return out


def _text(value: Any) -> str | None:
    """A finding's text field as a string (a model may answer with a number or a list), None when absent."""
    return None if value is None else value if isinstance(value, str) else json.dumps(value)


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


BATCH_PAGES = 64  # pages per resumable unit when a judge runs calls concurrently


def judge_specs(cfg: Any) -> list[JudgeSpec]:
    """The run's judges, resolved once from their `--judge` text; an unknown judge, or one given twice, raises
    ValueError."""
    specs = [JudgeSpec.parse(text) for text in cfg.judges]
    if len({str(spec) for spec in specs}) < len(specs):
        raise ValueError(f"two judges of this run would be recorded alike ({cfg.judge_label}); give each "
                         "judge once")
    return specs


def check_judge_specs(cfg: Any) -> dict[str, tuple[str, ...]]:
    """Each judge's spec, options and provider credentials checked (ValueError saying what to change) without
    building it or calling a model, once per run config (`RunBase.checked_once`): judge → the criteria it covers."""
    def check() -> dict[str, tuple[str, ...]]:
        options = cfg.judge_options()
        return {str(spec): spec.check(options) for spec in judge_specs(cfg)}

    return dict(cfg.checked_once("judges", check))


def make_judges(cfg: Any) -> list[tuple[str, Judge]]:
    """Every judge of the run, built once from its spec (the stage body's); the specs were checked before the
    run (`check_judge_specs`). A spec its factory refuses raises ValueError."""
    judges = [(str(spec), spec.build(cfg.judge_options())) for spec in judge_specs(cfg)]
    keys = [(judge.name, judge.model) for _, judge in judges]
    if len(set(keys)) < len(keys):
        raise ValueError(f"two judges of this run would be recorded alike ({cfg.judge_label}); give each "
                         "judge once")
    return judges


def judge_body(io: StageIO) -> dict[str, Any]:
    cfg = io.cfg
    try:
        judges = make_judges(cfg)
    except (ValueError, ImportError) as exc:
        raise StageFailed(str(exc)) from exc
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in io.read("inputs", "judge_inputs"):
        by_doc[row["doc_id"]].append(row)
    units: list[tuple[str, tuple[Judge, list[tuple[dict[str, Any], int]]]]] = []
    documents = {d["doc_id"]: d for d in good_documents(io)}
    parts = []
    for spec, judge in judges:
        if isinstance(judge, CheckerJudge):
            # Once per document; byte-identical documents of one criterion and protocol are checked once.
            checked: list[tuple[str, dict[str, Any]]] = []
            for doc_id, rows in by_doc.items():
                if doc_id not in documents:
                    continue
                same = f"{content_key(documents[doc_id])}|{rows[0]['criterion']}|{any(r.get('withheld') for r in rows)}"
                checked.append((f"{spec}|{doc_id}", {"doc_id": doc_id, "judge": judge, "rows": rows,
                                                      "doc": documents[doc_id], "same": same}))
            parts.append(io.per_key(checked, partial(checker_document, cfg.run_id), f"judge ({spec})", isolated=True,
                                    same=lambda item: str(item["same"]), weight=lambda item: len(item["rows"]),
                                    unit="page judgments"))
            continue
        repeats = 1 if is_deterministic(judge) else cfg.repeats
        batch: list[tuple[dict[str, Any], int]] = []
        batch_docs: list[str] = []
        for doc_id, rows in by_doc.items():
            if not judge.supports(rows[0]["criterion"]):
                io.error(doc_id, "unsupported", f"judge {spec!r} does not cover {rows[0]['criterion']}; "
                         "choose another judge or leave this criterion out with --criteria")
                continue
            batch += [(row, repeat) for repeat in range(repeats) for row in rows]
            batch_docs.append(doc_id)
            # Concurrent judges get batches across documents; others resume document by document.
            if not hasattr(judge, "judge_many") or len(batch) >= BATCH_PAGES:
                units.append((f"{spec}|" + "+".join(batch_docs), (judge, batch)))
                batch, batch_docs = [], []
        if batch:
            units.append((f"{spec}|" + "+".join(batch_docs), (judge, batch)))
    # A deterministic judge is per-document work like extraction: worker processes (or the Dask
    # cluster) with the per-document time limit. Model judges stay in this process, where their
    # concurrency, rate limits and response cache are shared.
    for spec, judge in judges:
        if isinstance(judge, CheckerJudge):
            continue  # its documents are done above
        mine = [unit for unit in units if unit[1][0] is judge]
        if is_deterministic(judge):
            parts.append(io.per_key(mine, partial(judge_isolated, cfg.run_id), f"judge ({spec})", isolated=True,
                                    weight=lambda unit: len(unit[1]), unit="page judgments"))
        else:
            parts.append(io.per_key(mine, lambda unit: judge_unit(cfg.run_id, unit[0], unit[1]), f"judge ({spec})",
                                    weight=lambda unit: len(unit[1]), unit="page judgments"))
    tables = {name: pa.concat_tables([part[name] for part in parts]) for name in parts[0]} if parts else {}
    judgments = tables["judgments"].to_pylist() if tables else []
    io.failure = _error_rate_failure(judgments, [spec for spec, _ in judges], [j for _, j in judges],
                                     cfg.max_error_rate)
    screened = {d["doc_id"] for d in io.read("corpus", "documents") if d.get("expected_label") is None}
    return {**tables, "review_queue": review_queue(cfg.run_id, judgments),
            "findings": findings_rows(judgments, screened)}


def _error_rate_failure(judgments: list[dict[str, Any]], specs: list[str], judges: list[Judge],
                        limit: float) -> str | None:
    """A message when any judge's share of failed pages is above `limit`, else None."""
    problems = []
    for spec, judge in zip(specs, judges, strict=True):
        rows = [r for r in judgments if r["judge"] == judge.name and r["model"] == judge.model]
        failed = [r for r in rows if r.get("error")]
        if rows and len(failed) / len(rows) > limit:
            example = (failed[0]["error"] or "")[:300]
            problems.append(f"{spec}: {len(failed)} of {len(rows)} page judgments failed "
                            f"({len(failed) / len(rows):.0%} > --max-error-rate {limit:.0%}); first: {example}")
    if not problems:
        return None
    return ("; ".join(problems) + ". The rows are kept (accessbench sql \"select error, count(*) from judgments "
            "group by all\"); fix the cause, then accessbench rerun --run <ID> --stage judge --downstream "
            "(answered calls come from the cache)")


def check_judge(cfg: Any) -> None:
    """Bad judge specs and missing credentials stop the run before any call (out-of-range settings never make
    a RunConfig: their limits are declared in tasks.engine.options)."""
    check_judge_specs(cfg)  # no judge is built: the stage body builds each once


JUDGE = Stage(
    name="judge",
    upstream=("inputs",),
    config_keys=stage_keys("judge"),
    # --cache off (or write): fresh model calls, never another run's outputs.
    fresh=lambda cfg: getattr(cfg, "cache", "on") in ("off", "write"),
    tables=(JUDGMENTS, REVIEW_QUEUE, LLM_CALLS, FINDINGS, CHECKER_FINDINGS, CHECKER_RUNS),
    body=judge_body,
    code=("judges", "models", "common"),
    version="2",  # 2: findings carry their place (seq) and box (bbox)
    validate=check_judge,
    worker_imports=("tasks.benchmark.work.judge", "judges.rules"),  # a deterministic judge's pages, a checker's file
)
