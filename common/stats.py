"""How sure a number is: a 95% interval over items (Wilson score) and an exact paired test (McNemar).

A report's accuracy over 9–12 items moves by 0.08–0.11 with one item; these say by how much it could
move, and whether two judges scored on the same items really differ.
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile: a two-sided 95% interval


def wilson(accuracy: float | None, n: int | None, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion `accuracy` over `n` items (None when there are no items).

    With repeats, `accuracy` is the mean over them and `n` the items of one repeat: the interval is over items,
    the variation the repeats add is the SD reported beside it.
    """
    if accuracy is None or not n:
        return None
    p = min(1.0, max(0.0, float(accuracy)))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # At 0 or 1 one bound is the proportion itself (exactly, not 1 - 1e-16).
    return (0.0 if p == 0 else max(0.0, centre - half)), (1.0 if p == 1 else min(1.0, centre + half))


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: of the items exactly one of two judges got right, `only_a` went to A
    and `only_b` to B; under "no difference" each is a fair coin (binomial, p = 1/2)."""
    discordant = only_a + only_b
    if discordant == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(discordant, i) for i in range(k + 1)) / 2 ** discordant
    return min(1.0, 2 * tail)
