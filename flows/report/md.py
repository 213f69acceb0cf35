"""The report as Markdown (for a README, an issue or a Prefect artifact) and as JSON.

Cells are escaped for Markdown tables: text from a PDF or a model cannot open a link, an image,
HTML or a new column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from flows.report import tables as tables
from judges.criteria import labels_for

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


def leaderboard_md(rows: list[dict[str, Any]], comparisons: list[dict[str, Any]] | None = None) -> str:
    """Ranked within each scope (judges scored on the same items); rows of another scope say so; then each pair of
    judges on the same items compared item by item."""
    out = md_table(["rank", "judge", "run", "item set", "coverage", "accuracy", "95% CI over items", "macro F1",
                    "accuracy excl. CT", "unjudged", "caveat"],
                   [[r.get("rank", ""), f"{r['judge']} {r['model']}".strip(), r["run_id"], r.get("item_set", ""),
                     tables.coverage_text(r) if "items" in r else r["n"], _f(r["accuracy"], r["accuracy_sd"]),
                     tables.interval_text(r), _f(r["macro_f1"]), _f(r["accuracy_ex_ct"]), r["unjudged"],
                     r.get("caveat", "")] for r in rows])
    if comparisons:
        out += "\n" + comparisons_md(comparisons)
    return out


def comparisons_md(rows: list[dict[str, Any]]) -> str:
    return "Paired comparison on the same items (McNemar exact, two-sided):\n\n" + md_table(
        ["judge A", "judge B", "shared items", "both right", "only A right", "only B right", "A − B", "p",
         "verdict"],
        [[r["judge_a"] + (f" ({r['run_a']})" if r["run_a"] != r["run_b"] else ""),
          r["judge_b"] + (f" ({r['run_b']})" if r["run_a"] != r["run_b"] else ""), r["n"], r["both_right"],
          r["only_a"], r["only_b"], f"{r['difference']:+.3f}", f"{r['p_value']:.3f}", r["verdict"]] for r in rows])


def paper_table_md(table: dict[str, Any]) -> str:
    """Rows: criteria (or labels); one column per judge, ours first, then the published models."""
    return md_table([table["row_header"], *(c["name"] for c in table["columns"])],
                    [[r["row"], *(tables.cell_text(c) for c in r["cells"])] for r in table["rows"]])


def confusion_md(cells: list[dict[str, Any]]) -> str:
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for cell in cells:
        groups.setdefault((cell["run_id"], f"{cell['judge']} {cell['model']}".strip(), cell["criterion"]),
                          []).append(cell)
    out = []
    for (run, judge, criterion), rows in groups.items():
        labels = [lab.value for lab in labels_for(criterion)]
        counts = {(r["expected_label"], r["label"]): r["n"] for r in rows}
        cols = labels + sorted({p for _, p in counts} - set(labels))
        out += [f"### {md_cell(criterion)} — {md_cell(judge)}, run {md_cell(run)}: "
                f"{tables.repeats_note(rows[0]['repeats'])}\n",
                md_table(["expected \\ judged", *cols], [[e, *(counts.get((e, c), 0) for c in cols)] for e in labels])]
    return "\n".join(out)


def errors_md(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "No item was judged wrong.\n"
    shown = rows[:tables.MAX_ERROR_ROWS]
    more = len(rows) - len(shown)
    return md_table(["judge", "run", "item", "criterion", "expected", "got", "repeats", "page", "reason", "call"],
                    [[f"{r['judge']} {r['model']}".strip(), r["run_id"], r["doc_id"], r["criterion"], r["expected"],
                      r["got"], ", ".join(map(str, r["repeats"])), r["page"] or "", r["reason"],
                      tables.call_command(r["call_id"])] for r in shown]) + (
        f"\n{more} more in `--format json`.\n" if more else "")


def review_md(rows: list[dict[str, Any]]) -> str:
    return md_table(["item", "judge", "run", "document", "criterion", "page", "label meanwhile", "why", "repeats"],
                    [[r["item_id"], r["judge"], r["run_id"], r["doc_id"], r["criterion"], r["page"], r["label"] or "",
                      r["reason"], r["repeats"] or ""] for r in rows]) + (
        "\nResolve an item with `accessbench review resolve ITEM LABEL`.\n")


def usage_md(rows: list[dict[str, Any]]) -> str:
    total = [["total", "", sum(r["calls"] for r in rows), sum(r["cached"] for r in rows),
              sum(r["failed"] for r in rows), sum(r["tokens_in"] for r in rows), sum(r["tokens_out"] for r in rows),
              _usd(sum(r["cost_usd"] or 0 for r in rows))]]
    return md_table(["judge", "run", "calls", "cached", "failed", "tokens in", "tokens out", "cost (USD)"],
                    [[f"{r['judge']} {r['model']}".strip(), r["run_id"], r["calls"], r["cached"], r["failed"],
                      r["tokens_in"], r["tokens_out"], _usd(r["cost_usd"])] for r in rows] + total)


def _usd(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def remediation_md(rows: list[dict[str, Any]]) -> str:
    return md_table(["judge", "run", "Failed judgments", "specificity", "actionability", "technical validity",
                     "score"],
                    [[f"{r['judge']} {r['model']}".strip(), r["run_id"], r["failed_judgments"], _f(r["specificity"]),
                      _f(r["actionability"]), _f(r["technical_validity"]), _f(r["score"])] for r in rows])


def audit_md(audit: dict[str, Any]) -> str:
    pub = audit["published"]
    effect = {(r["judge"], r["model"]): r for r in audit.get("prompt_effect") or []}
    qlcs = md_table(["model", "variant", "QLCS", "aware − base"], [
        *([f"{r['judge']} judge: {r['model']}", r["variant"], _f(r["qlcs"], r["qlcs_sd"]),
           _f(effect[(r["judge"], r["model"])]["delta"]) if r["variant"] == "aware"
           and (r["judge"], r["model"]) in effect else ""] for r in audit["qlcs"]),
        *row_pairs(pub)])
    agreement = md_table(["source", "judges", "verdicts", "coverage agreement", "coverage κ (Cohen)",
                          "depth κ (quadratic)"], [
        *(["ours", f"{r['judge_a']} vs {r['judge_b']}", r["n"], _f(r["coverage_agreement"]), _f(r["coverage_kappa"]),
           _f(r["depth_kappa"])] for r in audit.get("agreement") or []),
        *(["published", judges, "", "", _f(kappa.get("coverage")), _f(kappa.get("depth"))]
          for judges, kappa in _published_kappa(pub.get("agreement") or []).items())])
    note = "" if audit.get("agreement") else "\nJudge agreement needs two judges on the same responses.\n"
    return (qlcs + "\n### Judge agreement (κ)\n\n" + agreement + note)


def _published_kappa(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Table 6 as one row per pair of judges: dimension → κ."""
    out: dict[str, dict[str, float]] = {}
    for r in rows:
        out.setdefault(r["judges"], {})[r["dimension"]] = r["kappa"]
    return out


