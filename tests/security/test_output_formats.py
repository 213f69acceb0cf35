"""Every output format is safe to open (issue 53, point 6): file names with terminal controls, a newline,
U+202E or bytes that are not UTF-8 give well-formed JUnit XML, valid UTF-8 JSON and SARIF, a terminal report
with the controls escaped, a report file written whole or not at all, and CSV cells a spreadsheet reads as
text, never as formulas."""

from __future__ import annotations

import json
import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from common.text import csv_cell, visible, write_atomic, xml_text
from flows.cli.app import format_rows
from flows.report import ci as ci_report
from tests.flows.test_cli import cli

pytestmark = pytest.mark.heavy  # a whole screening run (not in make test-fast)

ESCAPE_NAME = "esc\x1b]8;;evil.example\x07link\x1b[2J.pdf"  # an OSC 8 hyperlink and a clear-screen
NEWLINE_NAME = "line\nforged row.pdf"
RLO_NAME = "rlo\u202egnp.pdf"
NOT_UTF8 = os.fsdecode(b"latin-\xe9t\xe9.pdf")  # bytes the file system allows but UTF-8 does not


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory, synthetic_dataset: Path) -> Path:
    from tasks.benchmark.registry import STAGE_LIST
    from tasks.engine.context import RunConfig
    from tasks.engine.runner import execute

    folder = tmp_path_factory.mktemp("pdfs")
    source = synthetic_dataset / "data" / "processed" / "table_structure" / "failed" / "SYN0001.pdf"
    for name in (ESCAPE_NAME, NEWLINE_NAME, RLO_NAME, NOT_UTF8):
        shutil.copy(source, os.path.join(os.fsencode(folder), os.fsencode(name)))
    home = tmp_path_factory.mktemp("out") / "home"
    cfg = RunConfig(home=home, run_id="hostile", source="pdfs", source_path=str(folder),
                    criteria=["table_structure"], progress=False, workers=1)
    for stage in STAGE_LIST:
        execute(cfg, stage)
    from warehouse.store import ArtifactStore

    ArtifactStore(home).record_run({"run_id": "hostile", "source": "pdfs", "judge": "rules", "config": "{}",
                                    "status": "completed", "criteria": ["table_structure"]})
    return home


def test_junit_stays_well_formed_xml(hostile: Path, tmp_path: Path) -> None:
    out = ci_report.write(hostile, "hostile", "junit", tmp_path / "results.xml")
    root = ET.fromstring(out.read_bytes())  # well-formed XML 1.0, or this raises
    names = {suite.get("name") for suite in root.iter("testsuite")}
    assert len(names) == 4 and not any("\x1b" in (n or "") or "\x07" in (n or "") for n in names)
    assert any("\\x1b]8;;evil.example\\x07link" in (n or "") for n in names)
    assert any("latin-\\xe9t\\xe9.pdf" in (n or "") for n in names)  # the bytes, escaped


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_json_and_sarif_are_written_in_utf_8_whatever_the_names(hostile: Path, tmp_path: Path, fmt: str) -> None:
    out = ci_report.write(hostile, "hostile", fmt, tmp_path / f"results.{fmt}")
    data = json.loads(out.read_bytes().decode("utf-8"))  # strict UTF-8: no lone surrogate got through
    text = json.dumps(data, ensure_ascii=False)
    assert "latin-\\\\xe9t\\\\xe9.pdf" in text or "latin-%E9t%E9.pdf" in text


def test_a_failed_write_leaves_the_earlier_file_whole(tmp_path: Path) -> None:
    earlier = tmp_path / "results.json"
    earlier.write_text('{"earlier": true}\n')
    with pytest.raises(UnicodeEncodeError):
        write_atomic(earlier, '{"name": "' + NOT_UTF8 + '"}')
    assert earlier.read_text() == '{"earlier": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]  # no partial file left


def test_the_text_report_shows_terminal_controls_escaped(hostile: Path) -> None:
    shown = cli(hostile, "report", "--run", "hostile")
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout and "\u202e" not in shown.stdout
    assert "\\x1b]8;;evil.example\\x07link" in shown.stdout and "rlo\\u202egnp.pdf" in shown.stdout
    assert "line\\x0aforged row.pdf" in shown.stdout  # the newline cannot start a row of its own
    assert not [line for line in shown.stdout.splitlines() if "forged row.pdf" in line and "line" not in line]
    written = cli(hostile, "report", "--run", "hostile", "--format", "md", "--out", str(hostile / "r.md"))
    assert written.returncode == 0 and "\x1b" not in (hostile / "r.md").read_text(encoding="utf-8")


def test_csv_cells_that_a_spreadsheet_would_run_are_prefixed(tmp_path: Path) -> None:
    rows = [("=HYPERLINK(\"http://evil.example\",\"x\")",), ("+1+1",), ("-2+3",), ("@SUM(A1)",), ("plain",), (-5,)]
    text = format_rows(["t"], rows, "csv", escape=False)
    assert text.splitlines()[1:] == ['"\'=HYPERLINK(""http://evil.example"",""x"")"', "'+1+1", "'-2+3", "'@SUM(A1)",
                                     "plain", "-5"]
    assert format_rows(["t"], rows[:1], "csv", escape=False, raw=True).splitlines()[1].startswith('"=HYPERLINK')
    home = tmp_path / "home"
    cli(home, "run", "--base-docs", "1", "--criteria", "semantic_tagging", "--run-id", "c", check=True)
    out = cli(home, "sql", "select '=1+2' as formula, '@cmd' as at", "--format", "csv").stdout
    assert out.splitlines() == ["formula,at", "'=1+2,'@cmd"]
    raw = cli(home, "sql", "select '=1+2' as formula", "--format", "csv", "--raw").stdout
    assert raw.splitlines() == ["formula", "=1+2"]


def test_one_escaping_function_per_output_kind() -> None:
    assert visible("a\x1b[31mb\tc\nd\u202e") == "a\\x1b[31mb\tc\nd\\u202e"
    assert visible("a\nb\tc", newlines=False) == "a\\x0ab\\x09c"
    assert xml_text("font\x00\x1b\ufffe" + NOT_UTF8) == "font\\x00\\x1b\\ufffelatin-\\xe9t\\xe9.pdf"
    assert [csv_cell(v) for v in ("=x", "+x", "-x", "@x", "\tx", "x", 3)] == \
        ["'=x", "'+x", "'-x", "'@x", "'\tx", "x", 3]
