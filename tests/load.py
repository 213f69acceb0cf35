"""Bounds on how long something may take, widened on a machine busier than it has cores.

A few tests check a promise about time (SIGTERM stops a run within 15 s, a query within seconds). The
promise is for a machine at normal load; at load 10 on two cores every process gets a sixth of a core,
and the same work takes six times as long. `allowance(s)` is `s` times the 1-minute load average per
core, when that exceeds 1: the bound still catches a wait that does not end (the provider's deadline,
the run's other documents), and the machine's load alone never fails the test.
"""

from __future__ import annotations

import os


def load_factor() -> float:
    """How many runnable processes share each core (1 when there are fewer than cores)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


def allowance(seconds: float) -> float:
    """`seconds` at normal load, more on a busy machine."""
    return seconds * load_factor()
