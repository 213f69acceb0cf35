"""Checker judges (`--judge checker:<name>`): the mapping files, the labels they give, the Cannot Tell protocol,
and each adapter on real files (outloud, page, pdfua) or on a stand-in veraPDF that writes veraPDF's XML report."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from judges.checkers import CHECKERS, CheckerRun, Finding, combine, get_checker
from judges.checkers.judge import CheckerJudge, check_checker
from judges.checkers.mapping import HERE, MappingError, mapping_of, parse
from judges.criteria import CRITERIA
from judges.evidence import PageBundle
from judges.labels import Label

MAPPINGS = sorted(p.stem for p in HERE.glob("*.toml"))


def judge_of(name: str, checker: Any = None) -> CheckerJudge:
    return CheckerJudge(checker or get_checker(name), mapping_of(name), "test")


def label(judge: CheckerJudge, criterion: str, run: CheckerRun | None, pages: int = 1) -> list[Label]:
    return [judge.judge_page(PageBundle(criterion, page, {}, checker_run=run), 0).label
            for page in range(1, pages + 1)]


def example_rule(pattern: str) -> str:
    """A rule id the mapping's key names (a glob's first digits filled in)."""
    return pattern.replace("*", "1").replace("?", "1")


# --- the mapping files ------------------------------------------------------------------------------------

def test_every_declared_checker_has_a_mapping_and_every_mapping_a_checker() -> None:
    assert MAPPINGS == CHECKERS.names() == ["outloud", "page", "pdfua", "verapdf"]


@pytest.mark.parametrize("name", MAPPINGS)
def test_a_rule_of_each_criterion_it_declares_fails_that_criterion_and_no_other(name: str) -> None:
    judge = judge_of(name)
    mapping = judge.mapping
    assert mapping.criteria(), f"{name} maps no rule"
    failing = sorted(mapping.fail)[0]
    for criterion in mapping.criteria():
        for key in mapping.rules_of(criterion):
            rule = example_rule(key)
            assert mapping.target(rule) is not None and mapping.target(rule).criterion == criterion
            run = CheckerRun([Finding(rule, failing, "found", page=1)])
            assert label(judge, criterion, run) == [Label.FAILED], (name, rule)
            others = [c for c in CRITERIA if c != criterion]
            assert all(label(judge, c, run) != [Label.FAILED] for c in others), (name, rule)


@pytest.mark.parametrize("name", MAPPINGS)
def test_a_criterion_no_rule_maps_to_is_passed_and_says_why(name: str) -> None:
    judge = judge_of(name)
    uncovered = [c for c in CRITERIA if not judge.needs(c)]
    assert "color_contrast" in uncovered  # none of the four checks contrast
    for criterion in uncovered:
        page = judge.judge_page(PageBundle(criterion, 1, {}, checker_run=CheckerRun()), 0)
        assert page.label is Label.PASSED and "no rule of" in page.summary


def test_outloud_and_pdfua_mappings_name_only_rules_the_checkers_have() -> None:
    from outloud.registry import load_catalogue
    from pdfua import describe_rules

    assert set(mapping_of("outloud").rules) <= set(load_catalogue())
    assert set(mapping_of("pdfua").rules) <= {r.id for r in describe_rules()}


def test_page_mapping_is_the_conformance_declaration_not_a_copy() -> None:
    from judges.conformance import checks

    mapping = mapping_of("page")
    folded = {c.page: c.fold for c in checks().values() if c.fold}
    assert {r: f"{t.criterion}.{t.sub_criterion}" for r, t in mapping.rules.items()} == folded
    assert "[rules]" not in (HERE / "page.toml").read_text() and "rules_from" in (HERE / "page.toml").read_text()


def test_verapdf_mapping_names_rules_of_the_pdfua1_profile() -> None:
    """Against the list of veraPDF's PDF/UA-1 rule identifiers that the pdfua package ships (identifiers only)."""
    import pdfua

    listed = json.loads((Path(pdfua.__file__).parent / "data" / "pdfua1_rules.json").read_text())["rules"]
    ids = {f"{r['clause']}-{r['test']}" for r in listed}
    mapping = mapping_of("verapdf")
    for key in mapping.rules:
        if any(ch in key for ch in "*?["):
            assert any(mapping.target(i) == mapping.rules[key] for i in ids), f"glob {key} matches no rule"
        else:
            assert key in ids, key
    assert mapping.target("7.21.4.1-1") == mapping.target("7.21.4.2-2")  # one glob, both embedding tests


