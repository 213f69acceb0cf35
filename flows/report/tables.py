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

from common.stats import mcnemar_exact, wilson
from corpus.item_set import is_synthetic
from judges.criteria import CRITERIA
from judges.labels import Label

MAX_ERROR_ROWS = 200  # rows of the error analysis shown in md, html and text (json holds them all)
MERGE_GAP_PT = 6.0  # boxes of one finding kind closer than this (PDF points) are outlined as one region


def judge_name(row: dict[str, Any]) -> str:
    return f"{row['judge']} {row.get('model') or ''}".strip()


# --- Tables 3, 4, 5 side by side --------------------------------------------------------------------------

def paper_tables(accuracy: list[dict[str, Any]], by_label: list[dict[str, Any]], averages: list[dict[str, Any]],
                 published: dict[str, Any], paper_model_of: Any, item_set_of: dict[str, str] | None = None
                 ) -> list[dict[str, Any]]:
    """The paper's three tables with our judges' columns first, then the published models'. Each accuracy cell
    carries its n and 95% interval over items; each column and table title says on which items it was measured."""
    from flows.report.paper_numbers import ITEM_SET, published_n

    item_set_of = item_set_of or {}
    judges = list(dict.fromkeys((r["run_id"], r["judge"], r["model"] or "") for r in accuracy))
    several = len({run for run, _, _ in judges}) > 1
    columns = [{"name": f"{judge} {model}".strip() + (f" ({run})" if several else ""), "source": "ours",
                "run_id": run, "judge": judge, "model": model, "paper_model": paper_model_of(model),
                "item_set": item_set_of.get(run, "")}
               for run, judge, model in judges]
    columns += [{"name": f"{m} (published)", "source": "published", "model": m, "citation": published["citation"],
                 "item_set": ITEM_SET} for m in published["models"]]
    criteria = [c for c in CRITERIA if any(r["criterion"] == c for r in accuracy)] + ["average"]
    acc = {(r["run_id"], r["judge"], r["model"] or "", r["criterion"]): r for r in accuracy}
    avg = {(r["run_id"], r["judge"], r["model"] or ""): r for r in averages}
    lab = {(r["run_id"], r["judge"], r["model"] or "", r["expected_label"]): r for r in by_label}
    t3 = {(r["criterion"], r["model"]): r for r in published["accuracy"]}
    t4 = {(r["criterion"], r["model"]): r for r in published["macro_prf"]}
    t5 = {(r["expected_label"], r["model"]): r for r in published["by_label"]}
    acc_keys = ("accuracy", "accuracy_sd", "n", "ci_low", "ci_high")
    prf_keys = ("macro_precision", "macro_recall", "macro_f1", "n")

    def pick(row: dict[str, Any] | None, keys: tuple[str, ...]) -> dict[str, Any] | None:
        return None if row is None or row.get(keys[0]) is None else {k: row.get(k) for k in keys}

    def ours(key: tuple[str, str, str], row: str, table: str) -> dict[str, Any] | None:
        if table == "table5":
            return pick(lab.get((*key, row)), acc_keys)
        source = avg.get(key) if row == "average" else acc.get((*key, row))
        return pick(source, acc_keys if table == "table3" else prf_keys)

    def theirs(model: str, row: str, table: str) -> dict[str, Any] | None:
        found = {"table3": t3.get((row, model)), "table4": t4.get((row, model)),
                 "table5": t5.get((row, model))}[table]
        cell = pick(found, ("macro_precision", "macro_recall", "macro_f1") if table == "table4"
                    else ("accuracy", "accuracy_sd"))
        if cell is not None:
            cell["n"] = published_n(row)
            if table != "table4":
                add_interval(cell)
        return cell

    ours_sets = "; ".join(dict.fromkeys(c["item_set"] for c in columns if c["source"] == "ours" and c["item_set"]))
    on = f" — ours on {ours_sets or 'this run'}; published on {ITEM_SET}"
    specs = (("table3", "Table 3 — accuracy per criterion (mean ± population SD over repeats; n items, 95% "
              "Wilson interval over items)" + on, "criterion", criteria, ["accuracy", "accuracy_sd", "n", "ci_low",
                                                                          "ci_high"]),
             ("table4", "Table 4 — macro precision / recall / F1 per criterion" + on, "criterion", criteria,
              ["macro_precision", "macro_recall", "macro_f1", "n"]),
             ("table5", "Table 5 — accuracy by expected label, pooled over criteria (n items, 95% Wilson interval)"
              + on, "expected label", [lab.value for lab in Label], ["accuracy", "accuracy_sd", "n", "ci_low",
                                                                      "ci_high"]))
    out = []
    for table, title, row_header, rows, values in specs:
        out.append({"id": table, "title": title, "row_header": row_header, "values": values, "columns": columns,
                    "item_set": ours_sets, "published_item_set": ITEM_SET,
                    "rows": [{"row": row, "cells": [
                        ours((c["run_id"], c["judge"], c["model"]), row, table) if c["source"] == "ours"
                        else theirs(c["model"], row, table) for c in columns]} for row in rows]})
    return out


