"""The benchmark's stages in order (`BENCHMARK`, the pipeline they make); their tables are declared in
`warehouse.tables`."""

from __future__ import annotations

from tasks.benchmark.aggregate import AGGREGATE
from tasks.benchmark.corpus import CORPUS
from tasks.benchmark.extract import EXTRACT
from tasks.benchmark.inputs import INPUTS
from tasks.benchmark.judge import JUDGE
from tasks.benchmark.layout import LAYOUT
from tasks.benchmark.metrics import METRICS
from tasks.benchmark.render import RENDER
from tasks.benchmark.transcript import TRANSCRIPT
from tasks.engine.context import RunConfig
from tasks.engine.pipeline import Pipeline
from tasks.engine.runner import Stage
from warehouse.tables import BENCHMARK_STAGE_NAMES, in_order

STAGE_LIST: tuple[Stage, ...] = in_order(BENCHMARK_STAGE_NAMES, (CORPUS, RENDER, LAYOUT, EXTRACT, TRANSCRIPT,
                                                                   INPUTS, JUDGE, AGGREGATE, METRICS))
STAGES: dict[str, Stage] = {stage.name: stage for stage in STAGE_LIST}
BENCHMARK = Pipeline("benchmark", RunConfig, STAGE_LIST)  # its order, reruns and resumes: tasks.engine.pipeline
