"""Metrics stage: snapshot this run's accuracy tables and refresh the DuckDB catalog."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pyarrow as pa

from judges.labels import Label
from judges.remediation_quality import score_judgment
from tasks.aggregate import AGGREGATE
from tasks.corpus import CORPUS
from tasks.judge import JUDGE, JUDGED_PAGE_KEYS
from tasks.runner import ERRORS_SCHEMA, Stage, StageIO
from tasks.tables import tables_of
from warehouse import catalog
from warehouse.catalog import TableSpec

RUN_METRICS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("judge", pa.string()),
        pa.field("model", pa.string()),
        pa.field("criterion", pa.string()),
        pa.field("expected_label", pa.string()),  # null = all labels of the criterion
        pa.field("n", pa.int64()),
        pa.field("accuracy", pa.float64()),
        pa.field("accuracy_sd", pa.float64()),
        pa.field("macro_f1", pa.float64()),
    ]
)
RUN_METRICS = TableSpec("run_metrics", "metrics", RUN_METRICS_SCHEMA)

# One row per Failed judgment: the paper's remediation rubric (judges.remediation_quality).
REMEDIATION_SCORES_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("judge", pa.string(), nullable=False),
        pa.field("model", pa.string()),
        pa.field("repeat", pa.int32(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("issues", pa.int32(), nullable=False),  # issues scored (0: the remediation text alone)
        pa.field("specificity", pa.float64(), nullable=False),  # share of issues naming a page and an element
        pa.field("actionability", pa.float64(), nullable=False),  # share naming a tag, attribute or value
        pa.field("technical_validity", pa.float64()),  # share of checkable issues whose references exist
        pa.field("score", pa.float64(), nullable=False),  # mean of the three (validity None = 0)
        pa.field("named", pa.list_(pa.string())),  # structure types, attributes, WCAG SCs, PDF/UA clauses named
        pa.field("invalid", pa.list_(pa.string())),  # those that do not exist
    ]
)
REMEDIATION_SCORES = TableSpec("remediation_scores", "metrics", REMEDIATION_SCORES_SCHEMA)

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
    rows = catalog.rows(io.cfg.home, tables_of((CORPUS, JUDGE, AGGREGATE)), SNAPSHOT, {"run": io.cfg.run_id})
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
