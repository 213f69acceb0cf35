"""`lexicon`: an offline, deterministic category judge built on a curated term list.

A category is covered when a sentence names it (a condition, a group, or a support that only that
group uses) outside a negation; its depth counts the distinct concrete supports found in the
sentences that name it (see `categories.depth_from_supports`). Idioms such as "blind spot" or
"deaf to criticism" are blanked first. The snippet is the first sentence that names the category.
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
from judges.inclusivity.lexicon_terms import FALSE_FRIENDS, LEXICON
from judges.inclusivity.text import sentences

PROMPT_VERSION = "lexicon-1"
NEGATORS = frozenset({"not", "no", "never", "without", "nor", "neither", "nothing", "none"})
NOT_NEGATING_NEXT = frozenset({"only", "just", "merely", "simply", "matter", "least"})  # "not only", "no matter"
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
    markers: frozenset[str]


def _compiled() -> dict[str, _Compiled]:
    out = {}
    for name in CATEGORY_NAMES:
        entry = LEXICON[name]
        supports = tuple((key, _compile(terms)) for key, terms in entry["supports"].items())
        out[name] = _Compiled(_compile(entry["mentions"]), supports, frozenset(entry["markers"]))
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


def blank_false_friends(sentence: str) -> str:
    return _FALSE_FRIENDS.sub(lambda m: " " * len(m.group(0)), sentence)


def judge_text(text: str) -> list[CategoryVerdict]:
    """Verdicts for all nine categories of one response."""
    pieces = [(s, blank_false_friends(s)) for s in sentences(text)]
    verdicts = []
    for name in CATEGORY_NAMES:
        lex = _CATEGORIES[name]
        snippet: str | None = None
        supports: set[str] = set()
        for original, sentence in pieces:
            found = {key for key, pattern in lex.supports if _found(pattern, sentence)}
            if _found(lex.mentions, sentence) or found & lex.markers:
                snippet = snippet or original[:SNIPPET_CHARS]
                supports |= found
        mentioned = snippet is not None
        verdicts.append(CategoryVerdict(name, mentioned, depth_from_supports(mentioned, len(supports)), snippet))
    return verdicts


class LexiconJudge:
    name = "lexicon"
    model: str | None = None
    prompt_version = PROMPT_VERSION

    def params(self) -> dict[str, Any]:
        return {"negation_window": NEGATION_WINDOW}

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
