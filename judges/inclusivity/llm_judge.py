"""`llm:<litellm model id>`: a category judge that asks a model, through the one model client.

One call per response covers all nine categories with structured output (a JSON-schema response
format), plus at most one repair call when the reply does not fit. The snippet rule: a verdict
whose snippet is not found in the response (after whitespace normalisation) is voided (covered and
depth become null) and flagged `snippet_not_found`. Failures become voided rows with a redacted error.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from common.redact import redact, redact_exact
from judges.inclusivity.base import (
    CATEGORY_JUDGES,
    CategoryVerdict,
    JudgeItem,
    ResponseJudgment,
    register_category_judge,
)
from judges.inclusivity.categories import CATEGORY_NAMES, MAX_DEPTH
from judges.inclusivity.prompts import (
    PROMPT_VERSION,
    RESPONSE_FORMAT,
    judge_system_prompt,
    judge_user_prompt,
    prompt_hash,
)
from judges.inclusivity.respond import call_error
from judges.inclusivity.text import normalise_ws, snippet_in
from models.build import build_client, check_model
from models.calllog import CallLog
from models.client import ModelCallError, ModelClient, ModelResponse
from models.config import ModelConfig
from models.replies import ReplyError, key_lookup, read_json, repair_request

# The judge's protocol; a run's model config replaces the temperature or reply length only where it sets them.
JUDGE_PARAMS: dict[str, Any] = {"temperature": 0.0, "max_tokens": 2000, "response_format": RESPONSE_FORMAT}
SNIPPET_CHARS = 500
_ALIASES = {name.casefold().replace("/", "").replace("-", "").replace(" ", ""): name for name in CATEGORY_NAMES}


class _Item(BaseModel):
    model_config = ConfigDict(extra="ignore")
    category: str
    covered: bool
    depth: int
    snippet: str = ""


def _alias(name: str) -> str | None:
    return _ALIASES.get(str(name).casefold().replace("/", "").replace("-", "").replace(" ", "").replace("_", ""))


def _items(data: dict[str, Any], steps: set[str]) -> list[dict[str, Any]]:
    """The reply's per-category records, as models write them: the schema's list, an object keyed by
    category ({"Vision": {"covered": true, …}}), or the categories at the top level."""
    key, value = key_lookup(data, "categories", "category_judgments", "verdicts", "results")
    if key is not None and key != "categories":
        steps.add("categories_key")
    if value is None:
        value = {k: v for k, v in data.items() if _alias(k)}
        if value:
            steps.add("categories_top_level")
    if isinstance(value, dict):
        steps.add("categories_object")
        value = [{"category": k, **(v if isinstance(v, dict) else {"covered": v})} for k, v in value.items()]
    if not isinstance(value, list):
        raise ReplyError("the reply has no categories list; give one object per category "
                         f"({', '.join(CATEGORY_NAMES)})")
    items = []
    for entry in value:
        if not isinstance(entry, dict):
            continue
        record: dict[str, Any] = {}
        for field_name, names in (("category", ("category", "name")), ("covered", ("covered", "is_covered")),
                                  ("depth", ("depth", "depth_score", "score")),
                                  ("snippet", ("snippet", "evidence", "quote"))):
            found, item = key_lookup(entry, *names)
            if found is not None:
                if found.casefold() != field_name:
                    steps.add("field_names")
                record[field_name] = item
        if "depth" not in record and record.get("covered") is not None:
            steps.add("depth_missing")
            record["depth"] = 1 if str(record["covered"]).casefold() in {"true", "yes", "1"} else 0
        items.append(record)
    return items


def parse_categories(text: str) -> tuple[dict[str, _Item], list[str]]:
    """The reply's verdict per known category, and the normalisations reading it needed; raises ReplyError
    with a message the model can act on."""
    data, found = read_json(text or "")
    steps = set(found)
    out: dict[str, _Item] = {}
    problems = []
    for record in _items(data, steps):
        try:
            item = _Item.model_validate(record)
        except ValidationError as exc:
            problems.append("; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'item'}: {e['msg']}"
                                      for e in exc.errors()))
            continue
        name = _alias(item.category)
        if name is None:
            raise ReplyError(f"unknown category {item.category!r}; use exactly: {', '.join(CATEGORY_NAMES)}")
        if name != item.category:
            steps.add("category_name")
        if not 0 <= item.depth <= MAX_DEPTH:
            raise ReplyError(f"depth {item.depth} for {name} is outside 0–{MAX_DEPTH}")
        out[name] = item
    if problems and not out:
        raise ReplyError(f"the JSON does not match the required format ({problems[0]})")
    if not out:
        raise ReplyError(f"no categories in the reply; list all of {', '.join(CATEGORY_NAMES)}")
    return out, sorted(steps)


def verdict(name: str, item: _Item | None, response: str) -> CategoryVerdict:
    """Apply the snippet rule and reconcile coverage with depth (depth > 0 means covered)."""
    if item is None:
        return CategoryVerdict(name, None, None, flags={"missing_category": True},
                               error="invalid_response: the judge gave no verdict for this category")
    flags: dict[str, bool] = {}
    depth, covered = item.depth, item.covered
    if covered != (depth > 0):
        flags["covered_depth_mismatch"] = True
        depth = max(depth, 1) if covered else depth
        covered = depth > 0
    snippet = normalise_ws(item.snippet)[:SNIPPET_CHARS] or None
    if not covered:
        return CategoryVerdict(name, False, 0, None, flags)
    if snippet is None or not snippet_in(item.snippet, response):
        flags["snippet_not_found"] = True
        return CategoryVerdict(name, None, None, snippet, flags)
    return CategoryVerdict(name, True, depth, snippet, flags)


class LLMCategoryJudge:
    prompt_version = PROMPT_VERSION

    def __init__(self, client: ModelClient, params: dict[str, Any] | None = None) -> None:
        self.client = client
        self.model: str | None = client.model
        self.name = f"llm:{client.model}"
        self.request = client.config.request(JUDGE_PARAMS) if params is None else dict(params)

    def check(self) -> None:
        """Fail before any call when the provider's credentials are missing (CredentialsMissing)."""
        self.client.check_credentials()

    def params(self) -> dict[str, Any]:
        described = self.client.describe_params(self.request)
        if "response_format" in described:
            described["response_format"] = "json_schema:category_judgment"
        return described

    def messages(self, item: JudgeItem) -> list[dict[str, Any]]:
        return [{"role": "system", "content": judge_system_prompt()},
                {"role": "user", "content": judge_user_prompt(item.question, item.response)}]

    def judge_one(self, item: JudgeItem) -> ResponseJudgment:
        messages = self.messages(item)
        phash = prompt_hash(messages)
        calls: list[ModelResponse] = []
        log = CallLog(study="audit", purpose="judge_categories")
        try:
            first = log.complete(self.client, messages, self.request, 0)
            calls.append(first)
            try:
                parsed, steps = parse_categories(first.text)
            except ReplyError as problem:
                log.failed_parse(str(problem))
                repair = [*messages, {"role": "assistant", "content": self.client.config.bounded(first.text)},
                          {"role": "user", "content": repair_request(problem)}]
                second = log.complete(self.client, repair, self.request, 0, repair=True)
                calls.append(second)
                try:
                    parsed, steps = parse_categories(second.text)
                except ReplyError as again:
                    log.failed_parse(str(again))
                    raise
            log.parsed(json.dumps({k: v.model_dump() for k, v in parsed.items()}, ensure_ascii=False), steps)
        except ReplyError as exc:
            return ResponseJudgment.failed(f"invalid_response: {exc} (after one repair request)",
                                           **_accounting(calls, phash, self.client.config), calls=log.records)
        except ModelCallError as exc:
            kind, message, transient = call_error(exc, "category_judgments")
            if log.records:  # the call log says what the judgment says
                log.records[-1]["error"] = redact(message)
            return ResponseJudgment.failed(f"model_call: {message}", kind=kind, transient=transient,
                                           **_accounting(calls, phash, self.client.config), calls=log.records)
        verdicts = [verdict(name, parsed.get(name), item.response) for name in CATEGORY_NAMES]
        return ResponseJudgment(verdicts, **_accounting(calls, phash, self.client.config), calls=log.records)

    def judge_many(self, items: list[JudgeItem]) -> list[ResponseJudgment]:
        if not items:
            return []
        with ThreadPoolExecutor(max_workers=min(self.client.concurrency, len(items)),
                                thread_name_prefix="audit-judge") as pool:
            return list(pool.map(self._safe, items))

    def _safe(self, item: JudgeItem) -> ResponseJudgment:
        try:
            return self.judge_one(item)
        except Exception as exc:  # noqa: BLE001 - one bad response is an error row, not a lost batch
            return ResponseJudgment.failed(redact(f"internal: {type(exc).__name__}: {exc}") or "internal error")


