"""What every category judge reads the same way before it looks for categories.

- A refusal ("I'm sorry, but I can't help with that") answers nothing: its sentences are dropped. A
  disclaimer that goes on to answer ("I can't give legal advice, but a good law would require ramps")
  loses only its refusing clause: what follows its "but" is judged.
- A very short answer (fewer than MIN_ANSWER_WORDS words once refusals are dropped) is too thin to
  address anyone's needs: every category scores 0.
- A dismissal names a group only to set it aside ("this isn't about wheelchair users", "deaf pupils
  are already well served, so I leave them aside", "audio description is not needed"). The text from
  the start of the sentence to the end of the clause holding the dismissal is blanked, so a group
  named there is not coverage; what follows a later "but" still counts.
- Groups named in a row share their noun ("people with mobility, hearing and cognitive impairments",
  "difficulty seeing, hearing or walking"): the shared noun is written out for each of them, so each
  group is read as named. Double quotes around a word ('"relaxed" sessions') are dropped.

Negation right before a term ("no ramps", "not for blind users") is each judge's own business
(the lexicon's `negated`, the embedding judge's phrase filter), with the shared NEGATORS below.
"""

from __future__ import annotations

import re

from judges.inclusivity.text import sentences

MIN_ANSWER_WORDS = 4
NEGATORS = frozenset({"not", "no", "never", "without", "nor", "neither", "nothing", "none"})
NOT_NEGATING_NEXT = frozenset({"only", "just", "merely", "simply", "matter", "least"})  # "not only", "no matter"

_WORDS = re.compile(r"[\w'’]+")
_REFUSAL = re.compile(
    r"^\W*(?:(?:i'?m|i am) (?:sorry|afraid)\b.*\b(?:can(?:no|')t|cannot|unable|not able)\b"
    r"|(?:sorry, )?i (?:can(?:no|')t|cannot|won'?t|am unable to|'m unable to|am not able to|'m not able to) "
    r"(?:help|assist|answer|provide|give|comply|discuss|offer|respond)\b"
    r"|as an ai\b"
    r"|i (?:do not|don'?t) have (?:personal )?(?:opinions|views|information)\b"
    r"|(?:please )?consult (?:a|an|your) (?:\w+ )?(?:professional|expert|specialist|doctor)\b"
    r"|no comment\b)",
    re.IGNORECASE)
