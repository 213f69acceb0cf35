"""Category judgments stage: every category judge's coverage and depth of the nine disability categories, per
response."""

from __future__ import annotations

import json
from typing import Any

from judges.inclusivity.base import (
    CATEGORY_JUDGES,
    CategoryJudge,
    JudgeItem,
    ResponseJudgment,
    get_category_judge,
)
from judges.inclusivity.prompts import VARIANTS, response_messages
from judges.inclusivity.text import without_prompt_echo
from models.client import CredentialsMissing
from tasks.audit.config import AuditConfig, audit_call_rows, cfg_of
from tasks.audit.responses import over_limit
from tasks.engine.context import RunBase
from tasks.engine.failures import Incomplete
from tasks.engine.runner import Stage, StageIO
from warehouse.tables import CATEGORY_JUDGMENTS, JUDGE_CALLS

JUDGE_BATCH = 64  # responses per resumable unit of the judgments stage


def judgment_rows(run_id: str, judge: CategoryJudge, response: dict[str, Any],
                  result: ResponseJudgment) -> list[dict[str, Any]]:
    keys = {"run_id": run_id, "response_id": response["response_id"], "question_id": response["question_id"],
            "model": response["model"], "variant": response["variant"], "judge": judge.name,
            "judge_model": judge.model, "prompt_version": judge.prompt_version,
            "params": json.dumps(judge.params(), sort_keys=True), "prompt_hash": result.prompt_hash}
    call = {"raw_response": result.raw_response, "tokens_in": result.tokens_in, "tokens_out": result.tokens_out,
            "cost_usd": result.cost_usd, "latency_s": result.latency_s}
    rows = []
    for index, v in enumerate(result.verdicts):
        rows.append({**keys, **(call if index == 0 else {}), "category": v.category, "covered": v.covered,
                     "depth": v.depth, "snippet": v.snippet, "error": v.error,
                     "flags": json.dumps(v.flags, sort_keys=True) if v.flags else None})
    return rows


def _judge_item(question: str, response: dict[str, Any]) -> tuple[JudgeItem, int]:
    """What the judges read: the response without what it copied from its prompt (and how much that was)."""
    prompts = [m["content"] for m in response_messages(question, response["variant"])] \
        if response["variant"] in VARIANTS else [question]
    text, echoed = without_prompt_echo(response["text"], prompts)
    return JudgeItem(question, text), echoed


def judgments_body(io: StageIO) -> dict[str, Any]:
    cfg = cfg_of(io)
    questions = {row["question_id"]: row["text"] for row in io.read("questions", "questions")}
    responses = [r for r in io.read("responses", "responses") if not r.get("error") and (r.get("text") or "").strip()]
    judges: dict[str, CategoryJudge] = {}
    unavailable = []
    for spec in cfg.audit_judges:
        try:
            judges[spec] = get_category_judge(spec, cfg.judge_options())
        except (ValueError, ImportError) as exc:
            io.error(None, "judge_unavailable", f"judge {spec!r}: {exc}")
            unavailable.append(f"{spec}: {exc}")
    if responses and not judges:
        raise ValueError(f"no category judge could be used ({'; '.join(unavailable)}); fix --judges")
    units = [(f"{spec}|{batch[0]['response_id']}+{len(batch)}", (spec, batch))
             for spec in judges
             for batch in (responses[i:i + JUDGE_BATCH] for i in range(0, len(responses), JUDGE_BATCH))]
    probed: set[str] = set()
    down: dict[str, ResponseJudgment] = {}  # LLM judge → the transient failure of its probe

    def judged(spec: str, judge: CategoryJudge, items: list[JudgeItem]) -> list[ResponseJudgment]:
        """The judge's results; an LLM judge's first call goes alone, and when it fails transiently (the
        endpoint is down) the other responses are not sent."""
        if getattr(judge, "client", None) is None or not items:
            return judge.judge_many(items)
        if spec in down:
            return [_not_sent(judge, down[spec]) for _ in items]
        first: list[ResponseJudgment] = []
        if spec not in probed:
            probed.add(spec)
            first = judge.judge_many(items[:1])
            if first[0].transient:
                down[spec] = first[0]
                return first + [_not_sent(judge, first[0]) for _ in items[1:]]
            items = items[1:]
        return first + (judge.judge_many(items) if items else [])

    def work(unit: tuple[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]] | Incomplete:
        spec, batch = unit
        judge = judges[spec]
        items = [_judge_item(questions.get(r["question_id"], ""), r) for r in batch]
        results = judged(spec, judge, [item for item, _ in items])
        for (_, echoed), result in zip(items, results, strict=True):
            if echoed:  # sentences copied from the prompt were not judged: say so on every verdict
                for v in result.verdicts:
                    v.flags = {**v.flags, "prompt_echo_removed": True}
        calls = [call for r, result in zip(batch, results, strict=True)
                 for call in audit_call_rows(cfg.run_id, result.calls, judge=judge.name, model=judge.model,
                                             doc_id=r["response_id"], repeat=0, prompt_version=judge.prompt_version)]
        # One error row per response a judge could not judge at all (not one per category).
        errors = [{"run_id": cfg.run_id, "stage": "category_judgments", "doc_id": r["response_id"],
                   "kind": result.error_kind, "retryable": result.transient,
                   "message": f"{spec} on {r['model']} {r['variant']} {r['question_id']}: {result.verdicts[0].error}"}
                  for r, result in zip(batch, results, strict=True) if result.error_kind]
        tables = {"category_judgments": [row for r, result in zip(batch, results, strict=True)
                                         for row in judgment_rows(cfg.run_id, judge, r, result)],
                  "llm_calls": calls, "errors": errors}
        return Incomplete(tables) if any(e["retryable"] for e in errors) else tables

    tables = io.per_key(units, work, "category judgments", weight=lambda unit: len(unit[1]), unit="responses")
    io.failure = _judgment_failure(cfg, list(judges), tables["category_judgments"].to_pylist(), len(responses))
    return tables


