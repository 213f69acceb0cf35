"""Terminal report of an inclusivity audit run, beside the study's published numbers (marked "published").

Heatmaps are DLCS and Depth@k tables with cells shaded by value. Text from responses never reaches
the terminal here; model and judge names are escaped before rich renders them.
"""

from __future__ import annotations

import csv
import io
import re
import sys
from collections import defaultdict
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from judges.inclusivity.categories import CATEGORY_NAMES
from warehouse import catalog
from warehouse.tables import ALL_TABLES

CITATION = "Dash et al. 2025 (published)"
PUBLISHED = "published"


def _read(table: str) -> list[dict[str, str]]:
    path = resources.files("flows.report") / "published" / f"dash2025_{table}.csv"
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def model_name(name: str) -> str:
    """The one spelling of a published model: the tables write `Qwen2.5-0_5B-Instruct` and `Qwen2.5-0.5B-Instruct`
    for one model (a `_` between digits is a decimal point), and Table 7 shortens names (`Llama-3.1-8B` is
    Table 3's `Llama-3.1-8B-Instruct`: the one Table 3 model its name starts)."""
    name = re.sub(r"(?<=\d)_(?=\d)", ".", name.strip())
    full = [m for m in _table3_models() if m.lower().startswith(name.lower() + "-")]
    return full[0] if len(full) == 1 and name not in _table3_models() else name


@cache
def _table3_models() -> tuple[str, ...]:
    return tuple(re.sub(r"(?<=\d)_(?=\d)", ".", r["model"].strip()) for r in _read("table3_qlcs"))


def model_order(name: str) -> tuple[Any, ...]:
    """Sort key: by family, then by version and size as numbers (Qwen2.5-0.5B before Qwen2.5-14B)."""
    return tuple((0, float(part), "") if re.fullmatch(r"\d+(?:\.\d+)?", part) else (1, 0.0, part)
                 for part in re.findall(r"\d+(?:\.\d+)?|[^\d]+", name.lower()))


def published(table: str) -> list[dict[str, str]]:
    """Rows of one `flows/report/published/dash2025_<table>.csv` (transcribed from the paper), model names normalised
    (`model_name`) and sorted (`model_order`), so one model is one row and the tables join on its name."""
    rows = [{**r, "model": model_name(r["model"])} if "model" in r else r for r in _read(table)]
    return sorted(rows, key=lambda r: model_order(r["model"])) if rows and "model" in rows[0] else rows


def is_audit_run(home: Path, run_id: str) -> bool:
    from warehouse.store import ArtifactStore

    run = ArtifactStore(home).get_run(run_id)
    return bool(run and run.get("source") == "audit")


def _rows(con: Any, sql: str, run_id: str) -> list[dict[str, Any]]:
    result = con.execute(sql, {"run": run_id})
    names = [d[0] for d in result.description]
    return [dict(zip(names, values, strict=True)) for values in result.fetchall()]


def _heat(value: float | None) -> Text:
    """A cell shaded from dark (0) to bright (1)."""
    if value is None:
        return Text("-")
    level = max(0, min(5, int(value * 5.999)))
    styles = ("white on grey11", "white on grey23", "black on dark_sea_green4", "black on sea_green3",
              "black on sea_green2", "black on pale_green1")
    return Text(f"{value:.2f}", style=styles[level])


