"""Shared by the transcript backends: the record schema, limits, the error type and text clean-up."""

from __future__ import annotations

import re
from collections.abc import Callable

from common import backends
from common.registry import Registry

MAX_ENTRIES_PER_PAGE = 400
MAX_TEXT = 300
MAX_ANNOUNCEMENT = 1000  # a whole paragraph is one announcement; a page-long one is cut
TRUNCATED = "… truncated"
AWS_INSTALL = "pip install 'accessbench[aws]'  (boto3>=1.34,<2)"


class TranscriptError(RuntimeError):
    """A transcript backend could not produce a transcript; the message says what to do next.

    ``transient`` is True when the same call may succeed later (throttling, a job still
    running at the deadline); False for configuration or input problems.
    """

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


_SOFT_HYPHEN = re.compile(r"\s*\xad\s*")


def clean_text(text: str) -> str:
    """Whitespace collapsed; a soft hyphen marks where a word was broken across lines, and readers join the word."""
    return " ".join(_SOFT_HYPHEN.sub("", text.replace("\x00", "")).split())


def cut_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


Transcriber = Callable[..., list[dict]]

# The transcript backends by name; each module binds its function with @TRANSCRIBERS.register(name).
TRANSCRIBERS: Registry[list[dict]] = Registry("transcript backend", backends.TRANSCRIPT_BACKENDS)
