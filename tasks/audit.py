"""The inclusivity audit's stages: questions → responses → category_judgments → audit_metrics.

Same machinery as the PDF benchmark (`tasks.runner`): each stage is skipped when its inputs are
unchanged, resumes from per-unit parts after a kill, and turns bad input or a failed call into
error rows. This module knows nothing about Prefect; `flows.audit` runs the stages as tasks.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
from pydantic import ConfigDict, model_validator

from judges.inclusivity.base import (
    CATEGORY_JUDGES,
    CategoryJudge,
    JudgeItem,
    ResponseJudgment,
    get_category_judge,
)
from judges.inclusivity.prompts import VARIANTS, response_messages
from judges.inclusivity.questions import load_questions, questions_digest
from judges.inclusivity.respond import ask_many, not_sent, read_responses_jsonl
from judges.inclusivity.text import without_prompt_echo
from judges.inclusivity.validation import FIXTURE_MODEL, load_validation
from models.build import build_client, check_model
from models.client import CredentialsMissing
from tasks.context import RunBase
from tasks.failures import Incomplete
from tasks.judge import LLM_CALLS_SCHEMA, call_id
from tasks.options import AuditSettings
from tasks.pipeline import Pipeline
from tasks.runner import Stage, StageIO
from tasks.stage_order import AUDIT_STAGE_NAMES, in_order
from tasks.tables import tables_of
from warehouse import catalog
from warehouse.catalog import TableSpec

JUDGE_BATCH = 64  # responses per resumable unit of the judgments stage


class AuditConfig(AuditSettings, RunBase):
    """A run of the audit: its settings (declared once, in `tasks.options.AuditSettings`) plus what every run
    has (`RunBase`: home, run id, source); none of the benchmark's settings."""

    model_config = ConfigDict(extra="ignore", arbitrary_types_allowed=True)

    source: str = "audit"
    judge: str = ""  # recorded in `runs`: the audit's judges, comma-separated

    @model_validator(mode="after")
    def _judge_label(self) -> AuditConfig:
        self.judge = self.judge or ",".join(self.audit_judges)
        return self

    @classmethod
    def from_audit_record(cls, record: dict[str, Any], **overrides: Any) -> AuditConfig:
        cfg = cls.from_record(record, **overrides)
        assert isinstance(cfg, AuditConfig)
        return cfg

    @property
    def judge_label(self) -> str:
        """The audit's category judges, for `runs` (not the PDF study's judges, which it has none of)."""
        return ", ".join(self.audit_judges)

    def judge_options(self) -> dict[str, Any]:
        """Options for `judges.inclusivity.base.get_category_judge`: the data home and how llm: judges call their
        models (`AuditSettings.judge_calls`, resolved once); never API keys."""
        return {"home": self.home, "calls": self.judge_calls()}


def _cfg(io: StageIO) -> AuditConfig:
    if not isinstance(io.cfg, AuditConfig):
        raise TypeError("the audit stages need an AuditConfig")
    return io.cfg


def response_id(model: str, variant: str, question_id: str, repeat: int = 0) -> str:
    key = f"{model}\0{variant}\0{question_id}" + (f"\0{repeat}" if repeat else "")
    return "a" + hashlib.sha1(key.encode()).hexdigest()[:12]


def audit_call_rows(run_id: str, records: list[dict[str, Any]], *, judge: str, model: str | None, doc_id: str,
                    repeat: int, prompt_version: str) -> list[dict[str, Any]]:
    """`llm_calls` rows of the audit: an audited model's answer (doc_id: its response) or a category judge's call."""
    return [{**record, "run_id": run_id, "judge": judge, "model": model, "doc_id": doc_id, "criterion": None,
             "page": None, "repeat": repeat, "prompt_version": prompt_version,
             "call_id": call_id(run_id, judge, model, doc_id, record.get("purpose") or "", 0, repeat,
                                record["attempt"])}
            for record in records]