def average_note(tables_: list[dict[str, Any]], averages: list[dict[str, Any]] | None = None) -> str:
    """What the 'average' rows average over: each of our judges over the criteria it scored, the paper's over its
    seven. A judge that scored one criterion has an 'average' that is that criterion's accuracy."""
    rows = [r["row"] for r in tables_[0]["rows"] if r["row"] != "average"] if tables_ else []
    counts = sorted({int(a.get("criteria") or 0) for a in averages or []} - {0})
    if len(counts) > 1:
        scored = ("Each of our judges' 'average' is the mean over the criteria it scored "
                  f"({', '.join(map(str, counts))} criteria)")
    else:
        count = counts[0] if counts else len(rows)
        scored = (f"Our 'average' is the mean over the {count} criteri{'on' if count == 1 else 'a'} scored here"
                  + (" (so it equals that criterion's accuracy)" if count == 1 else ""))
    return scored + ("" if len(rows) == len(CRITERIA) and counts in ([], [len(CRITERIA)])
                     else f"; the published one is over all {len(CRITERIA)}") + "."


def add_interval(row: dict[str, Any]) -> dict[str, Any]:
    """`ci_low`, `ci_high`: the 95% Wilson interval of the row's accuracy over its `n` items (None without)."""
    interval = wilson(row.get("accuracy"), row.get("n"))
    row["ci_low"], row["ci_high"] = interval if interval else (None, None)
    return row


def interval_text(row: dict[str, Any] | None) -> str:
    """`n=12, 95% CI 0.65–0.99`, or '' without an interval."""
    if not row or row.get("ci_low") is None:
        return f"n={row['n']}" if row and row.get("n") else ""
    return f"n={row['n']}, 95% CI {row['ci_low']:.2f}–{row['ci_high']:.2f}"


def cell_text(cell: dict[str, Any] | None) -> str:
    """One cell of a paper table: `0.700 ± 0.040 (n=12, 95% CI 0.42–0.87)`, or `0.57/0.70/0.62 (n=12)` for
    macro P/R/F1; `–` for none."""
    if not cell:
        return "–"
    if "macro_f1" in cell:
        return "/".join(f"{cell[k]:.2f}" for k in ("macro_precision", "macro_recall", "macro_f1")) + (
            f" (n={cell['n']})" if cell.get("n") else "")
    sd = cell.get("accuracy_sd")
    extra = interval_text(cell)
    return f"{cell['accuracy']:.3f}" + (f" ± {sd:.3f}" if sd else "") + (f" ({extra})" if extra else "")


# --- provenance --------------------------------------------------------------------------------------------

def synthetic_banner(data: dict[str, Any]) -> str:
    """A warning for any report that puts a synthetic run's numbers beside published rows (or anywhere): its
    expected labels are the generator's own, made from the same principles as the rules judge."""
    synthetic = [r["run_id"] for r in data.get("runs") or [] if is_synthetic(r.get("item_set"))]
    if not synthetic:
        return ""
    return (f"Synthetic items (run {', '.join(synthetic)}): the expected labels are the generator's own "
            "(self-labelled), built from the same principles as the rules judge, so its accuracy there says how "
            "well the rules agree with the generator, not with experts. The published rows were scored by experts "
            "on another, larger item set: do not compare the two.")


# --- paired comparison ------------------------------------------------------------------------------------

