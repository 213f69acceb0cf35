"""Terminal report of one run: accuracy per criterion and label, macro F1, confusion matrices."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from common.text import visible
from flows.report import paper_numbers as paper
from flows.report import tables as tables
from judges.criteria import labels_for
from judges.labels import Label
from tasks.benchmark.screening import FAILS, NOT_CHECKED, PASSES
from warehouse import catalog
from warehouse.tables import ALL_TABLES

SHORT = {"passed": "P", "failed": "F", "not_present": "NP", "cannot_tell": "CT"}


def _rows(con: Any, sql: str, run_id: str) -> list[dict[str, Any]]:
    result = con.execute(sql, {"run": run_id})
    names = [d[0] for d in result.description]
    return [dict(zip(names, values, strict=True)) for values in result.fetchall()]


def _pm(mean: float | None, sd: float | None, repeats: int) -> str:
    if mean is None:
        return "-"
    return f"{mean:.3f}" + (f" ± {sd:.3f}" if repeats > 1 else "")


def render_report(home: Path, run_id: str, brief: bool = False) -> str:
    from flows.report.data import collect

    data = collect(home, [run_id])  # the numbers and verdicts md, json and html show (read once per run state)
    con = catalog.connect(home, ALL_TABLES)
    out = Console(file=io.StringIO(), width=140 if brief else 260)
    item_set = (data.get("item_sets") or {}).get(run_id) or "item set not recorded"
    for line in tables.headline(data):
        out.print(line, markup=False)
    if data.get("banner"):
        out.print(Text("WARNING: " + data["banner"], style="bold"))
    try:
        acc = _rows(con, """
            SELECT a.*, p.macro_f1, p.macro_f1_sd, x.accuracy AS acc_ex_ct, x.n AS n_ex_ct
            FROM accuracy_by_criterion a
            LEFT JOIN prf_by_criterion p USING (run_id, judge, model, criterion)
            LEFT JOIN accuracy_by_criterion_ex_ct x USING (run_id, judge, model, criterion)
            WHERE a.run_id = $run ORDER BY judge, model, criterion""", run_id)
        if not acc:
            _unlabelled(con, out, run_id, data)
            return out.file.getvalue()  # type: ignore[attr-defined]
        by_label = _rows(con, "SELECT * FROM accuracy_by_label WHERE run_id = $run", run_id)
        overall = _rows(con, "SELECT * FROM leaderboard WHERE run_id = $run", run_id)
        table = Table("judge", "model", "criterion", "n", "accuracy", "95% CI over items", "macro F1", "acc. excl. CT",
                      *(SHORT[label.value] for label in Label), title=f"run {run_id}: accuracy — {item_set}")
        for row in acc:
            per_label = {r["expected_label"]: r for r in by_label
                         if (r["judge"], r["model"], r["criterion"]) == (row["judge"], row["model"], row["criterion"])}
            table.add_row(row["judge"], row["model"] or "-", row["criterion"], str(row["n"]),
                          _pm(row["accuracy"], row["accuracy_sd"], row["repeats"]),
                          tables.interval_text(tables.add_interval(dict(row))),
                          _pm(row["macro_f1"], row["macro_f1_sd"], row["repeats"]),
                          _pm(row["acc_ex_ct"], None, 1),
                          *(_pm(per_label[label.value]["accuracy"], None, 1) if label.value in per_label else "-"
                            for label in Label))
        for row in overall:
            table.add_row(row["judge"], row["model"] or "-", "[bold]overall[/bold]", str(row["n"]),
                          _pm(row["accuracy"], row["accuracy_sd"], 2 if row["repeats"] > 1 else 1),
                          tables.interval_text(tables.add_interval(dict(row))),
                          _pm(row["macro_f1"], None, 1), "", *([""] * len(Label)))
        out.print(table)
        bench = data.get("benchmark") or {}
        for row in bench.get("comparisons") or []:
            out.print("paired (McNemar exact): " + tables.comparison_text(row), markup=False)
        for judge, _run, judgments, flag, n, share in tables.flag_rows(bench.get("flags") or []):
            out.print(f"flagged ({judge}): {flag}: {n} of {judgments} judgments ({share}); labels kept as given",
                      markup=False)
        _unjudged(con, out, run_id)
        _normalisations(con, out, run_id)
        _rule_findings(con, out, run_id)
        if not brief:
            _published(con, out, run_id, bench)
            _confusion(con, out, run_id)
            _collected(out, home, run_id)
    finally:
        con.close()
    return out.file.getvalue()  # type: ignore[attr-defined]


def _evidence_modes(con: Any, run_id: str) -> dict[tuple[str, str], str]:
    """(judge, model) → the evidence mode its LLM calls used (`paper` or `enriched`), from `judgments.params`."""
    modes = {}
    for row in _rows(con, "SELECT DISTINCT judge, coalesce(model, '') AS model, params FROM judgments "
                          "WHERE run_id = $run AND model IS NOT NULL", run_id):
        params = json.loads(row["params"] or "{}")
        mode = params.get("evidence") or (params.get("llm") or {}).get("evidence")
        if mode:
            modes[(row["judge"], row["model"])] = mode
    return modes


def _name(judge: str, model: str) -> str:
    mapped = paper.paper_model(model)
    return f"ours: {judge} {model}".strip() + (f" (≙ {mapped})" if mapped else "")


def _published(con: Any, out: Console, run_id: str, bench: dict[str, Any]) -> None:
    """Every judge of the run beside all five published models on the paper's Tables 3, 4 and 5, as md and html
    show them (flows.report.tables.paper_tables): titles naming each side's items, cells with n and intervals."""

    for paper_table in bench.get("paper_tables") or []:
        columns = [_name(c["judge"], c["model"]) if c["source"] == "ours" else c["name"]
                   for c in paper_table["columns"]]
        table = Table(paper_table["row_header"], *columns, title=f"run {run_id}: {paper_table['title']}")
        for row in paper_table["rows"]:
            table.add_row(row["row"], *(tables.cell_text(cell) for cell in row["cells"]))
        out.print(table)
    modes = _evidence_modes(con, run_id)
    if modes:
        out.print("evidence shown to the LLM judges: " + "; ".join(
            f"{judge} {model}: {mode}" + (" (the paper's protocol)" if mode == "paper" else " (with our findings)")
            for (judge, model), mode in modes.items()))
    out.print("SD is the population SD over repeats (ddof = 0), as in the paper's Table 3; the interval is a 95% "
              "Wilson interval over items. " + tables.average_note(bench.get("paper_tables") or [],
                                                                    bench.get("averages"))
              + " Items with no usable judgment count as wrong (accessbench sql \"select * from unjudged\"). "
              "Published rows: flows/report/published/README.md.", markup=False)


