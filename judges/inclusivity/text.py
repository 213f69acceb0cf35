"""Text helpers the category judges share: sentences, whitespace normalisation, snippet checks."""

from __future__ import annotations

import re

# A sentence ends at . ! ? ; : before a capital, digit, quote or list mark — but not after a list number
# ("1. **Plan early**" is one item) — or at a line break, with the line's list mark dropped.
_SENTENCE_END = re.compile(r"(?<=[.!?;:])(?<!^\d\.)(?<!^\d\d\.)(?<!\s\d\.)(?<!\s\d\d\.)\s+(?=[\"'(\[A-Z0-9*•-])"
                           r"|\n+\s*(?:[-*•]|\d+[.)])?\s*")
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


ECHO_SHINGLE = 5  # words: a run this long shared with the prompt is copied, not written
ECHO_SHARE = 0.6  # a sentence whose runs are mostly the prompt's is an echo of it


def _shingles(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + ECHO_SHINGLE]) for i in range(len(words) - ECHO_SHINGLE + 1)}


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'’-]+", text.casefold())


def without_prompt_echo(response: str, prompts: list[str]) -> tuple[str, int]:
    """The response without the sentences it copied from what it was sent (the system prompt, the question),
    and how many were removed: a model that echoes the accessibility-aware prompt lists every disability
    category without having written a word about any, and no judge may credit that as coverage."""
    shared: set[tuple[str, ...]] = set()
    for prompt in prompts:
        shared |= _shingles(_words(prompt))
    kept, removed = [], 0
    for sentence in sentences(response):
        runs = _shingles(_words(sentence))
        if runs and len(runs & shared) >= ECHO_SHARE * len(runs):
            removed += 1
            continue
        kept.append(sentence)
    return (response if not removed else "\n".join(kept)), removed