def paired_comparisons(leaderboard: list[dict[str, Any]], per_item: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each pair of judges ranked in the same scope (scored on the same items), compared item by item: an item
    counts as right for a judge when it was right in most of its repeats; the exact McNemar test on the items
    exactly one of the two got right says whether their accuracies differ beyond chance."""
    right: dict[tuple[str, str, str], dict[tuple[str, str], bool]] = defaultdict(dict)
    for r in per_item:
        right[(r["run_id"], r["judge"], r["model"] or "")][(r["doc_id"], r["criterion"])] = r["correct"] > 0.5
    out = []
    for i, a in enumerate(leaderboard):
        for b in leaderboard[i + 1:]:
            if a.get("scope") != b.get("scope"):
                continue
            ra = right.get((a["run_id"], a["judge"], a["model"] or ""), {})
            rb = right.get((b["run_id"], b["judge"], b["model"] or ""), {})
            shared = sorted(set(ra) & set(rb))
            if not shared:
                continue
            only_a = sum(1 for k in shared if ra[k] and not rb[k])
            only_b = sum(1 for k in shared if rb[k] and not ra[k])
            p_value = mcnemar_exact(only_a, only_b)
            out.append({"judge_a": judge_name(a), "run_a": a["run_id"], "judge_b": judge_name(b), "run_b": b["run_id"],
                        "n": len(shared), "both_right": sum(1 for k in shared if ra[k] and rb[k]),
                        "only_a": only_a, "only_b": only_b,
                        "difference": (only_a - only_b) / len(shared), "p_value": p_value,
                        "test": "McNemar exact (two-sided)",
                        "verdict": ("differ (p < 0.05)" if p_value < 0.05 else "no detectable difference")})
    return out


def comparison_text(row: dict[str, Any]) -> str:
    return (f"{row['judge_a']} vs {row['judge_b']}: {row['n']} shared items, right only for A {row['only_a']}, only "
            f"for B {row['only_b']}, difference {row['difference']:+.3f}, p = {row['p_value']:.3f} — {row['verdict']}")


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
        folded[key]["repeats"].append(r["repeat"] + 1)  # as people count: repeat 1, 2, 3
    return list(folded.values())


def call_command(call_id: str | None) -> str:
    return f"accessbench calls show {call_id}" if call_id else ""


# --- sections ---------------------------------------------------------------------------------------------

def sections(data: dict[str, Any]) -> list[dict[str, str]]:
    """The report's sections, in order: `id` (the HTML anchor and the JSON key path's head) and `title`."""
    out = [{"id": "runs", "title": "Runs and their item sets"}]
    if data.get("benchmark"):
        on = f" — {scored_item_sets(data)}"
        out += [{"id": "leaderboard", "title": "Leaderboard" + on},
                {"id": "paper-tables", "title": "Tables 3–5 beside the published models" + on},
                {"id": "accuracy", "title": "Accuracy per criterion" + on},
                {"id": "by-label", "title": "Accuracy by expected label" + on},
                {"id": "confusion", "title": "Confusion matrices" + on},
                {"id": "errors", "title": "Error analysis: items judged wrong" + on}]
        if any(f["flags"] for f in data["benchmark"].get("flags") or []):
            out.append({"id": "flags", "title": "Judge self-checks: flagged judgments" + on})
        if data["benchmark"].get("checkers"):
            out += [{"id": "checkers", "title": "Checkers: versions, mappings and run time" + on},
                    {"id": "checkers-meaning",
                     "title": "Checkers vs meaning: passed and failed variants labelled alike" + on}]
    every = " — " + "; ".join(dict.fromkeys((data.get("item_sets") or {}).values())) if data.get("item_sets") else ""
    if data.get("remediation"):
        out.append({"id": "remediation", "title": "Remediation quality" + every})
    if data.get("review_queue"):
        out.append({"id": "review-queue", "title": "Review queue" + every})
    if data.get("usage"):
        out.append({"id": "usage", "title": "Model calls: tokens and cost" + every})
    for screening in data.get("screening") or []:
        out.append({"id": anchor("screening", screening["run_id"]),
                    "title": f"Screening: run {screening['run_id']} — "
                             f"{(data.get('item_sets') or {}).get(screening['run_id']) or 'screening'}"})
    for audit in data.get("audits") or []:
        out.append({"id": anchor("audit", audit["run_id"]), "title": f"Inclusivity audit: run {audit['run_id']}"})
    return out


def scored_item_sets(data: dict[str, Any]) -> str:
    """The item sets of the report's scored runs, for titles: `synthetic (self-labelled): … ; dataset:…`."""
    sets = data.get("item_sets") or {}
    scored = [r["run_id"] for r in data.get("runs") or [] if r.get("scored")]
    return "; ".join(dict.fromkeys(sets.get(run) or run for run in scored)) or "no item set recorded"


def headline(data: dict[str, Any]) -> list[str]:
    """The report's first lines: each run with its item set."""
    return [f"run {r['run_id']}: {r.get('item_set') or 'item set not recorded'}" for r in data.get("runs") or []]


FLAG_WORDS = {
    "reply_inconsistent": "label contradicts the reply's own sub-criteria or issues",
    "label_forced_failed": "label raised to failed (a sub-criterion failed)",
    "label_without_evidence": "label without the criterion's evidence",
    "alt_text_not_in_evidence": "quoted alt text not in the evidence",
    "values_not_in_evidence": "values not in the evidence",
    "instruction_like_text": "evidence held instruction-like text",
}