def row_pairs(pub: dict[str, Any]) -> list[list[Any]]:
    """Each published model's base row (Table 3) followed by its aware-prompt row (Table 7), if it has one."""
    aware = {r["model"]: r for r in pub.get("aware") or []}
    rows: list[list[Any]] = []
    for r in pub["qlcs"]:
        rows.append([f"{r['model']} (published)", "base", _f(r["qlcs"]), ""])
        if r["model"] in aware:
            rows.append([f"{r['model']} (published)", "aware", _f(aware[r["model"]]["qlcs_aware"]),
                         f"{aware[r['model']]['delta']:+.3f}"])
    return rows


def _screening_table(screening: dict[str, Any]) -> str:
    """Every screened file with its verdict (could not be checked, fails, passes) and why, most urgent first."""
    files = screening["files"]
    counts = {v: sum(1 for f in files if f["verdict"] == v) for v in ("could not be checked", "fails", "passes")}
    out = (", ".join(f"{n} {v}" for v, n in counts.items()) + f" ({len(files)} file(s))\n\n" + md_table(
        ["file", "verdict", "PDF/UA-1", "errors", "warnings", "reason", "pages", "criteria failed", "fix first"],
        [[f["file"], f["verdict"], f.get("conformance") or "not checked", tables.count_text(f.get("error_count")),
          len(f.get("warnings") or []), f["reason"] or "", f["pages"], ", ".join(f["failed"]) or "none",
          f["first_issue"] or ""] for f in files]))
    for f in files:
        if f.get("checkpoints"):
            out += f"\n\n#### {md_cell(f['file'])}: PDF/UA-1 per Matterhorn checkpoint\n\n" + checkpoints_md(f)
    return out


def checkpoints_md(f: dict[str, Any]) -> str:
    """One file's PDF/UA-1 conformance per Matterhorn checkpoint: failed, needs a person, passed, not applicable."""
    return md_table(["checkpoint", "clause", "status", "what", "rules failed", "failures"],
                    [[c["checkpoint"], c["clause"], c["status"], c["title"], ", ".join(c["rules"]), c["failures"]]
                     for c in f["checkpoints"]])


def summary_markdown(data: dict[str, Any]) -> str:
    """The run's summary table (leaderboard, or files screened worst first) and remediation quality."""
    out = [md_cell(line) + "\n" for line in tables.headline(data)]
    if data.get("banner"):
        out.append(f"> **Warning:** {md_cell(data['banner'])}\n")
    if data.get("benchmark"):
        out += [f"### Leaderboard — {md_cell(tables.scored_item_sets(data))}\n",
                leaderboard_md(data["benchmark"]["leaderboard"], data["benchmark"].get("comparisons"))]
    for screening in data.get("screening") or []:
        out += [f"### Files screened, could not be checked and failing first — "
                f"{md_cell((data.get('item_sets') or {}).get(screening['run_id']) or 'screening')}\n",
                _screening_table(screening)]
    if data.get("remediation"):
        out += ["### Remediation quality\n", remediation_md(data["remediation"])]
    return "\n".join(out) or "No judged documents in this run.\n"


