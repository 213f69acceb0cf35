"""Tier 2: the LLM judge (`llm:<litellm model id>`), the paper's zero-shot page-by-page protocol.

One page, one criterion, one call (plus at most one repair call). Repeats are separate calls: the
repeat index is part of the cache key. The label is constrained to the criterion's labels, and a failed
sub-criterion forces Failed whatever label the model chose. Failures become error judgments (never
exceptions), with redacted messages.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from judges.base import Issue, PageJudgment, register_judge
from judges.evidence import PageBundle
from judges.labels import CRITERIA, Label
from judges.llm.cache import ResponseCache, messages_digest
from judges.llm.client import ModelCallError, ModelClient, ModelResponse
from judges.llm.flags import hallucination_flags
from judges.llm.parsing import JudgmentReply, ReplyError, parse_reply, repair_request
from judges.llm.prompts import PROMPT_VERSION, prompt_hash, system_prompt
from judges.llm.redact import redact, redact_exact
from judges.llm.render import render_page

DEFAULT_TEMPERATURE = 0.7
DEFAULT_MAX_TOKENS = 1500


class LLMJudge:
    """Labels one page's evidence with a model reached through `ModelClient`."""

    name = "llm"
    prompt_version = PROMPT_VERSION

    def __init__(self, client: ModelClient, *, temperature: float | None = DEFAULT_TEMPERATURE,
                 max_tokens: int | None = DEFAULT_MAX_TOKENS, vision: bool | None = None) -> None:
        self.client = client
        self.model: str | None = client.model
        self.vision = client.supports_vision() if vision is None else vision
        self._request = {k: v for k, v in {"temperature": temperature, "max_tokens": max_tokens}.items()
                         if v is not None}

    def supports(self, criterion: str) -> bool:
        return criterion in CRITERIA

    def params(self) -> dict[str, Any]:
        """Parameters actually sent (after any the model rejected), plus how pages were shown."""
        return {**self.client.describe_params(self._request), "vision": self.vision}

    def messages(self, bundle: PageBundle) -> list[dict[str, Any]]:
        page = render_page(bundle, vision=self.vision)
        if page.images:
            content: Any = [{"type": "text", "text": page.text}] + [
                {"type": "image_url", "image_url": {"url": url}} for url in page.images]
        else:
            content = page.text
        return [{"role": "system", "content": system_prompt(bundle.criterion)}, {"role": "user", "content": content}]

    def judge_page(self, bundle: PageBundle, repeat: int) -> PageJudgment:
        messages = self.messages(bundle)
        phash = prompt_hash(json.dumps(messages_digest(messages), sort_keys=True, ensure_ascii=False))
        calls: list[ModelResponse] = []
        try:
            first = self.client.complete(messages, self._request, repeat)
            calls.append(first)
            try:
                reply = parse_reply(first.text, bundle.criterion)
            except ReplyError as problem:
                repair = [*messages, {"role": "assistant", "content": first.text},
                          {"role": "user", "content": repair_request(problem)}]
                second = self.client.complete(repair, self._request, repeat)
                calls.append(second)
                reply = parse_reply(second.text, bundle.criterion)
        except ReplyError as exc:
            return self._error(calls, phash, f"invalid_response: {exc} (after one repair request)")
        except ModelCallError as exc:
            return self._error(calls, phash, f"model_call: {exc}")
        return self._judgment(bundle, reply, calls, phash, messages[0]["content"])

    def judge_many(self, items: list[tuple[PageBundle, int]]) -> list[PageJudgment]:
        """`judge_page` over (bundle, repeat) pairs, concurrently up to the client's limit; same order."""
        if not items:
            return []
        with ThreadPoolExecutor(max_workers=min(self.client.concurrency, len(items)),
                                thread_name_prefix="llm-judge") as pool:
            return list(pool.map(lambda item: self._safe_judge(*item), items))

    def _safe_judge(self, bundle: PageBundle, repeat: int) -> PageJudgment:
        try:
            return self.judge_page(bundle, repeat)
        except Exception as exc:  # noqa: BLE001 - one bad page is an error row, not a lost batch
            return PageJudgment(Label.CANNOT_TELL, error=redact(f"{type(exc).__name__}: {exc}"))

    def _judgment(self, bundle: PageBundle, reply: JudgmentReply, calls: list[ModelResponse], phash: str,
                  instructions: str) -> PageJudgment:
        label = reply.label
        subs = dict(reply.sub_criteria)
        forced = label is not Label.FAILED and "failed" in subs.values()
        if forced:
            label = Label.FAILED  # the protocol: any failed sub-criterion fails the page
        flags = hallucination_flags(bundle, reply, instructions)
        flags["label_forced_failed"] = forced
        issues = [Issue(i.sub_criterion, i.location, i.problem, i.remediation) for i in reply.issues]
        return PageJudgment(label, subs, issues, reply.summary, flags=flags, **_accounting(calls, phash))

    def _error(self, calls: list[ModelResponse], phash: str, message: str) -> PageJudgment:
        return PageJudgment(Label.CANNOT_TELL, error=redact(message), **_accounting(calls, phash))


def _accounting(calls: list[ModelResponse], phash: str) -> dict[str, Any]:
    """Tokens, cost and latency summed over the call and its repair; None when unknown."""

    def total(values: list[Any]) -> Any:
        return None if not values or any(v is None for v in values) else sum(values)

    return {
        "raw_response": redact_exact(calls[-1].text) if calls else None,
        "prompt_hash": phash,
        "tokens_in": total([c.tokens_in for c in calls]),
        "tokens_out": total([c.tokens_out for c in calls]),
        "cost_usd": total([c.cost_usd for c in calls]),
        "latency_s": total([c.latency_s for c in calls]),
    }


OPTIONS = ("api_base", "temperature", "max_tokens", "concurrency", "timeout_s", "max_retries", "home", "cache",
           "vision", "price_table", "backoff_base_s")


@register_judge("llm")
def make_llm_judge(argument: str | None, options: dict[str, Any]) -> LLMJudge:
    """`llm:<litellm model id>`, e.g. llm:openai/gpt-4o, llm:anthropic/claude-sonnet-4-5, llm:ollama/llava."""
    if not argument:
        raise ValueError("name the model: --judge llm:<litellm model id>, e.g. llm:openai/gpt-4o")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown LLM judge option(s) {unknown}; accepted: {', '.join(OPTIONS)}")
    cache = None
    if options.get("cache", True):
        from warehouse.home import resolve_home

        home = Path(options["home"]) if options.get("home") else resolve_home()
        cache = ResponseCache.under_home(home)
    client = ModelClient(
        argument, api_base=options.get("api_base"), concurrency=int(options.get("concurrency", 8)),
        timeout_s=float(options.get("timeout_s", 60)), max_retries=int(options.get("max_retries", 4)),
        cache=cache, price_table=options.get("price_table"),
        backoff_base_s=float(options.get("backoff_base_s", 1.0)),
    )
    return LLMJudge(client, temperature=options.get("temperature", DEFAULT_TEMPERATURE),
                    max_tokens=options.get("max_tokens", DEFAULT_MAX_TOKENS), vision=options.get("vision"))
