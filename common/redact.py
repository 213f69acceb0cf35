"""One redaction for every text we are about to store or show (error messages, raw replies, logs), with one
marker, :data:`REDACTED`.

Providers echo keys back in errors ("Incorrect API key provided: sk-…"), litellm and the S3 client put the
service's message into their exception text, so such strings go through :func:`redact` before they are kept.
Model output goes through :func:`redact_exact`, which hides only the known secrets: in prose "sk-…" may
be a word.

A known secret is hidden as sent *and* in the encodings a hostile provider may echo it in
(:func:`secret_forms`): URL-encoded, hex, and base64 (standard or URL-safe, padded or not) — also where it is
only part of what was encoded, as in base64 of "Bearer KEY" or "user:KEY": any base64 text that contains the
key's bytes contains one of three fixed strings (one per alignment of the key in the 3-byte groups), and
those are what is hidden.

Credentials inside a URL (`http://user:KEY@host/v1`, `?api_key=KEY`) are secrets too. :func:`redact_urls`
hides them wherever a URL appears in text (both redactions call it). An endpoint a user gives
(`--api-base`) is taken apart once, where the option is validated (:func:`hide_url_credentials`): the run
keeps `http://user:[REDACTED]@host/v1`, which is what runs.config, stage_runs, the cache, the call log and
Prefect's flow-run parameters store; the credential becomes a known secret of this process (hidden as
sent and encoded, like an environment key), and only the transport gets the whole URL back
(:func:`reveal_url`). A later process (a rerun) gets it from `ACCESSBENCH_API_BASE_URLS` (whole URLs,
space-separated), never from storage.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import overload
from urllib.parse import quote, quote_plus, unquote

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


# userinfo of a URL: `scheme://user:password@` or `scheme://token@`; query parameters that carry credentials.
_URL_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<user>[^\s/@:?#\[\]]*)"
                           r"(?::(?P<password>[^\s/@?#]*))?@")
_URL_QUERY_SECRET = re.compile(r"(?i)([?&](?:api[_\-]?key|key|token|access[_\-]?token|auth|password|secret|sig|"
                               r"signature|x-amz-signature|x-amz-credential|x-amz-security-token)=)[^&#\s\"'<>]+")
_URL_SECRETS: dict[str, str] = {}  # this process's hidden endpoints: redacted form → whole URL
_KNOWN: set[str] = set()  # credentials taken out of URLs in this process: hidden like environment keys
URLS_ENV = "ACCESSBENCH_API_BASE_URLS"


def env_secrets(env: Mapping[str, str] | None = None) -> list[str]:
    """Values of credential-like variables in `env` (default: this process's environment), and credentials
    taken out of URLs in this process, longest first (so substrings do not win)."""
    env = os.environ if env is None else env
    values = {v for k, v in env.items() if _SECRET_ENV.search(k) and v and len(v) >= MIN_SECRET_CHARS}
    return sorted(values | _KNOWN, key=len, reverse=True)


def _userinfo(match: re.Match[str]) -> str:
    user, password = match["user"], match["password"]
    if password is None:  # `scheme://token@host`: a lone token is a credential, a short user name is not
        return match[0] if len(user) < MIN_SECRET_CHARS else f"{match['scheme']}{REDACTED}@"
    return f"{match['scheme']}{user}:{REDACTED}@" if password and password != REDACTED else match[0]


def redact_urls(text: str) -> str:
    """`text` with the credentials of every URL in it (password, lone-token userinfo, key/token/signature
    query parameters) replaced by :data:`REDACTED`."""
    if "://" not in text and "=" not in text:
        return text
    return _URL_QUERY_SECRET.sub(lambda m: m[1] + REDACTED, _URL_USERINFO.sub(_userinfo, text))


def _credentials(url: str) -> list[str]:
    found = []
    for match in _URL_USERINFO.finditer(url):
        if match["password"] not in (None, "", REDACTED):
            found.append(match["password"])
        elif match["password"] is None and len(match["user"]) >= MIN_SECRET_CHARS:
            found.append(match["user"])
    for match in _URL_QUERY_SECRET.finditer(url):
        found.append(url[match.end(1):match.end()])
    return [value for item in found for value in {item, unquote(item)} if value and value != REDACTED]


def hide_url_credentials(url: str | None) -> str | None:
    """`url` with its credentials redacted; the credentials become known secrets of this process and the whole
    URL stays reachable through :func:`reveal_url` (for the transport only)."""
    if not url:
        return url
    hidden = redact_urls(url)
    if hidden != url:
        _URL_SECRETS[hidden] = url
        _KNOWN.update(value for value in _credentials(url) if len(value) >= MIN_SECRET_CHARS)
        _secrets_pattern.cache_clear()
    return hidden


def reveal_url(url: str | None) -> str | None:
    """The whole URL a redacted endpoint stands for: given in this process, else in $ACCESSBENCH_API_BASE_URLS;
    `url` itself when it has no hidden credentials or none is known."""
    if not url or REDACTED not in url:
        return url
    for whole in os.environ.get(URLS_ENV, "").split():
        hide_url_credentials(whole)
    return _URL_SECRETS.get(url, url)


def _base64_cores(raw: bytes) -> list[str]:
    """For each of the 3 alignments of `raw` in base64's 3-byte groups, the base64 characters that depend on
    `raw` alone: they appear in the base64 of any bytes that contain `raw` at that alignment."""
    cores = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode()
        first = -(-offset * 8 // 6)  # the first character whose 6 bits all come from `raw`
        last = (offset + len(raw)) * 8 // 6  # the characters after this one mix in the bytes that follow
        cores.append(encoded[first:last])
    return cores


@lru_cache(maxsize=256)
def secret_forms(secret: str) -> tuple[str, ...]:
    """`secret` and the encodings of it that are hidden too, longest first (whole encodings before parts)."""
    raw = secret.encode()
    forms = {secret, quote(secret, safe=""), quote(secret), quote_plus(secret), raw.hex(), raw.hex().upper()}
    forms |= {re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(), f) for f in list(forms)}  # %2f as well as %2F
    padded = base64.b64encode(raw).decode()
    for b64 in (padded, padded.rstrip("="), *_base64_cores(raw)):
        forms |= {b64, b64.replace("+", "-").replace("/", "_")}
    return tuple(sorted((f for f in forms if len(f) >= MIN_SECRET_CHARS), key=len, reverse=True))


@lru_cache(maxsize=32)
def _secrets_pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    forms = sorted({form for secret in secrets for form in secret_forms(secret)}, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, forms))) if forms else None


@overload
def redact_exact(text: str, env: Mapping[str, str] | None = None) -> str: ...
@overload
def redact_exact(text: None, env: Mapping[str, str] | None = None) -> None: ...
def redact_exact(text: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """Only the secrets from the environment (as sent and encoded, :func:`secret_forms`): safe for model
    output, where 'sk-…' may be prose."""
    if not text:
        return text
    pattern = _secrets_pattern(tuple(env_secrets(env)))
    text = pattern.sub(REDACTED, text) if pattern is not None else text
    return redact_urls(text)


@overload
def redact(text: str, env: Mapping[str, str] | None = None) -> str: ...
@overload
def redact(text: None, env: Mapping[str, str] | None = None) -> None: ...
def redact(text: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """`text` with every known (from `env`, default this process's environment) or key-shaped secret
    replaced by :data:`REDACTED`."""
    text = redact_exact(text, env)
    return _KEY_PATTERNS.sub(REDACTED, text) if text else text
