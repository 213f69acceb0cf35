"""`lexicon`: an offline, deterministic category judge built on a curated term list.

Coverage means the answer addresses the category's needs: a sentence names the group or condition,
or a support that serves it ("braille signs", "hearing loops", "step-free routes", "an easy-read
version", "a quiet room"), outside a negation or a dismissal ("this isn't about wheelchair users").
A support that serves several categories (easy-read, plain language, a quiet room) names them all where
none of those groups is named beside it, and only the named one where one is ("a quiet room for autistic
visitors" is Sens/Cog's, not Mental's). Depth counts the distinct concrete supports found in the sentences that
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
from judges.inclusivity.lexicon_terms import FALSE_FRIENDS, LEXICON, SHARED_MARKERS, SOURCES

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
    shared: frozenset[str]  # supports that name it only in a sentence that names none of the groups they serve


def _compiled() -> dict[str, _Compiled]:
    out = {}
    for name in CATEGORY_NAMES:
        entry = LEXICON[name]
        supports = tuple((key, _compile(terms)) for key, terms in entry["supports"].items())
        shared = frozenset(key for key, owners in SHARED_MARKERS.items() if name in owners)
        unknown = shared - {key for key, _ in supports}
        if unknown:
            raise ValueError(f"lexicon: {name}'s shared markers {sorted(unknown)} are not among its supports")
        missing = set(entry["supports"]) - set(SOURCES)
        if missing:
            raise ValueError(f"lexicon: {name}'s supports {sorted(missing)} name no source (lexicon_terms.SOURCES)")
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


Span = tuple[int, int]


def _spans(pattern: re.Pattern[str], sentence: str) -> list[Span]:
    """Where a pattern matches outside a negation."""
    return [m.span() for m in pattern.finditer(sentence) if not negated(sentence, m.start())]


def anchor_patterns(name: str) -> tuple[re.Pattern[str], list[tuple[re.Pattern[str], frozenset[str]]]]:
    """The terms that tie a text to category `name` on their own: its mentions and markers; and its shared
    markers, each with the categories it serves, which anchor only a text that names none of those
    (`named_groups`). The embedding judge requires an anchor, or a clear margin."""
    entry = LEXICON[name]
    terms = [*entry["mentions"], *(t for key in entry["markers"] for t in entry["supports"][key])]
    shared = [(_compile(entry["supports"][key]), frozenset(SHARED_MARKERS[key]))
              for key in sorted(_CATEGORIES[name].shared)]
    return _compile(tuple(terms)), shared


def named_groups(text: str) -> set[str]:
    """The categories whose group or condition a text names (not only a support), outside negations."""
    return {name for name in CATEGORY_NAMES if _found(_CATEGORIES[name].mentions, text)}


def _distinct(held: dict[str, list[Span]]) -> set[str]:
    """The supports of one sentence that are distinct: a support found only in words another support of the
    same category already took ("extra time in exams" is one support, not extra time plus an exam arrangement)
    does not count again. The longer, more specific match is kept."""
    kept: set[str] = set()
    taken: list[Span] = []
    for key, at in sorted(held.items(), key=lambda item: (-max(e - s for s, e in item[1]), item[0])):
        if all(any(s < e2 and s2 < e for s2, e2 in taken) for s, e in at):
            continue
        kept.add(key)
        taken.extend(at)
    return kept


def _shared_counts(spans: dict[str, list[Span]], groups: set[str], theirs: list[Span]) -> bool:
    """Whether one of these shared supports stands for all the groups it serves: the sentence names none of them,
    and the words are not a support of a group it does name ("one instruction at a time" beside dementia)."""
    return any(not groups & set(SHARED_MARKERS[key])
               and any(not any(s < e2 and s2 < e for s2, e2 in theirs) for s, e in at)
               for key, at in spans.items())


def blank_false_friends(sentence: str) -> str:
    return _FALSE_FRIENDS.sub(lambda m: " " * len(m.group(0)), sentence)


def judge_text(text: str) -> list[CategoryVerdict]:
    """Verdicts for all nine categories of one response."""
    pieces = [(original, blank_false_friends(judged)) for original, judged in judged_sentences(text)]
    # Per sentence: the categories it names by group or condition, and the supports it holds per category.
    named = [named_groups(s) for _, s in pieces]
    found: list[dict[str, dict[str, list[Span]]]] = [
        {n: {key: at for key, pattern in _CATEGORIES[n].supports if (at := _spans(pattern, s))} for n in CATEGORY_NAMES}
        for _, s in pieces]
    verdicts = []
    for name in CATEGORY_NAMES:
        lex = _CATEGORIES[name]
        snippet: str | None = None
        supports: set[str] = set()
        for (original, _), groups, held in zip(pieces, named, found, strict=True):
            mine = set(held[name])
            shared = {key: at for key, at in held[name].items() if key in lex.shared}
            theirs = [span for g in groups for at in held[g].values() for span in at]
            if name in groups or mine & lex.markers or (shared and _shared_counts(shared, groups, theirs)):
                snippet = snippet or original[:SNIPPET_CHARS]
                supports |= _distinct(held[name])
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