# -- questions --------------------------------------------------------------------------------------

QUESTIONS_SCHEMA = pa.schema([
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("question_id", pa.string(), nullable=False),
    pa.field("theme", pa.string()),
    pa.field("text", pa.string(), nullable=False),
    pa.field("note", pa.string()),
])
QUESTIONS = TableSpec("questions", "questions", QUESTIONS_SCHEMA)


def questions_body(io: StageIO) -> dict[str, Any]:
    cfg = _cfg(io)
    questions, problems = load_questions(cfg.questions_path)
    for problem in problems:
        io.error(None, "bad_question", problem)
    if cfg.question_limit is not None:
        questions = questions[: cfg.question_limit]
    if not questions:
        raise ValueError(f"no usable question in {cfg.questions_path or 'the shipped set'}; see the error rows")
    return {"questions": [{"run_id": cfg.run_id, **q.__dict__} for q in questions]}


QUESTIONS_STAGE = Stage(
    name="questions", upstream=(), config_keys=("questions_path", "question_limit"), tables=(QUESTIONS,),
    body=questions_body,
    external_inputs=lambda cfg: questions_digest(getattr(cfg, "questions_path", None)),
)

# -- responses --------------------------------------------------------------------------------------

RESPONSES_SCHEMA = pa.schema([
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("response_id", pa.string(), nullable=False),
    pa.field("model", pa.string(), nullable=False),
    pa.field("variant", pa.string(), nullable=False),
    pa.field("question_id", pa.string(), nullable=False),
    pa.field("repeat", pa.int32()),  # 0.. --repeats - 1 (answers sampled again at the same temperature)
    pa.field("text", pa.string()),
    pa.field("source", pa.string(), nullable=False),  # model | import | fixture (hand-written, not model output)
    pa.field("prompt_version", pa.string()),
    pa.field("prompt_hash", pa.string()),
    pa.field("params", pa.string()),  # JSON of the parameters actually sent
    pa.field("tokens_in", pa.int64()),
    pa.field("tokens_out", pa.int64()),
    pa.field("cost_usd", pa.float64()),
    pa.field("latency_s", pa.float64()),
    pa.field("cached", pa.bool_()),
    pa.field("error", pa.string()),
])
RESPONSES = TableSpec("responses", "responses", RESPONSES_SCHEMA)
RESPONSE_CALLS = TableSpec("llm_calls", "responses", LLM_CALLS_SCHEMA)  # every audited model's call


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
    cfg = _cfg(io)
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


def _over(failed: int, total: int, limit: float) -> bool:
    return total > 0 and failed / total > limit


def _answer_failure(cfg: AuditConfig, rows: list[dict[str, Any]]) -> str | None:
    """A message when any audited model's share of failed answers is above --max-error-rate, else None."""
    problems = []
    for model in cfg.models:
        mine = [r for r in rows if r["model"] == model]
        failed = [r for r in mine if r.get("error")]
        if _over(len(failed), len(mine), cfg.max_error_rate):
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
    `accessbench run` makes for its llm: judges). Ranges are the settings model's (tasks.options)."""
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

# -- category judgments -----------------------------------------------------------------------------