def flag_rows(flags: list[dict[str, Any]]) -> list[list[Any]]:
    """[judge, run, judgments, flag, count, share] per judge and flag raised."""
    return [[judge_name(f), f["run_id"], f["judgments"], FLAG_WORDS.get(name, name.replace("_", " ")), n,
             f"{n / f['judgments']:.1%}" if f["judgments"] else ""]
            for f in flags for name, n in sorted(f["flags"].items())]


def anchor(*parts: str) -> str:
    return "-".join(re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-") for p in parts)


def repeats_note(repeats: int) -> str:
    return f"counts over {repeats} repeats (divide by {repeats} for one repeat)" if repeats > 1 else "counts (1 repeat)"


# --- screening --------------------------------------------------------------------------------------------

_PAGE_REF = re.compile(r"\b(page|p\.)\s*\d+\b", re.IGNORECASE)
ERROR, WARNING = "error", "warning"  # a finding's severity: an error fails its criterion, a warning fails nothing
# How to tag an untagged file: every other criterion is judged on the tags, so this comes first.
TAG_FIRST = ("Tag the document first (PDF/UA-1 7.1: it has no structure tree, so screen readers get no headings, "
             "lists, tables or reading order): export it again from its source with tags on — Word: Save As PDF › "
             "Options › 'Document structure tags for accessibility'; LaTeX: \\DocumentMetadata{tagging=on}; "
             "InDesign: Export › 'Create Tagged PDF' — or, as a last resort, Acrobat Pro › Accessibility › Autotag "
             "Document; then screen it again: its other findings are judged on the tags.")


def severity_of(issue: dict[str, Any], failed: bool) -> str:
    """A finding's severity: its rules-catalog rule's when screening (judges/rules/catalog), else error on a page
    that failed and warning on one that did not."""
    from judges.rules.catalog import catalog

    rule = catalog().get(issue.get("rule_id") or "")
    if rule is not None:
        return WARNING if rule.severity_in(True) == WARNING else ERROR
    return ERROR if failed else WARNING


def file_warnings(found: dict[str, Any]) -> list[str]:
    """A screened file's warnings, each once: warning findings (with their pages) and warning error rows."""
    out = [f"{criterion}: {i['problem'] or i['location']} (page{'s' if len(i['pages']) > 1 else ''} "
           f"{page_list(i['pages'])})"
           for criterion in CRITERIA for i in (found["criteria"].get(criterion) or {}).get("issues", [])
           if i.get("severity") == WARNING]
    return list(dict.fromkeys(out + list(found.get("warning_errors") or [])))


def fix_first(found: dict[str, Any]) -> list[dict[str, Any]]:
    """What to fix first in one file: an untagged file is tagged before anything (with how); then its error
    findings, those met by the most readers first (on the most pages; ties in criterion order)."""
    from tasks.benchmark.screening import UNTAGGED

    steps: list[dict[str, Any]] = []
    if UNTAGGED in (found.get("reason") or ""):
        steps.append({"what": "tag the document", "how": TAG_FIRST, "criterion": "semantic_tagging",
                      "severity": ERROR, "pages": []})
    errors = [(criterion, i) for criterion in CRITERIA
              for i in (found["criteria"].get(criterion) or {}).get("issues", []) if i.get("severity") == ERROR]
    errors.sort(key=lambda ci: (-len(ci[1]["pages"]), CRITERIA.index(ci[0])))
    for criterion, issue in errors:
        issue["fix_order"] = len(steps) + 1  # the issues tables list findings in this order, each once
        steps.append({"what": f"{criterion}: {issue['problem'] or issue['location']}",
                      "how": issue["remediation"], "criterion": criterion, "severity": ERROR,
                      "pages": list(issue["pages"])})
    return steps


def count_text(count: int | None) -> str:
    """A count, or – where nothing was counted (a file that could not be checked)."""
    return "–" if count is None else str(count)


def step_text(step: dict[str, Any]) -> str:
    """A fix-first step in a few words (the finding itself is listed once, in the file's issues table)."""
    if not step["pages"]:
        return step["what"]
    return f"{step['criterion']}, page{'s' if len(step['pages']) > 1 else ''} {page_list(step['pages'])}"


def ordered_issues(found: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(criterion, finding) of one file, errors in fix-first order, then its warnings."""
    every = [(c, i) for c in CRITERIA for i in (found["criteria"].get(c) or {}).get("issues", [])]
    return sorted(every, key=lambda ci: (ci[1].get("fix_order") or 10**6, CRITERIA.index(ci[0])))


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