def _collected(out: Console, home: Path, run_id: str) -> None:
    """The sections the Markdown, JSON and HTML reports share with this one: error analysis, remediation
    quality, the review queue and the model calls' tokens and cost."""
    from flows.report.data import collect

    data = collect(home, [run_id])
    errors = (data.get("benchmark") or {}).get("errors") or []
    table = Table("item", "criterion", "judge", "expected", "got", "repeats", "reason", "model call",
                  title=f"run {run_id}: error analysis — items judged wrong ({len(errors)})")
    for r in errors[:tables.MAX_ERROR_ROWS]:
        table.add_row(Text(visible(r["doc_id"], newlines=False)), r["criterion"], Text(tables.judge_name(r)),
                      r["expected"], r["got"], ", ".join(map(str, r["repeats"])),
                      Text(visible(r["reason"] or "", newlines=False)), tables.call_command(r["call_id"]))
    out.print(table if errors else f"run {run_id}: no item was judged wrong")
    if len(errors) > tables.MAX_ERROR_ROWS:
        out.print(f"{len(errors) - tables.MAX_ERROR_ROWS} more: accessbench report --run {run_id} --format json")
    bench = data.get("benchmark") or {}
    if bench.get("checkers"):
        table = Table(*tables.CHECKER_HEADER, title=f"run {run_id}: checker judges (judges/checkers/<name>.toml)")
        for row in tables.checker_rows(bench["checkers"]):
            table.add_row(*(Text(c) for c in row))
        out.print(table)
        meaning = bench["checkers_vs_meaning"]
        table = Table(*tables.MEANING_HEADER, title=f"run {run_id}: checkers vs meaning — "
                                                    f"{len(meaning['alike'])} of {meaning['pairs']} base documents")
        for row in tables.meaning_rows(meaning):
            table.add_row(*(Text(c) for c in row))
        out.print(table)
    if data.get("remediation"):
        table = Table("judge", "Failed judgments", "specificity", "actionability", "technical validity", "score",
                      title=f"run {run_id}: remediation quality (means over Failed judgments)")
        for r in data["remediation"]:
            table.add_row(Text(tables.judge_name(r)), str(r["failed_judgments"]), _pm(r["specificity"], None, 1),
                          _pm(r["actionability"], None, 1), _pm(r["technical_validity"], None, 1),
                          _pm(r["score"], None, 1))
        out.print(table)
    if data.get("review_queue"):
        table = Table("item", "document", "criterion", "page", "label meanwhile", "why",
                      title=f"run {run_id}: review queue (accessbench review resolve ITEM LABEL)")
        for r in data["review_queue"]:
            table.add_row(r["item_id"], Text(r["doc_id"]), r["criterion"], str(r["page"]), r["label"] or "",
                          Text(r["reason"]))
        out.print(table)
    if data.get("usage"):
        table = Table("judge", "calls", "cached", "failed", "tokens in", "tokens out", "cost (USD)",
                      title=f"run {run_id}: model calls, tokens and cost")
        rows = data["usage"]
        for r in [*rows, {"judge": "total", "model": "", **{k: sum(x[k] or 0 for x in rows) for k in (
                "calls", "cached", "failed", "tokens_in", "tokens_out", "cost_usd")}}]:
            table.add_row(Text(tables.judge_name(r)), str(r["calls"]), str(r["cached"]), str(r["failed"]),
                          str(r["tokens_in"]), str(r["tokens_out"]),
                          "-" if r["cost_usd"] is None else f"{r['cost_usd']:.4f}")
        out.print(table)