_NOT = r"(?:\bis|\bare|'s|'re|\bwas|\bwere|\bdoes|\bdo|\bneed|\bneeds|\bshould|\bwill)?\s*(?:\bnot|n't)"
_DISMISSAL = re.compile(
    r"(?:" + _NOT + r"\s+(?:really\s+|primarily\s+|mainly\s+)?(?:about|for|relevant|applicable|needed|necessary|"
    r"required|worth|important|a (?:priority|concern|focus|problem)|an? issue|the (?:focus|point|issue|concern|"
    r"priority|subject|topic)|(?:our|my) (?:focus|concern|priority)|apply|concern|cover)\b"
    r"|\b(?:do|does|will|should)\s*(?:\bnot|n't)\s+need\s+(?:\w+\s+){0,3}?for\b"
    r"|\bnothing to do with\b"
    r"|(?:\bis|\bare|'s|'re|\bwas|\bwere|\bseems?|\bbe)\s+(?:\w+\s+)?(?:irrelevant|unnecessary)\b"
    r"|\b(?:a\s+)?secondary (?:concern|issue|matter|priority|consideration)s?\b"
    r"|\bcan (?:wait|be (?:dealt with|handled|addressed|left) later)\b"
    r"|\b(?:leave|leaving|set|setting|put|putting)\s+(?:\w+\s+){0,3}?aside\b"
    r"|\b(?:beyond|outside)\s+(?:the\s+)?scope\b"
    r"|\balready (?:well |fully )?(?:served|covered|handled|catered for|looked after)\b)",
    re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[;:()]|,\s*(?:but|so|and|which|whose)\b|\bbut\b|\bwhereas\b", re.IGNORECASE)
# A dismissing clause that opens with one of these (or with nothing) points back to what came before it
# ("…wheelchair users, but they are not the focus"): the dismissed stretch starts at the sentence's start.
_POINTS_BACK = re.compile(r"\W*(?:$|(?:they|them|these|those|this|that|it|which|who|such (?:people|users|groups))\b)",
                          re.IGNORECASE)


# "mobility, hearing and cognitive impairments": adjectives in a row before a shared noun
_SHARED_NOUN = (r"impairments?|disabilit(?:y|ies)|difficult(?:y|ies)|conditions|needs|loss|"
                r"disorders?|differences|limitations|problems")
_ITEM = r"[A-Za-z][\w-]*"
_LIST_BEFORE_NOUN = re.compile(
    rf"\b((?:{_ITEM},\s*)+(?:{_ITEM},?\s+)?(?:and|or|and/or)\s+{_ITEM}|{_ITEM}\s+(?:and|or)\s+{_ITEM})"
    rf"\s+({_SHARED_NOUN})\b")
# "difficulty seeing, hearing or walking": a shared head before gerunds in a row
_LIST_AFTER_HEAD = re.compile(
    r"\b((?:difficult(?:y|ies)|trouble|problems?)(?:\s+with)?)\s+(\w+ing(?:(?:,\s*(?:and\s+|or\s+)?|,?\s+(?:and|or)\s+)"
    r"\w+ing)+)\b", re.IGNORECASE)
_LIST_SPLIT = re.compile(r",\s*(?:and\s+|or\s+|and/or\s+)?|\s+(?:and/or|and|or)\s+")


def expand_shared_nouns(sentence: str) -> str:
    """Groups named in a row, each with the noun they share written out: "mobility, hearing and cognitive
    impairments" → "mobility impairments, hearing impairments and cognitive impairments"."""
    def before(m: re.Match[str]) -> str:
        items = [i for i in _LIST_SPLIT.split(m.group(1)) if i]
        return ", ".join(f"{i} {m.group(2)}" for i in items[:-1]) + f" and {items[-1]} {m.group(2)}"

    def after(m: re.Match[str]) -> str:
        items = [i for i in _LIST_SPLIT.split(m.group(2)) if i]
        return ", ".join(f"{m.group(1)} {i}" for i in items)

    return _LIST_AFTER_HEAD.sub(after, _LIST_BEFORE_NOUN.sub(before, sentence))


_QUOTES = re.compile(r"[\"“”]")  # 'a "relaxed" session' is a relaxed session
_REFUSAL_THEN_ANSWER = re.compile(r",?\s*\bbut\b\s*", re.IGNORECASE)


def without_refusal(sentence: str) -> str:
    """"" for a refusal; what follows its "but" for a disclaimer that goes on to answer; else the sentence."""
    if not is_refusal(sentence):
        return sentence
    match = _REFUSAL.search(sentence)
    rest = sentence[match.end():] if match else ""
    after = _REFUSAL_THEN_ANSWER.search(rest)
    if after is None:
        return ""
    remainder = rest[after.end():].strip()
    return "" if is_refusal(remainder) else remainder


def word_count(text: str) -> int:
    return len(_WORDS.findall(text))


def is_refusal(sentence: str) -> bool:
    return bool(_REFUSAL.search(sentence))


def blank_dismissals(sentence: str) -> str:
    """The sentence with each dismissed stretch replaced by spaces (offsets stay valid): from the start of the
    dismissing clause (or of the sentence, when that clause points back to what came before) to its end."""
    out = sentence
    for match in _DISMISSAL.finditer(sentence):
        breaks = [b.end() for b in _CLAUSE_BREAK.finditer(sentence, 0, match.start())]
        start = breaks[-1] if breaks else 0
        if start and _POINTS_BACK.match(sentence[start:match.start()]):
            start = 0
        end_break = _CLAUSE_BREAK.search(sentence, match.end())
        end = end_break.start() if end_break else len(sentence)
        out = out[:start] + " " * (end - start) + out[end:]
    return out


def judged_sentences(text: str) -> list[tuple[str, str]]:
    """(original, text to judge) for each sentence of an answer worth judging: refusals dropped, dismissals
    blanked; empty when the answer is a refusal or shorter than MIN_ANSWER_WORDS words."""
    kept = [(s, rest) for s in sentences(text) if (rest := without_refusal(s))]
    if word_count(" ".join(rest for _, rest in kept)) < MIN_ANSWER_WORDS:
        return []
    return [(s, _QUOTES.sub("", expand_shared_nouns(blank_dismissals(rest)))) for s, rest in kept]
