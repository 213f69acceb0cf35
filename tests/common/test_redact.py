"""One redaction, one marker: model errors, replies and S3 errors hide secrets the same way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from common.redact import REDACTED, env_secrets, redact, redact_exact
from warehouse import artifact_roots

REPO = Path(__file__).resolve().parents[2]
SECRET = "test-secret-7f3c9a1e-never-written"


def test_known_and_key_shaped_secrets_are_hidden_behind_one_marker() -> None:
    env = {"AWS_SECRET_ACCESS_KEY": SECRET, "AWS_REGION": "us-east-1-long", "API_TOKEN": "short"}
    text = f"denied for {SECRET} in us-east-1-long; key sk-abcdef123456 and AKIAABCDEFGHIJKLMNOP"
    assert redact(text, env) == (f"denied for {REDACTED} in us-east-1-long; key {REDACTED} and {REDACTED}")
    assert env_secrets(env) == [SECRET]  # a region is no secret; a 5-character value is too short to be one


def test_model_output_keeps_key_shaped_prose() -> None:
    env = {"OPENAI_API_KEY": SECRET}
    assert redact_exact(f"use sk-your-key-here, not {SECRET}", env) == f"use sk-your-key-here, not {REDACTED}"
    assert redact_exact(None) is None and redact("") == ""


def test_the_process_environment_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_PASSWORD", SECRET)
    assert redact(f"x {SECRET}") == f"x {REDACTED}"


def test_s3_messages_use_the_same_marker(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(artifact_roots.ArtifactRootError) as caught:
        artifact_roots.parse_s3_url(f"s3://AKIAABCDEFGHIJKLMNOP:{SECRET}@bucket/prefix")
    message = str(caught.value)
    assert SECRET not in message and f"{REDACTED}@bucket" in message


def test_there_is_one_redaction_function() -> None:
    found = {str(path.relative_to(REPO)) for top in ("common", "warehouse", "judges", "extractors", "corpus",
                                                    "tasks", "repairs", "flows", "deployments")
             for path in (REPO / top).rglob("*.py")
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.FunctionDef) and node.name == "redact"}
    assert found == {"common/redact.py"}


def test_credentials_inside_urls_are_redacted_wherever_a_url_appears() -> None:
    from common.redact import hide_url_credentials, redact_urls, reveal_url

    assert redact("failed: http://user:hunter2hunter2@host:8000/v1/chat") == \
        "failed: http://user:[REDACTED]@host:8000/v1/chat"
    assert redact_urls("https://tokentokentoken@gw.example/v1") == "https://[REDACTED]@gw.example/v1"
    assert redact_urls("https://gw.example/v1?api_key=abc123&model=x&sig=zz") == \
        "https://gw.example/v1?api_key=[REDACTED]&model=x&sig=[REDACTED]"
    assert redact_urls("http://bob@host/v1 and a=b") == "http://bob@host/v1 and a=b"  # a user name alone is no secret
    hidden = hide_url_credentials("http://bob:pa%2Fss-word-9@127.0.0.1:9/v1")
    assert hidden == "http://bob:[REDACTED]@127.0.0.1:9/v1"
    assert reveal_url(hidden) == "http://bob:pa%2Fss-word-9@127.0.0.1:9/v1"  # for the transport only
    assert redact_exact("a reply that echoes pa/ss-word-9") == "a reply that echoes [REDACTED]"  # a known secret now
    assert reveal_url("http://carol:[REDACTED]@elsewhere/v1") == "http://carol:[REDACTED]@elsewhere/v1"


def test_a_later_process_gets_an_endpoints_credentials_from_the_environment_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from common.redact import URLS_ENV, reveal_url

    stored = "http://dave:[REDACTED]@rerun.example:8000/v1"  # as runs.config keeps it
    assert reveal_url(stored) == stored
    monkeypatch.setenv(URLS_ENV, "http://dave:another-secret-1@rerun.example:8000/v1")
    assert reveal_url(stored) == "http://dave:another-secret-1@rerun.example:8000/v1"
