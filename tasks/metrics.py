"""Metrics stage: snapshot this run's accuracy tables and refresh the DuckDB catalog."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from tasks.runner import ERRORS_SCHEMA, Stage, StageIO
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
    from tasks.registry import ALL_TABLES

    con = catalog.connect(io.cfg.home, ALL_TABLES)
    try:
        result = con.execute(SNAPSHOT, {"run": io.cfg.run_id})
        names = [d[0] for d in result.description]
        rows = [dict(zip(names, values, strict=True)) for values in result.fetchall()]
    finally:
        con.close()
    return {"run_metrics": rows}


METRICS = Stage(
    name="metrics",
    upstream=("corpus", "aggregate"),
    config_keys=(),
    tables=(RUN_METRICS,),
    body=metrics_body,
)

__all__ = ["ERRORS_SCHEMA", "METRICS", "RUN_METRICS"]
