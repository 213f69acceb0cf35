"""Prefect tasks: thin wrappers around `tasks.runner.execute`, one per stage."""

from __future__ import annotations

from prefect import task
from prefect.cache_policies import NO_CACHE

from tasks.context import RunConfig
from tasks.fanout import DaskFanOut, current_fanout
from tasks.registry import STAGES
from tasks.runner import execute
from warehouse.store import StageRun


# Caching is ours (input hashes over artifacts), so Prefect's own result cache stays off.
@task(name="stage", task_run_name="{stage_name}", cache_policy=NO_CACHE)
def run_stage(cfg: RunConfig, stage_name: str, force: bool = False) -> StageRun:
    fanout = current_fanout()
    if isinstance(fanout, DaskFanOut):
        fanout.stage = stage_name  # names its batch task runs
    return execute(cfg, STAGES[stage_name], force=force, fanout=fanout)
