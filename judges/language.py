"""The natural language of a document's text, told from its function words (no model, no download).

Used by the rules judge (a declared /Lang that disagrees with the text is a finding) and by `accessbench fix`
(a missing /Lang is set from the text only when the guess is confident).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

# The commonest function words of each language (articles, pronouns, prepositions, conjunctions, auxiliaries):
# in running text they are a third or more of the words, and few of them are shared between languages.
STOPWORDS: dict[str, frozenset[str]] = {lang: frozenset(words.split()) for lang, words in {
    "en": "the of and to in is that for it as with was on be by are this which from or an at not have has "
          "were we they their these but can its been also than such more our into other there when where",
    "de": "der die das und den des ist nicht von mit sich auf für dem ein eine einer eines auch als wird werden "
          "bei oder aus nach wie wir sind zum zur durch über noch nur kann diese dieser wurde sie",
    "fr": "le la les et des du un une est que qui dans pour pas sur par au aux avec ce cette ces sont il elle "
          "nous ils mais ou plus être été leur entre comme fait sans peut",
    "es": "el la los las y de del que en un una es por con para se su sus al lo como más pero son fue está "
          "entre sin sobre este esta también ha han muy hay",
    "it": "il lo la gli le e di del della che un una è per con non sono si al nel nella dei delle anche come "
          "più ma questo questa sua suo tra stato essere",
    "nl": "de het een en van in is dat op te voor met zijn niet aan er ook als bij door om maar nog wordt "
          "worden deze dit naar uit kan zij wij hun",
    "pt": "o a os as e de do da dos das que em um uma é para com não por se na no mais mas como foi são ao "
          "pelo pela entre também seu sua está",
    "sv": "och att det som en på är av för med till den har de inte om ett men var jag sig från vi så kan "
          "eller när alla efter också under",
}.items()}
MIN_WORDS = 40  # fewer words than this: too little text to tell


@dataclass(frozen=True)
class LanguageGuess:
    lang: str | None  # the BCP 47 primary tag, or None when the text is too short or the guess too close
    share: float  # of the words that are the language's stopwords
    runner_up: str | None
    runner_up_share: float
    words: int

    @property
    def confident(self) -> bool:
        return self.lang is not None


def detect_language(text: str) -> LanguageGuess:
    """The text's language by stopword counts: the language whose function words make up the largest share
    of the words. Confident only with enough words, a share typical of running text (≥ 0.15) and a clear
    lead (at least twice the runner-up's share); otherwise `lang` is None and the shares say why."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    counts = Counter(words)  # occurrences per word: a language's stopwords are counted, not every word looked up
    shares = sorted(((sum(counts.get(w, 0) for w in stop) / len(words) if words else 0.0, lang)
                     for lang, stop in STOPWORDS.items()), reverse=True)
    (best, lang), (second, runner_up) = shares[0], shares[1]
    confident = len(words) >= MIN_WORDS and best >= 0.15 and best >= 2 * second
    return LanguageGuess(lang if confident else None, best, runner_up, second, len(words))
