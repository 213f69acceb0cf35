"""Reading model replies as models write them: the JSON object inside whatever surrounds it.

The request stays strict (a JSON schema where the server honours one); the reading is tolerant,
and says what it had to do. `read_json` returns the object and the normalisations applied
(`fenced`: inside a code fence, `prefixed`: after prose, `trailing_text`: followed by prose), so
a caller can record them on the call and count them in the report: nothing is reinterpreted
silently. A reply without any complete object (one cut off by the token limit included) raises
`ReplyError`, whose message is sent back to the model once as a repair request.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|json5|javascript)?[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)


class ReplyError(ValueError):
    """The reply cannot be used; the message says why, in words the model can act on."""


def _objects(candidate: str) -> list[tuple[int, int, dict[str, Any]]]:
    """(start, end, object) for each top-level JSON object that decodes in `candidate`, outermost first."""
    decoder = json.JSONDecoder()
    found: list[tuple[int, int, dict[str, Any]]] = []
    position = 0
    while (start := candidate.find("{", position)) != -1:
        try:
            value, end = decoder.raw_decode(candidate, start)
        except json.JSONDecodeError:
            position = start + 1
            continue
        if isinstance(value, dict):
            found.append((start, end, value))
            position = end
        else:
            position = start + 1
    return found


def read_json(text: str | None) -> tuple[dict[str, Any], list[str]]:
    """The reply's JSON object and the normalisations needed to find it.

    Candidates in order: each fenced block, then the whole text. Within a candidate the largest
    top-level object wins (a model that quotes an example before its answer has its answer read).
    """
    text = text or ""
    fenced = [m.group(1) for m in _FENCE.finditer(text) if m.group(1).strip()]
    for candidate, where in [*((block, "fenced") for block in fenced), (text, "")]:
        objects = _objects(candidate)
        if not objects:
            continue
        start, end, value = max(objects, key=lambda item: item[1] - item[0])
        steps = [where] if where else []
        if not where and candidate[:start].strip():
            steps.append("prefixed")
        if not where and candidate[end:].strip():
            steps.append("trailing_text")
        return value, steps
    raise ReplyError("the reply contains no JSON object; reply with a single JSON object")


def extract_json(text: str | None) -> dict[str, Any]:
    """The reply's JSON object (see `read_json`), without the normalisation record."""
    return read_json(text)[0]


def key_lookup(data: dict[str, Any], *names: str) -> tuple[str | None, Any]:
    """(the key used, its value) for the first of `names` present in `data`, compared without case,
    spaces, hyphens or underscores; (None, None) when none is."""
    folded = {_fold(str(key)): key for key in data}
    for name in names:
        key = folded.get(_fold(name))
        if key is not None:
            return key, data[key]
    return None, None


def _fold(text: str) -> str:
    return re.sub(r"[\s_\-]+", "", text).casefold()


def repair_request(error: ReplyError) -> str:
    """The follow-up message asking the model to correct its reply."""
    return (f"Your reply could not be used: {error}. Reply again with only the corrected JSON object, in "
            "exactly the output format given in the instructions, with no other text.")
