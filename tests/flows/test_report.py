"""The terminal report: our accuracy from a known confusion, and the paper's numbers beside it."""

from __future__ import annotations

from pathlib import Path

from flows.report.paper_numbers import PAPER_MODELS
from flows.report.text import render_report
from warehouse.store import ArtifactStore
from warehouse.tables import DOC_LABELS_SCHEMA, DOCUMENTS_SCHEMA

RUN = "r1"
# (doc, criterion, expected, judged): alt text 2/4 right (1 of them Cannot Tell, judged wrong),
# tables 2/2 right. By label: passed 2/2, failed 1/2, not_present 1/1, cannot_tell 0/1.
CONFUSION = [
    ("a1", "alt_text_quality", "passed", "passed"),
    ("a2", "alt_text_quality", "failed", "passed"),
    ("a3", "alt_text_quality", "not_present", "not_present"),
    ("a4", "alt_text_quality", "cannot_tell", "failed"),
    ("t1", "table_structure", "passed", "passed"),
    ("t2", "table_structure", "failed", "failed"),
]


def _warehouse(home: Path) -> None:
    store = ArtifactStore(home)
    store.write_table("corpus", RUN, "documents", [
        {"run_id": RUN, "doc_id": doc, "criterion": criterion, "expected_label": expected, "pages": 1,
         "source": "dataset"}
        for doc, criterion, expected, _ in CONFUSION], DOCUMENTS_SCHEMA)
    store.write_table("aggregate", RUN, "doc_labels", [
        {"run_id": RUN, "judge": "rules", "model": None, "repeat": 0, "doc_id": doc, "criterion": criterion,
         "label": judged, "pages": 1, "failed_pages": [1] if judged == "failed" else [], "error_pages": 0}
        for doc, criterion, _, judged in CONFUSION], DOC_LABELS_SCHEMA)


def _cells(report: str, first: str, after: str = "") -> list[str]:
    """The cells of the first table row whose first cell is `first` (after the line containing `after`)."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if after in line)
    for line in lines[start:]:
        cells = [c.strip() for c in line.replace("┃", "│").strip().strip("│").split("│")]
        if cells and cells[0] == first:
            return cells
    raise AssertionError(f"no row {first!r} after {after!r} in:\n{report}")


def test_accuracy_and_cannot_tell_excluded_accuracy_from_a_known_confusion(tmp_path: Path) -> None:
    _warehouse(tmp_path)
    report = render_report(tmp_path, RUN, brief=True)
    # judge, model, criterion, n, accuracy, 95% CI, macro F1, acc. excl. CT, P, F, NP, CT
    alt = _cells(report, "rules")
    assert alt[2:5] == ["alt_text_quality", "4", "0.500"]
    assert alt[5] == "n=4, 95% CI 0.15–0.85"  # Wilson over the 4 items
    assert alt[7] == "0.667"  # 2 of the 3 items that are not Cannot Tell
    assert alt[8:] == ["1.000", "0.000", "1.000", "0.000"]
    tables = next(line for line in report.splitlines() if "table_structure" in line)
    assert "1.000" in tables and "0.000" not in tables
    overall = next(line for line in report.splitlines() if "overall" in line)
    assert "0.667" in overall  # 4 of 6
    assert "published" not in report  # the brief report leaves the paper out


def test_full_report_sets_all_five_published_models_beside_ours(tmp_path: Path) -> None:
    _warehouse(tmp_path)
    report = render_report(tmp_path, RUN)
    header = _cells(report, "criterion", after="Table 3")
    assert header[1] == "ours: rules" and header[2:] == [f"{m} (published)" for m in PAPER_MODELS]
    alt = _cells(report, "alt_text_quality", after="Table 3")
    # GPT-4 Turbo's published cell, over the paper's own 20 alt-text items
    assert alt[1].startswith("0.500 (n=4") and alt[2].startswith("0.700 ± 0.040 (n=20")
    average = _cells(report, "average", after="Table 3")[1:3]  # mean over criteria
    assert average[0].startswith("0.750") and average[1].startswith("0.850 ± 0.040 (n=125")
    assert _cells(report, "alt_text_quality", after="Table 4")[2] == "0.57/0.70/0.62 (n=20)"
    by_label = {label: _cells(report, label, after="Table 5")[1].split(" (n=")[0]
                for label in ("passed", "failed", "not_present", "cannot_tell")}
    assert by_label == {"passed": "1.000", "failed": "0.500", "not_present": "1.000", "cannot_tell": "0.000"}
    assert _cells(report, "cannot_tell", after="Table 5")[2] == "0.970 ± 0.020 (n=35, 95% CI 0.85–0.99)"
    for table, first in (("Table 3", "table_structure"), ("Table 4", "average"), ("Table 5", "failed")):
        row = _cells(report, first, after=table)
        assert len(row) == 7 and "-" not in row[2:], (table, row)  # all five published models have numbers
    assert "population SD" in report
