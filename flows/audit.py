"""The inclusivity audit flow (questions → responses → category_judgments → audit_metrics) and its rerun."""

from __future__ import annotations

import json
from typing import Annotated, Any

from prefect import flow
from pydantic import Field

from flows.benchmark import data_home, name_this_flow_run, resolve_path, run_name_from_parameters
from judges.inclusivity.base import DEFAULT_JUDGES
from judges.inclusivity.prompts import VARIANTS
from tasks.audit import AUDIT, AUDIT_STAGES, AuditConfig
from tasks.context import new_run_id
from tasks.prefect_tasks import run_stage
from tasks.registry import ALL_TABLES
from warehouse import catalog


def _run_stages(cfg: AuditConfig, names: list[str], force: bool) -> list[dict[str, Any]]:
    """`names` of the audit run `cfg` (forced when asked), through the one pipeline driver."""
    results = AUDIT.run(cfg, names, force=force, run_stage=run_stage)
    catalog.refresh(cfg.home, ALL_TABLES)  # once a run, not after each stage (see flows/benchmark.py)
    return results


Variant = Annotated[str, Field(json_schema_extra={"enum": list(VARIANTS)})]
Variants = Annotated[list[Variant] | None, Field(
    description="base question and/or the accessibility-aware system prompt (default: both)")]
AuditStageName = Annotated[str, Field(description="the audit stage to re-execute",
                                      json_schema_extra={"enum": list(AUDIT_STAGES)})]


@flow(name="accessbench-audit", flow_run_name=run_name_from_parameters, log_prints=True)
def audit_flow(
    models: list[str] | None = None,
    variants: Variants = None,
    judges: list[str] | None = None,
    questions: str | None = None,
    responses: str | None = None,
    api_base: str | None = None,
    judge_api_base: str | None = None,
    concurrency: int = 8,
    timeout_s: float = 60.0,
    run_id: str = "",
    home: str | None = None,
    progress: bool = False,
    temperature: float = 0.1,
    max_tokens: int = 512,
    repeats: int = 1,
    limit: int | None = None,
    max_error_rate: float = 0.2,
) -> list[dict[str, Any]]:
    """Run every audit stage of one run; stages with unchanged inputs are skipped.

    models: litellm ids to answer the questions; none: the responses file, else the shipped fixture responses.
    judges: lexicon | embedding | llm:<litellm model id>. An empty run id starts a new run.
    temperature, max_tokens: the audited models' sampling (the study's protocol: 0.1 and 512 tokens);
    repeats: answers per model, variant and question; limit: only the first N questions.
    max_error_rate: the share of a model's answers (or of the responses an llm: judge could not judge) above
    which its stage fails, as the benchmark's judge stage does.
    """
    if repeats < 1 or max_tokens < 1 or not 0 <= temperature <= 2 or (limit is not None and limit < 1):
        raise ValueError("repeats and max_tokens must be ≥ 1, temperature within 0–2, limit ≥ 1")
    if models and responses:
        raise ValueError("pass models (ask models now) or responses (import answers), not both")
    unknown = sorted(set(variants or []) - set(VARIANTS))
    if unknown:
        raise ValueError(f"unknown variants {', '.join(unknown)}; variants: {', '.join(VARIANTS)}")
    audit_judges = list(judges or DEFAULT_JUDGES)
    cfg = AuditConfig(home=data_home(home), run_id=run_id or new_run_id(), judge=",".join(audit_judges),
                      models=list(models or []), variants=list(variants or VARIANTS), audit_judges=audit_judges,
                      questions_path=resolve_path(questions, "questions"),
                      responses_path=resolve_path(responses, "responses"), api_base=api_base,
                      judge_api_base=judge_api_base, concurrency=concurrency, timeout_s=timeout_s, progress=progress,
                      temperature=temperature, max_tokens=max_tokens, repeats=repeats, question_limit=limit,
                      max_error_rate=max_error_rate)
    name_this_flow_run(cfg.run_id)
    return _run_stages(cfg, AUDIT.names, force=False)


def audit_flow_parameters(cfg: AuditConfig) -> dict[str, Any]:
    """The audit flow's parameters for a run configured by the CLI (or recorded by an earlier run)."""
    return {"models": cfg.models, "variants": cfg.variants, "judges": cfg.audit_judges,
            "questions": cfg.questions_path, "responses": cfg.responses_path, "api_base": cfg.api_base,
            "judge_api_base": cfg.judge_api_base, "concurrency": cfg.concurrency, "timeout_s": cfg.timeout_s,
            "run_id": cfg.run_id, "home": str(cfg.home), "progress": cfg.progress, "temperature": cfg.temperature,
            "max_tokens": cfg.max_tokens, "repeats": cfg.repeats, "limit": cfg.question_limit,
            "max_error_rate": cfg.max_error_rate}


@flow(name="accessbench-audit-rerun", flow_run_name=run_name_from_parameters, log_prints=True)
def audit_rerun_flow(run_id: str, stage: AuditStageName, downstream: bool = False, home: str | None = None,
                     progress: bool = False) -> list[dict[str, Any]]:
    """Re-execute one audit stage (and optionally everything after it) from persisted upstream artifacts."""
    from warehouse.store import ArtifactStore

    root = data_home(home)
    run = ArtifactStore(root).get_run(run_id)
    if run is None or run.get("source") != "audit":
        raise ValueError(f"no audit run {run_id!r} in {root}")
    cfg = AuditConfig.from_audit_record(json.loads(run["config"]), home=root, progress=progress)
    names = [s.name for s in AUDIT.downstream_of(stage)] if downstream else [stage]
    return _run_stages(cfg, names, force=True)