def _section_body(data: dict[str, Any], section: str) -> str:
    bench = data.get("benchmark") or {}
    if section == "runs":
        return md_table(["run", "created", "source", "item set", "judges", "status"],
                        [[r["run_id"], str(r["created"])[:19], r["source"], r.get("item_set", ""), r["judge"],
                          r["status"]] for r in data["runs"]])
    if section == "leaderboard":
        return _banner(data) + leaderboard_md(bench["leaderboard"], bench.get("comparisons"))
    if section == "paper-tables":
        return _banner(data) + "\n".join(f"### {md_cell(t['title'])}\n\n" + paper_table_md(t)
                                          for t in bench["paper_tables"]) + (
            f"\nPublished columns: {md_cell(bench['published']['citation'])}, never runs here. "
            f"{md_cell(tables.average_note(bench['paper_tables'], bench.get('averages')))}\n")
    if section == "accuracy":
        return md_table(
            ["criterion", "judge", "run", "item set", "items", "accuracy", "95% CI over items", "macro P/R/F1",
             "accuracy excl. CT"],
            [[r["criterion"], f"{r['judge']} {r['model']}".strip(), r["run_id"], r.get("item_set", ""), r["n"],
              _f(r["accuracy"], r["accuracy_sd"]), tables.interval_text(r),
              "/".join(_f(r[k]) for k in ("macro_precision", "macro_recall", "macro_f1")), _f(r["accuracy_ex_ct"])]
             for r in bench["accuracy"]])
    if section == "by-label":
        return md_table(["expected label", "judge", "run", "item set", "items", "accuracy", "95% CI over items"],
                        [[r["expected_label"], f"{r['judge']} {r['model']}".strip(), r["run_id"],
                          r.get("item_set", ""), r["n"], _f(r["accuracy"], r["accuracy_sd"]),
                          tables.interval_text(r)] for r in bench["by_label"]])
    if section == "flags":
        return md_table(["judge", "run", "judgments", "flag", "flagged", "share"], tables.flag_rows(bench["flags"])) \
            + "\nA flag never changes a label: the judge's label is kept as given, and counted as it is.\n"
    if section == "confusion":
        return confusion_md(bench["confusion"])
    if section == "errors":
        return errors_md(bench["errors"])
    if section == "checkers":
        return f"{md_cell(tables.CHECKER_NOTE)}\n\n" + md_table(tables.CHECKER_HEADER,
                                                                 tables.checker_rows(bench["checkers"]))
    if section == "checkers-meaning":
        meaning = bench["checkers_vs_meaning"]
        return f"{md_cell(tables.meaning_note(meaning))}\n\n" + md_table(tables.MEANING_HEADER,
                                                                          tables.meaning_rows(meaning))
    if section == "remediation":
        return remediation_md(data["remediation"])
    if section == "review-queue":
        return review_md(data["review_queue"])
    if section == "usage":
        return usage_md(data["usage"])
    for screening in data.get("screening") or []:
        if section == tables.anchor("screening", screening["run_id"]):
            return _screening_md(screening)
    for audit in data.get("audits") or []:
        if section == tables.anchor("audit", audit["run_id"]):
            return audit_md(audit)
    raise ValueError(f"no Markdown for report section {section!r}")


def _screening_md(screening: dict[str, Any]) -> str:
    out = [_screening_table(screening)]
    for f in screening["files"]:
        issues = [[i.get("fix_order") or "", i["severity"], c, tables.page_list(i["pages"]), i["location"],
                   i["problem"], i["remediation"]] for c, i in tables.ordered_issues(f)]
        fixes = f.get("fix_first") or []
        if issues or fixes or f.get("warnings"):
            out.append(f"### {md_cell(f['file'])}\n")
        if fixes and not fixes[0]["pages"]:  # untagged: tag it before anything else, and how
            out.append(f"**Fix first:** {md_cell(fixes[0]['how'])}\n")
        if f.get("warnings") and not issues:
            out.append(f"Warnings ({len(f['warnings'])}):\n\n" + "\n".join(f"- {md_cell(w)}" for w in f["warnings"])
                       + "\n")
        if issues:
            out.append("Findings in the order to fix them (errors by how many pages, so readers, meet them; then "
                       "warnings):\n\n" + md_table(["fix order", "severity", "criterion", "pages",
                                                     "where (first page)", "problem", "remediation"], issues))
    return "\n".join(out)


def _banner(data: dict[str, Any]) -> str:
    return f"> **Warning:** {md_cell(data['banner'])}\n\n" if data.get("banner") else ""


def render_markdown(data: dict[str, Any]) -> str:
    out = ["# AccessBench report\n", "Runs: " + ", ".join(md_cell(r["run_id"]) for r in data["runs"]) + "\n",
           *(f"- {md_cell(line)}" for line in tables.headline(data)), "", _banner(data)]
    for section in data.get("sections") or tables.sections(data):
        out += [f"## {md_cell(section['title'])}\n", _section_body(data, section["id"])]
    return "\n".join(out)


def render_json(data: dict[str, Any]) -> str:
    return json.dumps(data, default=str, indent=1, ensure_ascii=False) + "\n"
