"""The judge stage's work in a worker: a deterministic judge (the rules judge) on a batch of pages, a checker judge
on one document. Imports no pyarrow (issue 56): the rows leave the worker as plain columns."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from judges.base import Judge, PageJudgment
from judges.checkers import CheckerRun
from judges.checkers.judge import MESSAGE_LIMIT, CheckerJudge
from judges.evidence import PageBundle
from tasks.engine.documents import document_files
from tasks.engine.failures import Incomplete, classify


def call_id(run_id: str, judge: str, model: str | None, doc_id: str, criterion: str, page: int, repeat: int,
            attempt: int) -> str:
    key = "\0".join(str(p) for p in (run_id, judge, model, doc_id, criterion, page, repeat, attempt))
    return "c" + hashlib.sha1(key.encode()).hexdigest()[:12]


def judge_unit(run_id: str, judge: Judge, items: list[tuple[dict[str, Any], int]]
               ) -> dict[str, list[dict[str, Any]]] | Incomplete:
    """`judge_rows`, as Incomplete when a page failed transiently (throttled, timed out): the rows are
    kept and counted, and a resumed run judges the unit again (answered calls come from the cache)."""
    rows, transient = _judge(run_id, judge, items)
    return Incomplete(rows) if transient else rows


def judge_isolated(run_id: str, unit: tuple[Judge, list[tuple[dict[str, Any], int]]]
                   ) -> dict[str, list[dict[str, Any]]] | Incomplete:
    """`judge_unit` of one (judge, pages) unit, as a picklable function for worker processes."""
    return judge_unit(run_id, unit[0], unit[1])


def judge_rows(run_id: str, judge: Judge, items: list[tuple[dict[str, Any], int]]) -> dict[str, list[dict[str, Any]]]:
    """Judge (judge_inputs row, repeat) pairs; concurrently when the judge offers `judge_many`.

    Returns `judgments` rows and the `llm_calls` rows behind them.
    """
    return _judge(run_id, judge, items)[0]


def _judge(run_id: str, judge: Judge, items: list[tuple[dict[str, Any], int]],
           checker_run: CheckerRun | None = None) -> tuple[dict[str, list[dict[str, Any]]], bool]:
    bundles = [(PageBundle(row["criterion"], row["page"], json.loads(row["evidence"]), row.get("image_path"),
                           doc_ref=row["doc_id"], checker_run=checker_run), repeat)
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
    out: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    transient = False
    for (row, repeat), result in zip(items, results, strict=True):
        keys = _keys(run_id, judge, repeat, row)
        if isinstance(result, Exception):
            transient = transient or classify(result).transient
            out.append({**keys, "error": f"{type(result).__name__}: {result}"})
            continue
        transient = transient or (result.error is not None and result.transient)
        for record in result.calls:
            calls.append({**record, "run_id": run_id, "judge": judge.name, "model": judge.model,
                          "doc_id": row["doc_id"], "criterion": row["criterion"], "page": row["page"],
                          "repeat": repeat, "prompt_version": judge.prompt_version,
                          "call_id": call_id(run_id, judge.name, judge.model, row["doc_id"], row["criterion"],
                                             row["page"], repeat, record["attempt"])})
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
            "cost_usd": result.cost_usd, "latency_s": result.latency_s,
            "normalised": json.dumps(sorted(result.normalised)) if result.normalised else None,
            "error": result.error,
        })
    return {"judgments": out, "llm_calls": calls}, transient


def _keys(run_id: str, judge: Judge, repeat: int, row: dict[str, Any]) -> dict[str, Any]:
    return {"run_id": run_id, "judge": judge.name, "model": judge.model, "repeat": repeat,
            "doc_id": row["doc_id"], "criterion": row["criterion"], "page": row["page"],
            "prompt_version": judge.prompt_version, "params": json.dumps(judge.params(), sort_keys=True)}


def checker_document(run_id: str, item: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """A checker judge on one document: the checker runs once on its files (copies under neutral names, so
    nothing of the path reaches the checker or the rows), then labels each page. The protocol: for a Cannot
    Tell item whose ★ evidence the checker reads, the checker is not run and the pages are Cannot Tell."""
    judge: CheckerJudge = item["judge"]
    rows, doc = item["rows"], item["doc"]
    criterion = rows[0]["criterion"]
    keys = {"run_id": run_id, "judge": judge.name, "model": judge.model, "doc_id": doc["doc_id"]}
    state = {**keys, "criterion": criterion, "checker": judge.checker.name, "version": judge.version}
    if any(row.get("withheld") for row in rows) and judge.needs(criterion):
        withheld = sorted({name for row in rows for name in row.get("withheld") or []})
        judged, _ = _judge(run_id, judge, [(row, 0) for row in rows], None)
        return {**judged, "checker_findings": [], "checker_runs": [{
            **state, "ran": False, "files": 0, "findings": 0, "failing": 0,
            "reason": f"the protocol withholds {', '.join(withheld)} (a Cannot Tell item)"}]}
    import pikepdf  # here, in the worker that runs the checker: the run's own process never opens a PDF

    paths = document_files(doc, verify=True)
    with tempfile.TemporaryDirectory(prefix="accessbench-checker-") as folder:
        files, offset = [], 0
        for index, path in enumerate(paths, start=1):
            copy = Path(folder) / f"document-{index}.pdf"
            shutil.copyfile(path, copy)
            files.append((str(copy), offset))
            try:
                with pikepdf.open(copy) as pdf:
                    offset += len(pdf.pages)
            except pikepdf.PdfError:
                pass  # the checker says what it makes of the file; its pages count from the last offset
        run = _scrubbed(judge.run(files), folder)
    judged, _ = _judge(run_id, judge, [(row, 0) for row in rows], run)
    findings = []
    for finding in run.findings:
        target = judge.mapping.target(finding.rule)
        findings.append({**keys, "rule_id": finding.rule, "severity": finding.severity, "page": finding.page,
                         "location": finding.location or None, "message": finding.message[:MESSAGE_LIMIT],
                         "count": finding.count, "criterion": target.criterion if target else None,
                         "sub_criterion": target.sub_criterion if target else None,
                         "fails": finding.severity in judge.mapping.fail})
    failing = sum(1 for f in findings if f["fails"] and f["criterion"] == criterion)
    return {**judged, "checker_findings": findings, "checker_runs": [{
        **state, "ran": True, "error": run.error, "files": len(paths), "seconds": run.seconds,
        "findings": len(findings), "failing": failing}]}


def _scrubbed(run: CheckerRun, folder: str) -> CheckerRun:
    """The run without the temporary folder's path in any message or location."""
    def clean(text: str) -> str:
        return text.replace(folder + os.sep, "").replace(folder, "")

    run.findings = [replace(f, message=clean(f.message), location=clean(f.location)) for f in run.findings]
    run.error = clean(run.error) if run.error else run.error
    return run
