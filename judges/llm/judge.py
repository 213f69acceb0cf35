"""Tier 2: the LLM judge (`llm:<litellm model id>`), the paper's zero-shot page-by-page protocol.

One page, one criterion, one call (plus at most one repair call). Repeats are separate calls: the
repeat index, the document and the page are part of the cache key. The label is constrained to the
criterion's labels, and a failed sub-criterion forces Failed whatever label the model chose. Failures
become error judgments (never exceptions), with redacted messages. Every call is kept as a record
(`PageJudgment.calls`) for the `llm_calls` table: what was sent, what came back, what it cost.

Evidence modes: `paper` (default) gives the model what the paper gave — raw evidence and images —
and `enriched` adds AccessBench's extracted findings (see `judges.evidence.FINDINGS`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from common.redact import redact, redact_exact
from judges.base import KIND_OPTIONS, Issue, PageJudgment, register_judge, register_judge_check
from judges.criteria import CRITERIA
from judges.evidence import EVIDENCE_MODES, PageBundle
from judges.labels import Label
from judges.llm.flags import hallucination_flags
from judges.llm.parsing import JudgmentReply, ReplyError, parse_reply, repair_request
from judges.llm.prompts import PROMPT_VERSION, prompt_hash, response_schema, system_prompt
from judges.llm.render import render_page
from judges.paper_models import paper_family
from models.build import build_client, check_model
from models.cache import messages_digest
from models.calllog import CallLog, ImageStore
from models.client import ModelCallError, ModelClient, ModelResponse, map_calls
from models.config import ModelConfig
from models.local import is_local

VISION_CHOICES = ("auto", "on", "off")

# `--vision auto`: the paper's five models as the paper ran them (judges.paper_models: GPT-4 Turbo on text;
# the others with page, figure and table images), then other common multimodal families, then litellm's table.
MULTIMODAL = re.compile(
    r"gpt-4o|gpt-4\.1|gpt-5|^o[134](?:-|$)|claude-3|claude-(?:sonnet|opus|haiku)-4|claude-[a-z]+-4|gemini|"
    r"vision|llava|bakllava|-vl\b|-vl-|qwen2?\.?5?-?vl|pixtral|gemma-?3|minicpm-v|moondream|llama-?4|"
    r"phi-?[34].*vision|idefics|internvl|molmo", re.IGNORECASE)


def vision_for(model: str, choice: str | bool | None, client: ModelClient | None = None) -> bool:
    """Whether pages go to `model` as images: `on`/`off` as told; `auto` as described above."""
    if isinstance(choice, bool):
        return choice
    choice = choice or "auto"
    if choice not in VISION_CHOICES:
        raise ValueError(f"unknown --vision {choice!r}; choose one of {', '.join(VISION_CHOICES)}")
    if choice != "auto":
        return choice == "on"
    paper = paper_family(model)
    if paper is not None:
        return paper.vision
    name = model.rsplit("/", 1)[-1].lower()
    if MULTIMODAL.search(name):
        return True
    return client.supports_vision() if client is not None else False


class LLMJudge:
    """Labels one page's evidence with a model reached through `ModelClient`."""

    name = "llm"
    prompt_version = PROMPT_VERSION
    deterministic = False  # sampled: judged `repeats` times

    def __init__(self, client: ModelClient, *, vision: str | bool | None = "auto", evidence: str = "paper",
                 structured: bool | None = None, images: ImageStore | None = None) -> None:
        """The sampling settings sent are the client's config's (`ModelConfig.request`: the run's --temperature
        and --max-tokens, resolved once in `tasks.engine.options`)."""
        if evidence not in EVIDENCE_MODES:
            raise ValueError(f"unknown evidence mode {evidence!r}; choose one of {', '.join(EVIDENCE_MODES)}")
        self.client = client
        self.model: str | None = client.model
        self.vision = vision_for(client.model, vision, client)
        self.evidence_mode = evidence
        self.structured = client.supports_response_schema() if structured is None else structured
        self.images = images
        self._request = client.config.request()

    def supports(self, criterion: str) -> bool:
        return criterion in CRITERIA

    def check(self) -> None:
        """Fail before any call when the provider's credentials are missing (CredentialsMissing)."""
        self.client.check_credentials()

    def params(self) -> dict[str, Any]:
        """Parameters actually sent (after any the model rejected), plus how pages were shown."""
        return {**self.client.describe_params(self._request), "vision": self.vision,
                "evidence": self.evidence_mode, "structured_output": self.structured,
                "api_base": redact(self.client.api_base)}

    def request(self, criterion: str) -> dict[str, Any]:
        if not self.structured:
            return dict(self._request)
        return {**self._request, "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "page_judgment", "strict": True,
                            "schema": response_schema(criterion, bounded=self.client.api_base is not None)}}}

    def messages(self, bundle: PageBundle) -> list[dict[str, Any]]:
        page = render_page(bundle, vision=self.vision, mode=self.evidence_mode)
        if page.images:
            content: Any = [{"type": "text", "text": page.text}] + [
                {"type": "image_url", "image_url": {"url": url}} for url in page.images]
        else:
            content = page.text
        return [{"role": "system", "content": system_prompt(bundle.criterion)}, {"role": "user", "content": content}]

    def judge_page(self, bundle: PageBundle, repeat: int) -> PageJudgment:
        messages = self.messages(bundle)
        phash = prompt_hash(json.dumps(messages_digest(messages), sort_keys=True, ensure_ascii=False))
        context = {"doc": bundle.doc_ref, "criterion": bundle.criterion, "page": bundle.page}
        request = self.request(bundle.criterion)
        log = CallLog(self.images, study="pdf", purpose="judge_page")
        calls: list[ModelResponse] = []
        try:
            first = self._complete(log, messages, request, repeat, context)
            calls.append(first)
            try:
                reply = parse_reply(first.text, bundle.criterion)
                log.parsed(reply.model_dump_json(), reply.normalised)
            except ReplyError as problem:
                log.failed_parse(str(problem))
                repair = [*messages, {"role": "assistant", "content": self.client.config.bounded(first.text)},
                          {"role": "user", "content": repair_request(problem)}]
                second = self._complete(log, repair, request, repeat, {**context, "repair": 1}, repair=True)
                calls.append(second)
                try:
                    reply = parse_reply(second.text, bundle.criterion)
                except ReplyError as again:
                    log.failed_parse(str(again))
                    raise
                log.parsed(reply.model_dump_json(), reply.normalised)
        except ReplyError as exc:
            return self._error(calls, phash, f"invalid_response: {exc} (after one repair request)", log)
        except ModelCallError as exc:
            failed = self._error(calls, phash, f"model_call: {exc}", log)
            failed.transient = exc.transient
            return failed
        judgment = self._judgment(bundle, reply, calls, phash, messages[0]["content"])
        judgment.calls = log.records
        return judgment

    def _complete(self, log: CallLog, messages: list[dict[str, Any]], request: dict[str, Any], repeat: int,
                  context: dict[str, Any], repair: bool = False) -> ModelResponse:
        return log.complete(self.client, messages, request, repeat, context, repair=repair)

    def judge_many(self, items: list[tuple[PageBundle, int]]) -> list[PageJudgment]:
        """`judge_page` over (bundle, repeat) pairs, concurrently up to the client's limit; same order."""
        if not items:
            return []
        return map_calls(lambda item: self._safe_judge(*item), items, min(self.client.concurrency, len(items)),
                         "llm-judge")

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
        flags.update(injection_flags(bundle, label))
        issues = [Issue(i.sub_criterion, i.location, i.problem, i.remediation) for i in reply.issues]
        return PageJudgment(label, subs, issues, redact_exact(reply.summary) or "", flags=flags,
                            normalised=list(reply.normalised), **_accounting(calls, phash, self.client.config))

    def _error(self, calls: list[ModelResponse], phash: str, message: str, log: CallLog) -> PageJudgment:
        judgment = PageJudgment(Label.CANNOT_TELL, error=redact(message),
                                **_accounting(calls, phash, self.client.config))
        judgment.calls = log.records
        return judgment


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def injection_flags(bundle: PageBundle, label: Label) -> dict[str, bool]:
    """`instruction_like_text`: the evidence the model saw holds text addressed to a machine;
    `disagrees_with_rules`: on such a page, the model's label differs from the rules judge's — the
    pattern of a model that obeyed the document instead of auditing it."""
    from judges.injection import find_instructions
    from judges.rules import RulesJudge

    found = any(find_instructions(text) for text in _strings(bundle.evidence))
    if not found:
        return {"instruction_like_text": False, "disagrees_with_rules": False}
    rules = RulesJudge()
    return {"instruction_like_text": True,
            "disagrees_with_rules": rules.supports(bundle.criterion)
            and rules.judge_page(bundle, 0).label is not label}