def _confusion(con: Any, out: Console, run_id: str) -> None:
    from flows.report.tables import repeats_note

    cells = _rows(con, "SELECT * FROM confusion_matrix WHERE run_id = $run", run_id)
    repeats = {(r["judge"], r["model"] or "-"): r["repeats"] for r in _rows(
        con, "SELECT judge, model, count(DISTINCT repeat) AS repeats FROM doc_results WHERE run_id = $run "
             "GROUP BY ALL", run_id)}
    keys = sorted({(c["judge"], c["model"] or "-", c["criterion"]) for c in cells})
    for judge, model, criterion in keys:
        labels = [label.value for label in labels_for(criterion)]
        counts = {(c["expected_label"], c["label"]): c["n"] for c in cells
                  if (c["judge"], c["model"] or "-", c["criterion"]) == (judge, model, criterion)}
        predicted = labels + sorted({p for _, p in counts} - set(labels))
        table = Table("expected \\ judged", *(SHORT.get(p) or p for p in predicted),
                      title=f"{criterion} — {judge}{'' if model == '-' else ' ' + model}: "
                            f"{repeats_note(repeats.get((judge, model), 1))}")
        for expected in labels:
            table.add_row(expected, *(str(counts.get((expected, p), 0)) for p in predicted))
        out.print(table)


def error_files(home: Path, run_id: str) -> int:
    """How many files (not file × criterion documents) of the run have error rows; rows without a document
    (a stage-wide error) count as one."""
    con = catalog.connect(home, ALL_TABLES)
    try:
        row = con.execute("""
            SELECT count(DISTINCT coalesce(array_to_string(d.files, ' + '), e.doc_id, '')) FROM errors e
            LEFT JOIN documents d ON d.run_id = e.run_id AND d.doc_id = e.doc_id WHERE e.run_id = $run""",
                          {"run": run_id}).fetchone()
    finally:
        con.close()
    return int(row[0]) if row else 0


def _unlabelled(con: Any, out: Console, run_id: str, data: dict[str, Any]) -> None:
    rows = _rows(con, """
        SELECT criterion, label, count(*) AS documents FROM doc_labels WHERE run_id = $run
        GROUP BY ALL ORDER BY ALL""", run_id)
    screening = next((s for s in data.get("screening") or [] if s["run_id"] == run_id), None)
    if not rows and not (screening and screening["files"]):
        out.print(f"run {run_id} has no document labels yet (see: accessbench runs)")
        return
    if rows:
        source = _rows(con, "SELECT any_value(source) AS source FROM runs WHERE run_id = $run", run_id)
        unit = "files" if source and source[0]["source"] == "pdfs" else "documents"  # `run --pdfs`: one per file
        table = Table("criterion", "label", unit, title=f"run {run_id}: labels (no expected labels to score)")
        for row in rows:
            table.add_row(row["criterion"], row["label"], str(row["documents"]))
        out.print(table)
    if screening:
        _verdicts(out, run_id, screening, (data.get("item_sets") or {}).get(run_id) or "screening")