@pytest.mark.parametrize("bad, why", [
    ({"fail": ["error"], "rules": {"X": "alt_text_quality.nonsense"}}, "not <criterion>.<sub_criterion>"),
    ({"fail": [], "rules": {"X": "alt_text_quality.clarity"}}, "needs fail"),
    ({"fail": ["error"]}, "either [rules] or rules_from"),
    ({"fail": ["error"], "rules": {"X": "alt_text_quality.clarity"}, "rules_from": "conformance"}, "either"),
    ({"fail": ["error"], "not_present": ["n/a"], "rules": {"X": "color_contrast.small_text"},
      "absent_when": {"color_contrast": ["X"]}}, "cannot be not_present"),
    ({"fail": ["error"], "not_present": ["n/a"], "rules": {"X": "table_structure.tagging"},
      "absent_when": {"table_structure": ["Y"]}}, "must list rules"),
    ({"fail": ["error"], "rules": {"X": "table_structure.tagging"}, "colour": 1}, "unknown field"),
])
def test_a_mapping_that_does_not_say_what_it_must_is_refused(bad: dict[str, Any], why: str) -> None:
    with pytest.raises(MappingError, match=re.escape(why)):
        parse({"checker": "x", **bad}, "x.toml")


# --- labels -----------------------------------------------------------------------------------------------

def test_findings_fail_only_the_page_they_are_on_and_whole_document_ones_count_on_page_one() -> None:
    judge = judge_of("pdfua")
    on_page_2 = CheckerRun([Finding("UA-13-004", "error", "Figure has no Alt", page=2, location="/Figure")])
    assert label(judge, "alt_text_quality", on_page_2, pages=3) == [Label.PASSED, Label.FAILED, Label.PASSED]
    whole = CheckerRun([Finding("UA-15-003", "error", "table structure", page=None)])
    assert label(judge, "table_structure", whole, pages=2) == [Label.FAILED, Label.PASSED]
    info = CheckerRun([Finding("UA-13-004", "info", "advice", page=1)])
    assert label(judge, "alt_text_quality", info) == [Label.PASSED]


def test_a_failed_page_keeps_the_raw_findings_rule_ids_and_the_checkers_remedy() -> None:
    judge = judge_of("pdfua")
    run = CheckerRun([Finding("UA-13-004", "error", "Figure has no Alt", page=1, location="page 1 /Figure",
                              remedy="give the Figure an /Alt"),
                      Finding("UA-06-001", "error", "no /Lang", page=None)])  # maps nowhere: not in this judgment
    page = judge.judge_page(PageBundle("alt_text_quality", 1, {}, checker_run=run), 0)
    assert page.label is Label.FAILED and page.sub_criteria["descriptiveness"] == "failed"
    (issue,) = page.issues
    assert issue.rule_id == "pdfua:UA-13-004" and issue.remediation == "give the Figure an /Alt"
    assert "page 1 /Figure" in issue.location and "Figure has no Alt" in issue.problem
    assert json.loads(page.raw_response or "") == [{"rule": "UA-13-004", "severity": "error", "page": 1,
                                                    "location": "page 1 /Figure", "message": "Figure has no Alt",
                                                    "count": 1}]


def test_not_present_only_when_the_rules_about_the_element_are_not_applicable() -> None:
    judge = judge_of("outloud")
    absent = CheckerRun(outcomes={"FIG-001": "not_applicable", "FIG-002": "not_applicable", "FIG-011": "pass"})
    assert label(judge, "alt_text_quality", absent, pages=2) == [Label.NOT_PRESENT] * 2
    present = CheckerRun(outcomes={"FIG-001": "pass", "FIG-002": "not_applicable"})
    assert label(judge, "alt_text_quality", present) == [Label.PASSED]
    # reading order has no Not Present label: a rule not applicable there never makes one
    assert label(judge, "logical_reading_order", CheckerRun(outcomes={"ORD-001": "not_applicable"})) == [
        Label.PASSED]
    # page: every declared rule of the criterion decides (its `applies` in the conformance declaration)
    page = judge_of("page")
    rules = page.mapping.rules_of("table_structure")
    assert label(page, "table_structure", CheckerRun(outcomes=dict.fromkeys(rules, "not_applicable"))) == [
        Label.NOT_PRESENT]
    assert label(page, "table_structure", CheckerRun(outcomes={**dict.fromkeys(rules, "not_applicable"),
                                                               rules[0]: "pass"})) == [Label.PASSED]


def test_no_run_is_the_cannot_tell_protocol_and_an_unreadable_file_an_error() -> None:
    judge = judge_of("page")
    page = judge.judge_page(PageBundle("table_structure", 1, {}, checker_run=None), 0)
    assert page.label is Label.CANNOT_TELL and "withheld by the benchmark protocol" in page.summary
    broken = judge.judge_page(PageBundle("table_structure", 1, {}, checker_run=CheckerRun(error="not a PDF")), 0)
    assert broken.error and "not a PDF" in broken.error


