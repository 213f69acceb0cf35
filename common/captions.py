"""Caption labels ("Figure 2:", "Fig. 3", "Table IV.", "Scheme 1"): one grammar for every reader of captions.

A caption starts with a label word, an optional full stop, a number (arabic or roman, with an
optional letter: "2b") and usually a separator. A roman number is apart from the label word
("Table IV", "Fig.ii"), so "graphic" or "Tablexyz" is no label. :data:`LABELS` says which words name which kind
of thing; each reader asks for the kinds it cares about:

- the figures extractor: figure and table captions next to a picture;
- the tables extractor, the layout plan and corpus screening: table captions;
- reading order: any closed label (followed by a separator or nothing: "Figure 2:" or a first
  line "Table 1", not "Figure 2 shows ...");
- the alt-text rules: a figure caption's title without its label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Label word → kind. Longer spellings first, so "figure" is never read as "fig" + "ure".
LABELS: dict[str, str] = {
    "figure": "figure", "fig": "figure", "scheme": "figure", "chart": "figure", "plate": "figure",
    "graph": "figure", "photo": "figure",
    "table": "table", "tab": "table",
    "algorithm": "other", "listing": "other", "exhibit": "other",
}
KINDS = frozenset(LABELS.values())
SEPARATORS = ".:|—–-"

_LABEL = re.compile(
    r"^\s*(?P<label>" + "|".join(sorted(LABELS, key=len, reverse=True)) + r")"
    r"(?:\.\s*|\s+|(?=[0-9]))"  # a roman number needs a stop or space: "graphic" is not "graph i"
    r"(?P<number>[0-9IVX]+[a-z]?)"
    r"(?P<closed>\s*(?:[" + re.escape(SEPARATORS) + r"]|$))?",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w")


@dataclass(frozen=True)
class CaptionLabel:
    """The label at the start of a text: its kind, its number, and where the label (and separator) ends."""

    kind: str  # figure | table | other
    number: str
    closed: bool  # a separator or the end of the text follows the number
    end: int  # after the number, its separator (if any) and the spaces around them
    word_end: bool  # no letter or digit follows the number


def caption_label(text: str, kinds: frozenset[str] | set[str] = KINDS) -> CaptionLabel | None:
    """The caption label ``text`` starts with when its kind is one of ``kinds``, else None."""
    match = _LABEL.match(text)
    if match is None:
        return None
    kind = LABELS[match["label"].lower()]
    if kind not in kinds:
        return None
    end = match.end()
    while end < len(text) and text[end].isspace():
        end += 1
    return CaptionLabel(kind, match["number"], match["closed"] is not None, end,
                        _WORD.match(text, match.end("number")) is None)


def is_caption(text: str, kinds: frozenset[str] | set[str] = KINDS, *, closed: bool = False) -> bool:
    """Does ``text`` start with a caption label of one of ``kinds`` (and, if ``closed``, a separator or nothing)?"""
    label = caption_label(text, kinds)
    return label is not None and (label.closed or not closed)


def is_table_caption(text: str) -> bool:
    """Does ``text`` start with a whole "Table N" label ("Table 2:", "Tab. IV", not "Table 2x" or "Tables")?"""
    label = caption_label(text, {"table"})
    return label is not None and label.word_end


def strip_caption_label(text: str, kinds: frozenset[str] | set[str] = KINDS) -> str:
    """``text`` without the caption label (and separator) it starts with; unchanged when it has none."""
    label = caption_label(text, kinds)
    return text if label is None else text[label.end:]
