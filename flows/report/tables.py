"""What every report format shows the same way, computed once from `flows.report.data`'s rows.

- the paper's Tables 3, 4 and 5 side by side: criteria (or labels) as rows, one column group per judge,
  ours first (with an "average" row), then the five published models, always marked "published";
- the leaderboard ranked only like with like (judges scored on the same items), with its coverage;
- the error analysis (items a judge got wrong, repeats folded into one row);
- the report's section list, which Markdown, JSON and HTML all follow;
- screening findings folded per document (one row per finding, its pages as a list) and page regions
  folded per finding kind.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from judges.criteria import CRITERIA
from judges.labels import Label

MAX_ERROR_ROWS = 200  # rows of the error analysis shown in md, html and text (json holds them all)
MERGE_GAP_PT = 6.0  # boxes of one finding kind closer than this (PDF points) are outlined as one region


def judge_name(row: dict[str, Any]) -> str:
    return f"{row['judge']} {row.get('model') or ''}".strip()


# --- Tables 3, 4, 5 side by side --------------------------------------------------------------------------

def paper_tables(accuracy: list[dict[str, Any]], by_label: list[dict[str, Any]], averages: list[dict[str, Any]],
                 published: dict[str, Any], paper_model_of: Any) -> list[dict[str, Any]]:
    """The paper's three tables with our judges' columns first, then the published models'."""
    judges = list(dict.fromkeys((r["run_id"], r["judge"], r["model"] or "") for r in accuracy))
    several = len({run for run, _, _ in judges}) > 1
    columns = [{"name": f"{judge} {model}".strip() + (f" ({run})" if several else ""), "source": "ours",
                "run_id": run, "judge": judge, "model": model, "paper_model": paper_model_of(model)}
               for run, judge, model in judges]
    columns += [{"name": f"{m} (published)", "source": "published", "model": m, "citation": published["citation"]}
                for m in published["models"]]
    criteria = [c for c in CRITERIA if any(r["criterion"] == c for r in accuracy)] + ["average"]
    acc = {(r["run_id"], r["judge"], r["model"] or "", r["criterion"]): r for r in accuracy}
    avg = {(r["run_id"], r["judge"], r["model"] or ""): r for r in averages}
    lab = {(r["run_id"], r["judge"], r["model"] or "", r["expected_label"]): r for r in by_label}
    t3 = {(r["criterion"], r["model"]): r for r in published["accuracy"]}
    t4 = {(r["criterion"], r["model"]): r for r in published["macro_prf"]}
    t5 = {(r["expected_label"], r["model"]): r for r in published["by_label"]}

    def pick(row: dict[str, Any] | None, keys: tuple[str, ...]) -> dict[str, Any] | None:
        return None if row is None or row.get(keys[0]) is None else {k: row.get(k) for k in keys}

    def ours(key: tuple[str, str, str], row: str, table: str) -> dict[str, Any] | None:
        if table == "table5":
            return pick(lab.get((*key, row)), ("accuracy", "accuracy_sd"))
        source = avg.get(key) if row == "average" else acc.get((*key, row))
        keys = ("accuracy", "accuracy_sd") if table == "table3" else ("macro_precision", "macro_recall", "macro_f1")
        return pick(source, keys)

    def theirs(model: str, row: str, table: str) -> dict[str, Any] | None:
        if table == "table3":
            return pick(t3.get((row, model)), ("accuracy", "accuracy_sd"))
        if table == "table4":
            return pick(t4.get((row, model)), ("macro_precision", "macro_recall", "macro_f1"))
        return pick(t5.get((row, model)), ("accuracy", "accuracy_sd"))

    specs = (("table3", "Table 3 — accuracy per criterion (mean ± population SD over repeats)", "criterion",
              criteria, ["accuracy", "accuracy_sd"]),
             ("table4", "Table 4 — macro precision / recall / F1 per criterion", "criterion", criteria,
              ["macro_precision", "macro_recall", "macro_f1"]),
             ("table5", "Table 5 — accuracy by expected label, pooled over criteria", "expected label",
              [lab.value for lab in Label], ["accuracy", "accuracy_sd"]))
    out = []
    for table, title, row_header, rows, values in specs:
        out.append({"id": table, "title": title, "row_header": row_header, "values": values, "columns": columns,
                    "rows": [{"row": row, "cells": [
                        ours((c["run_id"], c["judge"], c["model"]), row, table) if c["source"] == "ours"
                        else theirs(c["model"], row, table) for c in columns]} for row in rows]})
    return out


def average_note(tables_: list[dict[str, Any]]) -> str:
    """What the 'average' rows average over: ours over the criteria the run scored, the paper's over its seven."""
    rows = [r["row"] for r in tables_[0]["rows"] if r["row"] != "average"] if tables_ else []
    return (f"Our 'average' is the mean over the {len(rows)} criteria scored here"
            + ("" if len(rows) == len(CRITERIA) else f" (the published one is over all {len(CRITERIA)})") + ".")


