"""The one model client: every LLM call in AccessBench goes through `ModelClient.complete`.

What it adds on top of litellm:
- bounded concurrency per (model, api base): a semaphore shared by every client of that model;
- retries with exponential backoff and jitter for 429 / 5xx / timeouts / connection errors, honouring
  Retry-After (seconds or an HTTP date) — a 429 also pauses every caller of that model until then;
- terminal errors (400, 401, 403, 404, context length, quota exhausted) are raised at once;
- a response cache keyed on everything sent (a hit makes no call and costs nothing);
- token and cost accounting (cost is None when the model has no known price — never a guessed 0);
- parameters a model rejects (e.g. temperature on reasoning models) are dropped *and recorded*;
- every byte and wait is bounded (`models.transport`): connect, first-byte and whole-call deadlines per
  attempt, a reply cap (a larger reply is a terminal error, never read into memory), and a retry budget per
  run — once a model has failed every call for `retry_window_s` (or used `max_run_retries`), the calls left
  fail at once instead of waiting on a provider that is down;
- `cancel_calls()` (SIGTERM / Ctrl-C) ends the calls in flight at once and refuses new ones.

API keys are read by litellm from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, …); this module
never accepts, stores or logs one, and every error message it keeps is redacted.
"""

from __future__ import annotations

import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

from common.redact import hide_url_credentials, redact, redact_exact, reveal_url
from models.cache import ResponseCache, cache_key
from models.config import ModelConfig
from models.endpoints import check_endpoint
from models.transport import (
    CANCELLED,
    COMPRESSED,
    DEFAULT_CONNECT_S,
    TOO_LARGE,
    CallLimits,
    allow_calls,
    bounded_call,
    cancel_calls,
    cancelled,
    install,
    max_reply_bytes,
    wait_or_cancelled,
)

T = TypeVar("T")
R = TypeVar("R")
INSTALL_HINT = "pip install 'accessbench[llm]'  (litellm>=1.83.7,<2)"
MAX_RETRY_AFTER_S = 120.0  # a provider asking for longer is treated as an outage: the call fails now
MAX_REPLY_CHARS = 200_000  # a reply longer than this is refused, never parsed, cached or sent back
BACKOFF_CAP_S = 60.0
TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
_QUOTA = re.compile(r"insufficient_quota|exceeded your current quota|billing", re.IGNORECASE)
# litellm reports a missing key as a 500 from some providers: it is a setup error, never worth a retry.
_NO_CREDENTIALS = re.compile(r"missing credentials|api_key client option must be set|no api key|"
                             r"api key (?:is )?(?:not set|not found|missing)|set the `?\w*API_KEY", re.IGNORECASE)
_UNSUPPORTED = re.compile(r"unsupported|not support|n't support|not allowed|"
                          r"unrecognized|unknown parameter|only the default", re.IGNORECASE)


def _litellm() -> Any:
    """Import litellm on first use: it is an optional dependency and slow to import."""
    # Use the price map shipped in the wheel instead of fetching one at import (no network here,
    # and a run's costs should not change because a remote file changed). Users may override.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(f"the LLM judge needs litellm: {INSTALL_HINT}") from exc
    litellm.suppress_debug_info = True  # no "Give Feedback" banners in logs
    install(litellm)  # bounded sockets under every provider's HTTP client
    return litellm


@dataclass(frozen=True)
class ModelResponse:
    """One completed call (or cache hit) with its accounting."""

    text: str
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: float | None  # what this call cost now: 0 for a cache hit, None when the model has no price
    latency_s: float  # of the call that produced the text (the original call for a cache hit)
    cached: bool
    params_sent: dict[str, Any]
    original_cost_usd: float | None = None  # what the call cost when it was made
    attempts: int = 0  # HTTP attempts made now (0 for a cache hit)


class CredentialsMissing(ValueError):
    """The provider's credentials are not in the environment; raised before any call is made."""


class ModelCallError(Exception):
    """A call that produced no reply. The message is redacted and says what to do next."""

    def __init__(self, message: str, *, transient: bool, status: int | None = None, attempts: int = 0) -> None:
        super().__init__(redact(message))
        self.transient = transient
        self.status = status
        self.attempts = attempts


