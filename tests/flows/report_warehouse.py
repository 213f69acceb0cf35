"""A small warehouse for report tests: a scored run, a screening run with hostile text, an audit run.

Scored run `bench`: six (document, criterion) items with a known confusion (alt text 2/4, tables
2/2) and one Failed judgment. Screening run `screen`: two files; the worse one fails tables and
contrast on page 1, whose rendered image is a real PNG, with a table and a low-contrast span to
outline. File names and model text carry markup that a report must show as text.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pymupdf

from judges.inclusivity.categories import CATEGORY_NAMES
from judges.remediation_quality import score_judgment
from tasks.benchmark.judge import findings_rows
from warehouse.store import ArtifactStore
from warehouse.tables import (
    CATEGORY_JUDGMENTS,
    DOC_LABELS_SCHEMA,
    DOCUMENTS_SCHEMA,
    FINDINGS_SCHEMA,
    JUDGMENTS_SCHEMA,
    PAGES,
    REMEDIATION_SCORES_SCHEMA,
    TABLES,
    TEXT_SPANS,
)

BENCH, SCREEN, AUDIT = "bench", "screen", "audit"
EVIL_FILE = 'evil <img src=x onerror=alert(1)>.pdf'
EVIL_TEXT = '<img src=x onerror="alert(2)"> | [link](javascript:alert(3))'
CONFUSION = [
    ("a1", "alt_text_quality", "passed", "passed"),
    ("a2", "alt_text_quality", "failed", "passed"),
    ("a3", "alt_text_quality", "not_present", "not_present"),
    ("a4", "alt_text_quality", "cannot_tell", "failed"),
    ("t1", "table_structure", "passed", "passed"),
    ("t2", "table_structure", "failed", "failed"),
]


def _issue(location: str, problem: str, remediation: str, sub: str) -> dict[str, str]:
    return {"sub_criterion": sub, "location": location, "problem": problem, "remediation": remediation}


def _judgment(run: str, doc: str, criterion: str, label: str, issues: list[dict[str, str]]) -> dict[str, object]:
    return {"run_id": run, "judge": "rules", "model": None, "repeat": 0, "doc_id": doc, "criterion": criterion,
            "page": 1, "label": label, "issues": json.dumps(issues),
            "remediation": "\n".join(i["remediation"] for i in issues) or None}


def write_judgments(store: ArtifactStore, run: str, rows: list[dict[str, object]], screened: bool = False) -> None:
    """`judgments` rows and their `findings`, as the judge stage writes them (`screened`: a run of user files)."""
    store.write_table("judge", run, "judgments", rows, JUDGMENTS_SCHEMA)
    full = [{"model": None, "repeat": 0, **row} for row in rows]
    store.write_table("judge", run, "findings", findings_rows(full, {str(r["doc_id"]) for r in full} if screened
                                                              else set()), FINDINGS_SCHEMA)


def build(home: Path) -> Path:
    store = ArtifactStore(home)
    created = datetime(2026, 1, 1, tzinfo=UTC)
    for run, source in ((BENCH, "dataset"), (SCREEN, "pdfs"), (AUDIT, "audit")):
        store.record_run({"run_id": run, "created": created, "source": source, "judge": "rules", "config": "{}",
                          "status": "completed", "criteria": []})
    store.write_table("corpus", BENCH, "documents", [
        {"run_id": BENCH, "doc_id": doc, "criterion": criterion, "expected_label": expected, "pages": 1,
         "source": "dataset"} for doc, criterion, expected, _ in CONFUSION], DOCUMENTS_SCHEMA)
    store.write_table("aggregate", BENCH, "doc_labels", [
        {"run_id": BENCH, "judge": "rules", "model": None, "repeat": 0, "doc_id": doc, "criterion": criterion,
         "label": judged, "pages": 1, "failed_pages": [1] if judged == "failed" else [], "error_pages": 0}
        for doc, criterion, _, judged in CONFUSION], DOC_LABELS_SCHEMA)
    bench_judgments = [_judgment(BENCH, "t2", "table_structure", "failed", [_issue(
        "Page 1, table 1", "header cells are TD", "tag the first row TH with Scope=Column", "header_semantics")])]
    write_judgments(store, BENCH, bench_judgments)

    # As `run --pdfs` stores them: one document per (file, criterion), the file shared.
    files = {"s1": EVIL_FILE, "s2": "clean.pdf"}
    docs = {(f, c): f"{f}-{c[:5]}" for f in files for c in ("table_structure", "color_contrast")}
    store.write_table("corpus", SCREEN, "documents", [
        {"run_id": SCREEN, "doc_id": doc, "criterion": criterion, "expected_label": None, "files": [files[f]],
         "pages": 1, "source": "pdfs"} for (f, criterion), doc in docs.items()], DOCUMENTS_SCHEMA)
    labels = {("s1", "table_structure"): "failed", ("s1", "color_contrast"): "failed",
              ("s2", "table_structure"): "passed", ("s2", "color_contrast"): "passed"}
    store.write_table("aggregate", SCREEN, "doc_labels", [
        {"run_id": SCREEN, "judge": "rules", "model": None, "repeat": 0, "doc_id": docs[key], "criterion": key[1],
         "label": label, "pages": 1, "failed_pages": [1] if label == "failed" else [], "error_pages": 0}
        for key, label in labels.items()], DOC_LABELS_SCHEMA)
    screen_judgments = [
        _judgment(SCREEN, docs[("s1", "table_structure")], "table_structure", "failed", [_issue(
            "Page 1, table 1", "a table drawn but not tagged", "tag it as Table > TR > TH/TD", "tagging")]),
        _judgment(SCREEN, docs[("s1", "color_contrast")], "color_contrast", "failed", [_issue(
            "Page 1, text “grey note”", EVIL_TEXT, "darken the text to reach 4.5:1, e.g. #000000", "small_text")]),
        _judgment(SCREEN, docs[("s2", "table_structure")], "table_structure", "passed", []),
        _judgment(SCREEN, docs[("s2", "color_contrast")], "color_contrast", "passed", []),
    ]
    write_judgments(store, SCREEN, screen_judgments, screened=True)
    for run, rows in ((BENCH, bench_judgments), (SCREEN, screen_judgments)):
        store.write_table("metrics", run, "remediation_scores", [
            {**{k: j[k] for k in ("run_id", "judge", "model", "repeat", "doc_id", "criterion", "page")},
             **score_judgment(json.loads(str(j["issues"])), str(j["remediation"]))}
            for j in rows if j["label"] == "failed"],
            REMEDIATION_SCORES_SCHEMA)

    image = home / "page-s1-1.png"
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 100), False)
    pix.clear_with(255)
    pix.save(str(image))
    store.write_table("render", SCREEN, "pages", [
        {"run_id": SCREEN, "doc_id": doc, "page": 1, "width_pt": 200.0, "height_pt": 100.0, "rotation": 0,
         "dpi": 72.0, "width_px": 200, "height_px": 100, "image_path": str(image), "has_text": True,
         "char_count": 10, "image_count": 0} for doc in (docs[("s1", "table_structure")],
                                                          docs[("s1", "color_contrast")])], PAGES.schema)
    store.write_table("extract", SCREEN, "tables", [
        {"run_id": SCREEN, "doc_id": docs[("s1", "table_structure")], "table_id": -1, "page": 1,
         "bbox": [10.0, 10.0, 90.0, 60.0], "rows": 2, "cols": 2, "spans": 0, "tagged": False, "source": "visual",
         "issues": []}], TABLES.schema)
    store.write_table("extract", SCREEN, "text_spans", [
        {"run_id": SCREEN, "doc_id": docs[("s1", "color_contrast")], "page": 1, "span_index": i, "block": 0, "line": i,
         "font_name": "Helvetica", "size": 10.0, "bold": False, "italic": False, "superscript": False,
         "color": "#999999", "alpha": 1.0, "render_invisible": False, "clipped": False,
         "unmapped_chars": 0, "text": text, "char_count": len(text), "bbox": bbox,
         "contrast_ratio": ratio, "threshold": 4.5, "passes": ratio >= 4.5}
        for i, (text, bbox, ratio) in enumerate([("grey note", [100.0, 20.0, 180.0, 32.0], 2.85),
                                                 ("black text", [100.0, 50.0, 180.0, 62.0], 21.0)])],
        TEXT_SPANS.schema)
    # Audit: two responses of one model; the first covers Vision (depth 3) and Hearing (depth 1), the second nothing.
    store.write_table("category_judgments", AUDIT, "category_judgments", [
        {"run_id": AUDIT, "response_id": f"r{q}", "question_id": f"q{q}", "model": "demo/<b>model</b>",
         "variant": "base", "judge": "lexicon", "category": category,
         "covered": q == 1 and category in ("Vision", "Hearing"),
         "depth": (3 if category == "Vision" else 1 if category == "Hearing" else 0) if q == 1 else 0}
        for q in (1, 2) for category in CATEGORY_NAMES], CATEGORY_JUDGMENTS.schema)
    return home