def test_a_documents_files_are_numbered_on() -> None:
    first = CheckerRun([Finding("R", "error", "a", page=2)], {"R": "pass", "S": "not_applicable"}, seconds=1.0)
    second = CheckerRun([Finding("R", "error", "b", page=1), Finding("R", "error", "doc")],
                        {"R": "fail", "S": "pass"}, seconds=2.0)
    run = combine([(first, 0), (second, 3)])
    assert [f.page for f in run.findings] == [2, 4, None]
    assert run.outcomes == {"R": "fail", "S": "pass"} and run.seconds == 3.0


def test_checker_judge_is_declared_and_refuses_what_it_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_checker("pdfua", {}) == tuple(CRITERIA)
    with pytest.raises(ValueError, match="name the checker"):
        check_checker(None, {})
    with pytest.raises(ValueError, match="unknown checker 'acrobat'; choose one of outloud, page, pdfua, verapdf"):
        check_checker("acrobat", {})
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ValueError, match=r"^checker:verapdf: veraPDF is not installed .*--checker-path") as raised:
        check_checker("verapdf", {})
    assert "\n" not in str(raised.value)


# --- adapters on real files -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """Files these checkers have never been tuned on: the synthetic benchmark (typst + pikepdf), seed 7."""
    from corpus.synthetic import build_synthetic_benchmark

    root = tmp_path_factory.mktemp("checkers-synthetic")
    build_synthetic_benchmark(root, seed=7, base_docs=1)
    return {(p.parts[-3], p.parts[-2]): p for p in (root / "data" / "processed").glob("*/*/*.pdf")}


def doc_labels(judge: CheckerJudge, path: Path) -> dict[str, Label]:
    """The document label of every criterion, as the judge stage and the aggregate stage would give it."""
    import pikepdf

    from judges.labels import aggregate_labels

    run = judge.run([(str(path), 0)])
    with pikepdf.open(path) as pdf:
        pages = len(pdf.pages)
    return {c: aggregate_labels(judge.judge_page(PageBundle(c, p, {}, checker_run=run), 0).label
                                for p in range(1, pages + 1)) for c in CRITERIA}


@pytest.mark.heavy
def test_page_labels_agree_with_the_validators_own_verdicts(synthetic: dict[tuple[str, str], Path]) -> None:
    """Per file and criterion: failed exactly where page.validate_pdf reports a failure of a rule the declaration
    folds into the criterion; not present only where none of the criterion's declared rules applies."""
    import page

    from judges.conformance import checks

    judge = judge_of("page")
    folds = {c.page: c.criterion for c in checks().values() if c.fold}
    failed_somewhere = set()
    for path in synthetic.values():
        report = page.validate_pdf(str(path), profile="ua1")
        failing = {folds[str(f.rule_id)] for f in report.failures if str(f.rule_id) in folds}
        labels = doc_labels(judge, path)
        for criterion, got in labels.items():
            assert (got is Label.FAILED) == (criterion in failing), (path, criterion, got)
        failed_somewhere |= failing
    assert failed_somewhere  # the defects put in are ones the validator sees


def without_alt(source: Path, out: Path) -> Path:
    """The file with every Figure's /Alt removed: a defect each of the three checkers has a rule for."""
    import pikepdf

    with pikepdf.open(source) as pdf:
        removed = 0
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/S") == pikepdf.Name.Figure and "/Alt" in obj:
                del obj["/Alt"]
                removed += 1
        assert removed
        pdf.save(out)
    return out


@pytest.mark.heavy
@pytest.mark.parametrize("name, rule", [("outloud", "FIG-001"), ("pdfua", "UA-13-004"),
                                        ("page", "PDFUA1-FIGURE-ALTERNATIVE-TEXT-001")])
def test_each_checker_fails_figures_without_alt_and_passes_the_file_they_came_from(
        name: str, rule: str, synthetic: dict[tuple[str, str], Path], tmp_path: Path) -> None:
    judge = judge_of(name)
    passed = synthetic[("alt_text_quality", "passed")]
    failed = without_alt(passed, tmp_path / "no-alt.pdf")
    run = judge.run([(str(failed), 0)])
    assert rule in {f.rule for f in run.findings} and run.version and run.seconds > 0
    assert doc_labels(judge, failed)["alt_text_quality"] is Label.FAILED
    assert doc_labels(judge, passed)["alt_text_quality"] is Label.PASSED


@pytest.mark.heavy
def test_outloud_says_not_present_for_a_document_without_figures(synthetic: dict[tuple[str, str], Path]) -> None:
    labels = doc_labels(judge_of("outloud"), synthetic[("alt_text_quality", "not_present")])
    assert labels["alt_text_quality"] is Label.NOT_PRESENT


