"""The limits :mod:`extractors.streams` checks a PDF's streams against, and the error it raises.

Apart from the checks, so that a process that only passes limits on (the run's own process, which
never reads a PDF) does not import pikepdf.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.errors import TerminalError

DEFAULT_MAX_STREAM_MB = 256.0
DEFAULT_MAX_DRAWS = 1_000_000  # XObjects drawn by one page once nested forms are expanded
DOCUMENT_FACTOR = 16  # the whole document may decode to this many times the per-stream cap


class StreamLimitError(TerminalError):
    """A stream (or the document's streams together) over a size limit: the document is not read."""

    kind = "limit"

    def __init__(self, detail: str, advice: str = "raise --max-stream-mb to read it") -> None:
        self.detail = detail
        self.advice_text = advice
        super().__init__(f"limit: {detail}; {advice} (a decompression bomb stays refused)")

    def __reduce__(self) -> tuple[type[StreamLimitError], tuple[str, str]]:
        return type(self), (self.detail, self.advice_text)


@dataclass
class StreamLimits:
    max_stream_bytes: int = int(DEFAULT_MAX_STREAM_MB * 2**20)
    max_document_bytes: int | None = None  # default: DOCUMENT_FACTOR x max_stream_bytes
    max_draws: int = DEFAULT_MAX_DRAWS

    @classmethod
    def from_mb(cls, max_stream_mb: float) -> StreamLimits:
        return cls(max_stream_bytes=max(1, int(max_stream_mb * 2**20)))

    @property
    def document_bytes(self) -> int:
        return self.max_document_bytes or self.max_stream_bytes * DOCUMENT_FACTOR
