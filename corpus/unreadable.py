"""What is wrong with a file that does not open as a PDF, from its bytes: said first in its error row, and
the reason a screened file could not be checked (`tasks.benchmark.screening`)."""

from __future__ import annotations

EMPTY, NOT_A_PDF, TRUNCATED, DAMAGED = "empty file", "not a PDF", "truncated", "damaged"
REASONS = (EMPTY, NOT_A_PDF, TRUNCATED, DAMAGED)
FILE_NOTE = " (file: "  # the corpus stage's error rows end by naming the file: "<reason> (file: <name>)"


def without_file_note(message: str) -> str:
    """An error row's message without the file name the corpus stage adds at its end."""
    head, note, _ = message.rpartition(FILE_NOTE)
    return head if note and message.endswith(")") else message


def unreadable_reason(data: bytes) -> str:
    """Empty, not a PDF at all, cut short, or damaged."""
    if not data.strip():
        return EMPTY
    if b"%PDF-" not in data[:1024]:
        return f"{NOT_A_PDF} (it does not start with %PDF-)"
    if b"%%EOF" not in data[-2048:]:
        return f"{TRUNCATED} (no %%EOF at its end: the file was cut short)"
    return DAMAGED
