"""The PDF/UA-1 syntax layer in the rules catalog: which validator rules exist, what each enforces, and which
ones a reader meets, as data (`catalog/conformance/pdfua1.toml`).

Three things are derived from the one declaration:

- the `conformance` rows of a document (`conformance_rows`): every rule failed, passed or not applicable, with
  its ISO 14289-1 clause and Matterhorn checkpoint, and the document's verdict (`verdict`);
- a catalog rule per folded check (`catalog_rules`), id `<criterion>.<sub_criterion>.ua1_<rule>`, so that
  `accessbench rules` lists it and `--disable-rule` switches it off like any check of ours;
- the findings the rules judge adds to a criterion's page judgment (judges.rules.conformance_findings).

A folded check's severity depends on what is judged: `severity` when a user screens PDFs, `benchmark` on a
labelled benchmark item (calibrated on the development split; "off" drops the finding there).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from judges.criteria import SPEC

PROFILE = "ua1"
SOURCE = Path(__file__).parent / "rules" / "catalog" / "conformance" / "pdfua1.toml"
SEVERITIES = ("error", "warning", "off")
FIELDS = {"page", "clause", "matterhorn", "title", "applies", "fold", "severity", "benchmark", "remediation"}
FAILURES_PER_RULE = 50  # rows kept per failed rule and file; the last says how many more there were
CONFORMS, DOES_NOT_CONFORM, NOT_CHECKED = "conforms", "does not conform", "not checked"

# The evidence item that carries a criterion's conformance failures to the rules judge (its spec says which).
CARRIER = {name: spec.conformance_evidence for name, spec in SPEC.items() if spec.conformance_evidence}


@dataclass(frozen=True)
class Check:
    page: str  # the validator's rule id
    clause: str
    title: str
    remediation: str
    applies: tuple[str, ...]
    fold: str = ""  # "<criterion>.<sub_criterion>", or "" (syntax only)
    matterhorn: str = ""
    severity: str = "error"  # of the folded finding when screening
    benchmark: str = "warning"  # of the folded finding on a labelled benchmark item

    @property
    def criterion(self) -> str:
        return self.fold.partition(".")[0]

    @property
    def rule_id(self) -> str:
        """The catalog id of the folded finding ("" for a syntax-only check)."""
        if not self.fold:
            return ""
        name = self.page.lower().removeprefix("pdfua1-").removesuffix("-001").replace("-", "_")
        return f"{self.fold}.ua1_{name}"


class ConformanceCatalogError(ValueError):
    """A conformance declaration that does not say what it must."""


def _check(raw: dict[str, Any]) -> Check:
    unknown = set(raw) - FIELDS
    where = f"{SOURCE.name}: check {raw.get('page')!r}"
    if unknown:
        raise ConformanceCatalogError(f"{where} has unknown field(s) {sorted(unknown)}")
    for key in ("page", "clause", "title", "remediation"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise ConformanceCatalogError(f"{where} needs a non-empty {key!r}")
    applies = raw.get("applies")
    if not isinstance(applies, list) or not applies:
        raise ConformanceCatalogError(f"{where} needs 'applies' (a list: '*', structure types or '@features')")
    fold = str(raw.get("fold", ""))
    if fold:
        criterion, _, sub = fold.partition(".")
        if criterion not in SPEC or sub not in SPEC[criterion].sub_names:
            raise ConformanceCatalogError(f"{where}: fold {fold!r} is not <criterion>.<sub_criterion>")
        if criterion not in CARRIER:
            raise ConformanceCatalogError(f"{where}: {criterion} has no evidence that carries conformance findings")
    severity, benchmark = str(raw.get("severity", "error")), str(raw.get("benchmark", "warning"))
    if severity not in SEVERITIES or benchmark not in SEVERITIES:
        raise ConformanceCatalogError(f"{where}: severity and benchmark are each one of {SEVERITIES}")
    return Check(page=raw["page"], clause=raw["clause"], title=raw["title"].strip(),
                 remediation=raw["remediation"].strip(), applies=tuple(str(a) for a in applies), fold=fold,
                 matterhorn=str(raw.get("matterhorn", "")), severity=severity, benchmark=benchmark)


def load(source: Path = SOURCE) -> dict[str, Check]:
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConformanceCatalogError(f"{source.name}: {exc}") from exc
    found: dict[str, Check] = {}
    for raw in data.get("check", []):
        check = _check(raw)
        if check.page in found:
            raise ConformanceCatalogError(f"{source.name}: check {check.page!r} is declared twice")
        found[check.page] = check
    return found


@cache
def checks() -> dict[str, Check]:
    """The shipped declaration, by the validator's rule id."""
    return load()


def by_catalog_id() -> dict[str, Check]:
    return {c.rule_id: c for c in checks().values() if c.fold}


def catalog_rules() -> list[dict[str, Any]]:
    """The catalog entries of the folded checks (judges.rules.catalog builds its Rule objects from them)."""
    return [{"id": c.rule_id, "title": c.title, "pdfua": c.clause, "matterhorn": c.matterhorn,
             "severity": c.severity if c.severity != "off" else "warning", "benchmark_severity": c.benchmark,
             "conformance": c.page,
             "message": f"PDF/UA-1 {c.clause} ({c.page}): {c.title[0].lower()}{c.title[1:]}{{detail}}",
             "remediation": c.remediation} for c in checks().values() if c.fold]