def cell_text(cell: dict[str, Any] | None) -> str:
    """One cell of a paper table: `0.700 ± 0.040`, or `0.57/0.70/0.62` for macro P/R/F1; `–` for none."""
    if not cell:
        return "–"
    if "macro_f1" in cell:
        return "/".join(f"{cell[k]:.2f}" for k in ("macro_precision", "macro_recall", "macro_f1"))
    sd = cell.get("accuracy_sd")
    return f"{cell['accuracy']:.3f}" + (f" ± {sd:.3f}" if sd else "")


# --- leaderboard ------------------------------------------------------------------------------------------

def rank_by_scope(leaderboard: list[dict[str, Any]], coverage: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rank judges only against judges scored on the same items. The widest scope (most items) comes first
    and is ranked plainly; every other scope's rows carry a caveat naming their coverage."""
    cover = {(r["run_id"], r["judge"], r["model"] or ""): r for r in coverage}
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in leaderboard:
        found = cover.get((row["run_id"], row["judge"], row["model"] or ""), {})
        row.update(items=found.get("items", row["n"]), criteria=found.get("criteria", 0))
        groups[found.get("scope", f"{row['run_id']}/{row['judge']}/{row['model']}")].append(row)
    order = sorted(groups.values(), key=lambda g: (-g[0]["items"], -g[0]["criteria"], g[0]["run_id"]))
    out = []
    for k, group in enumerate(order, start=1):
        group.sort(key=lambda r: (-(r["accuracy"] or 0), r["run_id"], r["judge"]))
        for rank, row in enumerate(group, start=1):
            row["scope"], row["rank"] = k, rank
            row["caveat"] = "" if k == 1 else (
                f"other scope ({row['items']} items, {row['criteria']} criteria): ranked only among its own rows, "
                f"not against the {order[0][0]['items']} items above")
            out.append(row)
    return out


def coverage_text(row: dict[str, Any]) -> str:
    return f"{row['items']} items, {row['criteria']} criteria"


# --- checkers -------------------------------------------------------------------------------------------

CHECKER_HEADER = ["checker", "run", "mapping", "documents", "checked", "not run (Cannot Tell protocol)",
                  "could not check", "findings", "checker s/document (mean, median, max)",
                  "AccessBench evidence stages s/document"]


def checker_rows(rows: list[dict[str, Any]]) -> list[list[str]]:
    """One row per checker judge: its version and mapping, what it checked, its own time beside ours."""
    def secs(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    return [[judge_name(r), r["run_id"], r["mapping"], str(r["documents"]), str(r["checked"]), str(r["withheld"]),
             str(r["errors"]), str(r["findings"] or 0),
             f"{secs(r['seconds_mean'])}, {secs(r['seconds_median'])}, {secs(r['seconds_max'])}",
             secs(r["accessbench_seconds"])] for r in rows]


CHECKER_NOTE = ("A checker judge runs an existing accessibility checker once per document (on a copy under a neutral "
                "name) and maps its findings to the four labels through judges/checkers/<name>.toml; its findings are "
                "in checker_findings, its runs in checker_runs. For a Cannot Tell item whose evidence the checker "
                "reads, the protocol withholds the file: the checker is not run and the label is Cannot Tell. "
                "AccessBench's time is the wall time of its render, layout, extract, transcript and inputs stages "
                "divided by the documents (the time of the run whose outputs a stage reused).")

MEANING_HEADER = ["run", "criterion", "base document", "label every checker gives both variants"]


def meaning_note(meaning: dict[str, Any]) -> str:
    each = "; ".join(f"{r['checker']}: {r['alike']} of {r['pairs']}" for r in meaning["per_checker"])
    return (f"{len(meaning['alike'])} of {meaning['pairs']} base documents with a passed and a failed variant get "
            "the same label on both from every checker: the checkers do not see what the experts' labels change. "
            f"Per checker, variants labelled alike: {each or 'none'}.")


def meaning_rows(meaning: dict[str, Any]) -> list[list[str]]:
    return [[r["run_id"], r["criterion"], r["base_doc"],
             ", ".join(f"{name}: {label}" for name, label in r["labels"].items())] for r in meaning["alike"]]


# --- error analysis ---------------------------------------------------------------------------------------

def fold_errors(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (run, judge, item, expected, got): the repeats it was wrong in, the first repeat's reason and
    call id."""
    folded: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in rows:
        key = (r["run_id"], r["judge"], r["model"], r["doc_id"], r["criterion"], r["expected_label"], r["label"])
        if key not in folded:
            folded[key] = {**{k: r[k] for k in ("run_id", "judge", "model", "doc_id", "criterion")},
                           "expected": r["expected_label"], "got": r["label"], "repeats": [],
                           "reason": r["reason"] or "", "page": r["page"], "call_id": r["call_id"]}
        folded[key]["repeats"].append(r["repeat"])
    return list(folded.values())


def call_command(call_id: str | None) -> str:
    return f"accessbench calls show {call_id}" if call_id else ""


# --- sections ---------------------------------------------------------------------------------------------

def sections(data: dict[str, Any]) -> list[dict[str, str]]:
    """The report's sections, in order: `id` (the HTML anchor and the JSON key path's head) and `title`."""
    out = [{"id": "runs", "title": "Runs"}]
    if data.get("benchmark"):
        out += [{"id": "leaderboard", "title": "Leaderboard"},
                {"id": "paper-tables", "title": "Tables 3–5 beside the published models"},
                {"id": "accuracy", "title": "Accuracy per criterion"},
                {"id": "by-label", "title": "Accuracy by expected label"},
                {"id": "confusion", "title": "Confusion matrices"},
                {"id": "errors", "title": "Error analysis: items judged wrong"}]
        if data["benchmark"].get("checkers"):
            out += [{"id": "checkers", "title": "Checkers: versions, mappings and run time"},
                    {"id": "checkers-meaning",
                     "title": "Checkers vs meaning: passed and failed variants labelled alike"}]
    if data.get("remediation"):
        out.append({"id": "remediation", "title": "Remediation quality"})
    if data.get("review_queue"):
        out.append({"id": "review-queue", "title": "Review queue"})
    if data.get("usage"):
        out.append({"id": "usage", "title": "Model calls: tokens and cost"})
    for screening in data.get("screening") or []:
        out.append({"id": anchor("screening", screening["run_id"]), "title": f"Screening: run {screening['run_id']}"})
    for audit in data.get("audits") or []:
        out.append({"id": anchor("audit", audit["run_id"]), "title": f"Inclusivity audit: run {audit['run_id']}"})
    return out


def anchor(*parts: str) -> str:
    return "-".join(re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-") for p in parts)


def repeats_note(repeats: int) -> str:
    return f"counts over {repeats} repeats (divide by {repeats} for one repeat)" if repeats > 1 else "counts (1 repeat)"


# --- screening --------------------------------------------------------------------------------------------

_PAGE_REF = re.compile(r"\b(page|p\.)\s*\d+\b", re.IGNORECASE)


def fold_issues(issues: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same finding on many pages → one entry with its pages as a list (page numbers in the text ignored)."""
    folded: dict[tuple[str, ...], dict[str, Any]] = {}
    for issue in issues:
        key = tuple(_PAGE_REF.sub("page #", str(issue.get(k) or "")) for k in
                    ("judge", "model", "sub_criterion", "problem", "remediation"))
        found = folded.setdefault(key, {**issue, "pages": []})
        if issue["page"] not in found["pages"]:
            found["pages"].append(issue["page"])
    for found in folded.values():
        found["pages"].sort()
        found["page"] = found["pages"][0]
    return list(folded.values())


def page_list(pages: list[int]) -> str:
    """[1, 2, 3, 5] → '1–3, 5'."""
    runs: list[list[int]] = []
    for p in sorted(set(pages)):
        if runs and p == runs[-1][-1] + 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)


def finding_kind(what: str) -> str:
    """`text at 2.85:1 (needs 4.5:1)` and `text at 3.1:1 (needs 4.5:1)` are one kind of finding."""
    return re.sub(r"\d+(?:\.\d+)?", "#", what)


def fold_regions(regions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One region per finding kind on a page: its boxes merged where they touch or nearly do (lines of one
    paragraph become one box), the count of findings behind it and the first finding's wording."""
    kinds: dict[tuple[str, str], dict[str, Any]] = {}
    for r in regions:
        key = (r["criterion"], finding_kind(r["what"]))
        found = kinds.setdefault(key, {"criterion": r["criterion"], "what": r["what"], "count": 0, "boxes": []})
        found["count"] += 1
        found["boxes"].append(list(r["bbox"]))
    for found in kinds.values():
        found["boxes"] = _merge(found["boxes"])
        found["bbox"] = found["boxes"][0]
    return list(kinds.values())


def _merge(boxes: list[list[float]]) -> list[list[float]]:
    """Merge boxes that touch or nearly do, until no two of the result do (a grown box may reach another)."""
    merged = [list(b) for b in boxes]
    while True:
        out: list[list[float]] = []
        for box in sorted(merged, key=lambda b: (b[1], b[0])):
            for m in out:
                if (box[0] <= m[2] + MERGE_GAP_PT and m[0] <= box[2] + MERGE_GAP_PT
                        and box[1] <= m[3] + MERGE_GAP_PT and m[1] <= box[3] + MERGE_GAP_PT):
                    m[:] = [min(m[0], box[0]), min(m[1], box[1]), max(m[2], box[2]), max(m[3], box[3])]
                    break
            else:
                out.append(box)
        if len(out) == len(merged):
            return out
        merged = out


def region_label(region: dict[str, Any]) -> str:
    more = region["count"] - 1
    areas = len(region["boxes"])
    return (f"{region['criterion'].replace('_', ' ')}: {region['what']}"
            + (f" and {more} more like it" if more else "") + (f" ({areas} areas)" if areas > 1 else ""))