class ModelCallCancelled(ModelCallError):
    """The process is stopping (SIGTERM / Ctrl-C): the call was abandoned; a resumed run makes it again."""

    def __init__(self, model: str, attempts: int = 0) -> None:
        super().__init__(f"{model}: call cancelled because the run was interrupted; resume the run to make it",
                         transient=True, attempts=attempts)


class _RetryBudget:
    """Retries of one client in all, and how long its calls have failed without a success."""

    def __init__(self, window_s: float, max_retries: int) -> None:
        self.window_s = window_s
        self.max_retries = max_retries
        self.retries = 0
        self.failing_since: float | None = None  # first transient failure since the last success
        self.lock = threading.Lock()

    def succeeded(self) -> None:
        with self.lock:
            self.failing_since = None

    def failed(self) -> None:
        with self.lock:
            if self.failing_since is None:
                self.failing_since = time.monotonic()

    def spent(self, attempt_s: float = 0.0) -> str | None:
        """Why no more attempts are made (None while the budget lasts): the retries are used up, or the model
        is failing and an attempt of `attempt_s` would end after its retry window."""
        with self.lock:
            if self.retries >= self.max_retries:
                return f"the run's retry budget is spent ({self.max_retries} retries)"
            now = time.monotonic()
            if self.failing_since is not None and now + attempt_s - self.failing_since > self.window_s:
                return (f"every call has failed for {now - self.failing_since:.0f} s and an attempt would end after "
                        f"the retry window ({self.window_s:g} s)")
            return None

    def allows_retry(self, wait_s: float, attempt_s: float) -> str | None:
        """Take one retry when it (its wait and one more attempt) ends inside the window; else why not."""
        if (why := self.spent()) is not None:
            return why
        with self.lock:
            since = self.failing_since if self.failing_since is not None else time.monotonic()
            if time.monotonic() + wait_s + attempt_s > since + self.window_s:
                return f"another attempt would end after the retry window ({self.window_s:g} s)"
            self.retries += 1
            return None


@dataclass
class _Gate:
    """Concurrency slots and a shared 'do not send before' time for one model."""

    slots: threading.BoundedSemaphore
    pause_until: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def hold_off(self, seconds: float) -> None:
        with self.lock:
            self.pause_until = max(self.pause_until, time.monotonic() + seconds)

    def wait_turn(self) -> None:
        while (delay := self.pause_until - time.monotonic()) > 0:
            if wait_or_cancelled(delay):
                return


_GATES: dict[tuple[str, str | None, int], _Gate] = {}
_GATES_LOCK = threading.Lock()


def _gate(model: str, api_base: str | None, concurrency: int) -> _Gate:
    # Shared across clients so two judges on one model respect one limit and one Retry-After.
    with _GATES_LOCK:
        key = (model, api_base, concurrency)
        if key not in _GATES:
            _GATES[key] = _Gate(threading.BoundedSemaphore(concurrency))
        return _GATES[key]


@dataclass
class ClientStats:
    calls: int = 0  # HTTP attempts, including failed ones and retries
    retries: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0  # spent now (cache hits add nothing)
    unpriced_calls: int = 0


