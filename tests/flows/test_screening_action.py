"""A screening report a user can act on (issue 54): severities, warnings on passing files, what to fix first
(an untagged file is tagged first), reasons whole and once, and the same verdicts in text as in md/html."""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime
from pathlib import Path

from flows.cli.report import build
from flows.report.text import render_report
from tasks.benchmark.screening import shorten
from tests.flows.report_warehouse import write_judgments
from warehouse.store import ArtifactStore
from warehouse.tables import DOC_LABELS_SCHEMA, DOCUMENTS_SCHEMA

RUN = "s"
LANG_RULE = "semantic_tagging.structural_hierarchy.lang_missing_advisory"
# file → criterion → (label, [(page, problem, rule id)])
FILES = {
    "untagged.pdf": {
        "semantic_tagging": ("not_present", []),
        "functional_hyperlinks": ("failed", [(1, "link 'here' says nothing of its target", "")]),
        "color_contrast": ("failed", [(p, "text at 2.1:1 (needs 4.5:1)", "") for p in (1, 2, 3)]),
    },
    "tidy.pdf": {
        "semantic_tagging": ("passed", [(1, "no /Lang: screen readers guess the language", LANG_RULE)]),
        "color_contrast": ("passed", []),
    },
}


def _home(home: Path) -> Path:
    store = ArtifactStore(home)
    store.record_run({"run_id": RUN, "created": datetime(2026, 1, 1, tzinfo=UTC), "source": "pdfs",
                      "judge": "rules", "config": "{}", "status": "completed", "criteria": []})
    docs = {(f, c): f"{f[:4]}-{c[:6]}" for f, crits in FILES.items() for c in crits}
    store.write_table("corpus", RUN, "documents", [
        {"run_id": RUN, "doc_id": doc, "criterion": c, "expected_label": None, "files": [f], "pages": 3,
         "source": "pdfs"} for (f, c), doc in docs.items()], DOCUMENTS_SCHEMA)
    store.write_table("aggregate", RUN, "doc_labels", [
        {"run_id": RUN, "judge": "rules", "model": None, "repeat": 0, "doc_id": docs[(f, c)], "criterion": c,
         "label": label, "pages": 3, "failed_pages": [], "error_pages": 0}
        for f, crits in FILES.items() for c, (label, _) in crits.items()], DOC_LABELS_SCHEMA)
    rows = []
    for f, crits in FILES.items():
        for c, (label, issues) in crits.items():
            for page in sorted({p for p, _, _ in issues} or {1}):
                found = [{"sub_criterion": "x", "location": f"Page {page}", "problem": problem,
                          "remediation": "fix it", "rule_id": rule} for p, problem, rule in issues if p == page]
                rows.append({"run_id": RUN, "judge": "rules", "model": None, "repeat": 0, "doc_id": docs[(f, c)],
                             "criterion": c, "page": page, "label": label, "issues": json.dumps(found)})
    write_judgments(store, RUN, rows, screened=True)
    return home


def test_an_untagged_file_is_tagged_first_then_errors_met_on_most_pages(tmp_path: Path) -> None:
    files = {f["file"]: f for f in json.loads(build(_home(tmp_path), [RUN], "json"))["screening"][0]["files"]}
    untagged = files["untagged.pdf"]
    assert untagged["verdict"] == "fails"
    steps = untagged["fix_first"]
    assert steps[0]["what"] == "tag the document" and "DocumentMetadata{tagging=on}" in steps[0]["how"]
    assert [s["criterion"] for s in steps[1:]] == ["color_contrast", "functional_hyperlinks"]  # 3 pages before 1
    assert steps[1]["pages"] == [1, 2, 3] and untagged["first_issue"] == "tag the document"
    issues = untagged["criteria"]["color_contrast"]["issues"]
    assert len(issues) == 1 and issues[0]["severity"] == "error" and issues[0]["fix_order"] == 2


def test_a_passing_file_shows_its_warnings_with_their_severity_in_every_format(tmp_path: Path) -> None:
    home = _home(tmp_path)
    files = {f["file"]: f for f in json.loads(build(home, [RUN], "json"))["screening"][0]["files"]}
    tidy = files["tidy.pdf"]
    assert tidy["verdict"] == "passes" and tidy["error_count"] == 0
    assert tidy["warnings"] == ["semantic_tagging: no /Lang: screen readers guess the language (page 1)"]
    (issue,) = tidy["criteria"]["semantic_tagging"]["issues"]
    assert issue["severity"] == "warning" and not tidy["fix_first"]
    md, page, text = build(home, [RUN], "md"), html.unescape(build(home, [RUN], "html")), render_report(home, RUN)
    assert "| warning | semantic\\_tagging |" in md and "| error | color\\_contrast |" in md
    assert '<td class="warning">warning</td>' in build(home, [RUN], "html") and "Warnings (1)" in page
    assert "tidy.pdf passes with warnings: semantic_tagging: no /Lang" in " ".join(text.split())
    # text shows the verdicts md and html show, file by file, with the same errors and warnings counts
    for name, f in files.items():
        line = next(row for row in text.splitlines() if name in row)
        assert f["verdict"] in line and str(len(f["warnings"])) in line


def test_reasons_are_cut_at_a_word_boundary_only() -> None:
    text = "limit: " + " ".join(["decompression"] * 30)
    short = shorten(text, 60)
    assert len(short) <= 62 and short.endswith(" …") and short[:-2].split()[-1] == "decompression"
    assert shorten("whole reason", 60) == "whole reason"