# --- veraPDF, through a stand-in that writes its report --------------------------------------------------

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<report>
  <buildInformation><releaseDetails id="core" version="1.26.5" buildDate="2025-01-01"/></buildInformation>
  <jobs><job><item size="100"><name>{path}</name></item>
    <validationReport jobEndStatus="normal" profileName="PDF/UA-1 validation profile" isCompliant="false">
      <details passedRules="104" failedRules="2" passedChecks="900" failedChecks="3">
        <rule specification="ISO 14289-1:2014" clause="7.3" testNumber="1" status="failed" failedChecks="2">
          <description>Figure tags shall include an alternative representation</description>
          <object>SEFigure</object><test>(Alt != null) || ActualText != null</test>
          <check status="failed">
            <context>root/document[0]/pages[1](7 0 obj PDPage)/contentStream[0]/operators[5]</context>
            <errorMessage>Figure structure element has neither an alternate description nor a replacement text
            </errorMessage></check>
        </rule>
        <rule specification="ISO 14289-1:2014" clause="7.21.4.1" testNumber="1" status="failed" failedChecks="1">
          <description>The font programs of all fonts used for rendering shall be embedded</description>
          <check status="failed"><context>root/document[0]/StructTreeRoot/font[0]</context>
            <errorMessage>The font program is not embedded</errorMessage></check>
        </rule>
      </details>
    </validationReport></job></jobs>
</report>
"""


@pytest.fixture()
def stand_in(tmp_path: Path) -> Path:
    """An executable that answers like veraPDF's launcher: --version, and an XML report for a file."""
    (tmp_path / "report.xml").write_text(REPORT)
    script = tmp_path / "verapdf"
    script.write_text(f"""#!{sys.executable}
import pathlib, sys
args = sys.argv[1:]
if args == ["--version"]:
    print("veraPDF 1.26.5\\nBuilt: 2025-01-01")
    sys.exit(0)
pathlib.Path({str(tmp_path / "args.txt")!r}).write_text(" ".join(args))
if "--flavour" not in args or args[args.index("--flavour") + 1] != "ua1" or "xml" not in args:
    sys.exit(7)
report = pathlib.Path({str(tmp_path / "report.xml")!r}).read_text()
sys.stdout.write(report.replace("{{path}}", args[-1]))
sys.exit(1)  # not compliant
""")
    script.chmod(0o755)
    return script


def test_verapdf_stand_in_report_becomes_findings_and_labels(stand_in: Path, tmp_path: Path) -> None:
    assert check_checker("verapdf", {"checker_path": str(stand_in)}) == tuple(CRITERIA)
    from judges.base import get_judge

    # through the judge registry, as --judge checker:verapdf --checker-path builds it
    built = get_judge("checker:verapdf", {"checker_path": str(stand_in)})
    assert isinstance(built, CheckerJudge) and built.model == "verapdf 1.26.5"
    pdf = tmp_path / "document-1.pdf"
    pdf.write_bytes(b"%PDF-1.7\n")
    run = built.run([(str(pdf), 10)])
    assert "--flavour ua1 --format xml" in (tmp_path / "args.txt").read_text()
    assert [(f.rule, f.page) for f in run.findings] == [("7.3-1", 12), ("7.3-1", None), ("7.21.4.1-1", None)]
    assert run.version == "1.26.5" and run.outcomes == {"7.3-1": "fail", "7.21.4.1-1": "fail"}
    assert label(built, "alt_text_quality", run, pages=12)[11] is Label.FAILED
    assert label(built, "fonts_readability", run) == [Label.FAILED]
    assert label(built, "table_structure", run) == [Label.PASSED]


def test_verapdf_that_cannot_validate_is_an_error_run(stand_in: Path, tmp_path: Path) -> None:
    from judges.checkers.verapdf import read_report

    broken = read_report(b"<report><jobs><job><taskException><exceptionMessage>Couldn't parse stream"
                         b"</exceptionMessage></taskException></job></jobs></report>")
    assert broken.error and "Couldn't parse stream" in broken.error
    assert read_report(b"not xml").error
    checker = get_checker("verapdf", {"checker_path": str(stand_in)})
    stand_in.write_text(stand_in.read_text().replace('"ua1"', '"ua2"'))  # now it refuses the arguments: exit 7
    run = checker.check(str(tmp_path / "x.pdf"))
    assert run.error == "veraPDF exited 7"


def test_run_with_verapdf_missing_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str],
                                                         synthetic_dataset: Path) -> None:
    from flows.cli.app import main

    monkeypatch.setenv("PATH", "/nonexistent")
    code = main(["--home", str(tmp_path / "home"), "run", "--dataset", str(synthetic_dataset),
                 "--judge", "checker:verapdf"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "veraPDF is not installed" in err and "--checker-path" in err
    code = main(["--home", str(tmp_path / "home"), "run", "--dataset", str(synthetic_dataset),
                 "--judge", "checker:verapdf", "--checker-path", str(tmp_path / "nope")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "is not an executable file" in err