class ModelClient:
    """Calls one model through litellm with limits, retries, caching and accounting.

    `price_table` maps model id → (USD per 1M input tokens, USD per 1M output tokens) and takes
    precedence over litellm's price map, for self-hosted or newly released models.
    """

    def __init__(self, model: str, *, config: ModelConfig | None = None, cache: ResponseCache | None = None,
                 api_key: str | None = None, **settings: Any) -> None:
        """`config` (a run's, resolved once: `models.build.build_client`) with any of its fields in `settings`
        replaced; the defaults are ModelConfig's."""
        config = ModelConfig.model_validate({**(config.model_dump() if config else {}), **settings})
        if config.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        api_base = config.api_base
        check_endpoint(reveal_url(api_base))  # never a link-local or cloud-metadata address (models/endpoints.py)
        max_reply_mb = config.max_reply_mb
        if max_reply_mb is not None and not max_reply_mb > 0:
            raise ValueError(f"max_reply_mb must be > 0 megabytes, not {max_reply_mb!r}")
        if config.retry_window_s <= 0 or config.max_run_retries < 0:
            raise ValueError("retry_window_s must be > 0 seconds and max_run_retries ≥ 0")
        timeout_s = config.timeout_s
        # Per HTTP attempt: timeout_s is the whole-call deadline (the last byte by then); the first byte of the
        # reply must come within first_byte_timeout_s and the connection open within connect_timeout_s.
        self.limits = CallLimits(
            deadline_s=timeout_s, first_byte_s=config.first_byte_timeout_s or timeout_s,
            connect_s=min(config.connect_timeout_s or DEFAULT_CONNECT_S, timeout_s),
            max_reply_bytes=int(max_reply_mb * 1024 * 1024) if max_reply_mb is not None else max_reply_bytes())
        self.budget = _RetryBudget(config.retry_window_s, config.max_run_retries)
        self.model = model
        self.api_base = hide_url_credentials(api_base)  # as recorded; reveal_url gives the transport the whole URL
        self.config = config.model_copy(update={"api_base": self.api_base})  # what the client was built with
        # Only for the data home's local model server (its own key, models/local.py); provider keys stay in the
        # environment.
        self._api_key = api_key
        self.concurrency = config.concurrency
        self.timeout_s = timeout_s
        self.max_retries = config.max_retries
        self.cache = cache
        self.price_table = config.price_table or {}
        self.backoff_base_s = config.backoff_base_s
        self.dropped: dict[str, Any] = {}  # parameters this model rejected → the value we wanted
        self.stats = ClientStats()
        self._gate = _gate(model, self.api_base, self.concurrency)
        self._lock = threading.Lock()
        self._flights: dict[str, list[Any]] = {}  # cache key → [lock, waiters]

    # -- parameters -------------------------------------------------------------------------------

    def effective_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """The parameters that will actually be sent: `params` minus those this model rejected."""
        with self._lock:
            return {k: v for k, v in params.items() if k not in self.dropped}

    def describe_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """What a judgment row records: the parameters sent, plus any that were dropped and why."""
        described = self.effective_params(params)
        with self._lock:
            if self.dropped:
                described["dropped_params"] = dict(sorted(self.dropped.items()))
        return described

    def _learn_rejected(self, exc: Exception, sent: dict[str, Any]) -> bool:
        """If `exc` says a parameter we sent is unsupported, stop sending it; True when one was dropped."""
        message = str(exc)
        if not _UNSUPPORTED.search(message):
            return False
        for name in sorted(sent, key=len, reverse=True):  # "max_tokens" before "max"
            if re.search(rf"\b{re.escape(name)}\b", message):
                with self._lock:
                    self.dropped[name] = sent[name]
                return True
        return False

    # -- the call ---------------------------------------------------------------------------------

    def complete(self, messages: list[dict[str, Any]], params: dict[str, Any] | None = None,
                 repeat: int = 0, context: dict[str, Any] | None = None) -> ModelResponse:
        """Reply to `messages`; cached per (endpoint, model, messages, parameters sent, repeat, context).

        `context` places the call in a run (e.g. document and page): identical prompts of two
        documents are separate samples, never one shared reply.
        """
        params = dict(params or {})
        for _ in range(len(params) + 1):  # each pass drops at most one rejected parameter
            sent = self.effective_params(params)
            key = cache_key(self.model, messages, sent, repeat, api_base=self.api_base, context=context)
            try:
                with self._single_flight(key):
                    return self._cached_or_called(key, messages, sent, repeat)
            except _Rejected:
                continue
        raise ModelCallError(f"{self.model} rejected every optional parameter; check the model id",
                             transient=False)

    def _cached_or_called(self, key: str, messages: list[dict[str, Any]], sent: dict[str, Any],
                          repeat: int) -> ModelResponse:
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            return self._from_cache(hit, sent)
        response = self._call_with_retries(messages, sent)
        if self.cache is not None:
            self.cache.put(key, {
                "model": self.model, "api_base": self.api_base, "text": response.text, "tokens_in": response.tokens_in,
                "tokens_out": response.tokens_out, "cost_usd": response.cost_usd,
                "latency_s": response.latency_s, "params_sent": sent, "repeat": repeat,
            })
        return response

    @contextmanager
    def _single_flight(self, key: str) -> Iterator[None]:
        """Identical concurrent requests wait for the first one and then read its cached reply."""
        if self.cache is None:
            yield
            return
        with self._lock:
            flight = self._flights.setdefault(key, [threading.Lock(), 0])
            flight[1] += 1
        try:
            with flight[0]:
                yield
        finally:
            with self._lock:
                flight[1] -= 1
                if flight[1] == 0:
                    del self._flights[key]

    def _from_cache(self, hit: dict[str, Any], sent: dict[str, Any]) -> ModelResponse:
        with self._lock:
            self.stats.cache_hits += 1
            self.stats.tokens_in += hit.get("tokens_in") or 0
            self.stats.tokens_out += hit.get("tokens_out") or 0
        original = hit.get("cost_usd")
        return ModelResponse(
            text=hit["text"], tokens_in=hit.get("tokens_in"), tokens_out=hit.get("tokens_out"),
            cost_usd=0.0 if original is not None else None,  # nothing spent; unknown stays unknown
            latency_s=float(hit.get("latency_s") or 0.0), cached=True, params_sent=hit.get("params_sent", sent),
            original_cost_usd=original, attempts=0,
        )

    def _call_with_retries(self, messages: list[dict[str, Any]], sent: dict[str, Any]) -> ModelResponse:
        litellm = _litellm()
        attempt = 0
        while True:
            attempt += 1
            if cancelled():
                raise ModelCallCancelled(self.model, attempt - 1)
            self._check_budget(attempt - 1)
            with self._gate.slots:
                self._gate.wait_turn()
                if cancelled():
                    raise ModelCallCancelled(self.model, attempt - 1)
                self._check_budget(attempt - 1)  # it may have run out while this call waited for a slot
                with self._lock:
                    self.stats.calls += 1
                start = time.perf_counter()
                with bounded_call(self.limits) as state:
                    try:
                        raw = self._send(litellm, messages, sent)
                        latency = time.perf_counter() - start
                    except Exception as exc:  # noqa: BLE001 - classified below; nothing escapes unredacted
                        failure = exc
                    else:
                        self.budget.succeeded()
                        return self._response(raw, sent, latency, attempt)
            limit, why = state.kind, state.reason or ""
            if limit == CANCELLED or cancelled():
                raise ModelCallCancelled(self.model, attempt)
            if limit in (TOO_LARGE, COMPRESSED):  # the same request would get the same reply: never retried
                raise ModelCallError(f"{self.model}: {why} — the reply was discarded; check the provider (the cap "
                                     "is max_reply_mb / $ACCESSBENCH_MAX_REPLY_MB)", transient=False,
                                     attempts=attempt) from None
            transient, status, retry_after = classify(failure)
            if limit is not None:  # a deadline: the provider is slow or stalled; worth another try
                transient, detail = True, f"{type(failure).__name__}: {why}"
            else:
                detail = None
            if transient:
                self.budget.failed()
            if not transient and self._learn_rejected(failure, sent):
                raise _Rejected from None
            if not transient or attempt > self.max_retries:
                raise ModelCallError(_explain(failure, status, attempt, transient, detail), transient=transient,
                                     status=status, attempts=attempt) from None
            if retry_after is not None and retry_after > MAX_RETRY_AFTER_S:
                raise ModelCallError(
                    f"{_explain(failure, status, attempt, transient, detail)} — the provider asked to wait "
                    f"{retry_after:.0f} s (more than {MAX_RETRY_AFTER_S:.0f} s): treated as an outage; rerun the "
                    "judge stage later", transient=True, status=status, attempts=attempt) from None
            wait = self._backoff(attempt, retry_after)
            if (refused := self.budget.allows_retry(wait, self.limits.deadline_s)) is not None:
                raise ModelCallError(f"{_explain(failure, status, attempt, transient, detail)} — not retried: "
                                     f"{refused}", transient=True, status=status, attempts=attempt) from None
            if retry_after is not None:
                self._gate.hold_off(retry_after)  # everyone on this model waits, not just this thread
            with self._lock:
                self.stats.retries += 1
            if wait_or_cancelled(wait):
                raise ModelCallCancelled(self.model, attempt)

    def _check_budget(self, attempts: int) -> None:
        if (spent := self.budget.spent(self.limits.deadline_s)) is not None:
            raise ModelCallError(f"{self.model}: not sent — {spent}; the provider looks down: rerun the judge "
                                 "stage later (answered pages are cached)", transient=True, attempts=attempts)

    def _send(self, litellm: Any, messages: list[dict[str, Any]], sent: dict[str, Any]) -> Any:
        return litellm.completion(
            # The whole URL only here: what is recorded (cache, call log, judgments) keeps its credentials redacted.
            model=self.model, messages=messages, api_base=reveal_url(self.api_base), timeout=self.timeout_s,
            num_retries=0, max_retries=0,  # retries are ours: one policy, one Retry-After
            drop_params=False,  # never let litellm drop a parameter without us recording it
            **({"api_key": self._api_key} if self._api_key else {}),
            **sent,
        )

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        exponential = min(BACKOFF_CAP_S, self.backoff_base_s * 2 ** (attempt - 1))
        jittered = exponential * random.uniform(0.5, 1.0)  # spread simultaneous retries apart
        if retry_after is None:
            return jittered
        # The provider's wait is a floor; a little jitter on top avoids a synchronized stampede.
        return retry_after + random.uniform(0, min(1.0, 0.1 * retry_after + 0.05))

    def _response(self, raw: Any, sent: dict[str, Any], latency: float, attempts: int) -> ModelResponse:
        usage = getattr(raw, "usage", None)
        tokens_in = getattr(usage, "prompt_tokens", None)
        tokens_out = getattr(usage, "completion_tokens", None)
        choices = getattr(raw, "choices", None) or []
        text = (choices[0].message.content if choices else None) or ""
        if len(text) > MAX_REPLY_CHARS:
            raise ModelCallError(f"{self.model} replied with {len(text):,} characters (limit {MAX_REPLY_CHARS:,}); "
                                 "the reply was discarded — check the model and --max-tokens", transient=False,
                                 attempts=attempts)
        # A provider may echo a key back (in an error or a reply): it never reaches the cache or a table.
        text = redact_exact(text) or ""
        cost = self.price(tokens_in, tokens_out)
        with self._lock:
            self.stats.tokens_in += tokens_in or 0
            self.stats.tokens_out += tokens_out or 0
            if cost is None:
                self.stats.unpriced_calls += 1
            else:
                self.stats.cost_usd += cost
        return ModelResponse(text=text, tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost,
                             latency_s=latency, cached=False, params_sent=sent, original_cost_usd=cost,
                             attempts=attempts)

    def price(self, tokens_in: int | None, tokens_out: int | None) -> float | None:
        """USD for these token counts, or None when the model (or the counts) are unknown."""
        if tokens_in is None or tokens_out is None:
            return None
        if self.model in self.price_table:
            per_in, per_out = self.price_table[self.model]
            return (tokens_in * per_in + tokens_out * per_out) / 1_000_000
        try:
            prompt_cost, completion_cost = _litellm().cost_per_token(
                model=self.model, prompt_tokens=tokens_in, completion_tokens=tokens_out)
        except Exception:  # noqa: BLE001 - litellm raises several kinds for unmapped models
            return None
        return float(prompt_cost + completion_cost)

    def supports_vision(self) -> bool:
        try:
            return bool(_litellm().supports_vision(self.model))
        except Exception:  # noqa: BLE001 - unknown models: assume text only
            return False

    def supports_response_schema(self) -> bool:
        """Whether to send a JSON-schema response format: litellm knows the model enforces one, or the model
        is self-hosted behind an `api_base` (llama.cpp, vLLM and Ollama all constrain decoding with it; a
        server that rejects it has it dropped, and the drop recorded)."""
        if self.api_base:
            return True
        try:
            return bool(_litellm().supports_response_schema(model=self.model))
        except Exception:  # noqa: BLE001 - unknown models: no structured output
            return False

    def check_credentials(self) -> None:
        """Raise CredentialsMissing, naming the variables to set, when the provider's keys are absent.

        Only names are checked and reported, never values. Cloud providers with their own credential
        chains (AWS) count as configured when their SDK finds credentials.
        """
        if self._api_key:
            return
        try:
            found = _litellm().validate_environment(model=self.model, api_base=self.api_base)
        except Exception:  # noqa: BLE001 - a provider litellm cannot check: let the first call tell
            return
        missing = list(found.get("missing_keys") or [])
        if found.get("keys_in_environment") or not missing:
            return
        if all(name.startswith("AWS_") for name in missing) and _aws_credentials():
            return
        from models.keys import credentials_message

        raise CredentialsMissing(credentials_message(self.model, missing, self.api_base))


