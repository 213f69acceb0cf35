"""`accessbench run --base-docs N --criteria ...` on the embedded synthetic corpus, its pipeline run in the test
process: the reference rows a test compares a CLI run against, where the CLI and Prefect are not what it checks
(the same stages, settings and worker pool as the CLI's local run, without a new interpreter and a flow run)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def run_synthetic(home: Path, run_id: str, criteria: Sequence[str], base_docs: int = 1) -> None:
    from tasks.benchmark.registry import BENCHMARK
    from tasks.engine.context import RunConfig
    from tasks.engine.options import BenchmarkOptions

    settings = BenchmarkOptions(base_docs=base_docs, criteria=list(criteria)).settings()
    BENCHMARK.run(RunConfig(home=home, run_id=run_id, source="synthetic", source_path=None, criteria=list(criteria),
                            **{**settings, "progress": False}))