def _accounting(calls: list[ModelResponse], phash: str, config: ModelConfig) -> dict[str, Any]:
    def total(values: list[Any]) -> Any:
        return None if not values or any(v is None for v in values) else sum(values)

    return {"raw_response": redact_exact(config.bounded(calls[-1].text)) if calls else None, "prompt_hash": phash,
            "tokens_in": total([c.tokens_in for c in calls]), "tokens_out": total([c.tokens_out for c in calls]),
            "cost_usd": total([c.cost_usd for c in calls]), "latency_s": total([c.latency_s for c in calls])}


OPTIONS = ("home", "calls")  # how the model is called: one ModelConfig (`calls`), or its fields as options


def _config(options: dict[str, Any]) -> tuple[Path, ModelConfig]:
    """The data home and the judge model's config from a category judge's options (an audit passes the config
    it resolved once, `AuditSettings.judge_calls`; a caller without a run may give the config's fields)."""
    from warehouse.home import resolve_home

    home = Path(options["home"]) if options.get("home") else resolve_home()
    loose = {k: v for k, v in options.items() if k not in OPTIONS}
    if loose and options.get("calls") is not None:
        raise ValueError(f"give the model settings once: in `calls` or as options ({sorted(loose)}), not both")
    return home, options.get("calls") or ModelConfig.model_validate(loose)


@CATEGORY_JUDGES.register_check("llm")
def check_llm_category_judge(argument: str | None, options: dict[str, Any]) -> str:
    """What `llm:<model>` refuses, missing provider credentials included (CredentialsMissing), without building
    the judge or calling the model; the model id."""
    if not argument:
        raise ValueError("name the judge model: --judges llm:<litellm model id>, e.g. llm:openai/gpt-4.1")
    home, config = _config(options)
    check_model(argument, config, home)
    return argument


@register_category_judge("llm")
def make_llm_category_judge(argument: str | None, options: dict[str, Any]) -> LLMCategoryJudge:
    """`llm:<litellm model id>`, e.g. llm:openai/gpt-4.1 or llm:hosted_vllm/Qwen/Qwen2.5-72B-Instruct."""
    if not argument:
        raise ValueError("name the judge model: --judges llm:<litellm model id>, e.g. llm:openai/gpt-4.1")
    home, config = _config(options)
    return LLMCategoryJudge(build_client(argument, config, home))
