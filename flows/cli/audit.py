"""`accessbench audit`: the disability-inclusivity audit from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

FIXTURE_NOTE = (
    "note: no --models and no --responses: this run judged the shipped hand-written fixture responses "
    "(model 'fixture/hand-written', written for AccessBench's validation set, not model output).\n"
    "To audit a model: accessbench audit --models openai/gpt-4.1 (keys from the provider's environment "
    "variable), or a local server: accessbench audit --models hosted_vllm/Qwen/Qwen2.5-7B-Instruct "
    "--api-base http://localhost:8000/v1; responses run elsewhere: --responses FILE.jsonl"
)


def add_parser(sub: Any) -> None:
    from flows.cli.options import add_options
    from tasks.engine.options import AuditOptions

    audit = sub.add_parser("audit", help="disability-inclusivity audit: which disabilities do model answers cover?")
    add_options(audit, AuditOptions)


def run_audit(home: Path, args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from flows.cli.console import EXIT_NOT_FOUND
    from flows.cli.console import error as _error
    from flows.cli.options import describe_errors, given
    from models.client import CredentialsMissing
    from tasks.audit.category_judgments import category_judge_problems
    from tasks.audit.config import AuditConfig
    from tasks.engine.context import new_run_id
    from tasks.engine.options import AuditOptions
    from warehouse.store import ArtifactStore

    run_id = getattr(args, "run_id", None)  # options the user did not give are absent (the model has defaults)
    existing = ArtifactStore(home).get_run(run_id) if run_id else None
    if existing is not None:
        if existing.get("source") != "audit":
            return _error(f"run {run_id!r} is a benchmark run, not an audit; choose another --run-id")
        cfg = AuditConfig.from_audit_record(json.loads(existing["config"]), home=home, progress=True)
        if problem := _before_any_call(cfg):
            return _error(problem)
        print(f"resuming audit run {cfg.run_id} with its recorded settings", file=sys.stderr)
        return _run(home, args, cfg)
    try:  # every range and choice, as declared once in tasks.engine.options
        options = AuditOptions.model_validate(given(args, AuditOptions))
    except ValidationError as exc:
        return _error(describe_errors(exc, AuditOptions))
    for path, what in ((options.questions_path, "--questions"), (options.responses_path, "--responses")):
        if path and not Path(path).is_file():
            return _error(f"{what} {path} is not a file", EXIT_NOT_FOUND)
    if options.uses_local_model():  # a missing server stops here, before a run of error rows
        from models.local import LocalModelError, endpoint

        try:
            endpoint(home)
        except LocalModelError as exc:
            return _error(str(exc))
    settings = options.settings()
    for key in ("questions_path", "responses_path"):
        settings[key] = str(Path(settings[key]).resolve()) if settings[key] else None
    cfg = AuditConfig(home=home, run_id=options.run_id or new_run_id(), **settings)
    # Fail early on a misspelt judge (no judge is built: the embedding model loads in the stage); missing
    # credentials are the stage checks' to report (_before_any_call).
    for refused in category_judge_problems(cfg).values():
        if refused is not None and not isinstance(refused, CredentialsMissing):
            return _error(str(refused))
    if problem := _before_any_call(cfg):
        return _error(problem)
    what = ", ".join(cfg.models) if cfg.models else (f"responses from {cfg.responses_path}" if cfg.responses_path
                                                      else "the shipped fixture responses")
    print(f"audit run {cfg.run_id}: {what}; variants: {', '.join(cfg.variants)}; judges: {', '.join(cfg.audit_judges)};"
          f" data home: {home}", file=sys.stderr)
    return _run(home, args, cfg)


def _before_any_call(cfg: Any) -> str | None:
    """What stops this audit before any model is called, or None: each stage's own config check (missing
    provider credentials of the audited models and llm: judges, as `accessbench run` checks its judges), and
    a questions file that neither a model nor imported answers will answer."""
    from judges.inclusivity.questions import load_questions
    from judges.inclusivity.validation import load_validation
    from tasks.audit.registry import AUDIT
    from tasks.audit.responses import fixture_gap
    from tasks.engine.runner import ConfigError

    try:
        AUDIT.check(cfg)
    except ConfigError as exc:
        return f"cannot start the audit: {exc}"
    if not cfg.models and not cfg.responses_path and cfg.questions_path:
        questions, _ = load_questions(cfg.questions_path)
        ids = [q.question_id for q in questions[: cfg.question_limit]]
        if ids and (gap := fixture_gap(ids, cfg.questions_path)):
            return gap
        answered = {f.question_id for f in load_validation()}
        if missing := [q for q in ids if q not in answered]:
            print(f"note: the shipped fixture responses answer {len(ids) - len(missing)} of the {len(ids)} questions "
                  f"in {cfg.questions_path}; {len(missing)} ({', '.join(missing[:5])}"
                  f"{', …' if len(missing) > 5 else ''}) get no response and are not in the metrics. To audit "
                  "them, ask a model (--models MODEL) or import answers (--responses FILE.jsonl)", file=sys.stderr)
    return None


def rerun_audit(home: Path, args: argparse.Namespace, run: dict[str, Any]) -> int:
    """`accessbench rerun --run ID --stage STAGE [--downstream]` for an audit run."""
    from flows.cli.console import error as _error
    from tasks.audit.config import AuditConfig
    from tasks.audit.registry import AUDIT_STAGES

    if args.stage not in AUDIT_STAGES:
        return _error(f"unknown audit stage {args.stage!r}; stages: {', '.join(AUDIT_STAGES)}")
    cfg = AuditConfig.from_audit_record(json.loads(run["config"]), home=home)
    return _run(home, args, cfg, stage=args.stage, downstream=args.downstream)


def _run(home: Path, args: argparse.Namespace, cfg: Any, stage: str | None = None, downstream: bool = False) -> int:
    from flows.cli.console import EXIT_FAILED, EXIT_OK
    from flows.cli.console import error as _error
    from flows.cli.console import prepare_prefect as _prepare_prefect
    from flows.cli.console import print_stage_results as _print_stage_results
    from warehouse.store import check_run_free

    check_run_free(home, cfg.run_id)  # a run another process is running: refused before Prefect starts
    _prepare_prefect(home, args.verbose)
    from flows.audit import audit_flow, audit_flow_parameters, audit_rerun_flow
    from flows.report.audit import render_audit_report
    from tasks.engine.runner import StageFailed

    try:
        results = (audit_rerun_flow(run_id=cfg.run_id, stage=stage, downstream=downstream, home=str(home),
                                    progress=cfg.progress) if stage else audit_flow(**audit_flow_parameters(cfg)))
    except StageFailed as exc:
        return _error(f"{exc}\nsee: accessbench runs; fix the cause, then: accessbench rerun --run {cfg.run_id} "
                      "--stage <stage> --downstream", EXIT_FAILED)
    _print_stage_results(results)
    seconds = sum(r["seconds"] or 0 for r in results)
    errors = sum(r["errors"] or 0 for r in results)
    print(f"audit run {cfg.run_id} finished in {seconds:.1f} s of stage time"
          + (f" with {errors} error rows (accessbench sql \"select * from errors where run_id='{cfg.run_id}'\")"
             if errors else ""), file=sys.stderr)
    print(render_audit_report(home, cfg.run_id, brief=True))
    if not cfg.models and not cfg.responses_path:
        print(FIXTURE_NOTE, file=sys.stderr)
    return EXIT_OK
