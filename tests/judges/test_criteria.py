"""Each criterion is declared once, in judges.criteria.SPECS: every per-criterion table elsewhere is derived
from the spec, and no module writes its own copy keyed by criterion names."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from corpus.sampling import ELIGIBLE, PREFERRED
from flows.report.data import REGION_SQL
from flows.report.paper_numbers import CRITERION_NAMES
from judges.criteria import CRITERIA, SPEC, SPECS
from judges.llm.prompts import TEMPLATES, system_prompt
from judges.llm.render import FOCUS
from judges.rules import RULES
from tasks.benchmark.aggregate import TAG_TREE_EVIDENCE

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("judges", "flows", "tasks", "corpus", "extractors", "warehouse", "common", "deployments", "benchmarks",
            "repairs")
# Per-criterion tables that cannot live in the spec, and why. Their keys must still be the spec's.
ALLOWED_COPIES = {
    # The synthetic benchmark's mutations are PDF edits in corpus/, a layer above judges.
    "corpus/mutations/registry.py": "CRITERION_MUTATIONS",
}


def test_every_per_criterion_table_is_built_from_the_spec() -> None:
    assert set(RULES) == set(TEMPLATES) == set(FOCUS) == set(ELIGIBLE) == set(SPEC)
    for spec in SPECS:
        module, _, function = spec.rule.partition(":")
        assert RULES[spec.name] is getattr(importlib.import_module(module), function)
        assert TEMPLATES[spec.name] is spec.prompt
        assert FOCUS[spec.name] is spec.focus_tags
        assert CRITERION_NAMES[spec.paper_name] == spec.name
        # the prose reaches the prompt
        assert spec.prompt.task in system_prompt(spec.name)
        assert all(g in system_prompt(spec.name) for g in spec.prompt.guidelines)
    assert list(CRITERION_NAMES.values()) == [*CRITERIA, "average"]  # the report's row order
    assert {s.name: s.outline_sql for s in sorted(SPECS, key=lambda s: s.outline_rank)
                          if s.outline_sql} == REGION_SQL
    assert {s.name: s.tree_evidence for s in SPECS if s.tree_evidence} == TAG_TREE_EVIDENCE
    assert list(REGION_SQL) == [s.name for s in sorted(SPECS, key=lambda s: s.outline_rank) if s.outline_sql]
    assert set(PREFERRED) == {s.name for s in SPECS if s.sample_prefers}


def test_a_spec_names_evidence_and_screening_features_that_exist() -> None:
    for spec in SPECS:
        if spec.tree_evidence:
            assert spec.tree_evidence in spec.evidence_names, spec.name
        row = {spec.sample_when: 1}
        assert ELIGIBLE[spec.name](row) and not ELIGIBLE[spec.name]({spec.sample_when: 0})


def test_eligibility_follows_the_spec_feature() -> None:
    screened = {"figures": 0, "tagged": True, "text_chars": 120, "tables": 2, "links": 0}
    eligible = {name for name, has in ELIGIBLE.items() if has(screened)}
    assert eligible == {"semantic_tagging", "logical_reading_order", "table_structure", "color_contrast",
                        "fonts_readability"}


def _criterion_keyed_literals(path: Path) -> list[tuple[int, str]]:
    """(line, assigned name) of dict literals with two or more criterion names as keys."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names[id(node.value)] = ", ".join(ast.unparse(t) for t in targets)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            if len(set(keys) & set(CRITERIA)) >= 2:
                found.append((node.lineno, names.get(id(node), "?")))
    return found


def test_no_module_writes_its_own_per_criterion_table() -> None:
    copies = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            relative = str(path.relative_to(REPO))
            if relative == "judges/criteria.py":
                continue
            hits = [(line, name) for line, name in _criterion_keyed_literals(path)
                    if ALLOWED_COPIES.get(relative) != name]
            if hits:
                copies[relative] = hits
    assert not copies, ("per-criterion knowledge belongs in the criterion's entry in judges/criteria.py SPECS "
                        f"(derive the table from it): {copies}")


def test_the_scan_sees_a_hand_written_copy(tmp_path: Path) -> None:
    copy = tmp_path / "copy.py"
    copy.write_text('FOCUS = {"table_structure": {"Table"}, "alt_text_quality": {"Figure"}}\n')
    assert _criterion_keyed_literals(copy) == [(1, "FOCUS")]


def test_allowed_copies_cover_every_criterion() -> None:
    from corpus.mutations.registry import CRITERION_MUTATIONS

    assert set(CRITERION_MUTATIONS) == set(SPEC)
