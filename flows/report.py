"""Terminal report of one run: accuracy per criterion and label, macro F1, confusion matrices."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from flows.paper_numbers import CITATION, MODELS, Published, PublishedModel
from judges.criteria import labels_for
from judges.labels import Label
from tasks.registry import ALL_TABLES
from warehouse import catalog

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
    con = catalog.connect(home, ALL_TABLES)
    out = Console(file=io.StringIO(), width=140)
    try:
        acc = _rows(con, """
            SELECT a.*, p.macro_f1, p.macro_f1_sd, x.accuracy AS acc_ex_ct, x.n AS n_ex_ct
            FROM accuracy_by_criterion a
            LEFT JOIN prf_by_criterion p USING (run_id, judge, model, criterion)
            LEFT JOIN accuracy_by_criterion_ex_ct x USING (run_id, judge, model, criterion)
            WHERE a.run_id = $run ORDER BY judge, model, criterion""", run_id)
        if not acc:
            _unlabelled(con, out, run_id)
            return out.file.getvalue()  # type: ignore[attr-defined]
        by_label = _rows(con, "SELECT * FROM accuracy_by_label WHERE run_id = $run", run_id)
        overall = _rows(con, "SELECT * FROM leaderboard WHERE run_id = $run", run_id)
        table = Table("judge", "model", "criterion", "n", "accuracy", "macro F1", "acc. excl. CT",
                      *(SHORT[label.value] for label in Label), title=f"run {run_id}: accuracy")
        for row in acc:
            per_label = {r["expected_label"]: r for r in by_label
                         if (r["judge"], r["model"], r["criterion"]) == (row["judge"], row["model"], row["criterion"])}
            table.add_row(row["judge"], row["model"] or "-", row["criterion"], str(row["n"]),
                          _pm(row["accuracy"], row["accuracy_sd"], row["repeats"]),
                          _pm(row["macro_f1"], row["macro_f1_sd"], row["repeats"]),
                          _pm(row["acc_ex_ct"], None, 1),
                          *(_pm(per_label[label.value]["accuracy"], None, 1) if label.value in per_label else "-"
                            for label in Label))
        for row in overall:
            table.add_row(row["judge"], row["model"] or "-", "[bold]overall[/bold]", str(row["n"]),
                          _pm(row["accuracy"], row["accuracy_sd"], 2 if row["accuracy_sd"] else 1),
                          _pm(row["macro_f1"], None, 1), "", *([""] * len(Label)))
        out.print(table)
        if not brief:
            _published(con, out, run_id, acc, overall)
            _confusion(con, out, run_id)
    finally:
        con.close()
    return out.file.getvalue()  # type: ignore[attr-defined]


def _cell(number: Published | None) -> str:
    if number is None:
        return "-"
    return f"{number.value:.3f}" + ("*" if number.secondary else "")


def _published(con: Any, out: Console, run_id: str, acc: list[dict[str, Any]], overall: list[dict[str, Any]]) -> None:
    """Our accuracy beside the paper's, per criterion and per expected label; models without numbers left out."""
    ours = list(dict.fromkeys((r["judge"], r["model"] or "") for r in acc))
    names = [f"{judge} {model}".strip() for judge, model in ours]
    criteria = list(dict.fromkeys(r["criterion"] for r in acc))
    by_criterion = {(r["judge"], r["model"] or "", r["criterion"]): r for r in acc}
    totals = {(r["judge"], r["model"] or ""): r for r in overall}
    by_label = {(r["judge"], r["model"] or "", r["expected_label"]): r for r in _rows(con, """
        WITH per_repeat AS (
            SELECT judge, model, expected_label, repeat, avg(correct::INT) AS acc
            FROM doc_results WHERE run_id = $run GROUP BY ALL)
        SELECT judge, model, expected_label, avg(acc) AS accuracy,
               coalesce(stddev_samp(acc), 0) AS accuracy_sd, count(*) AS repeats
        FROM per_repeat GROUP BY ALL""", run_id)}
    labels = [label.value for label in Label if any(key[2] == label.value for key in by_label)]

    rows: list[tuple[str, list[str], list[Published | None]]] = []
    for criterion in criteria:
        mine = [by_criterion.get((*key, criterion)) for key in ours]
        rows.append((criterion, [_pm(r["accuracy"], r["accuracy_sd"], r["repeats"]) if r else "-" for r in mine],
                     [m.by_criterion.get(criterion) for m in MODELS]))
    mine = [totals.get(key) for key in ours]
    rows.append(("[bold]overall[/bold] accuracy",
                 [_pm(r["accuracy"], r["accuracy_sd"], 2 if r["accuracy_sd"] else 1) if r else "-" for r in mine],
                 [m.accuracy for m in MODELS]))
    rows.append(("[bold]overall[/bold] macro F1", [_pm(r["macro_f1"], None, 1) if r else "-" for r in mine],
                 [m.macro_f1 for m in MODELS]))
    _side_by_side(out, f"published ({CITATION}) beside run {run_id}: accuracy by criterion", "criterion", names,
                  rows)

    rows = []
    for label in labels:
        mine = [by_label.get((*key, label)) for key in ours]
        rows.append((label, [_pm(r["accuracy"], r["accuracy_sd"], r["repeats"]) if r else "-" for r in mine],
                     [m.by_label.get(label) for m in MODELS]))
    _side_by_side(out, f"published ({CITATION}) beside run {run_id}: accuracy by expected label", "expected label",
                  names, rows)
    missing = [m.name for m in MODELS if not m.has_numbers()]
    out.print("* read in a page quoting the paper, not in the paper itself; sources: flows/paper_numbers.py"
              + (f"\nno published numbers recorded for: {', '.join(missing)}" if missing else ""))


