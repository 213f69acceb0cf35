"""The rules judge's checks, declared as data (like a validation profile).

Each check is declared once, in `judges/rules/catalog/<criterion>.toml`:

    [[rule]]
    id = "semantic_tagging.heading_nesting.level_skip"   # <criterion>.<sub_criterion>.<name>
    title = "Heading levels skip"
    pdfua = "7.4.2"            # PDF/UA-1 clause, where one applies ("" otherwise)
    matterhorn = "14-003"      # Matterhorn Protocol checkpoint, where one exists
    wcag = ["1.3.1"]           # WCAG 2.2 success criteria
    severity = "error"         # error: fails the sub-criterion | warning: reported, fails nothing
                               # | candidate: a semantic suspicion; fails nothing alone, the hybrid
                               #   judge asks its LLM `question` about it and fails it if confirmed
    message = "heading level jumps from H{previous} to H{level}"
    remediation = "retag it as H{expected} so levels never skip"
    remedy = "heading_levels"  # optional: the mechanical repair `accessbench fix` applies (repairs/remedies.py)
    benchmark_severity = ""    # optional: the severity on a labelled benchmark item, where it differs from the one
                               #   a screened file gets (`severity`); "off" drops the finding there

A rule function reports a finding with `finding(rule_id, location, **values)`: the catalog's
templates are filled with `values`, and the Issue carries the rule's id, so every issue row in
`judgments.issues` says which check raised it. `accessbench rules` lists the catalog; a user
switches rules off with `--disable-rule ID` (an id, or a prefix such as `semantic_tagging.heading_nesting`).

A `candidate` rule also declares `question`, a yes/no question whose "yes" confirms the defect (filled
with the same values); its finding carries the question and the facts about the element in
`Issue.context`, and the hybrid judge puts them to its LLM one candidate at a time.
"""

from __future__ import annotations

import string
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from judges.base import Issue
from judges.criteria import SPEC

CATALOG_DIR = Path(__file__).with_name("catalog")
SEVERITIES = ("error", "warning", "candidate")
FIELDS = {"id", "title", "pdfua", "matterhorn", "wcag", "severity", "message", "remediation", "note", "question",
          "remedy", "benchmark_severity"}


class CatalogError(ValueError):
    """A catalog file that does not declare its rules properly."""


@dataclass(frozen=True)
class Rule:
    id: str
    criterion: str
    sub_criterion: str
    title: str
    message: str
    remediation: str
    severity: str = "error"
    pdfua: str = ""
    matterhorn: str = ""
    wcag: tuple[str, ...] = field(default_factory=tuple)
    note: str = ""
    question: str = ""
    remedy: str = ""  # the registered remedy that repairs a finding of this rule (repairs/remedies.py), if any
    # A PDF/UA-1 validator rule folded into a criterion (judges.conformance.py): its id, and its severity on
    # a labelled benchmark item ("" = the same as `severity`; "off" = no finding there).
    conformance: str = ""
    benchmark_severity: str = ""

    def severity_in(self, screening: bool) -> str:
        """error | warning | candidate | off: what a finding of this rule does when screening or benchmarking."""
        return self.severity if screening or not self.benchmark_severity else self.benchmark_severity

    @property
    def placeholders(self) -> set[str]:
        return {name for text in (self.message, self.remediation, self.question)
                for _, name, _, _ in string.Formatter().parse(text) if name}


