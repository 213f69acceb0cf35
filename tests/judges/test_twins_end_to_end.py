"""One defect class per criterion the twin modules cover, through the whole pipeline: the stages (Prefect's
tasks, the warehouse) must give what the in-memory judging of the twin modules gives (`twins.judge_pdfs`),
finding for finding, box for box; and `accessbench sql` counts the run's findings per rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from flows.cli.app import EXIT_OK, main
from tests.extractors.conftest import compile_typst
from tests.judges import test_defect_classes_fonts as fonts
from tests.judges import test_defect_classes_reading_order as reading_order
from tests.judges import test_defect_classes_tables_links as tables_links
from tests.judges import test_defect_classes_tagging as tagging
from tests.judges.twins import judge_pdfs, judge_pdfs_pipeline, remove_sources

pytestmark = pytest.mark.slow
Results = dict[tuple[str, str], dict[str, Any]]

# criterion → (case name, the rule its fail twin raises)
PICKED = {
    "semantic_tagging": ("first_not_h1", "semantic_tagging.heading_nesting.first_not_h1"),
    "logical_reading_order": ("mcid_order", "logical_reading_order.visual_flow.mcid_order"),
    "table_structure": ("header_rows", "table_structure.complex_tables.span_missing"),
    "functional_hyperlinks": ("link_contents", "functional_hyperlinks.descriptiveness.contents_missing"),
    "fonts_readability": ("shifted", "fonts_readability.unicode_mapping.wrong_mapping"),
}


def _write(folder: Path) -> None:
    """The pass and fail twin of each picked case, made as its own module makes them."""
    folder.mkdir(parents=True)
    sources: dict[str, tuple[str, Any]] = {}
    case = next(c for c in tagging.CASES if c.name == PICKED["semantic_tagging"][0])
    sources[case.name] = (case.source, case.edit)
    name, source, edit, _ = next(c for c in reading_order.CASES if c[0] == PICKED["logical_reading_order"][0])
    sources[name] = (source, edit)
    name, edit, _ = next(c for c in fonts.CASES if c[0] == PICKED["fonts_readability"][0])
    sources[name] = (fonts.PAPER, edit)
    for name, (source, edit) in sources.items():
        passed = compile_typst(source, folder / f"{name}-pass.pdf")
        with pikepdf.open(passed) as pdf:
            edit(pdf)
            pdf.save(folder / f"{name}-fail.pdf")
    for wanted in ("table_structure", "functional_hyperlinks"):
        table_case = next(c for c in tables_links.CASES if c.name == PICKED[wanted][0])
        passed = tables_links._compile(table_case, folder / f"{table_case.name}-pass.pdf")
        with pikepdf.open(passed) as pdf:
            table_case.edit(pdf)
            pdf.save(folder / f"{table_case.name}-fail.pdf")
    remove_sources(folder)


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Results, Results]:
    """The run's home, the pipeline's results and the in-memory results of the same files."""
    root = tmp_path_factory.mktemp("twins-end-to-end")
    _write(root / "pdfs")
    piped = judge_pdfs_pipeline(root / "pdfs", root / "home", list(PICKED))
    return root / "home", piped, judge_pdfs(root / "pdfs", root / "work", list(PICKED))


def _shown(issues: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(i.get("rule_id"), i.get("location"), i.get("problem"), i.get("bbox")) for i in issues]


@pytest.mark.parametrize("criterion", list(PICKED))
def test_the_pipeline_judges_the_twins_as_the_in_memory_judge_does(criterion: str, judged: Any) -> None:
    _, piped, in_memory = judged
    name, rule_id = PICKED[criterion]
    passed, failed = piped[(f"{name}-pass.pdf", criterion)], piped[(f"{name}-fail.pdf", criterion)]
    assert passed["label"] == "passed", passed["issues"]
    assert failed["label"] == "failed" and rule_id in {i["rule_id"] for i in failed["issues"]}, failed["issues"]
    for twin in (f"{name}-pass.pdf", f"{name}-fail.pdf"):
        mine = in_memory[(twin, criterion)]
        assert mine["label"] == piped[(twin, criterion)]["label"], (mine, piped[(twin, criterion)])
        assert _shown(mine["issues"]) == _shown(piped[(twin, criterion)]["issues"])


def test_a_table_finding_carries_the_tables_box(judged: Any) -> None:
    _, piped, _ = judged
    (span,) = [i for i in piped[("header_rows-fail.pdf", "table_structure")]["issues"]
               if i["rule_id"] == "table_structure.complex_tables.span_missing"]
    x0, y0, x1, y1 = span["bbox"]
    assert 0 <= x0 < x1 <= 420 and 0 <= y0 < y1 <= 595  # on the 420 × 595 pt page, a real box


def test_sql_counts_the_findings_per_rule(judged: Any, capsys: pytest.CaptureFixture[str]) -> None:
    home, piped, _ = judged
    capsys.readouterr()
    assert main(["--home", str(home), "sql", "select rule_id, count(*) AS n from findings group by all",
                 "--format", "json"]) == EXIT_OK
    counted = {row["rule_id"]: row["n"] for row in json.loads(capsys.readouterr().out)}
    expected: dict[str | None, int] = {}
    for result in piped.values():
        for issue in result["issues"]:
            expected[issue["rule_id"]] = expected.get(issue["rule_id"], 0) + 1
    assert counted == expected and {rule for _, rule in PICKED.values()} <= set(counted)
