"""Each study's stage order is declared once, by name, in a module light enough for `accessbench runs`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tasks.audit.registry import AUDIT_STAGE_LIST
from tasks.benchmark.registry import STAGE_LIST
from warehouse.tables import AUDIT_STAGE_NAMES, BENCHMARK_STAGE_NAMES, in_order


def test_both_pipelines_run_their_stages_in_the_declared_order() -> None:
    assert tuple(s.name for s in STAGE_LIST) == BENCHMARK_STAGE_NAMES
    assert tuple(s.name for s in AUDIT_STAGE_LIST) == AUDIT_STAGE_NAMES


@dataclass(frozen=True)
class _Stage:
    name: str


def test_an_order_that_misses_adds_or_repeats_a_stage_is_refused() -> None:
    stages = [_Stage("b"), _Stage("a")]
    assert [s.name for s in in_order(("a", "b"), stages)] == ["a", "b"]
    for names in (("a",), ("a", "b", "c"), ("a", "b", "b")):
        with pytest.raises(ValueError, match="does not name each of the stages"):
            in_order(names, stages)


# What `runs` has no use for: stages, extractors, judges beyond the CLI's declarations, Prefect, PyMuPDF, model clients.
HEAVY = ("tasks.benchmark.registry", "tasks.audit", "tasks.engine.runner", "tasks.engine.pipeline",
         "tasks.benchmark.extract", "corpus", "extractors",
         "models.client", "models.transport", "models.build", "models.local",  # models.config is light
         "judges.rules", "judges.llm", "prefect", "pymupdf", "litellm", "httpx")


def test_runs_lists_stages_without_importing_any_stage(tmp_path: Path) -> None:
    script = ("import json, sys\nfrom flows.cli.app import main\n"
              "try:\n    main(['--home', sys.argv[1], 'runs', '--format', 'json'])\nexcept SystemExit:\n    pass\n"
              f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({HEAVY!r}))), file=sys.stderr)\n")
    env = {k: v for k, v in os.environ.items() if k != "ACCESSBENCH_HOME"}
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, env=env,
                         timeout=120, check=True)
    assert json.loads(out.stdout) == []  # an empty home: no runs
    assert json.loads(out.stderr.strip().splitlines()[-1]) == []
