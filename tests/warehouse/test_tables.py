"""Every table is declared once, in `warehouse.tables`, and each stage writes exactly the tables declared for it;
`accessbench sql` and the reports read them without importing a stage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tasks.audit.registry import AUDIT_STAGE_LIST
from tasks.benchmark.registry import STAGE_LIST
from warehouse.tables import (
    ALL_TABLES,
    AUDIT_STAGE_NAMES,
    BENCHMARK_STAGE_NAMES,
    OTHER_TABLES,
    SHARED,
    SHARED_TABLES,
    STAGE_TABLES,
    tables_of,
)


@pytest.mark.parametrize("stage", [*STAGE_LIST, *AUDIT_STAGE_LIST], ids=lambda s: s.name)
def test_each_stage_writes_the_tables_declared_for_it(stage: object) -> None:
    written = [spec for spec in stage.tables if spec.name not in SHARED]  # type: ignore[attr-defined]
    assert written == list(STAGE_TABLES[stage.name])  # type: ignore[attr-defined]
    assert all(spec.stage == stage.name for spec in written)  # type: ignore[attr-defined]


def test_the_declaration_names_every_stage_and_each_table_once() -> None:
    assert set(STAGE_TABLES) == {*BENCHMARK_STAGE_NAMES, *AUDIT_STAGE_NAMES}
    names = [spec.name for spec in ALL_TABLES]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    assert {*SHARED_TABLES, *OTHER_TABLES} <= set(ALL_TABLES)
    assert [s.name for s in tables_of(["judge"])] == [*(s.name for s in STAGE_TABLES["judge"]), "errors", "llm_calls"]


HEAVY = ("tasks.benchmark.registry", "tasks.benchmark.extract", "tasks.benchmark.judge", "tasks.audit",
         "tasks.engine.runner", "tasks.engine.pipeline", "repairs", "corpus.sampling", "corpus.manifest",
         "corpus.synthetic", "extractors", "models.client", "models.transport", "models.build",
         "judges.rules", "prefect", "pymupdf", "pikepdf", "litellm")
REPORT_MODULES = ("flows.cli.report", "flows.report.audit", "flows.report.data", "flows.report.html",
                  "flows.report.md", "flows.report.text")


@pytest.mark.heavy  # a new interpreter
def test_sql_and_the_report_modules_import_no_stage(tmp_path: Path) -> None:
    """A query, and the report modules with the tables they read, load no stage, extractor, PyMuPDF or model
    client: the tables are declared apart from the stages."""
    script = ("import importlib, json, sys\nfrom flows.cli.app import main\n"
              "try:\n    main(['--home', sys.argv[1], 'sql', 'select count(*) as n from judgments', '--format', "
              "'json'])\nexcept SystemExit:\n    pass\n"
              f"for name in {REPORT_MODULES!r}:\n    importlib.import_module(name)\n"
              f"print(json.dumps(sorted(m for m, module in sys.modules.items() if module is not None\n"
              f"                        and m.startswith({HEAVY!r}))), file=sys.stderr)\n")
    (tmp_path / "home").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ACCESSBENCH_HOME"}
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path / "home")], capture_output=True, text=True,
                         env=env, timeout=120, check=True)
    assert json.loads(run.stdout) == [{"n": 0}]  # an empty home: the declared, empty table
    assert json.loads(run.stderr.strip().splitlines()[-1]) == []
