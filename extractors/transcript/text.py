"""Text helpers of the emulated reader: MuPDF structure blocks, prefixes, bullets."""

from __future__ import annotations

from collections.abc import Iterator

from common.list_labels import is_bullet as is_bullet  # the one bullet vocabulary, re-exported
from extractors.structure.content import STRUCT_BLOCK

TEXT_BLOCK = 0  # a MuPDF text block's type


def struct_blocks(blocks: list[dict]) -> Iterator[tuple[str, list[str | int], list[str]]]:
    """(raw type, own text pieces and kid positions, kid raw types) for each MuPDF structure block."""
    stack = [b for b in reversed(blocks) if b.get("type") == STRUCT_BLOCK]
    while stack:
        block = stack.pop()
        pieces: list[str | int] = []
        kid_types: list[str] = []
        kids = block.get("blocks", [])
        for kid in kids:
            if kid.get("type") == STRUCT_BLOCK:
                if block_has_text(kid):
                    pieces.append(len(kid_types))
                    kid_types.append(kid.get("raw") or "")
            elif kid.get("type") == TEXT_BLOCK:
                pieces += ["".join(span["text"] for span in line["spans"]) for line in kid.get("lines", ())]
        yield block.get("raw") or "", pieces, kid_types
        stack += [k for k in reversed(kids) if k.get("type") == STRUCT_BLOCK]


def block_has_text(block: dict) -> bool:
    for kid in block.get("blocks", ()):
        if kid.get("type") == TEXT_BLOCK and any(
                span["text"].strip() for line in kid.get("lines", ()) for span in line["spans"]):
            return True
        if kid.get("type") == STRUCT_BLOCK and block_has_text(kid):
            return True
    return False



def without_spaces(text: str) -> str:
    return "".join(text.split())


def leading(text: str, chars: int) -> str:
    """The start of ``text`` that holds ``chars`` non-space characters."""
    seen = 0
    for i, ch in enumerate(text):
        if seen == chars:
            return text[:i]
        seen += not ch.isspace()
    return text


def trailing(text: str, chars: int) -> str:
    """What follows the first ``chars`` non-space characters of ``text``."""
    return text[len(leading(text, chars)):]


def speakable(text: str) -> bool:
    # A lone "." or "," between two links is not read out; any letter or digit is.
    return any(ch.isalnum() for ch in text)

