"""Metrics stage: snapshot this run's accuracy tables and refresh the DuckDB catalog."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from judges.labels import Label
from judges.remediation_quality import score_judgment
from tasks.engine.runner import Stage, StageIO
from warehouse import catalog
from warehouse.tables import ERRORS_SCHEMA, JUDGED_PAGE_KEYS, REMEDIATION_SCORES, RUN_METRICS, tables_of

SNAPSHOT = """
SELECT a.run_id, a.judge, a.model, a.criterion, NULL AS expected_label, a.n, a.accuracy, a.accuracy_sd,
       p.macro_f1
FROM accuracy_by_criterion a LEFT JOIN prf_by_criterion p USING (run_id, judge, model, criterion)
WHERE a.run_id = $run
UNION ALL
SELECT run_id, judge, model, criterion, expected_label, n, accuracy, accuracy_sd, NULL
FROM accuracy_by_label WHERE run_id = $run
ORDER BY ALL
"""


def metrics_body(io: StageIO) -> dict[str, Any]:
    # the metric views read the upstream stages' tables only (warehouse.metrics.METRIC_INPUTS)
    rows = catalog.rows(io.cfg.home, tables_of(("corpus", "judge", "aggregate")), SNAPSHOT, {"run": io.cfg.run_id})
    findings: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for f in io.read("judge", "findings"):
        findings[tuple(f[k] for k in JUDGED_PAGE_KEYS)].append(f)
    scores = [
        {"run_id": io.cfg.run_id, "judge": j["judge"], "model": j["model"], "repeat": j["repeat"],
         "doc_id": j["doc_id"], "criterion": j["criterion"], "page": j["page"],
         **score_judgment(findings.get(tuple(j[k] for k in JUDGED_PAGE_KEYS), []), j["remediation"])}
        for j in io.read("judge", "judgments") if j["label"] == Label.FAILED
    ]
    return {"run_metrics": rows, "remediation_scores": scores}


METRICS = Stage(
    name="metrics",
    upstream=("corpus", "judge", "aggregate"),
    config_keys=(),
    tables=(RUN_METRICS, REMEDIATION_SCORES),
    body=metrics_body,
    code=("judges", "common"),  # the remediation rubric lives in judges.remediation_quality
)

__all__ = ["ERRORS_SCHEMA", "METRICS", "REMEDIATION_SCORES", "RUN_METRICS"]
