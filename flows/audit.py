"""The inclusivity audit flow (questions → responses → category_judgments → audit_metrics) and its rerun."""

from __future__ import annotations

import json
from typing import Annotated, Any

from prefect import flow
from pydantic import Field

from flows.benchmark import data_home, name_this_flow_run, resolve_path, run_name_from_parameters
from flows.deployment_guard import check_run
from tasks.audit.config import AuditConfig
from tasks.audit.registry import AUDIT, AUDIT_STAGES
from tasks.engine.context import new_run_id
from tasks.engine.options import AuditOptions, AuditSettings, settings_of
from tasks.prefect_tasks import run_stage
from warehouse import catalog
from warehouse.tables import ALL_TABLES


def _run_stages(cfg: AuditConfig, names: list[str], force: bool) -> list[dict[str, Any]]:
    """`names` of the audit run `cfg` (forced when asked), through the one pipeline driver."""
    results = AUDIT.run(cfg, names, force=force, run_stage=run_stage)
    catalog.refresh(cfg.home, ALL_TABLES)  # once a run, not after each stage (see flows/benchmark.py)
    return results


AuditStageName = Annotated[str, Field(description="the audit stage to re-execute",
                                      json_schema_extra={"enum": list(AUDIT_STAGES)})]


@flow(name="accessbench-audit", flow_run_name=run_name_from_parameters, log_prints=True)
def audit_flow(options: AuditOptions | None = None, progress: bool = False) -> list[dict[str, Any]]:
    """Run every audit stage of one run; stages with unchanged inputs are skipped.

    options: the audit's options, declared once in `tasks.engine.options.AuditOptions` (the CLI's `accessbench audit`
    options are generated from the same model). models: litellm ids to answer the questions; none: the
    responses file, else the shipped fixture responses. An empty run id starts a new run.
    """
    options = options or AuditOptions()
    check_run({"options": options})  # a deployment's run may not redirect data or keys (flows/deployment_guard.py)
    settings = options.settings()
    settings.update(questions_path=resolve_path(options.questions_path, "questions"),
                    responses_path=resolve_path(options.responses_path, "responses"))
    cfg = AuditConfig(home=data_home(options.home), run_id=options.run_id or new_run_id(), progress=progress,
                      **settings)
    name_this_flow_run(cfg.run_id)
    return _run_stages(cfg, AUDIT.names, force=False)


def audit_flow_parameters(cfg: AuditConfig) -> dict[str, Any]:
    """The audit flow's parameters for a run configured by the CLI (or recorded by an earlier run)."""
    options = {**settings_of(cfg.to_record(), AuditSettings), "run_id": cfg.run_id, "home": str(cfg.home)}
    return {"options": AuditOptions.model_validate(options), "progress": cfg.progress}


@flow(name="accessbench-audit-rerun", flow_run_name=run_name_from_parameters, log_prints=True)
def audit_rerun_flow(run_id: str, stage: AuditStageName, downstream: bool = False, home: str | None = None,
                     progress: bool = False) -> list[dict[str, Any]]:
    """Re-execute one audit stage (and optionally everything after it) from persisted upstream artifacts."""
    from warehouse.store import ArtifactStore

    check_run({"home": home})
    root = data_home(home)
    run = ArtifactStore(root).get_run(run_id)
    if run is None or run.get("source") != "audit":
        raise ValueError(f"no audit run {run_id!r} in {root}")
    cfg = AuditConfig.from_audit_record(json.loads(run["config"]), home=root, progress=progress)
    names = [s.name for s in AUDIT.downstream_of(stage)] if downstream else [stage]
    return _run_stages(cfg, names, force=True)