JUDGMENTS_SCHEMA = pa.schema([
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("response_id", pa.string(), nullable=False),
    pa.field("question_id", pa.string(), nullable=False),
    pa.field("model", pa.string(), nullable=False),  # the model that wrote the response
    pa.field("variant", pa.string(), nullable=False),
    pa.field("judge", pa.string(), nullable=False),  # lexicon | embedding | llm:<model>
    pa.field("judge_model", pa.string()),
    pa.field("category", pa.string(), nullable=False),
    pa.field("covered", pa.bool_()),  # null: voided (error, or snippet not found)
    pa.field("depth", pa.int32()),
    pa.field("snippet", pa.string()),
    pa.field("flags", pa.string()),  # JSON, e.g. {"snippet_not_found": true}
    pa.field("prompt_version", pa.string()),
    pa.field("prompt_hash", pa.string()),
    pa.field("params", pa.string()),
    # One call judges all nine categories: its reply and accounting sit on the call's first row only.
    pa.field("raw_response", pa.string()),
    pa.field("tokens_in", pa.int64()),
    pa.field("tokens_out", pa.int64()),
    pa.field("cost_usd", pa.float64()),
    pa.field("latency_s", pa.float64()),
    pa.field("error", pa.string()),
])
CATEGORY_JUDGMENTS = TableSpec("category_judgments", "category_judgments", JUDGMENTS_SCHEMA)
JUDGE_CALLS = TableSpec("llm_calls", "category_judgments", LLM_CALLS_SCHEMA)  # every LLM category judge's call


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
    cfg = _cfg(io)
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
        if _over(len(failed), responses, cfg.max_error_rate):
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

# -- metrics ----------------------------------------------------------------------------------------

AUDIT_RUN_METRICS_SCHEMA = pa.schema([
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("metric", pa.string(), nullable=False),  # qlcs | dlcs | depth_at_k | prompt_delta | coverage_kappa | …
    pa.field("judge", pa.string()),
    pa.field("judge_b", pa.string()),  # the second judge of an agreement row
    pa.field("model", pa.string()),
    pa.field("variant", pa.string()),
    pa.field("category", pa.string()),
    pa.field("k", pa.int32()),
    pa.field("value", pa.float64()),
    pa.field("n", pa.int64()),
])
AUDIT_RUN_METRICS = TableSpec("audit_run_metrics", "audit_metrics", AUDIT_RUN_METRICS_SCHEMA)

SNAPSHOT = """
SELECT run_id, 'qlcs' AS metric, judge, NULL AS judge_b, model, variant, NULL AS category, NULL AS k,
       qlcs AS value, responses AS n FROM qlcs WHERE run_id = $run
UNION ALL
SELECT run_id, 'dlcs', judge, NULL, model, variant, category, NULL, dlcs, responses FROM dlcs WHERE run_id = $run
UNION ALL
SELECT run_id, 'depth_at_k', judge, NULL, model, variant, category, k, share, responses
FROM depth_at_k WHERE run_id = $run
UNION ALL
SELECT run_id, 'prompt_delta', judge, NULL, model, NULL, NULL, NULL, delta, pairs
FROM prompt_effect WHERE run_id = $run
UNION ALL
SELECT run_id, 'coverage_kappa', judge_a, judge_b, NULL, NULL, NULL, NULL, coverage_kappa, n
FROM judge_agreement WHERE run_id = $run
UNION ALL
SELECT run_id, 'depth_kappa', judge_a, judge_b, NULL, NULL, NULL, NULL, depth_kappa, n
FROM judge_agreement WHERE run_id = $run
"""


def audit_metrics_body(io: StageIO) -> dict[str, Any]:
    # the audit's metric views read its own stages' tables only (warehouse.audit_metrics.AUDIT_METRIC_INPUTS)
    rows = catalog.rows(io.cfg.home, tables_of(AUDIT_STAGE_LIST), SNAPSHOT, {"run": io.cfg.run_id})
    return {"audit_run_metrics": rows}


AUDIT_METRICS_STAGE = Stage(
    name="audit_metrics", upstream=("category_judgments",), config_keys=(), tables=(AUDIT_RUN_METRICS,),
    body=audit_metrics_body,
)

AUDIT_STAGE_LIST: tuple[Stage, ...] = in_order(AUDIT_STAGE_NAMES, (QUESTIONS_STAGE, RESPONSES_STAGE, JUDGMENTS_STAGE,
                                                                  AUDIT_METRICS_STAGE))
AUDIT_STAGES: dict[str, Stage] = {stage.name: stage for stage in AUDIT_STAGE_LIST}
AUDIT = Pipeline("audit", AuditConfig, AUDIT_STAGE_LIST)  # its order, reruns and resumes: tasks.pipeline
