"""Text helpers the category judges share: sentences, whitespace normalisation, snippet checks."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=[\"'(\[A-Z0-9*•-])|\n+\s*(?:[-*•]|\d+[.)])?\s*")
_EDGES = " \t\r\n\"'“”‘’`«»…."


def normalise_ws(text: str) -> str:
    return " ".join(text.split())


def sentences(text: str) -> list[str]:
    """Sentences and list items of a response, in order, without empty pieces."""
    parts = _SENTENCE_END.split(text)
    return [normalise_ws(p) for p in parts if p and p.strip(" -*•\t")]


def snippet_in(snippet: str, response: str) -> bool:
    """Whether `snippet` is quoted from `response` after whitespace normalisation.

    Quotes and ellipses a judge puts around a quotation are not part of it; nothing else is forgiven
    (a paraphrase is not a quotation).
    """
    quoted = normalise_ws(snippet).strip(_EDGES)
    return bool(quoted) and quoted in normalise_ws(response)