def map_calls(function: Callable[[T], R], items: list[T], workers: int, name: str) -> list[R]:
    """`function` over `items` in `workers` threads, in order — and when the waiting thread is interrupted
    (Ctrl-C, SIGTERM as Prefect's TerminationSignal), the model calls in flight are cancelled before the
    threads are waited for, so the interruption takes effect at once instead of after every call's deadline."""
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name) as pool:
        try:
            return list(pool.map(function, items))
        except BaseException:
            cancel_calls()
            try:
                pool.shutdown(wait=True, cancel_futures=True)
            finally:
                allow_calls()  # the calls of this pool are over; the interruption goes on unwinding
            raise


def _aws_credentials() -> bool:
    try:
        import boto3
    except ImportError:
        return False
    try:
        return boto3.Session().get_credentials() is not None
    except Exception:  # noqa: BLE001 - a broken profile is the same as none
        return False


class _Rejected(Exception):
    """Internal: a parameter was rejected and dropped; the caller retries without it."""


def classify(exc: BaseException) -> tuple[bool, int | None, float | None]:
    """(transient?, HTTP status, Retry-After seconds) for an exception raised by litellm."""
    litellm = _litellm()
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    if isinstance(exc, litellm.ContextWindowExceededError | litellm.ContentPolicyViolationError):
        return False, status, None
    if isinstance(exc, litellm.AuthenticationError) or _NO_CREDENTIALS.search(str(exc)):
        return False, status, None  # a missing or wrong key: retrying changes nothing
    if isinstance(exc, litellm.RateLimitError) and _QUOTA.search(str(exc)):
        return False, status, None  # out of credit: waiting will not help
    if isinstance(exc, litellm.Timeout | litellm.APIConnectionError | litellm.RateLimitError
                  | litellm.InternalServerError | litellm.ServiceUnavailableError):
        return True, status, retry_after_seconds(exc)
    if status is not None and status in TRANSIENT_STATUS:
        return True, status, retry_after_seconds(exc)
    return False, status, None


