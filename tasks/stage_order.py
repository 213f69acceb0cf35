"""The order of each study's stages, by name: the one declaration both pipelines are built in.

Light on purpose (no stage module is imported): `accessbench runs` lists stages from it without importing
every stage, extractor and model client (~0.6 s). `tasks.registry` and `tasks.audit` order their stage
objects by these names and refuse to import when a stage is missing or unknown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

BENCHMARK_STAGE_NAMES: tuple[str, ...] = ("corpus", "render", "layout", "extract", "transcript", "inputs", "judge",
                                          "aggregate", "metrics")
AUDIT_STAGE_NAMES: tuple[str, ...] = ("questions", "responses", "category_judgments", "audit_metrics")


class _Named(Protocol):
    @property
    def name(self) -> str: ...


S = TypeVar("S", bound=_Named)


def in_order(names: Sequence[str], stages: Iterable[S]) -> tuple[S, ...]:
    """`stages` in the order of `names`; every stage named exactly once, or ValueError."""
    by_name = {stage.name: stage for stage in stages}
    if sorted(by_name) != sorted(names) or len(set(names)) != len(names):
        raise ValueError(f"stage order {list(names)} does not name each of the stages {sorted(by_name)} once")
    return tuple(by_name[name] for name in names)
