"""One redaction for every text we are about to store or show (error messages, raw replies, logs), with one
marker, :data:`REDACTED`.

Providers echo keys back in errors ("Incorrect API key provided: sk-…"), litellm and the S3 client put the
service's message into their exception text, so such strings go through :func:`redact` before they are kept.
Model output goes through :func:`redact_exact`, which hides only the literal secrets: in prose "sk-…" may
be a word.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import overload

REDACTED = "[REDACTED]"
# Shapes of common provider credentials; deliberately broad — a false positive only hides a token.
_KEY_PATTERNS = re.compile(
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{6,}"  # OpenAI, Anthropic (sk-ant-…), many OpenAI-compatible servers
    r"|\bAIza[0-9A-Za-z_\-]{20,}"  # Google
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"  # AWS access key ids
    r"|\b(?:gsk_|hf_|xai-)[A-Za-z0-9]{20,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{8,}"
)
# Environment variables whose values are secrets (AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, OPENAI_API_KEY, …).
_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)", re.IGNORECASE)
# Shorter values are not credentials (a flag, a region) and would hide ordinary words.
MIN_SECRET_CHARS = 8


def env_secrets(env: Mapping[str, str] | None = None) -> list[str]:
    """Values of credential-like variables in `env` (default: this process's environment), longest first
    (so substrings do not win)."""
    env = os.environ if env is None else env
    values = {v for k, v in env.items() if _SECRET_ENV.search(k) and v and len(v) >= MIN_SECRET_CHARS}
    return sorted(values, key=len, reverse=True)


@overload
def redact_exact(text: str, env: Mapping[str, str] | None = None) -> str: ...
@overload
def redact_exact(text: None, env: Mapping[str, str] | None = None) -> None: ...
def redact_exact(text: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """Only the literal secrets from the environment: safe for model output, where 'sk-…' may be prose."""
    if not text:
        return text
    for secret in env_secrets(env):
        text = text.replace(secret, REDACTED)
    return text


@overload
def redact(text: str, env: Mapping[str, str] | None = None) -> str: ...
@overload
def redact(text: None, env: Mapping[str, str] | None = None) -> None: ...
def redact(text: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """`text` with every known (from `env`, default this process's environment) or key-shaped secret
    replaced by :data:`REDACTED`."""
    text = redact_exact(text, env)
    return _KEY_PATTERNS.sub(REDACTED, text) if text else text
