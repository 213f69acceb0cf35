"""The inclusivity audit flow (questions → responses → category_judgments → audit_metrics) and its rerun."""

from __future__ import annotations

from typing import Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from flows.benchmark import _record_run
from tasks.audit import AUDIT_STAGE_LIST, AUDIT_STAGES, AuditConfig, audit_downstream_of
from tasks.context import new_run_id
from tasks.registry import ALL_TABLES
from tasks.runner import execute
from warehouse import catalog
from warehouse.store import StageRun

DONE = {"completed", "reused", "skipped"}


# Caching is ours (input hashes over artifacts), so Prefect's own result cache stays off.
@task(name="audit-stage", task_run_name="{stage_name}", cache_policy=NO_CACHE)
def run_audit_stage(cfg: AuditConfig, stage_name: str, force: bool = False) -> StageRun:
    row = execute(cfg, AUDIT_STAGES[stage_name], force=force)
    catalog.refresh(cfg.home, ALL_TABLES)
    return row


def _run_stages(cfg: AuditConfig, names: list[str], force: bool) -> list[dict[str, Any]]:
    """Run `names` (forced when asked) after any earlier audit stage that never completed."""
    cfg.judge = cfg.judge or ",".join(cfg.audit_judges)
    _record_run(cfg, "running")
    store = cfg.store
    first = min(i for i, s in enumerate(AUDIT_STAGE_LIST) if s.name in names)
    needed = {s.name for s in AUDIT_STAGE_LIST[:first]
              if (state := store.get_stage_run(cfg.run_id, s.name)) is None or state.status not in DONE}
    results = []
    try:
        for stage in AUDIT_STAGE_LIST:
            if stage.name in names or stage.name in needed:
                row = run_audit_stage(cfg, stage.name, force=force and stage.name in names)
                results.append({"stage": stage.name, "status": row.status, "rows": row.row_count,
                                "errors": row.error_count, "seconds": _seconds(row)})
    except BaseException:
        _record_run(cfg, "failed", finished=True)
        raise
    _record_run(cfg, "completed", finished=True)
    return results


def _seconds(row: StageRun) -> float | None:
    if row.status != "completed" or row.started is None or row.finished is None:
        return None
    return (row.finished - row.started).total_seconds()


@flow(name="accessbench-audit", log_prints=True)
def audit_flow(config: dict[str, Any]) -> list[dict[str, Any]]:
    """Run every audit stage of one run; stages with unchanged inputs are skipped."""
    cfg = AuditConfig.from_audit_record(config)
    if not cfg.run_id:
        cfg.run_id = new_run_id()
    return _run_stages(cfg, [s.name for s in AUDIT_STAGE_LIST], force=False)


@flow(name="accessbench-audit-rerun", log_prints=True)
def audit_rerun_flow(config: dict[str, Any], stage: str, downstream: bool = False) -> list[dict[str, Any]]:
    """Re-execute one audit stage (and optionally everything after it) from persisted upstream artifacts."""
    cfg = AuditConfig.from_audit_record(config)
    names = [s.name for s in audit_downstream_of(stage)] if downstream else [stage]
    return _run_stages(cfg, names, force=True)