def _not_sent(judge: CategoryJudge, cause: ResponseJudgment) -> ResponseJudgment:
    kind = cause.error_kind or "connection"
    reason = (cause.verdicts[0].error or "").removeprefix("model_call: ")
    return ResponseJudgment.failed(f"model_call: not sent, as the first call to {judge.model} failed: {reason}",
                                   kind=kind, transient=True)


def _judgment_failure(cfg: AuditConfig, specs: list[str], rows: list[dict[str, Any]], responses: int) -> str | None:
    """A message when any judge could not judge more than --max-error-rate of the responses, else None."""
    problems = []
    for spec in specs:
        verdicts: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            if row["judge"] == spec:
                verdicts.setdefault(row["response_id"], []).append(row)
        failed = [v for v in verdicts.values() if all(r.get("error") for r in v)]
        if over_limit(len(failed), responses, cfg.max_error_rate):
            problems.append(f"{spec}: {len(failed)} of {responses} responses could not be judged "
                            f"({len(failed) / responses:.0%} > --max-error-rate {cfg.max_error_rate:.0%}); first: "
                            f"{(failed[0][0]['error'] or '')[:300]}")
    if not problems:
        return None
    return ("; ".join(problems) + f". The rows are kept (accessbench sql \"select judge, error, count(*) from "
            f"category_judgments where run_id = '{cfg.run_id}' group by all\"); fix the cause (the key, "
            f"--judge-api-base, the judge model), then: accessbench rerun --run {cfg.run_id} --stage "
            "category_judgments --downstream (answered calls come from the cache)")


def category_judge_problems(cfg: AuditConfig) -> dict[str, Exception | None]:
    """Each category judge's spec checked as its factory would take it (name, argument, and an llm: judge's
    provider credentials), without building it or calling a model, once per run config: spec → its problem or
    None."""
    options = cfg.judge_options()

    def check() -> dict[str, Exception | None]:
        problems: dict[str, Exception | None] = {}
        for spec in cfg.audit_judges:
            try:
                CATEGORY_JUDGES.check(spec, options)
                problems[spec] = None
            except (ValueError, ImportError) as exc:
                problems[spec] = exc
        return problems
    return cfg.checked_once("category judges", check)


def check_judges(cfg: RunBase) -> None:
    """Before any call: each llm: judge's provider credentials are in the environment. A judge that cannot be
    built is left to the stage (an error row), as is the embedding judge's model (it loads there)."""
    if not isinstance(cfg, AuditConfig):
        return
    for spec, problem in category_judge_problems(cfg).items():
        if isinstance(problem, CredentialsMissing):
            raise ValueError(f"category judge {spec}: {problem}") from problem


JUDGMENTS_STAGE = Stage(
    name="category_judgments", upstream=("questions", "responses"),
    config_keys=("audit_judges", "judge_api_base", "max_error_rate"),
    tables=(CATEGORY_JUDGMENTS, JUDGE_CALLS), body=judgments_body, code=("judges.inclusivity", "models"),
    validate=check_judges,
)
