"""Per-file results for CI: JUnit XML, SARIF 2.1.0 or JSON, one test case per file × criterion (× judge).

`accessbench run --pdfs DIR --report-format junit|sarif|json` writes one at the end of the run, and
`accessbench report --run ID --format junit|sarif|ci-json` writes one for a finished run. A criterion the
file fails is a failing test case (its findings, with their rule ids, pages and fixes, in the message);
Cannot Tell is a skipped one (the evidence needed was missing); a file the pipeline could not process is an
error; Passed and Not Present pass. SARIF has a result per finding, located by file and page, and the rules
of the rules catalog (judges/rules/catalog) that raised them.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common.filenames import readable_name
from common.text import write_atomic, xml_text

FORMATS = ("junit", "sarif", "json")
SUFFIX = {"junit": ".junit.xml", "sarif": ".sarif", "json": ".results.json"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# Several repeats of a stochastic judge: the label most of them gave; a tie goes to the more cautious one.
CAUTION = ("failed", "cannot_tell", "passed", "not_present")
TOOL = "AccessBench"


@dataclass
class Finding:
    rule_id: str
    page: int | None
    location: str
    problem: str
    remediation: str
    sub_criterion: str
    bbox: list[float] | None = None  # where on the page (PDF points, top left), when the rule knows


@dataclass
class Case:
    """One file × criterion × judge: its label and why."""

    file: str  # the path as the run read it, for display: bytes that are not UTF-8 as \xNN escapes
    doc_id: str
    criterion: str
    judge: str
    label: str | None  # None: no label (the file could not be processed for this criterion)
    findings: list[Finding] = field(default_factory=list)
    summary: str = ""
    errors: list[str] = field(default_factory=list)
    path: str = ""  # the path exactly as the file system has it (SARIF's file URI); default: `file`

    @property
    def outcome(self) -> str:
        """passed | failed | skipped | error, as a CI system counts it."""
        if self.label is None:
            return "error"
        return {"failed": "failed", "cannot_tell": "skipped"}.get(self.label, "passed")


def collect_cases(home: Path, run_id: str) -> list[Case]:
    """Every file × criterion × judge of a run, from its tables; in file, criterion, judge order."""
    from judges.criteria import CRITERIA
    from tasks.engine.common import document_files
    from tasks.engine.failures import WARNING_KINDS
    from warehouse.store import ArtifactStore
    from warehouse.tables import BENCHMARK_STAGE_NAMES

    store = ArtifactStore(home)
    documents = store.read_rows("corpus", run_id, "documents")
    labels: dict[tuple[str, str, str], list[str]] = {}
    for row in store.read_rows("aggregate", run_id, "doc_labels"):
        if row["label"]:
            labels.setdefault((row["doc_id"], row["criterion"], _judge(row)), []).append(row["label"])
    judged: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in store.read_rows("judge", run_id, "judgments"):
        judged.setdefault((row["doc_id"], row["criterion"], _judge(row)), []).append(row)
    found: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in store.read_rows("judge", run_id, "findings"):
        found.setdefault((row["doc_id"], row["criterion"], _judge(row)), []).append(row)
    errors: dict[str, list[str]] = {}
    for stage in BENCHMARK_STAGE_NAMES[:BENCHMARK_STAGE_NAMES.index("aggregate") + 1]:  # the stages with error rows
        for row in store.read_rows(stage, run_id, "errors"):
            if row["doc_id"] and row["kind"] not in WARNING_KINDS:
                errors.setdefault(row["doc_id"], []).append(f"{stage}: {row['kind']}: {row['message']}")
    judges = sorted({key[2] for key in [*labels, *judged]}) or ["rules"]
    cases = []
    for doc in documents:
        try:
            paths = [str(p) for p in document_files(doc)] if doc.get("root") else list(doc.get("files") or [])
        except (KeyError, TypeError):
            paths = list(doc.get("files") or [])
        path = paths[0] if paths else doc["doc_id"]
        file = readable_name(path)  # a name that is not UTF-8 can be written in no output format as it is
        for judge in judges:
            key = (doc["doc_id"], doc["criterion"], judge)
            rows = judged.get(key, [])
            findings: list[Finding] = []
            for issue in sorted(found.get(key, []), key=lambda r: (r["page"] or 0, r["repeat"] or 0, r["seq"])):
                finding = Finding(issue["rule_id"] or _model_rule(doc["criterion"], issue), issue["page"],
                                  issue["location"] or "", issue["problem"] or "", issue["remediation"] or "",
                                  issue["sub_criterion"] or "", issue["bbox"])
                if finding not in findings:
                    findings.append(finding)
            summary = next((r["summary"] for r in rows if r.get("summary")), "")
            failures = [r["error"] for r in rows if r.get("error")] + errors.get(doc["doc_id"], [])
            cases.append(Case(file, doc["doc_id"], doc["criterion"], judge, _settled(labels.get(key, [])), findings,
                              summary or "", list(dict.fromkeys(failures)), path=path))
    order = {c: i for i, c in enumerate(CRITERIA)}
    return sorted(cases, key=lambda c: (c.file, order.get(c.criterion, 99), c.criterion, c.judge))


def _judge(row: dict[str, Any]) -> str:
    return str(row["judge"]) + (f" {row['model']}" if row.get("model") else "")


def _model_rule(criterion: str, issue: dict[str, Any]) -> str:
    """A model's finding has no catalog rule: it is named by its criterion and sub-criterion."""
    return f"{criterion}.{issue.get('sub_criterion') or 'finding'}"


