"""`lexicon`: an offline, deterministic category judge built on a curated term list.

Coverage means the answer addresses the category's needs: a sentence names the group or condition,
or a support that serves it ("braille signs", "hearing loops", "step-free routes", "an easy-read
version", "a quiet room"), outside a negation or a dismissal ("this isn't about wheelchair users").
A support that serves several categories (easy-read, plain language) names them all only where no
group is named beside it. Depth counts the distinct concrete supports found in the sentences that
name the category (see `categories.depth_from_supports`). Idioms such as "blind spot" or "deaf to
criticism" are blanked first; refusals and very short answers cover nothing (`cues`). The snippet is
the first sentence that names the category, so it shows the group or the support that proves it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from judges.inclusivity.base import (
    CATEGORY_JUDGES,
    CategoryVerdict,
    JudgeItem,
    ResponseJudgment,
    register_category_judge,
)
from judges.inclusivity.categories import CATEGORY_NAMES, depth_from_supports
from judges.inclusivity.cues import MIN_ANSWER_WORDS, NEGATORS, NOT_NEGATING_NEXT, judged_sentences
from judges.inclusivity.lexicon_terms import FALSE_FRIENDS, LEXICON, SHARED_MARKERS

PROMPT_VERSION = "lexicon-2"
NEGATION_WINDOW = 3  # words before a term, within its clause
_CLAUSE_BREAK = re.compile(r"[,;:()]|\bbut\b|\bwhile\b|\bwhereas\b", re.IGNORECASE)
_WORD = re.compile(r"[\w']+")
SNIPPET_CHARS = 300


def _compile(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(?:" + "|".join(patterns) + r")(?![\w])", re.IGNORECASE)


@dataclass(frozen=True)
class _Compiled:
    mentions: re.Pattern[str]
    supports: tuple[tuple[str, re.Pattern[str]], ...]
    markers: frozenset[str]  # supports that name the category wherever they appear
    shared: frozenset[str]  # supports that name it only in a sentence that names no group


def _compiled() -> dict[str, _Compiled]:
    out = {}
    for name in CATEGORY_NAMES:
        entry = LEXICON[name]
        supports = tuple((key, _compile(terms)) for key, terms in entry["supports"].items())
        shared = frozenset(SHARED_MARKERS.get(name, ()))
        unknown = shared - {key for key, _ in supports}
        if unknown:
            raise ValueError(f"lexicon: {name}'s shared markers {sorted(unknown)} are not among its supports")
        out[name] = _Compiled(_compile(entry["mentions"]), supports, frozenset(entry["markers"]), shared)
    return out


_CATEGORIES = _compiled()
_FALSE_FRIENDS = _compile(FALSE_FRIENDS)


def negated(sentence: str, start: int) -> bool:
    """Whether a term starting at `start` follows a negation cue within its clause ("no ramps", "not deaf")."""
    clause = _CLAUSE_BREAK.split(sentence[:start])[-1]
    words = [w.lower() for w in _WORD.findall(clause)][-NEGATION_WINDOW:]
    after = [w.lower() for w in _WORD.findall(sentence[start:])][:1]
    for i, word in enumerate(words):
        if word in NEGATORS or word.endswith("n't"):
            following = words[i + 1] if i + 1 < len(words) else (after[0] if after else "")
            if following not in NOT_NEGATING_NEXT:
                return True
    return False


def _found(pattern: re.Pattern[str], sentence: str) -> bool:
    return any(not negated(sentence, m.start()) for m in pattern.finditer(sentence))


def anchor_patterns(name: str) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """The terms that tie a text to category `name` on their own: its mentions and markers, and its shared
    markers (None when it has none), which anchor only a text that names no group (`names_a_group`). The
    embedding judge requires an anchor, or a clear margin."""
    entry = LEXICON[name]
    terms = [*entry["mentions"], *(t for key in entry["markers"] for t in entry["supports"][key])]
    shared = [t for key in SHARED_MARKERS.get(name, ()) for t in entry["supports"][key]]
    return _compile(tuple(terms)), (_compile(tuple(shared)) if shared else None)


def names_a_group(text: str) -> bool:
    """Whether a text names any category's group or condition (not only a support)."""
    return any(_CATEGORIES[name].mentions.search(text) for name in CATEGORY_NAMES)


def blank_false_friends(sentence: str) -> str:
    return _FALSE_FRIENDS.sub(lambda m: " " * len(m.group(0)), sentence)


def judge_text(text: str) -> list[CategoryVerdict]:
    """Verdicts for all nine categories of one response."""
    pieces = [(original, blank_false_friends(judged)) for original, judged in judged_sentences(text)]
    # Per sentence: the categories it names by group or condition, and the supports it holds per category.
    named = [{n for n in CATEGORY_NAMES if _found(_CATEGORIES[n].mentions, s)} for _, s in pieces]
    found = [{n: {key for key, pattern in _CATEGORIES[n].supports if _found(pattern, s)} for n in CATEGORY_NAMES}
             for _, s in pieces]
    verdicts = []
    for name in CATEGORY_NAMES:
        lex = _CATEGORIES[name]
        snippet: str | None = None
        supports: set[str] = set()
        for (original, _), groups, held in zip(pieces, named, found, strict=True):
            mine = held[name]
            if name in groups or mine & lex.markers or (not groups and mine & lex.shared):
                snippet = snippet or original[:SNIPPET_CHARS]
                supports |= mine
        mentioned = snippet is not None
        verdicts.append(CategoryVerdict(name, mentioned, depth_from_supports(mentioned, len(supports)), snippet))
    return verdicts


class LexiconJudge:
    name = "lexicon"
    model: str | None = None
    prompt_version = PROMPT_VERSION

    def params(self) -> dict[str, Any]:
        return {"negation_window": NEGATION_WINDOW, "min_answer_words": MIN_ANSWER_WORDS}

    def judge_many(self, items: list[JudgeItem]) -> list[ResponseJudgment]:
        return [ResponseJudgment(judge_text(item.response)) for item in items]


@CATEGORY_JUDGES.register_check("lexicon")
def _check_lexicon(argument: str | None, options: dict[str, Any]) -> None:
    if argument:
        raise ValueError("the lexicon judge takes no argument: --judges lexicon")


@register_category_judge("lexicon")
def make_lexicon_judge(argument: str | None, options: dict[str, Any]) -> LexiconJudge:
    _check_lexicon(argument, options)
    return LexiconJudge()
