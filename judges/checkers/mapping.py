"""A checker's findings → the benchmark's four labels, through a mapping declared as data per checker.

`judges/checkers/<name>.toml`:

    checker = "outloud"
    fail = ["error"]                    # severities whose findings fail their sub-criterion
    not_present = ["not_applicable"]    # rule outcomes that mean "the element this rule checks is absent"
    [rules]                             # rule id (or a glob: "7.18.*") → "<criterion>.<sub_criterion>"
    "FIG-001" = "alt_text_quality.descriptiveness"
    [absent_when]                       # optional, per criterion: the rules whose outcomes say the element is
    alt_text_quality = ["FIG-001"]      # there or not (default: every rule mapped to the criterion)

or, instead of `[rules]`, ``rules_from = "conformance"``: the rules and their criteria are the `fold` of each
check in the PDF/UA-1 declaration (`judges/rules/catalog/conformance/pdfua1.toml`, `judges.conformance`),
the one declaration of the `page` validator's rules.

A criterion is **failed** when a finding of a rule mapped to it has a failing severity; else **not present**
when the criterion has that label and every one of its `absent_when` rules (default: every rule mapped to it)
that reported an outcome reported one of the `not_present` outcomes; else **passed** (a checker that finds
nothing wrong passes the document: a criterion no rule maps to is passed, and the judgment says so).
**Cannot tell** is the benchmark protocol's alone: a checker reads the file, never the page images, so every
rule mapped to a criterion reads the criterion's ★ evidence; where the protocol withholds it (a Cannot Tell
item) the checker is not run for the document (`needs`), and the judge says Cannot Tell.
"""

from __future__ import annotations

import fnmatch
import hashlib
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from judges.criteria import SPEC
from judges.labels import Label

HERE = Path(__file__).parent
FIELDS = {"checker", "title", "fail", "not_present", "rules", "rules_from", "absent_when"}
SOURCES = ("conformance",)


class MappingError(ValueError):
    """A mapping file that does not say what it must."""


@dataclass(frozen=True)
class Target:
    criterion: str
    sub_criterion: str


@dataclass(frozen=True)
class Mapping:
    checker: str
    title: str
    fail: frozenset[str]
    not_present: frozenset[str]
    rules: dict[str, Target]  # rule id or glob → where its findings count
    absent_when: dict[str, tuple[str, ...]]  # criterion → the rules whose outcomes say whether its element is there
    source: str  # the file it was read from (relative to the package), for the judgment's parameters
    digest: str  # of the mapping as used: a changed mapping is another judge version

    def target(self, rule: str) -> Target | None:
        """Where `rule`'s findings count: its exact entry, else the longest glob that matches it."""
        if rule in self.rules:
            return self.rules[rule]
        globs = [p for p in self.rules if any(ch in p for ch in "*?[") and fnmatch.fnmatchcase(rule, p)]
        return self.rules[max(globs, key=len)] if globs else None

    def criteria(self) -> set[str]:
        return {t.criterion for t in self.rules.values()}

    def needs(self, criterion: str) -> bool:
        """Whether the checker's verdict on `criterion` reads the file's ★ evidence (any rule maps to it)."""
        return criterion in self.criteria()

    def rules_of(self, criterion: str) -> list[str]:
        return sorted(p for p, t in self.rules.items() if t.criterion == criterion)


def _target(where: str, value: Any) -> Target:
    criterion, _, sub = str(value).partition(".")
    if criterion not in SPEC or sub not in SPEC[criterion].sub_names:
        raise MappingError(f"{where}: {value!r} is not <criterion>.<sub_criterion> (criteria: {', '.join(SPEC)})")
    return Target(criterion, sub)


def parse(data: dict[str, Any], source: str) -> Mapping:
    unknown = set(data) - FIELDS
    if unknown:
        raise MappingError(f"{source}: unknown field(s) {sorted(unknown)}; fields: {sorted(FIELDS)}")
    checker = data.get("checker")
    if not isinstance(checker, str) or not checker:
        raise MappingError(f"{source}: needs checker = \"<name>\"")
    fail, absent = data.get("fail"), data.get("not_present", [])
    if not isinstance(fail, list) or not fail or not all(isinstance(s, str) for s in fail):
        raise MappingError(f"{source}: needs fail = [severities whose findings fail], e.g. [\"error\"]")
    if not isinstance(absent, list) or not all(isinstance(s, str) for s in absent):
        raise MappingError(f"{source}: not_present is a list of rule outcomes")
    if ("rules" in data) == ("rules_from" in data):
        raise MappingError(f"{source}: give either [rules] or rules_from = one of {SOURCES}")
    if "rules_from" in data:
        if data["rules_from"] not in SOURCES:
            raise MappingError(f"{source}: rules_from {data['rules_from']!r}; choose one of {SOURCES}")
        from judges.conformance import checks

        raw: dict[str, Any] = {c.page: c.fold for c in checks().values() if c.fold}
    else:
        raw = data["rules"]
        if not isinstance(raw, dict) or not raw:
            raise MappingError(f"{source}: [rules] maps at least one rule id to <criterion>.<sub_criterion>")
    rules = {str(rule): _target(f"{source}: rule {rule!r}", value) for rule, value in raw.items()}
    absent_when = data.get("absent_when", {})
    if not isinstance(absent_when, dict):
        raise MappingError(f"{source}: [absent_when] maps a criterion to a list of its rules")
    for criterion, listed in absent_when.items():
        if not isinstance(listed, list) or not listed or any(
                rules.get(str(r), Target("", "")).criterion != criterion for r in listed):
            raise MappingError(f"{source}: absent_when.{criterion} must list rules [rules] maps to {criterion}")
        if not absent or Label.NOT_PRESENT not in SPEC[criterion].labels:
            raise MappingError(f"{source}: absent_when.{criterion}: {criterion} cannot be not_present here")
    digest = hashlib.sha256(repr((checker, sorted(fail), sorted(absent), sorted(absent_when.items()),
                                  sorted((r, t.criterion, t.sub_criterion) for r, t in rules.items()))).encode())
    return Mapping(checker=checker, title=str(data.get("title") or checker), fail=frozenset(fail),
                   not_present=frozenset(absent), rules=rules,
                   absent_when={c: tuple(str(r) for r in v) for c, v in absent_when.items()}, source=source,
                   digest=digest.hexdigest()[:12])


def load(path: Path) -> Mapping:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise MappingError(f"{path.name}: {exc}") from exc
    mapping = parse(data, f"judges/checkers/{path.name}")
    if mapping.checker != path.stem:
        raise MappingError(f"{path.name}: checker = {mapping.checker!r}, expected {path.stem!r} (the file's name)")
    return mapping


@cache
def mapping_of(checker: str) -> Mapping:
    """The shipped mapping of `checker` (judges/checkers/<checker>.toml)."""
    path = HERE / f"{checker}.toml"
    if not path.is_file():
        raise MappingError(f"checker {checker!r} has no mapping: add judges/checkers/{checker}.toml")
    return load(path)


def document_label(mapping: Mapping, criterion: str, failing: bool, outcomes: dict[str, str]) -> Label:
    """A criterion's label for a document without withheld evidence (see the module's docstring)."""
    if failing:
        return Label.FAILED
    if Label.NOT_PRESENT in SPEC[criterion].labels and mapping.not_present:
        listed = mapping.absent_when.get(criterion)
        known = [outcome for rule, outcome in outcomes.items()
                 if (rule in listed if listed else getattr(mapping.target(rule), "criterion", None) == criterion)]
        if known and all(outcome in mapping.not_present for outcome in known):
            return Label.NOT_PRESENT
    return Label.PASSED