def _verdicts(out: Console, run_id: str, screening: dict[str, Any], item_set: str) -> None:
    """Each file's verdict, most urgent first, as md and html list them (flows.report.data), with its warnings
    and what to fix first; counted in files (a run holds one document per file and criterion)."""
    files = screening["files"]
    if not files:
        return
    table = Table("file", "verdict", "PDF/UA-1", "errors", "warnings", "reason", "fix first", "pages",
                  title=f"run {run_id}: files, could not be checked and failing first — {item_set}")
    for row in files:  # as Text: a file name or an error message is never read as markup
        table.add_row(Text(visible(row["file"], newlines=False)),  # a newline in a name would forge a row
                      Text(row["verdict"], style="bold" if row["verdict"] != PASSES else ""),
                      Text(row.get("conformance") or ""), tables.count_text(row.get("error_count")),
                      str(len(row.get("warnings") or [])),
                      Text(visible(row["reason"] or "", newlines=False)),
                      Text(visible(row.get("first_issue") or "", newlines=False)), str(row["pages"] or ""))
    out.print(table)
    for row in files:
        if row.get("warnings") and row["verdict"] == PASSES:
            out.print(Text(f"{visible(row['file'], newlines=False)} passes with warnings: "
                           + "; ".join(visible(w, newlines=False) for w in row["warnings"])))
    unchecked = sum(1 for row in files if row["verdict"] == NOT_CHECKED)
    failing = sum(1 for row in files if row["verdict"] == FAILS)
    out.print(f"{unchecked} of {len(files)} file(s) could not be checked, {failing} fail"
              + (f" (why: accessbench sql \"select * from errors where run_id='{run_id}'\")" if unchecked else ""),
              markup=False)


def _normalisations(con: Any, out: Console, run_id: str) -> None:
    """How the models' replies had to be read (fenced JSON, the paper's shape, label synonyms, …): nothing is
    reinterpreted silently. Counted over the calls whose reply was used."""
    rows = _rows(con, "SELECT model, normalised FROM llm_calls WHERE run_id = $run AND parsed IS NOT NULL "
                      "AND parse_error IS NULL", run_id)
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        model = row["model"] or "-"
        per = counts.setdefault(model, {"(as asked)": 0})
        steps = json.loads(row["normalised"] or "[]")
        for step in steps or ["(as asked)"]:
            per[step] = per.get(step, 0) + 1
    for model, per in sorted(counts.items()):
        total = sum(1 for r in rows if (r["model"] or "-") == model)
        shown = ", ".join(f"{step} {n}" for step, n in sorted(per.items(), key=lambda kv: -kv[1]) if n)
        out.print(f"replies of {model} read ({total} used): {shown} — per call: accessbench calls list "
                  f"--run {run_id}", markup=False)


def _rule_findings(con: Any, out: Console, run_id: str) -> None:
    """Findings per rules-catalog id (accessbench rules explains each)."""
    rows = _rows(con, "SELECT rule_id, count(*) AS n FROM findings WHERE run_id = $run AND rule_id IS NOT NULL "
                      "GROUP BY rule_id ORDER BY n DESC, rule_id", run_id)
    if rows:
        table = Table("rule", "findings", title=f"run {run_id}: findings per rule (accessbench rules)")
        for row in rows:
            table.add_row(row["rule_id"], str(row["n"]))
        out.print(table)


def _unjudged(con: Any, out: Console, run_id: str) -> None:
    """Items in the denominator without a usable judgment: how many per judge, and where to see why."""
    rows = _rows(con, "SELECT judge, model, count(*) AS n FROM unjudged WHERE run_id = $run GROUP BY ALL "
                      "ORDER BY ALL", run_id)
    if rows:
        counts = "; ".join(f"{r['judge']} {r['model']}".strip() + f": {r['n']}" for r in rows)
        out.print(f"unjudged items (counted wrong): {counts} — why: accessbench sql \"select * from unjudged "
                  f"where run_id='{run_id}'\"", markup=False)
