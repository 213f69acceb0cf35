"""WCAG 2.2 relative luminance, written once: the contrast extractor, the contrast rules, the synthetic corpus's
colour mutations and the report's charts all compute it here.

Luminance is the sRGB channels linearised (IEC 61966-2-1's 0.04045 knee, as WCAG 2.2 states it) and weighted
0.2126 R + 0.7152 G + 0.0722 B; the contrast ratio of two colours is (L1 + 0.05) / (L2 + 0.05), lighter first.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

WEIGHTS = (0.2126, 0.7152, 0.0722)  # WCAG 2.2 channel weights
KNEE = 0.04045


def linear(c: float) -> float:
    """One sRGB channel (0..1) in linear light."""
    return c / 12.92 if c <= KNEE else ((c + 0.055) / 1.055) ** 2.4


def luminance(rgb: tuple[float, float, float] | list[float]) -> float:
    """The relative luminance of one sRGB colour with channels in 0..1."""
    r, g, b = (linear(float(c)) for c in rgb)
    return WEIGHTS[0] * r + WEIGHTS[1] * g + WEIGHTS[2] * b


def luminance_of_hex(colour: str) -> float:
    """The relative luminance of "#rrggbb"."""
    return luminance([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])


def luminance_array(rgb: Any) -> np.ndarray:
    """Relative luminance of sRGB colours given as 0..255 values in the last axis (numpy, for pixels).

    8-bit values (a page image's pixels) go through `linear_table`: the same arithmetic on each of the 256 values
    once, so the same numbers, ~20x faster than per pixel."""
    import numpy as np

    if isinstance(rgb, np.ndarray) and rgb.dtype == np.uint8:
        return np.asarray(_linear_table()[rgb] @ np.array(WEIGHTS))
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    linear_light = np.where(c <= KNEE, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return np.asarray(linear_light @ np.array(WEIGHTS))


def linear_table() -> np.ndarray:
    """Linear light of each 8-bit channel value 0..255, for look-ups over many pixels."""
    return _linear_table().copy()


@functools.cache
def _linear_table() -> np.ndarray:
    import numpy as np

    srgb = np.arange(256) / 255.0
    return np.asarray(np.where(srgb <= KNEE, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4))
