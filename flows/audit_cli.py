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
    from judges.inclusivity.base import DEFAULT_JUDGES
    from judges.inclusivity.prompts import VARIANTS

    audit = sub.add_parser("audit", help="disability-inclusivity audit: which disabilities do model answers cover?")
    audit.add_argument("--models", nargs="+", metavar="MODEL",
                       help="litellm model ids to answer the questions (e.g. openai/gpt-4.1 ollama/llama3.1)")
    audit.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS),
                       help="base question, and/or the accessibility-aware system prompt (default: both)")
    audit.add_argument("--judges", nargs="+", default=list(DEFAULT_JUDGES), metavar="JUDGE",
                       help="lexicon | embedding | llm:<litellm model id> (default: lexicon embedding)")
    audit.add_argument("--questions", help="questions file (JSON list or JSONL: question_id, text, theme, note)")
    audit.add_argument("--responses", help="JSONL of responses run elsewhere: model, variant, question_id, text")
    audit.add_argument("--api-base", help="OpenAI-compatible endpoint (vLLM, Ollama, a proxy) of the audited models")
    audit.add_argument("--judge-api-base", help="OpenAI-compatible endpoint of the llm: judges (default: the "
                                                "provider named in the judge's model id)")
    audit.add_argument("--concurrency", type=int, default=None,
                       help="concurrent calls per model (default 8; 1 for the local model)")
    audit.add_argument("--timeout", type=float, default=None,
                       help="seconds per model call (default 60; 600 for the local model)")
    audit.add_argument("--temperature", type=float, default=0.1,
                       help="sampling temperature of the audited models (default 0.1, the study's)")
    audit.add_argument("--max-tokens", type=int, default=512,
                       help="answer length limit of the audited models (default 512, the study's)")
    audit.add_argument("--repeats", type=int, default=1,
                       help="answers per model, variant and question (default 1); metrics pool them")
    audit.add_argument("--limit", type=int, metavar="N", help="only the first N questions (to try a model quickly)")
    audit.add_argument("--max-error-rate", type=float, default=None,
                       help="fail the responses stage when more than this share of a model's answers fail, and the "
                            "judgments stage when an llm: judge cannot judge more than this share of the responses "
                            "(default 0.2; 0.5 for the local model)")
    audit.add_argument("--run-id", help="name the run; an existing run id resumes that run "
                                        "(re-run a stage with: accessbench rerun --run ID --stage STAGE)")


def run_audit(home: Path, args: argparse.Namespace) -> int:
    from flows.console import EXIT_NOT_FOUND
    from flows.console import error as _error
    from judges.model.client import CredentialsMissing
    from tasks.audit import AuditConfig, category_judge_problems
    from tasks.context import new_run_id
    from warehouse.store import ArtifactStore

    existing = ArtifactStore(home).get_run(args.run_id) if args.run_id else None
    if existing is not None:
        if existing.get("source") != "audit":
            return _error(f"run {args.run_id!r} is a benchmark run, not an audit; choose another --run-id")
        cfg = AuditConfig.from_audit_record(json.loads(existing["config"]), home=home, progress=True)
        if problem := _before_any_call(cfg):
            return _error(problem)
        print(f"resuming audit run {cfg.run_id} with its recorded settings", file=sys.stderr)
        return _run(home, args, cfg)
    for path, what in ((args.questions, "--questions"), (args.responses, "--responses")):
        if path and not Path(path).is_file():
            return _error(f"{what} {path} is not a file", EXIT_NOT_FOUND)
    if args.models and args.responses:
        return _error("pass --models (ask models now) or --responses (import answers), not both")
    local = any(m == "local" or m.startswith("local/") for m in [*(args.models or []),
                                                                 *(j.partition(":")[2] for j in args.judges)])
    if local:  # a missing server stops here, before a run of error rows
        from judges.model.local import LocalModelError, endpoint

        try:
            endpoint(home)
        except LocalModelError as exc:
            return _error(str(exc))
    args.concurrency = args.concurrency or (1 if local else 8)
    args.timeout = args.timeout or (600.0 if local else 60.0)
    if args.max_error_rate is None:  # as `accessbench run`: a small local model misreads more
        args.max_error_rate = 0.5 if local else 0.2
    if args.concurrency < 1 or args.timeout <= 0:
        return _error("--concurrency must be ≥ 1 and --timeout > 0")
    if not 0 <= args.max_error_rate <= 1:
        return _error("--max-error-rate is a share between 0 and 1")
    if args.repeats < 1 or args.max_tokens < 1 or not 0 <= args.temperature <= 2 or (
            args.limit is not None and args.limit < 1):
        return _error("--repeats, --max-tokens and --limit must be ≥ 1, --temperature within 0–2")
    cfg = AuditConfig(home=home, run_id=args.run_id or new_run_id(), judge=",".join(args.judges),
                      models=list(args.models or []), variants=list(args.variants), audit_judges=list(args.judges),
                      questions_path=str(Path(args.questions).resolve()) if args.questions else None,
                      responses_path=str(Path(args.responses).resolve()) if args.responses else None,
                      api_base=args.api_base, judge_api_base=args.judge_api_base, concurrency=args.concurrency,
                      timeout_s=args.timeout, temperature=args.temperature, max_tokens=args.max_tokens,
                      repeats=args.repeats, question_limit=args.limit, max_error_rate=args.max_error_rate)
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
    from tasks.audit import AUDIT, fixture_gap
    from tasks.runner import ConfigError

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
    from flows.console import error as _error
    from tasks.audit import AUDIT_STAGES, AuditConfig

    if args.stage not in AUDIT_STAGES:
        return _error(f"unknown audit stage {args.stage!r}; stages: {', '.join(AUDIT_STAGES)}")
    cfg = AuditConfig.from_audit_record(json.loads(run["config"]), home=home)
    return _run(home, args, cfg, stage=args.stage, downstream=args.downstream)


def _run(home: Path, args: argparse.Namespace, cfg: Any, stage: str | None = None, downstream: bool = False) -> int:
    from flows.console import EXIT_FAILED, EXIT_OK
    from flows.console import error as _error
    from flows.console import prepare_prefect as _prepare_prefect
    from flows.console import print_stage_results as _print_stage_results
    from warehouse.store import check_run_free

    check_run_free(home, cfg.run_id)  # a run another process is running: refused before Prefect starts
    _prepare_prefect(home, args.verbose)
    from flows.audit import audit_flow, audit_flow_parameters, audit_rerun_flow
    from flows.audit_report import render_audit_report
    from tasks.runner import StageFailed

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