def _f(value: float | None, digits: int = 3, sign: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def render_audit_report(home: Path, run_id: str, brief: bool = False) -> str:
    con = catalog.connect(home, ALL_TABLES)
    shaded = sys.stdout.isatty()  # heatmap shading in a terminal; plain numbers in pipes and files
    out = Console(file=io.StringIO(), width=160, force_terminal=shaded, color_system="256" if shaded else None)
    try:
        qlcs = _rows(con, "SELECT * FROM qlcs WHERE run_id = $run ORDER BY judge, model, variant", run_id)
        if not qlcs:
            out.print(f"run {run_id} has no category judgments yet (see: accessbench runs)")
            return out.file.getvalue()  # type: ignore[attr-defined]
        _qlcs(out, run_id, qlcs, con)
        _agreement(out, run_id, con)
        _dlcs(out, run_id, con, brief)
        if not brief:
            _depth(out, run_id, con)
            _snippet_flags(out, run_id, con)
    finally:
        con.close()
    return out.file.getvalue()  # type: ignore[attr-defined]


def _qlcs(out: Console, run_id: str, rows: list[dict[str, Any]], con: Any) -> None:
    effect = {(r["judge"], r["model"]): r for r in _rows(con, "SELECT * FROM prompt_effect WHERE run_id = $run",
                                                          run_id)}
    table = Table("source", "judge", "model", "variant", "QLCS", "aware − base", "responses",
                  title=f"run {run_id}: question-level coverage (QLCS) beside {CITATION}")
    for r in rows:
        delta = effect.get((r["judge"], r["model"])) if r["variant"] == "aware" else None
        table.add_row("ours", escape(r["judge"]), escape(r["model"]), r["variant"], _f(r["qlcs"]),
                      _delta(delta) if delta else "", str(r["responses"]))
    aware = {p["model"]: p for p in published("table7_aware_prompt_qlcs")}
    for p in published("table3_qlcs"):  # each model's aware-prompt row (Table 7) right below its base row
        table.add_row(PUBLISHED, "GPT-4.1 judge", p["model"], "base", p["qlcs"], "", "35")
        if p["model"] in aware:
            table.add_row(PUBLISHED, "GPT-4.1 judge", p["model"], "aware", aware[p["model"]]["qlcs_aware"],
                          aware[p["model"]]["delta"], "35")
    out.print(table)


def _delta(effect: dict[str, Any]) -> str:
    """The aware prompt's effect, with the paired questions it is computed over (and those left out)."""
    unpaired = effect.get("unpaired") or 0
    return (f"{_f(effect['delta'], sign=True)} over {effect['pairs']} paired question(s)"
            + (f"; {unpaired} with one variant only left out" if unpaired else ""))


def _agreement(out: Console, run_id: str, con: Any) -> None:
    rows = _rows(con, "SELECT * FROM judge_agreement WHERE run_id = $run", run_id)
    table = Table("source", "judges", "verdicts", "coverage agreement", "coverage κ (Cohen)", "depth κ (quadratic)",
                  title="judge agreement")
    for r in rows:
        table.add_row("ours", escape(f"{r['judge_a']} vs {r['judge_b']}"), str(r["n"]), _f(r["coverage_agreement"]),
                      _f(r["coverage_kappa"]), _f(r["depth_kappa"]))
    kappas = {p["dimension"]: p for p in published("table6_judge_agreement")}
    if kappas:
        judges = next(iter(kappas.values()))["judges"]
        table.add_row(PUBLISHED, judges, "", "", kappas.get("coverage", {}).get("kappa", "-"),
                      kappas.get("depth", {}).get("kappa", "-"))
    if not rows:
        out.print("judge agreement needs two judges on the same responses: add --judges lexicon embedding …")
    out.print(table)


def _dlcs(out: Console, run_id: str, con: Any, brief: bool) -> None:
    cells: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
    for r in _rows(con, "SELECT * FROM dlcs WHERE run_id = $run", run_id):
        cells[(r["judge"], r["model"], r["variant"])][r["category"]] = r["dlcs"]
    table = Table("source", "judge", "model", "variant", *CATEGORY_NAMES,
                  title="disability-level coverage (DLCS): share of questions whose response covers each category")
    for (judge, model, variant), values in sorted(cells.items()):
        table.add_row("ours", escape(judge), escape(model), variant, *(_heat(values.get(c)) for c in CATEGORY_NAMES))
    if not brief:
        by_model: dict[str, dict[str, float]] = defaultdict(dict)
        for p in published("table4_dlcs"):
            by_model[p["model"]][p["category"]] = float(p["dlcs"])
        for model, values in sorted(by_model.items(), key=lambda kv: model_order(kv[0])):
            table.add_row(PUBLISHED, "GPT-4.1 judge", model, "base", *(_heat(values.get(c)) for c in CATEGORY_NAMES))
    out.print(table)


DEPTH_TABLES = ("table8_depth0", "table9_depth1", "table10_depth2", "table5_depth3")


def _depth(out: Console, run_id: str, con: Any) -> None:
    cells: dict[tuple[str, str, str, int], dict[str, float]] = defaultdict(dict)
    for r in _rows(con, "SELECT * FROM depth_at_k WHERE run_id = $run", run_id):
        cells[(r["judge"], r["model"], r["variant"], r["k"])][r["category"]] = r["share"]
    table = Table("source", "judge", "model", "variant", "k", *CATEGORY_NAMES,
                  title="Depth@k: share of responses at depth k (0 not mentioned … 3 several concrete supports)")
    for (judge, model, variant, k), values in sorted(cells.items()):
        table.add_row("ours", escape(judge), escape(model), variant, str(k),
                      *(_heat(values.get(c)) for c in CATEGORY_NAMES))
    published_cells: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    for k, name in enumerate(DEPTH_TABLES):
        for p in published(name):
            published_cells[(p["model"], k)][p["category"]] = float(p["share"])
    for (model, k), values in sorted(published_cells.items(), key=lambda kv: (model_order(kv[0][0]), kv[0][1])):
        table.add_row(PUBLISHED, "GPT-4.1 judge", model, "base", str(k),
                      *(_heat(values.get(c)) for c in CATEGORY_NAMES))
    out.print(table)


def _snippet_flags(out: Console, run_id: str, con: Any) -> None:
    rows = _rows(con, """
        SELECT judge, count(*) FILTER (WHERE flags LIKE '%snippet_not_found%') AS voided_snippets,
               count(*) FILTER (WHERE error IS NOT NULL) AS error_rows
        FROM category_judgments WHERE run_id = $run GROUP BY ALL ORDER BY ALL""", run_id)
    if any(r["voided_snippets"] or r["error_rows"] for r in rows):
        table = Table("judge", "verdicts voided (snippet not in response)", "error rows", title="voided verdicts")
        for r in rows:
            table.add_row(escape(r["judge"]), str(r["voided_snippets"]), str(r["error_rows"]))
        out.print(table)
