"""Audit metrics stage: snapshot the run's coverage, balance, depth and judge-agreement views into
`audit_run_metrics`."""

from __future__ import annotations

from typing import Any

from tasks.engine.runner import Stage, StageIO
from warehouse import catalog
from warehouse.tables import AUDIT_RUN_METRICS, tables_of

SNAPSHOT = """
SELECT run_id, 'qlcs' AS metric, judge, NULL AS judge_b, model, variant, NULL AS category, NULL AS k,
       qlcs AS value, responses AS n FROM qlcs WHERE run_id = $run
UNION ALL
SELECT run_id, 'dlcs', judge, NULL, model, variant, category, NULL, dlcs, responses FROM dlcs WHERE run_id = $run
UNION ALL
SELECT run_id, 'depth_at_k', judge, NULL, model, variant, category, k, share, responses
FROM depth_at_k WHERE run_id = $run
UNION ALL
SELECT run_id, 'prompt_delta', judge, NULL, model, NULL, NULL, NULL, delta, pairs
FROM prompt_effect WHERE run_id = $run
UNION ALL
SELECT run_id, 'coverage_kappa', judge_a, judge_b, NULL, NULL, NULL, NULL, coverage_kappa, n
FROM judge_agreement WHERE run_id = $run
UNION ALL
SELECT run_id, 'depth_kappa', judge_a, judge_b, NULL, NULL, NULL, NULL, depth_kappa, n
FROM judge_agreement WHERE run_id = $run
"""


def audit_metrics_body(io: StageIO) -> dict[str, Any]:
    # the audit's metric views read its own stages' tables only (warehouse.audit_metrics.AUDIT_METRIC_INPUTS)
    upstream = tables_of(("questions", "responses", "category_judgments"))
    rows = catalog.rows(io.cfg.home, upstream, SNAPSHOT, {"run": io.cfg.run_id})
    return {"audit_run_metrics": rows}


AUDIT_METRICS_STAGE = Stage(
    name="audit_metrics", upstream=("category_judgments",), config_keys=(), tables=(AUDIT_RUN_METRICS,),
    body=audit_metrics_body,
)
