"""`accessbench sql` reads the tables' specs from a cached index instead of importing every stage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tasks.registry import ALL_TABLES
from tasks.table_index import INDEX_FILE, all_tables, read_index, source_fingerprint, write_index


def _same(found: tuple[object, ...]) -> bool:
    return len(found) == len(ALL_TABLES) and all(
        (a.name, a.stage, a.pattern) == (b.name, b.stage, b.pattern) and a.schema.equals(b.schema, check_metadata=True)
        for a, b in zip(found, ALL_TABLES, strict=True))  # type: ignore[attr-defined]


def test_the_index_holds_every_table_with_its_schema_and_is_rebuilt_when_stale(tmp_path: Path) -> None:
    index = tmp_path / INDEX_FILE
    assert all_tables(tmp_path) is ALL_TABLES and index.is_file()  # the first use imports and writes
    fingerprint = source_fingerprint()
    assert fingerprint == source_fingerprint()
    cached = read_index(index, fingerprint)
    assert cached is not None and cached is not ALL_TABLES and _same(cached)
    assert _same(all_tables(tmp_path))
    assert read_index(index, "sources changed") is None  # stale: the stages are imported again
    write_index(index, "sources changed", ALL_TABLES)
    assert all_tables(tmp_path) is ALL_TABLES and read_index(index, fingerprint) is not None  # and rewritten
    for broken in ("", "{", json.dumps({"version": 1, "fingerprint": fingerprint, "tables": [{"name": "x"}]})):
        index.write_text(broken)
        assert read_index(index, fingerprint) is None
        assert all_tables(tmp_path) is ALL_TABLES
    assert [p.name for p in tmp_path.iterdir()] == [INDEX_FILE]  # no partial file left


HEAVY = ("tasks.registry", "tasks.audit", "tasks.runner", "tasks.extract", "corpus.sampling", "corpus.manifest",
         "corpus.synthetic", "extractors", "models.client", "models.transport", "models.build",
         "judges.rules", "prefect", "pymupdf", "pikepdf", "litellm")
REPORT_MODULES = ("flows.cli.report", "flows.report.audit", "flows.report.data", "flows.report.html",
                  "flows.report.md", "flows.report.text")


@pytest.mark.heavy  # two new interpreters
def test_sql_and_report_with_a_warm_index_import_no_stage(tmp_path: Path) -> None:
    """A query, and the report modules with the tables they read, load no stage, extractor, PyMuPDF or model client
    once the index is warm (the first, cold interpreter imports the stages and writes it)."""
    script = ("import importlib, json, sys\nfrom flows.cli.app import main\n"
              "try:\n    main(['--home', sys.argv[1], 'sql', 'select count(*) as n from judgments', '--format', "
              "'json'])\nexcept SystemExit:\n    pass\n"
              f"for name in {REPORT_MODULES!r}:\n    importlib.import_module(name)\n"
              "from flows.report.warehouse import report_tables\n"
              "print(len(report_tables()), file=sys.stderr)\n"
              "# (pymupdf.layout is None there: common.layout_deferral's placeholder, nothing loaded)\n"
              f"print(json.dumps(sorted(m for m, module in sys.modules.items() if module is not None\n"
              f"                        and m.startswith({HEAVY!r}))), file=sys.stderr)\n")
    (tmp_path / "home").mkdir()
    env = {**{k: v for k, v in os.environ.items() if k != "ACCESSBENCH_HOME"}, "ACCESSBENCH_CACHE": str(tmp_path / "c")}
    runs = [subprocess.run([sys.executable, "-c", script, str(tmp_path / "home")], capture_output=True, text=True,
                           env=env, timeout=120, check=True) for _ in range(2)]
    for run in runs:  # an empty home: the declared, empty table; every table for the report
        assert json.loads(run.stdout) == [{"n": 0}]
        assert run.stderr.strip().splitlines()[-2] == str(len(ALL_TABLES))
    assert "tasks.registry" in json.loads(runs[0].stderr.strip().splitlines()[-1])  # cold: imported, then cached
    assert json.loads(runs[1].stderr.strip().splitlines()[-1]) == []
