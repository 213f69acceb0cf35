"""Prefect tasks: thin wrappers around `tasks.runner.execute`, one per stage."""

from __future__ import annotations

from prefect import task

from tasks.context import RunConfig
from tasks.registry import ALL_TABLES, STAGES
from tasks.runner import execute
from warehouse import catalog
from warehouse.store import StageRun


@task(name="stage", task_run_name="{stage_name}", retries=0, cache_policy=None)
def run_stage(cfg: RunConfig, stage_name: str, force: bool = False) -> StageRun:
    row = execute(cfg, STAGES[stage_name], force=force)
    catalog.refresh(cfg.home, ALL_TABLES)
    return row