def _rule(raw: dict[str, Any], source: Path) -> Rule:
    unknown = set(raw) - FIELDS
    if unknown:
        raise CatalogError(f"{source.name}: rule {raw.get('id')!r} has unknown field(s) {sorted(unknown)}")
    for key in ("id", "title", "message", "remediation"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise CatalogError(f"{source.name}: rule {raw.get('id')!r} needs a non-empty {key!r}")
    parts = raw["id"].split(".")
    if len(parts) != 3 or not all(parts):
        raise CatalogError(f"{source.name}: rule id {raw['id']!r} is not <criterion>.<sub_criterion>.<name>")
    criterion, sub, _ = parts
    if criterion != source.stem:
        raise CatalogError(f"{source.name}: rule {raw['id']!r} belongs in {criterion}.toml")
    if criterion not in SPEC or sub not in SPEC[criterion].sub_names:
        raise CatalogError(f"{source.name}: rule {raw['id']!r}: {sub!r} is not a sub-criterion of {criterion!r} "
                           f"({', '.join(SPEC[criterion].sub_names) if criterion in SPEC else 'unknown criterion'})")
    severity = raw.get("severity", "error")
    if severity not in SEVERITIES:
        raise CatalogError(f"{source.name}: rule {raw['id']!r}: severity {severity!r} is not one of {SEVERITIES}")
    if (severity == "candidate") != bool(str(raw.get("question", "")).strip()):
        raise CatalogError(f"{source.name}: rule {raw['id']!r}: a candidate rule needs a 'question' (and only a "
                           "candidate rule has one)")
    benchmark = str(raw.get("benchmark_severity", ""))
    if benchmark and benchmark not in (*SEVERITIES, "off"):
        raise CatalogError(f"{source.name}: rule {raw['id']!r}: benchmark_severity {benchmark!r} is not one of "
                           f"{(*SEVERITIES, 'off')}")
    wcag = raw.get("wcag", [])
    if isinstance(wcag, str):
        wcag = [wcag]
    return Rule(id=raw["id"], criterion=criterion, sub_criterion=sub, title=raw["title"].strip(),
                message=raw["message"].strip(), remediation=raw["remediation"].strip(), severity=severity,
                pdfua=str(raw.get("pdfua", "")), matterhorn=str(raw.get("matterhorn", "")),
                wcag=tuple(str(w) for w in wcag), note=str(raw.get("note", "")).strip(),
                question=str(raw.get("question", "")).strip(), remedy=str(raw.get("remedy", "")).strip(),
                benchmark_severity=benchmark)


def _conformance_rules() -> list[Rule]:
    """The PDF/UA-1 validator's rules that a reader meets, each folded into a criterion (judges.conformance)."""
    from judges.conformance import catalog_rules

    rules = []
    for raw in catalog_rules():
        criterion, sub, _ = raw["id"].split(".")
        rules.append(Rule(id=raw["id"], criterion=criterion, sub_criterion=sub, title=raw["title"],
                          message=raw["message"], remediation=raw["remediation"], severity=raw["severity"],
                          pdfua=raw["pdfua"], matterhorn=raw["matterhorn"], conformance=raw["conformance"],
                          benchmark_severity=raw["benchmark_severity"],
                          note="A PDF/UA-1 conformance rule of the page validator, folded into the criterion."))
    return rules


def load(directory: Path = CATALOG_DIR) -> dict[str, Rule]:
    """Every rule of the catalog files under `directory`, by id (ids are unique across files); the shipped
    catalog also holds the PDF/UA-1 validator rules folded into criteria (catalog/conformance/)."""
    rules: dict[str, Rule] = {rule.id: rule for rule in _conformance_rules()} if directory == CATALOG_DIR else {}
    for source in sorted(directory.glob("*.toml")):
        try:
            data = tomllib.loads(source.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise CatalogError(f"{source.name}: {exc}") from exc
        for raw in data.get("rule", []):
            rule = _rule(raw, source)
            if rule.id in rules:
                raise CatalogError(f"{source.name}: rule id {rule.id!r} is declared twice")
            rules[rule.id] = rule
    return rules


@cache
def catalog() -> dict[str, Rule]:
    """The shipped catalog (loaded once per process)."""
    return load()


def rule(rule_id: str) -> Rule:
    try:
        return catalog()[rule_id]
    except KeyError:
        raise KeyError(f"no rule {rule_id!r} in the rules catalog (judges/rules/catalog/*.toml); "
                       "see: accessbench rules") from None


class _Strict(dict):
    def __missing__(self, key: str) -> str:
        raise KeyError(f"the template needs a value for {{{key}}}")


def finding(rule_id: str, location: str, facts: dict[str, Any] | None = None, bbox: Any = None,
            **values: Any) -> Issue:
    """The Issue a check reports: the catalog's message and remediation filled with `values`. A candidate
    rule's finding also carries its question and `facts` (the element, its neighbours, its style); `bbox`
    is the box of what it is about, where the evidence gives one (PDF points, top left)."""
    spec = rule(rule_id)
    try:
        problem = spec.message.format_map(_Strict(values))
        remediation = spec.remediation.format_map(_Strict(values))
        question = spec.question.format_map(_Strict(values)) if spec.question else ""
    except KeyError as exc:
        raise KeyError(f"rule {rule_id!r}: {exc.args[0]}") from None
    context = {"question": question, "facts": facts or {}} if spec.severity == "candidate" else None
    return Issue(spec.sub_criterion, location, problem, remediation, rule_id=rule_id, bbox=box(bbox),
                 context=context)


def box(value: Any) -> list[float] | None:
    """[x0, y0, x1, y1] rounded to a tenth of a point, or None for anything that is not a box."""
    try:
        numbers = [round(float(v), 1) for v in value][:4] if value is not None else []
    except (TypeError, ValueError):
        return None
    return numbers if len(numbers) == 4 else None


def is_candidate(issue: Issue) -> bool:
    """A finding the hybrid judge's LLM is to confirm or dismiss."""
    return bool(issue.rule_id) and issue.rule_id in catalog() and catalog()[issue.rule_id].severity == "candidate"


def matches(rule_id: str, patterns: frozenset[str] | set[str] | list[str] | tuple[str, ...]) -> bool:
    """Whether `rule_id` is one of `patterns`, or under one of them (`semantic_tagging.heading_nesting`)."""
    return any(rule_id == p or rule_id.startswith(p.rstrip(".") + ".") for p in patterns)


def check_patterns(patterns: list[str] | tuple[str, ...]) -> None:
    """Every pattern names at least one rule of the catalog (a typo must not silently disable nothing)."""
    ids = list(catalog())
    for pattern in patterns:
        if not any(matches(i, [pattern]) for i in ids):
            raise ValueError(f"--disable-rule {pattern!r}: no rule has that id or prefix; see: accessbench rules")
