"""The numbers of the accessibility standards that more than one layer applies, declared once.

The contrast extractor marks each text span large or normal and passes or fails it against these
ratios; the rules judge (``judges/rules/thresholds.py``), the criteria's checklists, the LLM prompts,
the evidence bundles, the report's outlines and the synthetic corpus all quote them from here.
"""

from __future__ import annotations

# WCAG 2.2 SC 1.4.3 (Contrast, Minimum): normal text needs 4.5:1, large text 3:1.
NORMAL_TEXT_RATIO = 4.5
LARGE_TEXT_RATIO = 3.0
# WCAG 2.2 SC 1.4.11 (Non-text Contrast): graphical objects needed to understand content need 3:1.
GRAPHIC_RATIO = 3.0
# WCAG's large text: at least 18 pt, or at least 14 pt in bold.
LARGE_TEXT_PT = 18.0
LARGE_BOLD_TEXT_PT = 14.0
# The benchmark's floor for body text (the fonts criterion's size sub-criterion).
BODY_FLOOR_PT = 9.0


def is_large_text(size: float, bold: bool) -> bool:
    """WCAG large text: at least 18 pt, or at least 14 pt and bold."""
    return size >= LARGE_TEXT_PT or (bold and size >= LARGE_BOLD_TEXT_PT)


def contrast_rule() -> str:
    """SC 1.4.3 in words, as the checklists and prompts quote it."""
    return (f"at least {NORMAL_TEXT_RATIO:g}:1 for normal text and {LARGE_TEXT_RATIO:g}:1 for large text "
            f"({LARGE_TEXT_PT:g} pt or larger, or {LARGE_BOLD_TEXT_PT:g} pt or larger in bold)")