def _accounting(calls: list[ModelResponse], phash: str, config: ModelConfig) -> dict[str, Any]:
    """Tokens, cost and latency summed over the call and its repair; None when unknown. The last reply is kept
    as the config's one stored-reply limit allows."""

    def total(values: list[Any]) -> Any:
        return None if not values or any(v is None for v in values) else sum(values)

    return {
        "raw_response": redact_exact(config.bounded(calls[-1].text)) if calls else None,
        "prompt_hash": phash,
        "tokens_in": total([c.tokens_in for c in calls]),
        "tokens_out": total([c.tokens_out for c in calls]),
        "cost_usd": total([c.cost_usd for c in calls]),
        "latency_s": total([c.latency_s for c in calls]),
    }


# The judge's own options; how the model is called is one typed `ModelConfig` (option `calls`, resolved once per run
# by `tasks.engine.options.StageSettings.model_calls`). A caller without a run may give the config's fields instead.
OPTIONS = ("home", "vision", "evidence", "structured", "calls")


def _endpoint(argument: str | None, options: dict[str, Any]) -> tuple[str, dict[str, Any], Path, ModelConfig]:
    """The model id, the judge's options, the data home and the model config, as `llm:<argument>` names them;
    ValueError for what the judge cannot take."""
    if not argument:
        raise ValueError("name the model: --judge llm:<litellm model id>, e.g. llm:openai/gpt-4o")
    options = {k: v for k, v in options.items() if k not in KIND_OPTIONS}  # other kinds', in a run's options
    loose = {k: v for k, v in options.items() if k not in OPTIONS}
    unknown = sorted(set(loose) - set(ModelConfig.model_fields))
    if unknown:
        raise ValueError(f"unknown LLM judge option(s) {unknown}; accepted: "
                         f"{', '.join((*OPTIONS, *ModelConfig.model_fields))}")
    if loose and options.get("calls") is not None:
        raise ValueError(f"give the model settings once: in `calls` or as options ({sorted(loose)}), not both")
    config = options.get("calls") or ModelConfig.model_validate(loose)
    if (options.get("evidence") or "paper") not in EVIDENCE_MODES:
        raise ValueError(f"unknown evidence mode {options['evidence']!r}; choose one of {', '.join(EVIDENCE_MODES)}")
    from warehouse.home import resolve_home

    home = Path(options["home"]) if options.get("home") else resolve_home()
    return argument, options, home, config


@register_judge_check("llm")
def check_llm_judge(argument: str | None, options: dict[str, Any]) -> tuple[str, ...]:
    """What `llm:<model>` refuses, missing provider credentials included (CredentialsMissing), without building
    the judge or calling the model; the criteria it covers."""
    model, _, home, config = _endpoint(argument, options)
    check_model(model, config, home)
    return tuple(CRITERIA)


@register_judge("llm")
def make_llm_judge(argument: str | None, options: dict[str, Any]) -> LLMJudge:
    """`llm:<litellm model id>`, e.g. llm:openai/gpt-4o, llm:anthropic/claude-sonnet-4-5, llm:ollama/llava."""
    model, options, home, config = _endpoint(argument, options)
    vision = options.get("vision") or "auto"
    if is_local(model):
        vision = "off" if vision == "auto" else vision  # llama-server refuses images for text-only GGUFs
    return LLMJudge(build_client(model, config, home), vision=vision, evidence=options.get("evidence") or "paper",
                    structured=options.get("structured"), images=ImageStore(home / "calls" / "images"))
