"""The report as Markdown (for a README, an issue or a Prefect artifact) and as JSON.

Cells are escaped for Markdown tables: text from a PDF or a model cannot open a link, an image,
HTML or a new column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")


def md_cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _f(value: float | None, sd: float | None = None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" + (f" ± {sd:.3f}" if sd else "")


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def leaderboard_md(rows: list[dict[str, Any]]) -> str:
    return md_table(["judge", "run", "items", "accuracy", "macro F1", "accuracy excl. CT", "unjudged"],
                    [[f"{r['judge']} {r['model']}".strip(), r["run_id"], r["n"], _f(r["accuracy"], r["accuracy_sd"]),
                      _f(r["macro_f1"]), _f(r["accuracy_ex_ct"]), r["unjudged"]] for r in rows])


def _screening_table(screening: dict[str, Any]) -> str:
    """Every screened file with its verdict (could not be checked, fails, passes) and why, most urgent first."""
    files = screening["files"]
    counts = {v: sum(1 for f in files if f["verdict"] == v) for v in ("could not be checked", "fails", "passes")}
    return (", ".join(f"{n} {v}" for v, n in counts.items()) + f" ({len(files)} file(s))\n\n" + md_table(
        ["file", "verdict", "reason", "pages", "criteria failed", "first issue"],
        [[f["file"], f["verdict"], f["reason"] or "", f["pages"], ", ".join(f["failed"]) or "none",
          f["first_issue"] or ""] for f in files]))


def summary_markdown(data: dict[str, Any]) -> str:
    """The run's summary table (leaderboard, or files screened worst first) and remediation quality."""
    out = []
    if data.get("benchmark"):
        out += ["### Leaderboard\n", leaderboard_md(data["benchmark"]["leaderboard"])]
    for screening in data.get("screening") or []:
        out += ["### Files screened, could not be checked and failing first\n", _screening_table(screening)]
    if data.get("remediation"):
        out += ["### Remediation quality\n", md_table(
            ["judge", "Failed judgments", "specificity", "actionability", "technical validity", "score"],
            [[f"{r['judge']} {r['model']}".strip(), r["failed_judgments"], _f(r["specificity"]),
              _f(r["actionability"]), _f(r["technical_validity"]), _f(r["score"])] for r in data["remediation"]])]
    return "\n".join(out) or "No judged documents in this run.\n"


def render_markdown(data: dict[str, Any]) -> str:
    out = ["# AccessBench report\n", "Runs: " + ", ".join(md_cell(r["run_id"]) for r in data["runs"]) + "\n"]
    bench = data.get("benchmark")
    if bench:
        out += ["## Leaderboard\n", leaderboard_md(bench["leaderboard"])]
        out += ["## Accuracy per criterion\n", md_table(
            ["criterion", "judge", "run", "items", "accuracy", "macro P/R/F1", "accuracy excl. CT"],
            [[r["criterion"], f"{r['judge']} {r['model']}".strip(), r["run_id"], r["n"],
              _f(r["accuracy"], r["accuracy_sd"]),
              "/".join(_f(r[k]) for k in ("macro_precision", "macro_recall", "macro_f1")), _f(r["accuracy_ex_ct"])]
             for r in bench["accuracy"]])]
        pub = bench["published"]
        out += [f"## Published accuracy ({md_cell(pub['citation'])}, published)\n", md_table(
            ["criterion", "model", "accuracy"],
            [[r["criterion"], f"{r['model']} (published)", _f(r["accuracy"], r["accuracy_sd"])]
             for r in pub["accuracy"]])]
    if data.get("remediation"):
        out += ["## Remediation quality\n", md_table(
            ["judge", "run", "Failed judgments", "specificity", "actionability", "technical validity", "score"],
            [[f"{r['judge']} {r['model']}".strip(), r["run_id"], r["failed_judgments"], _f(r["specificity"]),
              _f(r["actionability"]), _f(r["technical_validity"]), _f(r["score"])] for r in data["remediation"]])]
    for screening in data.get("screening") or []:
        out += [f"## Screening: run {md_cell(screening['run_id'])}\n", _screening_table(screening)]
        for f in screening["files"]:
            issues = [[c, i["page"], i["location"], i["problem"], i["remediation"]]
                      for c, judged in f["criteria"].items() for i in judged["issues"]]
            if issues:
                out += [f"### {md_cell(f['file'])}\n",
                        md_table(["criterion", "page", "where", "problem", "remediation"], issues)]
    for audit in data.get("audits") or []:
        out += [f"## Inclusivity audit: run {md_cell(audit['run_id'])}\n", md_table(
            ["model", "variant", "QLCS"],
            [*([f"{r['judge']} judge: {r['model']}", r["variant"], _f(r["qlcs"], r["qlcs_sd"])] for r in audit["qlcs"]),
             *([f"{r['model']} (published)", "base", _f(r["qlcs"])] for r in audit["published"]["qlcs"])])]
    return "\n".join(out)


def render_json(data: dict[str, Any]) -> str:
    return json.dumps(data, default=str, indent=1, ensure_ascii=False) + "\n"
