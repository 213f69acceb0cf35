"""The rules catalog: every check declared once, as data, every finding carrying its rule id; users list the
rules (`accessbench rules`) and switch them off (`--disable-rule`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from judges.criteria import CRITERIA, SPEC
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules import RulesJudge
from judges.rules.catalog import CATALOG_DIR, CatalogError, catalog, finding, load

ROOT = Path(__file__).resolve().parents[2]
CODE = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "judges" / "rules").glob("*.py")))


def test_every_criterion_has_a_catalog_and_every_rule_is_well_formed() -> None:
    rules = catalog()
    assert {r.criterion for r in rules.values()} == set(CRITERIA)
    for rule in rules.values():
        assert rule.sub_criterion in SPEC[rule.criterion].sub_names
        assert rule.severity in ("error", "warning", "candidate")
        assert all(re.fullmatch(r"\d\.\d+(\.\d+)?", sc) for sc in rule.wcag), rule.id
        assert not rule.pdfua or re.fullmatch(r"\d+(\.\d+)*", rule.pdfua), rule.id
        assert not rule.matterhorn or re.fullmatch(r"\d\d-\d\d\d", rule.matterhorn), rule.id


def test_every_rule_is_raised_by_the_code_and_every_raised_id_is_declared() -> None:
    # The PDF/UA-1 validator's folded rules are raised from their declaration (judges/conformance.py), not by name.
    declared = {rule.id for rule in catalog().values() if not rule.conformance}
    ids = re.compile("[\"']((?:" + "|".join(CRITERIA) + r")\.[a-z_]+\.[a-z_0-9]+)[\"']")
    raised = set(ids.findall(CODE))
    assert raised - declared == set(), "finding() ids missing from the catalog"
    assert declared - raised == set(), "catalog rules no check raises"


def test_a_finding_fills_the_catalog_templates_and_refuses_missing_values() -> None:
    issue = finding("semantic_tagging.heading_nesting.level_skip", "Page 2, heading “Results”",
                    previous=1, level=3, expected=2)
    assert issue.rule_id == "semantic_tagging.heading_nesting.level_skip"
    assert issue.sub_criterion == "heading_nesting" and "H1" in issue.problem and "H3" in issue.problem
    assert "H2" in issue.remediation and issue.context is None
    with pytest.raises(KeyError, match="level_skip"):
        finding("semantic_tagging.heading_nesting.level_skip", "Page 2", previous=1)
    with pytest.raises(KeyError, match="accessbench rules"):
        finding("semantic_tagging.no_such.rule", "Page 2")


@pytest.mark.parametrize(("text", "message"), [
    ('[[rule]]\nid = "semantic_tagging.heading_nesting.x"\ntitle = "t"\nmessage = "m"\nremediation = "r"\n'
     'colour = "red"\n', "unknown field"),
    ('[[rule]]\nid = "color_contrast.small_text.x"\ntitle = "t"\nmessage = "m"\nremediation = "r"\n',
     "belongs in color_contrast.toml"),
    ('[[rule]]\nid = "semantic_tagging.no_sub.x"\ntitle = "t"\nmessage = "m"\nremediation = "r"\n',
     "not a sub-criterion"),
    ('[[rule]]\nid = "semantic_tagging.heading_nesting.x"\ntitle = "t"\nmessage = "m"\nremediation = "r"\n'
     'severity = "candidate"\n', "needs a 'question'"),
    ('[[rule]]\nid = "semantic_tagging.heading_nesting.x"\ntitle = "t"\nmessage = "m"\nremediation = "r"\n'
     'severity = "fatal"\n', "severity"),
    ('[[rule]]\nid = "semantic_tagging.heading_nesting.x"\ntitle = "t"\nmessage = "m"\nremediation = "r"\n' * 2,
     "declared twice"),
])
def test_a_malformed_catalog_is_refused_with_the_reason(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "semantic_tagging.toml").write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError, match=message):
        load(tmp_path)
    assert load(CATALOG_DIR) == catalog()


def _skipping_page() -> PageBundle:
    elements = [{"id": 0, "type": "Document"},
                {"id": 1, "parent": 0, "type": "H1", "page": 1, "text": "Introduction"},
                {"id": 2, "parent": 0, "type": "P", "page": 1, "text": "Body text of the introduction."},
                {"id": 3, "parent": 0, "type": "H3", "page": 1, "text": "Details"},
                {"id": 4, "parent": 0, "type": "P", "page": 1, "text": "Body text of the details."}]
    return PageBundle("semantic_tagging", 1, {
        "page_image": {"has_text": True},
        "tag_structure": {"tagged": True, "element_count": 5, "elements": elements,
                          "type_counts": {"Document": 1, "H1": 1, "H3": 1, "P": 2}}})


def test_a_disabled_rule_is_dropped_and_the_page_it_alone_failed_passes() -> None:
    judged = RulesJudge().judge_page(_skipping_page(), 0)
    assert judged.label is Label.FAILED
    assert [i.rule_id for i in judged.issues] == ["semantic_tagging.heading_nesting.level_skip"]
    for pattern in ("semantic_tagging.heading_nesting.level_skip", "semantic_tagging.heading_nesting"):
        off = RulesJudge(disabled=[pattern]).judge_page(_skipping_page(), 0)
        assert off.label is Label.PASSED and not off.issues and off.sub_criteria["heading_nesting"] == "passed"
    with pytest.raises(ValueError, match="no rule has that id or prefix"):
        RulesJudge(disabled=["semantic_tagging.heading_nestin"])


def test_accessbench_rules_lists_the_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli.app import main

    assert main(["rules", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in listed} == set(catalog())
    assert main(["rules", "--criterion", "table_structure", "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("| rule |") and "`table_structure." in md and "semantic_tagging." not in md
    assert main(["rules", "--criterion", "nonsense"]) == 2
    assert "unknown criterion" in capsys.readouterr().err


def test_every_issue_in_the_golden_rules_judgments_carries_a_rule_id() -> None:
    rows = json.loads((ROOT / "tests" / "golden" / "rules_judgments.json").read_text(encoding="utf-8"))
    issues = [i for row in rows for i in row["issues"]]
    assert issues and all(i["rule_id"] in catalog() for i in issues)


def test_a_rule_can_weigh_differently_on_screened_files_and_benchmark_items() -> None:
    from judges.base import PageJudgment
    from judges.labels import Label
    from judges.rules import apply_catalog

    rule_id = "alt_text_quality.descriptiveness.too_terse"
    assert catalog()[rule_id].severity_in(True) == "warning" and catalog()[rule_id].severity_in(False) == "error"

    def judged(screening: bool) -> Label:
        issue = finding(rule_id, "Page 1, figure 1", quoted="alt text “Logo”", words=1, unit="word")
        return apply_catalog(PageJudgment(Label.FAILED, {"descriptiveness": "failed"}, [issue], summary="Page 1: x"),
                             screening=screening).label

    assert judged(screening=False) is Label.FAILED  # the benchmark's experts fail terse alt texts
    assert judged(screening=True) is Label.PASSED  # a screened file: reported, fails nothing


@pytest.mark.parametrize("rule_id", ["fonts_readability.size.below_floor",
                                     "fonts_readability.legibility.crowded_letters",
                                     "fonts_readability.consistency.typeface_rotation",
                                     "color_contrast.small_text.low_contrast_fragments",
                                     "alt_text_quality.descriptiveness.too_terse"])
def test_rules_no_standard_requires_are_warnings_when_screening_and_errors_on_benchmark_items(rule_id: str) -> None:
    """WCAG 2.2 sets no font size floor and no spacing or typeface of a document's own (1.4.4, 1.4.12 ask that a
    reader can change them; 1.4.8 is AAA), and PDF/UA-1 says nothing of them: a screened file that is otherwise
    accessible passes with a warning. The benchmark's experts fail such pages, so there they stay errors."""
    rule = catalog()[rule_id]
    assert (rule.severity_in(True), rule.severity_in(False)) == ("warning", "error")
    assert rule.note.startswith("A warning when screening")
