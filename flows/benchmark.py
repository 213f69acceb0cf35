"""The benchmark flow (corpus → … → metrics) and the flow that re-runs one stage."""

from __future__ import annotations

import logging
import re
from typing import Any

from prefect import flow

from tasks.context import RunConfig, new_run_id
from tasks.prefect_tasks import run_stage
from tasks.registry import STAGE_LIST, downstream_of, upstream_closure
from warehouse.store import now


def _record_run(cfg: RunConfig, status: str, finished: bool = False) -> None:
    store = cfg.store
    existing = store.get_run(cfg.run_id) or {}
    store.record_run({
        "run_id": cfg.run_id,
        "created": existing.get("created") or now(),
        "source": cfg.source,
        "source_path": cfg.source_path,
        "criteria": cfg.criteria,
        "judge": cfg.judge_label,
        "config": store.config_json({k: v for k, v in cfg.to_record().items() if k != "progress"}),
        "status": status,
        "finished": now() if finished else None,
    })


def _run_stages(cfg: RunConfig, names: list[str], force: bool) -> list[dict[str, Any]]:
    """Run `names` (forced when asked) after any upstream stage they need that never completed.

    Upstream stages that completed are used as persisted, even if their code changed since:
    a rerun works from the artifacts that exist.
    """
    _record_run(cfg, "running")
    store = cfg.store
    needed = {
        name for name in upstream_closure(names)
        if (state := store.get_stage_run(cfg.run_id, name)) is None
        or state.status not in {"completed", "reused", "skipped"}
    }
    plan = [(s.name, force and s.name in names) for s in STAGE_LIST if s.name in names or s.name in needed]
    results = []
    try:
        for name, forced in plan:
            row = run_stage(cfg, name, force=forced)
            results.append({"stage": name, "status": row.status, "rows": row.row_count, "errors": row.error_count})
    except BaseException:
        _record_run(cfg, "failed", finished=True)
        raise
    _record_run(cfg, "completed", finished=True)
    if "aggregate" in names:
        publish_summary(cfg)
    return results


def publish_summary(cfg: RunConfig) -> str | None:
    """The run's summary as a Prefect markdown artifact, shown beside the flow run in the Prefect UI."""
    from prefect.artifacts import create_markdown_artifact

    from flows.report_data import collect
    from flows.report_md import summary_markdown

    markdown = f"## AccessBench run {cfg.run_id}\n\n" + summary_markdown(collect(cfg.home, [cfg.run_id]))
    key = re.sub(r"[^a-z0-9-]+", "-", f"accessbench-{cfg.run_id}".lower())
    try:
        create_markdown_artifact(markdown=markdown, key=key, description=f"AccessBench summary of run {cfg.run_id}")
    except Exception as exc:  # noqa: BLE001 - the results are in the warehouse; the UI copy is a convenience
        logging.getLogger(__name__).warning("could not publish the Prefect artifact for run %s: %s", cfg.run_id, exc)
        return None
    return key


@flow(name="accessbench-benchmark", log_prints=True)
def benchmark_flow(config: dict[str, Any]) -> list[dict[str, Any]]:
    """Run every stage of one benchmark run; stages with unchanged inputs are skipped.

    An empty run id (as a scheduled deployment passes) starts a new run each time.
    """
    cfg = RunConfig.from_record(config)
    if not cfg.run_id:
        cfg.run_id = new_run_id()
    return _run_stages(cfg, [stage.name for stage in STAGE_LIST], force=False)


@flow(name="accessbench-rerun", log_prints=True)
def rerun_flow(config: dict[str, Any], stage: str, downstream: bool = False) -> list[dict[str, Any]]:
    """Re-execute one stage (and optionally everything after it) from persisted upstream artifacts."""
    cfg = RunConfig.from_record(config)
    names = [s.name for s in downstream_of(stage)] if downstream else [stage]
    return _run_stages(cfg, names, force=True)
