"""Model responses to the audit's questions, through the one model client; and JSONL imports."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from common.redact import redact, redact_exact
from judges.inclusivity.prompts import PROMPT_VERSION, VARIANTS, prompt_hash, response_messages
from models.calllog import CallLog
from models.client import ModelCallError, ModelClient

MAX_RESPONSE_CHARS = 20_000  # imported texts are bounded like model replies (512 tokens is ~2,500 chars)
# The model client's advice on a call that kept failing names the PDF study's stage; the audit's is its own.
_CLIENT_STAGE_ADVICE = ("rerun the judge stage later (answered pages are cached)", "the judge stage later")


def call_error(exc: ModelCallError, stage: str) -> tuple[str, str, bool]:
    """(error kind, message, transient) of a failed model call in audit stage `stage`.

    Transient failures get the kinds `tasks.engine.failures` retries on resume: `rate_limit` (HTTP 429),
    `timeout`, or `connection` (a refused or lost connection, a 5xx); terminal ones are `model_call`.
    The message's advice names `stage`.
    """
    message = str(exc)
    message = message.replace(_CLIENT_STAGE_ADVICE[0], f"rerun the {stage} stage later (answered calls are cached)")
    message = message.replace(_CLIENT_STAGE_ADVICE[1], f"the {stage} stage later")
    if not exc.transient:
        return "model_call", message, False
    if exc.status == 429:
        return "rate_limit", message, True
    if message.split(" ", 1)[0].endswith("Timeout") or "timed out" in message.casefold():
        return "timeout", message, True
    return "connection", message, True


def ask(client: ModelClient, question: str, variant: str, params: dict[str, Any] | None = None,
        repeat: int = 0) -> dict[str, Any]:
    """One zero-shot response: its text and accounting, or an error (never an exception).

    The row's `calls` holds the call log's record of it (`llm_calls`: what was sent and answered); a
    failed call's row has `kind` and `transient` (see `call_error`) beside its `error`.
    """
    request = client.config.request() if params is None else dict(params)  # the audit's --temperature, --max-tokens
    messages = response_messages(question, variant)
    log = CallLog(study="audit", purpose="answer")
    row: dict[str, Any] = {"prompt_version": PROMPT_VERSION, "prompt_hash": prompt_hash(messages),
                           "params": json.dumps(client.describe_params(request), sort_keys=True), "calls": log.records}
    try:
        reply = log.complete(client, messages, request, repeat)
    except ModelCallError as exc:
        kind, message, transient = call_error(exc, "responses")
        if log.records:  # the call log says what the error row says
            log.records[-1]["error"] = redact(message)
        return {**row, "error": f"{kind}: {message}", "kind": kind, "transient": transient}
    except Exception as exc:  # noqa: BLE001 - one bad call is an error row, not a lost batch
        return {**row, "error": redact(f"internal: {type(exc).__name__}: {exc}"), "kind": "internal",
                "transient": False}
    text = redact_exact(client.config.bounded(reply.text)) or ""  # kept as every stored reply: ModelConfig's limit
    error = None if text.strip() else "empty_response: the model returned no text"
    if error:
        log.records[-1]["parse_error"] = error
    return {**row, "text": text, "tokens_in": reply.tokens_in, "tokens_out": reply.tokens_out,
            "cost_usd": reply.cost_usd, "latency_s": reply.latency_s, "cached": reply.cached, "error": error}


def not_sent(client: ModelClient, question: str, variant: str, params: dict[str, Any] | None,
             cause: dict[str, Any]) -> dict[str, Any]:
    """The row of a question not sent to a model whose earlier call failed transiently (`cause`, a failed
    `ask` row): an error as transient as its cause, so a resumed run asks it again."""
    request = client.config.request() if params is None else dict(params)
    kind = str(cause.get("kind") or "connection")
    reason = str(cause.get("error") or "").removeprefix(f"{kind}: ")
    return {"prompt_version": PROMPT_VERSION, "prompt_hash": prompt_hash(response_messages(question, variant)),
            "params": json.dumps(client.describe_params(request), sort_keys=True), "calls": [],
            "error": f"{kind}: not sent, as the first call to {client.model} failed: {reason}", "kind": kind,
            "transient": True}


def ask_many(client: ModelClient, prompts: list[tuple[str, str]], params: dict[str, Any] | None = None,
             repeat: int = 0, *, probe: bool = False) -> list[dict[str, Any]]:
    """`ask` over (question, variant) pairs, concurrently up to the client's limit; same order.

    `probe`: ask the first question alone; when that call fails transiently (a refused connection, a
    timeout, throttling that outlasted the retries), the others are not sent (`not_sent`) — an endpoint
    that is down fails once, after one call's bounded retries, not once per question.
    """
    if not prompts:
        return []
    first: list[dict[str, Any]] = []
    if probe:
        first = [ask(client, prompts[0][0], prompts[0][1], params, repeat)]
        if first[0].get("transient"):
            return first + [not_sent(client, q, v, params, first[0]) for q, v in prompts[1:]]
        prompts = prompts[1:]
        if not prompts:
            return first
    with ThreadPoolExecutor(max_workers=min(client.concurrency, len(prompts)), thread_name_prefix="audit") as pool:
        return first + list(pool.map(lambda p: ask(client, p[0], p[1], params, repeat), prompts))


def read_responses_jsonl(path: str | Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Responses run elsewhere: one JSON object a line with model, variant, question_id, text.

    Returns (records, problems); a line that cannot be used is a problem, the others are kept.
    """
    records: list[dict[str, Any]] = []
    problems: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {number}: not JSON ({exc.msg})")
            continue
        if not isinstance(record, dict):
            problems.append(f"line {number}: expected an object with model, variant, question_id, text")
            continue
        missing = [k for k in ("model", "variant", "question_id", "text") if not str(record.get(k) or "").strip()]
        if missing:
            problems.append(f"line {number}: missing {', '.join(missing)}")
            continue
        if record["variant"] not in VARIANTS:
            problems.append(f"line {number}: variant {record['variant']!r} is not one of {', '.join(VARIANTS)}")
            continue
        key = (str(record["model"]), str(record["variant"]), str(record["question_id"]))
        if key in seen:
            problems.append(f"line {number}: a second response for {key}; keep one per model, variant and question")
            continue
        seen.add(key)
        records.append({"model": key[0], "variant": key[1], "question_id": key[2],
                        "text": str(record["text"])[:MAX_RESPONSE_CHARS]})
    return records, problems
