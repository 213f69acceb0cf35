"""Per-file results for CI: JUnit XML that parses, SARIF 2.1.0's shape, JSON; one case per file × criterion."""

from __future__ import annotations

import json
import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from flows.report import ci as ci_report
from judges.rules.catalog import catalog

pytestmark = pytest.mark.heavy  # a whole screening run (not in make test-fast)

CRITERIA = ["table_structure", "functional_hyperlinks"]


@pytest.fixture(scope="module")
def screened(tmp_path_factory: pytest.TempPathFactory, synthetic_dataset: Path) -> tuple[Path, Path]:
    """A --pdfs run (rules judge) over four files: a failing and a passing table, an untagged one, and a file
    that is not a PDF at all."""
    from tasks.benchmark.registry import STAGE_LIST
    from tasks.engine.context import RunConfig
    from tasks.engine.runner import execute

    folder = tmp_path_factory.mktemp("pdfs")
    processed = synthetic_dataset / "data" / "processed"
    for label in ("failed", "passed", "cannot_tell"):
        shutil.copy(processed / "table_structure" / label / "SYN0001.pdf", folder / f"table-{label}.pdf")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not a PDF body\n")
    home = tmp_path_factory.mktemp("ci") / "home"
    cfg = RunConfig(home=home, run_id="ci", source="pdfs", source_path=str(folder), criteria=CRITERIA,
                    progress=False, workers=1)
    for stage in STAGE_LIST:
        execute(cfg, stage)
    return home, folder


def test_junit_has_a_test_case_per_file_and_criterion(screened: tuple[Path, Path]) -> None:
    home, folder = screened
    root = ET.fromstring(ci_report.render(home, "ci", "junit").split("\n", 1)[1])  # parses: valid XML
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert sorted(Path(s.get("name") or "").name for s in suites) == sorted(p.name for p in folder.glob("*.pdf"))
    cases = root.iter("testcase")
    names = [(c.get("classname"), c.get("name")) for c in cases]
    assert len(names) == 4 * len(CRITERIA) == int(root.get("tests") or 0)
    assert {name for _, name in names} == set(CRITERIA)
    failing = next(s for s in suites if s.get("name", "").endswith("table-failed.pdf"))
    failure = next(c for c in failing.iter("testcase") if c.get("name") == "table_structure").find("failure")
    assert failure is not None
    rule_ids = (failure.get("type") or "").split(", ")
    assert rule_ids and all(rid in catalog() for rid in rule_ids)  # the catalog's rule ids
    assert rule_ids[0] in (failure.get("message") or "") and "fix:" in (failure.text or "")
    broken = next(s for s in suites if s.get("name", "").endswith("broken.pdf"))
    assert broken.get("errors") == str(len(CRITERIA))  # a file that cannot be read is an error, per criterion
    assert all(c.find("error") is not None for c in broken.iter("testcase"))
    total = {k: sum(int(s.get(k) or 0) for s in suites) for k in ("failures", "errors", "skipped")}
    assert total == {k: int(root.get(k) or 0) for k in total}


def test_sarif_has_the_2_1_0_shape(screened: tuple[Path, Path]) -> None:
    home, folder = screened
    sarif = json.loads(ci_report.render(home, "ci", "sarif"))
    assert sarif["version"] == "2.1.0" and "sarif" in sarif["$schema"]
    (run,) = sarif["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert run["tool"]["driver"]["name"] == "AccessBench" and rules
    ids = [rule["id"] for rule in rules]
    assert len(ids) == len(set(ids))
    assert run["results"]
    for result in run["results"]:
        assert result["ruleId"] == ids[result["ruleIndex"]]
        assert result["level"] in ("error", "warning", "note") and result["message"]["text"]
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.startswith("file://") and Path(uri.removeprefix("file://")).parent == folder.resolve()
    found = [r for r in run["results"] if r["ruleId"] in catalog()]
    assert found and all(r["locations"][0]["properties"]["page"] >= 1 for r in found)  # located by page
    assert any(r["ruleId"] == "accessbench.not_judged" and "broken.pdf" in
               r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"])


def test_json_results_and_the_default_path(screened: tuple[Path, Path]) -> None:
    home, _ = screened
    path = ci_report.write(home, "ci", "json")
    assert path == home / "reports" / "ci.results.json"
    data = json.loads(path.read_text())
    assert len(data["files"]) == 4 and sum(data["summary"].values()) == 4 * len(CRITERIA)
    failed = [r for f in data["files"] for r in f["results"] if r["outcome"] == "failed"]
    assert failed and all(finding["rule_id"] for r in failed for finding in r["findings"])
    with pytest.raises(ValueError, match="junit, sarif, json"):
        ci_report.render(home, "ci", "xml")


@pytest.mark.slow
def test_run_writes_the_results_it_was_asked_for(tmp_path: Path, screened: tuple[Path, Path]) -> None:
    from tests import cli_process

    _, folder = screened
    out = tmp_path / "results.xml"
    env = {**os.environ, "ACCESSBENCH_HOME": str(tmp_path / "home")}
    env.pop("PREFECT_HOME", None)
    done = cli_process.run_cli(("run", "--pdfs", str(folder), "--criteria", "table_structure", "--run-id", "ci",
                                "--report-format", "junit", "--report-out", str(out)), env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"junit results: {out}" in done.stderr
    assert len(list(ET.parse(out).getroot().iter("testcase"))) == 4


def test_report_writes_a_finished_runs_results(screened: tuple[Path, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli.app import main

    home, _ = screened
    from warehouse.store import ArtifactStore

    if ArtifactStore(home).get_run("ci") is None:  # the fixture ran the stages without the run's record
        ArtifactStore(home).record_run({"run_id": "ci", "source": "pdfs", "judge": "rules", "config": "{}",
                                        "status": "completed", "criteria": CRITERIA})
    out = tmp_path / "ci.sarif"
    assert main(["--home", str(home), "report", "--run", "ci", "--format", "sarif", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["version"] == "2.1.0"
    capsys.readouterr()
    assert main(["--home", str(home), "report", "--run", "ci", "--format", "junit"]) == 0
    assert ET.fromstring(capsys.readouterr().out.split("\n", 1)[1]).tag == "testsuites"
