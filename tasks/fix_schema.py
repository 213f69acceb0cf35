"""The table `accessbench fix` writes (tasks/fix.py), declared apart so the table registry (tasks/registry.py)
can list it without importing the fix machinery, which itself runs the pipeline through the registry."""

from __future__ import annotations

import pyarrow as pa

from warehouse.catalog import TableSpec

FIX_STAGE = "fix"
FIXES_SCHEMA = pa.schema([
    pa.field("run_id", pa.string(), nullable=False),  # the re-judge run
    pa.field("original_run_id", pa.string(), nullable=False),  # the run whose findings were repaired
    pa.field("original_file", pa.string(), nullable=False),
    pa.field("fixed_file", pa.string(), nullable=False),
    pa.field("remedy", pa.string(), nullable=False),
    pa.field("rule_ids", pa.list_(pa.string()), nullable=False),  # the findings it answered
    pa.field("changes", pa.list_(pa.string()), nullable=False),
    pa.field("left", pa.string()),  # why the finding stays, when the remedy could not clear it
    pa.field("drafts", pa.list_(pa.string())),  # changes for a person to review (a derived title, model drafts)
    pa.field("refused", pa.string()),  # "kind: why" for a file left as it is (remedy "", nothing written)
])
# <home>/artifacts/fix/run=<re-judge run>/fixes.parquet: `accessbench sql "select * from fixes"`
FIXES_TABLE = TableSpec("fixes", FIX_STAGE, FIXES_SCHEMA)
