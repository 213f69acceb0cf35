"""Responses stage: every audited model's answer to every question, per prompt variant and repeat (or imported
answers)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from judges.inclusivity.respond import ask_many, not_sent, read_responses_jsonl
from judges.inclusivity.validation import FIXTURE_MODEL, load_validation
from models.build import build_client, check_model
from tasks.audit.config import AuditConfig, audit_call_rows, cfg_of, response_id
from tasks.engine.context import RunBase
from tasks.engine.failures import Incomplete
from tasks.engine.runner import Stage, StageIO
from warehouse.tables import RESPONSE_CALLS, RESPONSES


def _responses_inputs(cfg: RunBase) -> str:
    path = getattr(cfg, "responses_path", None)
    if path:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return "" if getattr(cfg, "models", None) else "fixtures:" + json.dumps([f.__dict__ for f in load_validation()])


def fixture_gap(question_ids: list[str], source: str | None) -> str | None:
    """Why the shipped fixture responses leave `question_ids` (from `source`) without an answer, or None
    when they answer at least one of them."""
    answered = {f.question_id for f in load_validation()}
    if any(q in answered for q in question_ids):
        return None
    return (f"no --models and no --responses: the shipped hand-written fixture responses answer the shipped "
            f"questions only ({min(answered)}–{max(answered)}), and none of the {len(question_ids)} questions in "
            f"{source or 'the questions file'} is one of them. To audit these questions, ask a model "
            "(accessbench audit --questions FILE --models openai/gpt-4.1, or a local server with --api-base) or "
            "import answers run elsewhere (--responses FILE.jsonl)")


def _keys(cfg: AuditConfig, model: str, variant: str, question_id: str, repeat: int = 0) -> dict[str, Any]:
    return {"run_id": cfg.run_id, "response_id": response_id(model, variant, question_id, repeat), "model": model,
            "variant": variant, "question_id": question_id, "repeat": repeat}


def responses_body(io: StageIO) -> dict[str, Any]:
    cfg = cfg_of(io)
    questions = {row["question_id"]: row["text"] for row in io.read("questions", "questions")}
    if cfg.responses_path:
        return {"responses": _imported(io, cfg, questions)}
    if not cfg.models:
        rows = [{**_keys(cfg, FIXTURE_MODEL, f.variant, f.question_id), "text": f.text, "source": "fixture"}
                for f in load_validation() if f.variant in cfg.variants and f.question_id in questions]
        if not rows and (gap := fixture_gap(list(questions), cfg.questions_path)):
            raise ValueError(gap)
        return {"responses": rows}
    units = [(f"{model}|{variant}" + (f"|{repeat}" if repeat else ""), (model, variant, repeat))
             for model in cfg.models for variant in cfg.variants for repeat in range(cfg.repeats)]
    order = list(questions)
    model_calls = cfg.respondent_calls()
    params = model_calls.request()  # --temperature and --max-tokens, as every answer's row records them
    probed: set[str] = set()
    down: dict[str, dict[str, Any]] = {}  # model → the transient failure of its probe: the rest are not sent

    def work(unit: tuple[str, str, int]) -> dict[str, list[dict[str, Any]]] | Incomplete:
        model, variant, repeat = unit
        client = build_client(model, model_calls, cfg.home)
        prompts = [(questions[q], variant) for q in order]
        if model in down:
            answers = [not_sent(client, q, v, params, down[model]) for q, v in prompts]
        else:
            answers = ask_many(client, prompts, params, repeat, probe=model not in probed)
            probed.add(model)
            if answers and all(a.get("transient") for a in answers):
                down[model] = answers[0]
        rows, calls, errors = [], [], []
        transient = False
        for q, answer in zip(order, answers, strict=True):
            row = {**_keys(cfg, model, variant, q, repeat), **answer, "source": "model"}
            kind, retry = row.pop("kind", None), bool(row.pop("transient", False))
            calls += audit_call_rows(cfg.run_id, row.pop("calls"), judge=model, model=model,
                                     doc_id=row["response_id"], repeat=repeat, prompt_version=row["prompt_version"])
            rows.append(row)
            if row.get("error"):
                transient = transient or retry
                errors.append({"run_id": cfg.run_id, "stage": "responses", "doc_id": row["response_id"],
                               "kind": kind or str(row["error"]).split(":")[0], "retryable": retry,
                               "message": f"{model} {variant} {q}: {row['error']}"})
        tables = {"responses": rows, "llm_calls": calls, "errors": errors}
        return Incomplete(tables) if transient else tables  # a resumed run asks the failed ones again

    tables = io.per_key(units, work, "responses", unit="model × prompt variant × repeat")
    io.failure = _answer_failure(cfg, tables["responses"].to_pylist())
    return tables


def over_limit(failed: int, total: int, limit: float) -> bool:
    return total > 0 and failed / total > limit


def _answer_failure(cfg: AuditConfig, rows: list[dict[str, Any]]) -> str | None:
    """A message when any audited model's share of failed answers is above --max-error-rate, else None."""
    problems = []
    for model in cfg.models:
        mine = [r for r in rows if r["model"] == model]
        failed = [r for r in mine if r.get("error")]
        if over_limit(len(failed), len(mine), cfg.max_error_rate):
            problems.append(f"{model}: {len(failed)} of {len(mine)} answers failed ({len(failed) / len(mine):.0%} > "
                            f"--max-error-rate {cfg.max_error_rate:.0%}); first: {(failed[0]['error'] or '')[:300]}")
    if not problems:
        return None
    return ("; ".join(problems) + f". The rows are kept (accessbench sql \"select model, error from responses where "
            f"run_id = '{cfg.run_id}' and error is not null\"); fix the cause (the key, --api-base, the model id), "
            f"then: accessbench rerun --run {cfg.run_id} --stage responses --downstream (answered calls come from "
            "the cache)")


def check_models(cfg: RunBase) -> None:
    """Before any call: the audited models' provider credentials are in the environment (the same check
    `accessbench run` makes for its llm: judges). Ranges are the settings model's (tasks.engine.options)."""
    if isinstance(cfg, AuditConfig):
        for model in cfg.models:
            check_model(model, cfg.respondent_calls(), cfg.home)


def _imported(io: StageIO, cfg: AuditConfig, questions: dict[str, str]) -> list[dict[str, Any]]:
    assert cfg.responses_path is not None
    records, problems = read_responses_jsonl(cfg.responses_path)
    for problem in problems:
        io.error(None, "bad_response", f"{cfg.responses_path} {problem}")
    rows = []
    for record in records:
        if record["question_id"] not in questions:
            io.error(None, "unknown_question", f"{cfg.responses_path}: question_id {record['question_id']!r} is not "
                     "in this run's questions; pass the matching --questions file")
        elif record["variant"] in cfg.variants:
            rows.append({**_keys(cfg, record["model"], record["variant"], record["question_id"]),
                         "text": record["text"], "source": "import"})
    return rows


RESPONSES_STAGE = Stage(
    name="responses", upstream=("questions",),
    config_keys=("models", "variants", "responses_path", "api_base", "temperature", "max_tokens", "repeats",
                 "max_error_rate"),
    tables=(RESPONSES, RESPONSE_CALLS), body=responses_body, external_inputs=_responses_inputs,
    code=("judges.inclusivity", "models"), validate=check_models,
)
