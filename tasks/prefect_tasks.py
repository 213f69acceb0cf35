"""Prefect tasks: a thin wrapper around `tasks.engine.runner.execute`, one task run per stage of either study."""

from __future__ import annotations

from prefect import task
from prefect.cache_policies import NO_CACHE

from tasks.audit.registry import AUDIT
from tasks.benchmark.registry import BENCHMARK
from tasks.engine.context import RunBase
from tasks.engine.fanout import DaskFanOut, current_fanout
from tasks.engine.pipeline import Pipeline
from tasks.engine.runner import execute
from warehouse.store import StageRun

PIPELINES: dict[str, Pipeline] = {pipeline.name: pipeline for pipeline in (BENCHMARK, AUDIT)}


# Caching is ours (input hashes over artifacts), so Prefect's own result cache stays off.
@task(name="stage", task_run_name="{stage_name}", cache_policy=NO_CACHE)
def run_stage(pipeline: str, cfg: RunBase, stage_name: str, force: bool = False) -> StageRun:
    """One stage of the `pipeline` study's run, whose config the pipeline checked before the first stage."""
    fanout = current_fanout()
    if isinstance(fanout, DaskFanOut):
        fanout.stage = stage_name  # names its batch task runs
    return execute(cfg, PIPELINES[pipeline].stage(stage_name), force=force, fanout=fanout, check=False)
