"""A known key is hidden as sent and in the encodings a hostile provider may echo it in."""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import quote, quote_plus

import pytest

from common.redact import REDACTED, redact, redact_exact, secret_forms

KEY = "sk-hostile/KEY+0123=abcdef"
ENV = {"OPENAI_API_KEY": KEY}


def encoded(key: str) -> dict[str, str]:
    raw = key.encode()
    return {
        "literal": key, "base64": base64.b64encode(raw).decode(),
        "base64 unpadded": base64.b64encode(raw).decode().rstrip("="),
        "base64 url-safe": base64.urlsafe_b64encode(raw).decode(),
        "Bearer KEY": base64.b64encode(b"Bearer " + raw).decode(),
        "user:KEY": base64.b64encode(b"user:" + raw).decode(),
        "KEY:": base64.b64encode(raw + b":").decode(),
        "url": quote(key, safe=""), "url plus": quote_plus(key),
        "url lower": re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(), quote(key, safe="")),
        "hex": raw.hex(), "HEX": raw.hex().upper(),
    }


@pytest.mark.parametrize("name", list(encoded(KEY)))
def test_every_encoding_of_the_key_is_hidden(name: str) -> None:
    form = encoded(KEY)[name]
    for hide in (redact_exact, redact):
        text = hide(f"reply: {form} (end)", ENV)
        assert REDACTED in text
        assert form not in text
        # What is left around the marker: the encoded prefix ("Bearer ") and at most a character of the key's
        # bits on each side.
        left = text.replace("reply: ", "").replace(" (end)", "").replace(REDACTED, "")
        assert len(left) <= len(base64.b64encode(b"Bearer ")) + 2, (name, text)


def test_base64_leftovers_do_not_decode_to_the_key() -> None:
    for prefix in (b"Bearer ", b"user:", b"x", b"xy"):
        blob = base64.b64encode(prefix + KEY.encode()).decode()
        text = redact_exact(blob, ENV)
        assert REDACTED in text
        for part in text.split(REDACTED):
            try:
                decoded = base64.b64decode(part + "=" * (-len(part) % 4))
            except binascii.Error:
                continue
            assert KEY.encode()[:4] not in decoded


def test_unrelated_text_and_short_values_are_left_alone() -> None:
    text = "The table has 12 rows; base64 aGVsbG8gd29ybGQ= is 'hello world'."
    assert redact_exact(text, ENV) == text
    assert redact_exact(text, {"SOME_TOKEN": "abc"}) == text  # too short to be a credential
    assert all(len(form) >= 8 for form in secret_forms(KEY))