# ---- the conformance table ----------------------------------------------------------------------------------

def applicable(check: Check, present: set[str]) -> bool:
    """Whether a rule applies to a document that has these structure types and "@…" features."""
    return "*" in check.applies or any(token in present for token in check.applies)


def conformance_rows(doc_id: str, file_index: int, failures: Iterable[dict[str, Any]], error: str | None,
                     present: set[str]) -> list[dict[str, Any]]:
    """One row per failure (up to FAILURES_PER_RULE per rule) and one per declared rule that did not fail."""
    base = {"doc_id": doc_id, "file_index": file_index, "profile": PROFILE}
    declared = checks()
    if error is not None:
        return [{**base, "rule_id": "*", "clause": None, "matterhorn": None, "status": "not_checked",
                 "object_id": None, "page": None, "message": error, "fold": None}]
    by_rule: dict[str, list[dict[str, Any]]] = {}
    for failure in failures:
        by_rule.setdefault(failure["rule_id"], []).append(failure)
    rows: list[dict[str, Any]] = []
    for rule_id, found in sorted(by_rule.items()):
        check = declared.get(rule_id)
        for n, failure in enumerate(found[:FAILURES_PER_RULE]):
            message = failure.get("message") or ""
            if n == FAILURES_PER_RULE - 1 and len(found) > FAILURES_PER_RULE:
                message += f" (and {len(found) - FAILURES_PER_RULE} more failures of this rule)"
            rows.append({**base, "rule_id": rule_id, "clause": check.clause if check else None,
                         "matterhorn": (check.matterhorn or None) if check else None, "status": "failed",
                         "object_id": failure.get("object_id"), "page": failure.get("page"), "message": message,
                         "fold": check.fold if check else ""})
    for rule_id, check in declared.items():
        if rule_id not in by_rule:
            rows.append({**base, "rule_id": rule_id, "clause": check.clause, "matterhorn": check.matterhorn or None,
                         "status": "passed" if applicable(check, present) else "not_applicable",
                         "object_id": None, "page": None, "message": None, "fold": check.fold})
    return rows


@cache
def human_checkpoints() -> list[dict[str, str]]:
    """The Matterhorn checkpoints that need a person ([[human]] in the declaration)."""
    data = tomllib.loads(SOURCE.read_text(encoding="utf-8"))
    return [{"matterhorn": str(h["matterhorn"]), "clause": str(h["clause"]), "title": str(h["title"])}
            for h in data.get("human", [])]


def checkpoint_view(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """A document's conformance per Matterhorn checkpoint, as veraPDF and PAC show it: failed (with its rules and
    failure count), passed, not applicable, or needs a person. Rules without a checkpoint of their own are
    grouped under their ISO 14289-1 clause."""
    declared = checks()
    groups: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.get("status") == "not_checked":
            return []
        check = declared.get(row["rule_id"])
        key = (row.get("matterhorn") or "") or f"clause {row.get('clause') or '?'}"
        group = groups.setdefault(key, {"checkpoint": key, "clause": row.get("clause") or "", "statuses": set(),
                                        "rules": set(), "failures": 0, "title": check.title if check else ""})
        group["statuses"].add(row["status"])
        if row["status"] == "failed":
            group["failures"] += 1
            group["rules"].add(row["rule_id"])
    out = []
    for group in groups.values():
        statuses = group.pop("statuses")
        status = "failed" if "failed" in statuses else "passed" if "passed" in statuses else "not applicable"
        out.append({**group, "status": status, "rules": sorted(group["rules"])})
    if out:
        out += [{"checkpoint": h["matterhorn"], "clause": h["clause"], "title": h["title"], "status": "needs a person",
                 "rules": [], "failures": 0} for h in human_checkpoints() if h["matterhorn"] not in groups]
    order = {"failed": 0, "needs a person": 1, "passed": 2, "not applicable": 3}
    return sorted(out, key=lambda g: (order[g["status"]], g["checkpoint"]))


def verdict(rows: Iterable[Mapping[str, Any]]) -> str:
    """A document's PDF/UA-1 verdict from its conformance rows: conforms | does not conform | not checked."""
    statuses = {r["status"] for r in rows}
    if not statuses or "not_checked" in statuses:
        return NOT_CHECKED
    return DOES_NOT_CONFORM if "failed" in statuses else CONFORMS


# ---- evidence and findings ------------------------------------------------------------------------------------

def evidence_failures(rows: Iterable[dict[str, Any]], criterion: str, page: int, first_page: int
                      ) -> list[dict[str, Any]]:
    """The failures of `criterion` a judge of `page` gets: those located on the page, and on the document's
    first page those the validator locates on no page. One entry per rule and page, with its count."""
    grouped: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.get("status") != "failed" or not str(row.get("fold") or "").startswith(criterion + "."):
            continue
        on = row.get("page")
        if (on is None and page != first_page) or (on is not None and on != page):
            continue
        entry = grouped.setdefault(row["rule_id"], {"rule": row["rule_id"], "count": 0, "objects": [],
                                                    "message": row.get("message")})
        entry["count"] += 1
        if row.get("object_id") and len(entry["objects"]) < 5:
            entry["objects"].append(row["object_id"])
    return [grouped[k] for k in sorted(grouped)]
