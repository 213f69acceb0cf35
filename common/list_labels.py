"""List labels, one vocabulary for every reader of them: the rules that check a list's tags (judges.rules.tagging),
the repair that declares its ListNumbering (repairs.remedies) and the emulated screen reader (extractors.transcript).

PDF 1.7 (Table 347) names the ListNumbering styles; a label's glyphs show which of them it is consistent with.
"""

from __future__ import annotations

import re

# Glyphs a bulleted list's labels are drawn with (dashes, arrows and check marks included).
BULLETS = frozenset("•◦▪▫■□●○‣⁃∙·⚬◾◽◆◇►▸▹➢➤✓✔❖-–—*")
# The bulleted ListNumbering styles and the glyphs of each. Round bullets count as Disc or Circle alike (exporters
# differ on filled or open, and a screen reader says "bullet" for both); a round bullet under Square, or a square
# one under Disc, is the wrong shape. A dash, an arrow or a check mark promises no style.
GLYPH_STYLES = {"Disc": frozenset("•●∙·◦○⚬"), "Circle": frozenset("•●∙·◦○⚬"), "Square": frozenset("▪■□◾◽▫")}
NUMBERED_STYLES = ("Decimal", "UpperRoman", "LowerRoman", "UpperAlpha", "LowerAlpha")
_ROMAN = re.compile(r"^[ivxlcdm]+$", re.IGNORECASE)


def is_bullet(text: str) -> bool:
    """A label made of bullet glyphs only ("•", "–", "➢")."""
    core = text.replace(" ", "")
    return bool(core) and all(ch in BULLETS for ch in core)


def label_styles(text: str) -> set[str]:
    """The ListNumbering values a label is consistent with (empty when it shows none of them): "•" → Disc or
    Circle, "▪" → Square, "3." → Decimal, "iv)" → LowerRoman, "i." → LowerRoman or LowerAlpha, "B" → UpperAlpha."""
    core = text.strip().strip("()[]").rstrip(".):]")
    if not core:
        return set()
    if len(set(core)) == 1 and any(core[0] in glyphs for glyphs in GLYPH_STYLES.values()):
        return {name for name, glyphs in GLYPH_STYLES.items() if core[0] in glyphs}
    if core.isdigit():
        return {"Decimal"}
    styles = set()
    if _ROMAN.match(core) and (core.islower() or core.isupper()):
        styles.add("LowerRoman" if core.islower() else "UpperRoman")
    if len(core) == 1 and core.isalpha():
        styles.add("LowerAlpha" if core.islower() else "UpperAlpha")
    return styles