def retry_after_seconds(exc: BaseException) -> float | None:
    """Retry-After from the error's response headers: 'retry-after-ms', seconds, or an HTTP date."""
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
    if not headers:
        return None
    try:
        if (ms := headers.get("retry-after-ms")) is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
    except (AttributeError, TypeError, ValueError):
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _explain(exc: BaseException, status: int | None, attempts: int, transient: bool,
             detail: str | None = None) -> str:
    """A stored error: what failed, after how many attempts, and what to do about it."""
    hint = {
        401: "check the provider's API key environment variable",
        500: "check the provider's API key environment variable" if _NO_CREDENTIALS.search(str(exc)) else "",
        403: "the key lacks access to this model",
        404: "check the model id and api_base",
    }.get(status or 0, "")
    name = type(exc).__name__
    if "ContextWindow" in name:
        hint = "the prompt is too long for this model; choose a model with a larger context"
    elif transient:
        hint = "the provider kept failing; rerun the judge stage later (answered pages are cached)"
    elif not hint and status == 400:
        hint = "the provider rejected the request"
    detail = " ".join((detail or str(exc)).split())[:400]
    where = f"HTTP {status}, " if status else ""
    return f"{name} ({where}{attempts} attempt(s)): {detail}" + (f" — {hint}" if hint else "")
