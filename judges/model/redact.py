"""Remove API keys from any text we are about to store (error messages, raw replies).

Providers echo keys back in errors ("Incorrect API key provided: sk-…"), and litellm puts the provider's
message into its exception text, so every error string goes through `redact` before it is kept.
"""

from __future__ import annotations

import os
import re

# Shapes of common provider credentials; deliberately broad — a false positive only hides a token.
_KEY_PATTERNS = re.compile(
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{6,}"  # OpenAI, Anthropic (sk-ant-…), many OpenAI-compatible servers
    r"|\bAIza[0-9A-Za-z_\-]{20,}"  # Google
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"  # AWS access key ids
    r"|\b(?:gsk_|hf_|xai-)[A-Za-z0-9]{20,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{8,}"
)
_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)", re.IGNORECASE)
REDACTED = "[REDACTED]"


def _env_secrets() -> list[str]:
    """Values of credential-like environment variables, longest first (so substrings do not win)."""
    values = {v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 8}
    return sorted(values, key=len, reverse=True)


def redact(text: str | None) -> str | None:
    """`text` with every known or key-shaped secret replaced by [REDACTED]."""
    if not text:
        return text
    for secret in _env_secrets():
        text = text.replace(secret, REDACTED)
    return _KEY_PATTERNS.sub(REDACTED, text)


def redact_exact(text: str | None) -> str | None:
    """Only the literal secrets from the environment: safe for model output, where 'sk-…' may be prose."""
    if not text:
        return text
    for secret in _env_secrets():
        text = text.replace(secret, REDACTED)
    return text