def _settled(values: list[str]) -> str | None:
    if not values:
        return None
    counts = Counter(values)
    best = max(counts.values())
    return next(label for label in (*CAUTION, *sorted(counts)) if counts.get(label) == best)


def _message(case: Case) -> str:
    if case.label is None:
        return "not judged: " + ("; ".join(case.errors) if case.errors else "no label was produced")
    if case.label == "cannot_tell":
        return f"cannot tell: {case.summary or 'the evidence this criterion needs is missing'}"
    if case.label != "failed":
        return f"{case.label}: {case.summary}".rstrip(": ")
    rules = ", ".join(dict.fromkeys(f.rule_id for f in case.findings))
    return f"{len(case.findings)} finding(s): {rules}" if case.findings else f"failed: {case.summary}"


def _details(case: Case) -> str:
    lines = [f"{case.criterion} of {case.file} ({case.judge}): {case.label or 'not judged'}"]
    if case.summary:
        lines.append(case.summary)
    for f in case.findings:
        where = ", ".join(x for x in (f"page {f.page}" if f.page else "", f.location) if x)
        lines.append(f"- [{f.rule_id}] {where}: {f.problem}" + (f"\n  fix: {f.remediation}" if f.remediation else ""))
    lines += [f"error: {e}" for e in case.errors]
    return "\n".join(lines)


