"""Where AccessBench keeps its data: `--home`, else $ACCESSBENCH_HOME, else ./.accessbench."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_HOME = ".accessbench"
HOME_ENV = "ACCESSBENCH_HOME"


def resolve_home(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Return the absolute data home; nothing is created here."""
    raw = explicit or os.environ.get(HOME_ENV) or DEFAULT_HOME
    return Path(raw).expanduser().resolve()