def _side_by_side(out: Console, title: str, first: str, ours: list[str],
                  rows: list[tuple[str, list[str], list[Published | None]]]) -> None:
    shown = [i for i, _ in enumerate(MODELS) if any(published[i] is not None for _, _, published in rows)]
    models: list[PublishedModel] = [MODELS[i] for i in shown]
    table = Table(first, *(f"ours: {name}" for name in ours), *(m.name for m in models), title=title)
    for name, mine, published in rows:
        table.add_row(name, *mine, *(_cell(published[i]) for i in shown))
    out.print(table)


def _confusion(con: Any, out: Console, run_id: str) -> None:
    cells = _rows(con, "SELECT * FROM confusion_matrix WHERE run_id = $run", run_id)
    keys = sorted({(c["judge"], c["model"] or "-", c["criterion"]) for c in cells})
    for judge, model, criterion in keys:
        labels = [label.value for label in labels_for(criterion)]
        counts = {(c["expected_label"], c["label"]): c["n"] for c in cells
                  if (c["judge"], c["model"] or "-", c["criterion"]) == (judge, model, criterion)}
        predicted = labels + sorted({p for _, p in counts} - set(labels))
        table = Table("expected \\ judged", *(SHORT.get(p) or p for p in predicted),
                      title=f"{criterion} — {judge} {'' if model == '-' else model}")
        for expected in labels:
            table.add_row(expected, *(str(counts.get((expected, p), 0)) for p in predicted))
        out.print(table)


def _unlabelled(con: Any, out: Console, run_id: str) -> None:
    rows = _rows(con, """
        SELECT criterion, label, count(*) AS documents FROM doc_labels WHERE run_id = $run
        GROUP BY ALL ORDER BY ALL""", run_id)
    if not rows:
        out.print(f"run {run_id} has no document labels yet (see: accessbench runs)")
        return
    table = Table("criterion", "label", "documents", title=f"run {run_id}: labels (no expected labels to score)")
    for row in rows:
        table.add_row(row["criterion"], row["label"], str(row["documents"]))
    out.print(table)