def render_junit(cases: list[Case], run_id: str) -> str:
    """A <testsuites> with a <testsuite> per file and a <testcase> per criterion (× judge). Every text and
    attribute goes through `xml_text`: a control character in a font or file name would make it ill-formed."""
    root = ET.Element("testsuites", name=xml_text(f"accessbench run {run_id}"))
    by_file: dict[str, list[Case]] = {}
    for case in cases:
        by_file.setdefault(case.file, []).append(case)
    totals = Counter(case.outcome for case in cases)
    for file, mine in by_file.items():
        counts = Counter(case.outcome for case in mine)
        suite = ET.SubElement(root, "testsuite", name=xml_text(file), tests=str(len(mine)),
                              failures=str(counts["failed"]),
                              errors=str(counts["error"]), skipped=str(counts["skipped"]))
        for case in mine:
            judges = {c.judge for c in cases}
            name = case.criterion + (f" [{case.judge}]" if len(judges) > 1 else "")
            element = ET.SubElement(suite, "testcase", name=xml_text(name), classname=xml_text(file))
            kind = {"failed": "failure", "error": "error", "skipped": "skipped"}.get(case.outcome)
            if kind is not None:
                child = ET.SubElement(element, kind, message=xml_text(_message(case)))
                if kind != "skipped":
                    child.set("type", xml_text(", ".join(dict.fromkeys(f.rule_id for f in case.findings))
                                               or case.criterion))
                child.text = xml_text(_details(case))
            else:
                ET.SubElement(element, "system-out").text = xml_text(_details(case))
    root.set("tests", str(len(cases)))
    root.set("failures", str(totals["failed"]))
    root.set("errors", str(totals["error"]))
    root.set("skipped", str(totals["skipped"]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _uri(file: str) -> str:
    """A file URI (bytes that are not UTF-8 percent-encoded, as URIs carry them)."""
    path = Path(file)
    if path.is_absolute() or path.exists():
        return path.resolve().as_uri()
    return readable_name(file)


def render_sarif(cases: list[Case], run_id: str) -> str:
    """One SARIF 2.1.0 run: the rules that raised findings, and a result per finding (file and page), per
    file the pipeline could not judge, and per criterion it could not tell."""
    from judges.rules.catalog import catalog

    known = catalog()
    rule_ids = list(dict.fromkeys(f.rule_id for case in cases for f in case.findings))
    extra = [f"accessbench.{kind}" for kind in ("not_judged", "cannot_tell")
             if any(case.outcome == {"not_judged": "error", "cannot_tell": "skipped"}[kind] for case in cases)]
    rules = []
    for rid in [*rule_ids, *extra]:
        rule = known.get(rid)
        entry: dict[str, Any] = {"id": rid}
        if rule is not None:
            entry.update({"name": rule.title, "shortDescription": {"text": rule.title},
                          # The catalog's message has the finding's details as {placeholders}: the title stands in.
                          "fullDescription": {"text": rule.title if rule.placeholders else rule.message},
                          "help": {"text": rule.remediation},
                          "defaultConfiguration": {"level": _level(rule.severity)},
                          "properties": {"criterion": rule.criterion, "sub_criterion": rule.sub_criterion,
                                         "wcag": list(rule.wcag), "pdfua": rule.pdfua,
                                         "matterhorn": rule.matterhorn}})
        elif rid == "accessbench.not_judged":
            entry["shortDescription"] = {"text": "the file could not be judged for this criterion"}
        elif rid == "accessbench.cannot_tell":
            entry["shortDescription"] = {"text": "the evidence the criterion needs is missing"}
            entry["defaultConfiguration"] = {"level": "note"}
        else:
            criterion, _, sub = rid.partition(".")
            entry["shortDescription"] = {"text": f"{criterion}: {sub} (a model's finding)"}
        rules.append(entry)
    index = {entry["id"]: i for i, entry in enumerate(rules)}
    results = []
    for case in cases:
        for f in case.findings:
            rule = known.get(f.rule_id)
            text = f.problem + (f" Fix: {f.remediation}" if f.remediation else "")
            results.append({"ruleId": f.rule_id, "ruleIndex": index[f.rule_id],
                            "level": _level(rule.severity if rule else "error"),
                            "message": {"text": text or f.rule_id},
                            "locations": [_location(case.path or case.file, f.page, f.location, f.bbox)],
                            "properties": {"criterion": case.criterion, "judge": case.judge,
                                           "sub_criterion": f.sub_criterion}})
        if case.outcome in ("error", "skipped"):
            rid = "accessbench.not_judged" if case.outcome == "error" else "accessbench.cannot_tell"
            results.append({"ruleId": rid, "ruleIndex": index[rid], "level": "error" if case.outcome == "error"
                            else "note", "message": {"text": _message(case)},
                            "locations": [_location(case.path or case.file, None, "")],
                            "properties": {"criterion": case.criterion, "judge": case.judge}})
    sarif = {"$schema": SARIF_SCHEMA, "version": "2.1.0",
             "runs": [{"tool": {"driver": {"name": TOOL, "version": _version(), "rules": rules}},
                       "automationDetails": {"id": f"accessbench/{run_id}"},
                       "results": results}]}
    return json.dumps(sarif, indent=1, ensure_ascii=False) + "\n"


def _level(severity: str) -> str:
    return {"error": "error", "warning": "warning"}.get(severity, "note")


def _location(file: str, page: int | None, where: str, bbox: list[float] | None = None) -> dict[str, Any]:
    location: dict[str, Any] = {"physicalLocation": {"artifactLocation": {"uri": _uri(file)}}}
    if page:
        location["logicalLocations"] = [{"name": f"page {page}", "kind": "page"}]
        # SARIF's regions count lines and columns of text: a box on a PDF page is a property.
        location["properties"] = {"page": page, **({"bbox": bbox} if bbox else {})}
    if where:
        location["message"] = {"text": where}
    return location


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("accessbench")
    except PackageNotFoundError:
        return "0"


def render_json(cases: list[Case], run_id: str) -> str:
    """The same cases as plain JSON: files, each with its criteria's outcome, label, findings and errors."""
    files: dict[str, dict[str, Any]] = {}
    for case in cases:
        entry = files.setdefault(case.file, {"file": case.file, "results": []})
        entry["results"].append({"criterion": case.criterion, "judge": case.judge, "doc_id": case.doc_id,
                                 "outcome": case.outcome, "label": case.label, "message": _message(case),
                                 "findings": [vars(f) for f in case.findings], "errors": case.errors})
    counts = Counter(case.outcome for case in cases)
    out = {"run_id": run_id, "tool": TOOL, "summary": {k: counts.get(k, 0) for k in ("passed", "failed", "skipped",
                                                                                        "error")},
           "files": list(files.values())}
    return json.dumps(out, indent=1, ensure_ascii=False) + "\n"


def render(home: Path, run_id: str, fmt: str) -> str:
    """The run's per-file results in `fmt` (junit, sarif or json)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown result format {fmt!r}; use one of: {', '.join(FORMATS)}")
    cases = collect_cases(home, run_id)
    return {"junit": render_junit, "sarif": render_sarif, "json": render_json}[fmt](cases, run_id)


def write(home: Path, run_id: str, fmt: str, out: Path | None = None) -> Path:
    """Write the results to `out` (default: `<home>/reports/<run><suffix>`); returns the path."""
    path = out or home / "reports" / f"{run_id}{SUFFIX[fmt]}"
    text = render(home, run_id, fmt)  # whole before anything is written: an error leaves `path` as it was
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    return path


def write_after_run(home: Path, run_id: str, fmt: str, out: str | None) -> None:
    """`accessbench run --report-format FMT [--report-out PATH]`: write the results and say where."""
    import sys

    path = write(home, run_id, fmt, Path(out).expanduser() if out else None)
    print(f"{fmt} results: {path.resolve()}", file=sys.stderr)
