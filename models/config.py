"""How a model is called: one typed config, resolved once from a run's options, read by the one builder.

`ModelConfig` holds every setting of a model call that is not the model id: the endpoint, the sampling settings a
user may set (temperature, reply length), the time and retry limits, the caps on what a provider may send back,
the response cache mode, and the one limit on how much of a reply is stored. A run resolves it once from its options
(`tasks.engine.options`: `StageSettings.model_calls()` for the PDF judges, `AuditSettings.respondent_calls()` and
`judge_calls()` for the audit, and `accessbench fix --model` takes the defaults); `models.build.build_client` turns
it and a model id into a `ModelClient`. The defaults of the call limits are declared here, once; the sampling
defaults of each study are run options (`tasks.engine.options`), and a purpose with a protocol of its own (the audit's
category judge, fix's drafts) keeps its own parameters unless the config sets them (`request`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# Every reply text AccessBench keeps (judgments.raw_response, category_judgments.raw_response, llm_calls.reply,
# a repair request's echo of the reply) is cut to this many characters, whichever study or purpose made the call.
STORED_REPLY_CHARS = 100_000
RETRY_WINDOW_S = 120.0  # a model failing every call this long is down: the run's calls left fail at once
MAX_RUN_RETRIES = 200  # retries one client (one judge of a run) may spend in all

CacheMode = Literal["on", "off", "read", "write"]


class ModelConfig(BaseModel):
    """Everything about calling one model except its id; immutable once resolved."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    api_base: str | None = Field(None, description="OpenAI-compatible endpoint; None: the provider of the model id")
    temperature: float | None = Field(None, ge=0, le=2, description="None: the purpose's own (or not sent)")
    max_tokens: int | None = Field(None, ge=1, description="reply limit; None: the purpose's own (or not sent)")
    # Ranges the client checks itself (`ModelClient`), with messages that say what to change.
    concurrency: int = Field(8, description="concurrent calls per model")
    timeout_s: float = Field(60.0, gt=0, description="whole-call deadline of one HTTP attempt")
    max_retries: int = Field(4, ge=0, description="retries of one call after a transient failure")
    backoff_base_s: float = Field(1.0, ge=0, description="first retry's wait")
    cache: CacheMode = Field("on", description="response cache: read and write (on), neither, or one of them")
    max_reply_mb: float | None = Field(None, description="bytes one reply may have; None: "
                                                               "$ACCESSBENCH_MAX_REPLY_MB, else the transport's cap")
    connect_timeout_s: float | None = Field(None, gt=0)
    first_byte_timeout_s: float | None = Field(None, gt=0)
    retry_window_s: float = RETRY_WINDOW_S
    max_run_retries: int = MAX_RUN_RETRIES
    price_table: dict[str, tuple[float, float]] | None = Field(
        None, description="model id → USD per 1M input and output tokens, before litellm's price map")
    stored_reply_chars: int = Field(STORED_REPLY_CHARS, ge=1, description="characters of a reply kept anywhere")

    def request(self, protocol: dict[str, Any] | None = None) -> dict[str, Any]:
        """The parameters a call sends besides its messages: the purpose's `protocol` (e.g. a category judge's
        temperature 0), with the sampling settings this config sets in their place."""
        own = {k: v for k, v in (("temperature", self.temperature), ("max_tokens", self.max_tokens)) if v is not None}
        return {**(protocol or {}), **own}

    def bounded(self, text: str | None) -> str:
        """`text` as it may be stored: at most `stored_reply_chars` characters, a cut marked."""
        return bounded(text, self.stored_reply_chars)


def bounded(text: str | None, limit: int = STORED_REPLY_CHARS) -> str:
    text = text or ""
    return text if len(text) <= limit else text[:limit] + "…[reply cut]"
