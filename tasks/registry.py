"""The benchmark's stages in order, and every table they write (the catalog's contract)."""

from __future__ import annotations

from corpus.sampling import SAMPLES_SCHEMA
from corpus.screening import SCREENING_SCHEMA
from tasks.aggregate import AGGREGATE
from tasks.audit import AUDIT_STAGE_LIST
from tasks.common import with_run_id
from tasks.context import RunConfig
from tasks.corpus import CORPUS
from tasks.extract import EXTRACT
from tasks.fix_schema import FIXES_TABLE
from tasks.inputs import INPUTS
from tasks.judge import JUDGE
from tasks.layout import LAYOUT
from tasks.metrics import METRICS
from tasks.pipeline import Pipeline
from tasks.render import RENDER
from tasks.runner import Stage
from tasks.stage_order import BENCHMARK_STAGE_NAMES, in_order
from tasks.tables import stage_tables, tables_of
from tasks.transcript import TRANSCRIPT
from warehouse.catalog import TableSpec
from warehouse.review import RESOLUTIONS_PATTERN, RESOLUTIONS_SCHEMA

STAGE_LIST: tuple[Stage, ...] = in_order(BENCHMARK_STAGE_NAMES, (CORPUS, RENDER, LAYOUT, EXTRACT, TRANSCRIPT,
                                                                   INPUTS, JUDGE, AGGREGATE, METRICS))
STAGES: dict[str, Stage] = {stage.name: stage for stage in STAGE_LIST}
BENCHMARK = Pipeline("benchmark", RunConfig, STAGE_LIST)  # its order, reruns and resumes: tasks.pipeline

# Every stage's tables, the shared ones (errors, llm_calls: tasks.tables), and the tables written outside the stages
ALL_TABLES: tuple[TableSpec, ...] = (
    *tables_of(STAGE_LIST),
    TableSpec("review_resolutions", "review", RESOLUTIONS_SCHEMA, pattern=RESOLUTIONS_PATTERN),
    TableSpec("sample_screening", "sample", with_run_id(SCREENING_SCHEMA)),
    TableSpec("samples", "sample", with_run_id(SAMPLES_SCHEMA)),
    *stage_tables(AUDIT_STAGE_LIST),  # the inclusivity audit's stages, run by flows.audit
    FIXES_TABLE,  # accessbench fix: what each remedy did, per re-judge run (tasks.fix)
)
