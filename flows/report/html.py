"""The report as one self-contained, accessible HTML file (no network: charts and pages inline).

Built from `flows.report.data.collect`. Every string from a PDF, a model or the warehouse is escaped
(`_e`); charts are `<img>` with data URIs and an alt text that states what they show; tables have
captions, `<th scope>` and sort by any column with a few lines of inline script (keyboard
operable buttons, `aria-sort`). Charts are also written as SVG and PNG under `<home>/reports/plots/`.
"""

from __future__ import annotations

import base64
import html
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from flows.report import charts as charts
from flows.report import tables as tables
from flows.report.data import MAX_REGIONS
from judges.criteria import CRITERIA, labels_for
from judges.labels import Label

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;
max-width:1200px;padding:1rem 2rem;line-height:1.45}
h1,h2,h3,h4{line-height:1.2}a{color:#0b57a4}a:focus,button:focus{outline:3px solid #b34700;outline-offset:2px}
table{border-collapse:collapse;margin:.5rem 0 1.5rem;font-size:.92rem}caption{text-align:left;font-weight:600;
padding:.3rem 0}th,td{border:1px solid #8a8a8a;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#eef2f7}td.num{text-align:right;font-variant-numeric:tabular-nums}
.published{background:#fff8e6}.note{color:#4a4a4a}.failed{color:#a3123a;font-weight:600}
.passed{color:#1e6b24}th button{all:inherit;cursor:pointer;border:0;background:none;padding:0}
th button::after{content:" \\2195";color:#4a4a4a}figure{margin:1rem 0}figure img{max-width:100%;height:auto;
border:1px solid #8a8a8a}figcaption{color:#4a4a4a;font-size:.9rem}nav ol{columns:2}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem}
.banner{border:3px solid #b34700;background:#fff4e5;padding:.5rem 1rem;font-weight:600}
.wide{overflow-x:auto;max-width:100%}.warning{color:#7a4b00;font-weight:600}.error{color:#a3123a;font-weight:600}
"""

SORT_JS = """
document.querySelectorAll('table.sortable').forEach(function(table){
  table.querySelectorAll('thead th').forEach(function(th, col){
    var label = th.textContent; th.textContent = '';
    var b = document.createElement('button'); b.type = 'button'; b.textContent = label;
    b.setAttribute('aria-label', 'sort by ' + label); th.appendChild(b);
    b.addEventListener('click', function(){
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      table.querySelectorAll('thead th').forEach(function(o){ o.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function(a, b){
        var x = a.cells[col].getAttribute('data-v') || a.cells[col].textContent;
        var y = b.cells[col].getAttribute('data-v') || b.cells[col].textContent;
        var nx = parseFloat(x), ny = parseFloat(y), r;
        r = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return asc ? r : -r;
      });
      rows.forEach(function(r){ body.appendChild(r); });
    });
  });
});
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _anchor(*parts: str) -> str:
    return "-".join(re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-") for p in parts)


def _num(value: float | None, sd: float | None = None, digits: int = 3) -> str:
    if value is None:
        return '<td class="num" data-v="-1">–</td>'
    text = f"{value:.{digits}f}" + (f" ± {sd:.{digits}f}" if sd else "")
    return f'<td class="num" data-v="{value:.6f}">{_e(text)}</td>'


def _table(caption: str, header: Sequence[str], rows: Iterable[str], sortable: bool = True, first_col_th: bool = True
           ) -> str:
    head = "".join(f'<th scope="col">{_e(h)}</th>' for h in header)
    cls = ' class="sortable"' if sortable else ""
    body = "".join(f"<tr>{r}</tr>" for r in rows)
    return f"<table{cls}><caption>{_e(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _rowhead(text: str, cls: str = "") -> str:
    return f'<th scope="row"{f" class={cls!r}" if cls else ""}>{_e(text)}</th>'


def _judge_name(row: dict[str, Any]) -> str:
    return f"{row['judge']} {row['model']}".strip()


def _figure(chart: charts.Chart, caption: str, plots: Path | None) -> str:
    if plots is not None:
        charts.save(chart, plots)
    return (f'<figure><img src="{chart.data_uri()}" alt="{_e(chart.alt)}">'
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _bodies(data: dict[str, Any], plots: Path | None, page_images: bool = False) -> dict[str, str]:
    bodies = {"runs": _runs(data["runs"])}
    if data.get("benchmark"):
        bodies.update(_benchmark(data["benchmark"], plots))
    if data.get("banner") and data.get("benchmark"):
        for key in ("leaderboard", "paper-tables"):
            bodies[key] = _banner(data["banner"]) + bodies[key]
    if data.get("remediation"):
        bodies["remediation"] = _remediation(data["remediation"])
    if data.get("review_queue"):
        bodies["review-queue"] = _review(data["review_queue"])
    if data.get("usage"):
        bodies["usage"] = _usage(data["usage"])
    for screening in data.get("screening") or []:
        bodies[_anchor("screening", screening["run_id"])] = _screening(screening, page_images)
    for audit in data.get("audits") or []:
        bodies[_anchor("audit", audit["run_id"])] = _audit(audit, plots)
    return bodies


def render_html(data: dict[str, Any], plots: Path | None = None, title: str = "AccessBench report",
                page_images: bool = False) -> str:
    """The report as one self-contained HTML file; `page_images` shows each screened file's failing pages with
    the failing regions outlined (rendered here from the PDFs: the report's main cost, so only when asked)."""
    bodies = _bodies(data, plots, page_images)
    sections = [(s["id"], s["title"], bodies[s["id"]]) for s in data.get("sections") or tables.sections(data)]
    toc = "".join(f'<li><a href="#{a}">{_e(h)}</a></li>' for a, h, _ in sections)
    body = "".join(f'<section aria-labelledby="{a}"><h2 id="{a}">{_e(h)}</h2>{b}</section>' for a, h, b in sections)
    runs = ", ".join(r["run_id"] for r in data["runs"])
    lines = "".join(f"<li>{_e(line)}</li>" for line in tables.headline(data))
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}: {_e(runs)}</title><style>{CSS}</style></head><body>"
            f'<a class="skip" href="#main">Skip to the report</a><header><h1>{_e(title)}</h1>'
            f'<p class="note">Runs: {_e(runs)}. Every number comes from the AccessBench warehouse views; rows marked '
            f"“published” are reference values from the papers, not results of these runs.</p>"
            f"<ul>{lines}</ul>{_banner(data.get('banner') or '')}</header>"
            f'<nav aria-label="Contents"><h2 id="contents">Contents</h2><ol>{toc}</ol></nav>'
            f'<main id="main">{body}</main><script>{SORT_JS}</script></body></html>')


def _banner(text: str) -> str:
    return f'<p class="banner" role="note"><strong>Warning:</strong> {_e(text)}</p>' if text else ""


def _wide(table: str, label: str) -> str:
    """A table wider than the page scrolls inside its own region (keyboard-scrollable), never past the page."""
    return f'<div class="wide" role="region" aria-label="{_e(label)}" tabindex="0">{table}</div>'


def _run_kind(run: dict[str, Any]) -> str:
    if run["source"] == "audit":
        return "inclusivity audit"
    return "benchmark (expected labels)" if run["scored"] else "screening (no expected labels)"


def _runs(runs: list[dict[str, Any]]) -> str:
    rows = [f"{_rowhead(r['run_id'])}<td>{_e(r['created'][:19])}</td><td>{_e(r['source'])}</td>"
            f"<td>{_e(r['judge'])}</td><td>{_e(r['status'])}</td>"
            f"<td>{_run_kind(r)}</td><td>{_e(r.get('item_set') or '')}</td>"
            for r in runs]
    return _table("The runs in this report and the items each measured",
                  ["run", "created", "source", "judges", "status", "kind", "item set"], rows)


def _paper_table(table: dict[str, Any]) -> str:
    """Rows: criteria or labels; one column group per judge, ours first, published ones shaded and marked."""
    columns = table["columns"]
    prf = table["id"] == "table4"
    span = ' colspan="3" scope="colgroup"' if prf else ' scope="col"'
    head = f'<th scope="col" rowspan="{2 if prf else 1}">{_e(table["row_header"])}</th>' + "".join(
        f'<th{span}{" class=published" if c["source"] == "published" else ""}>{_e(c["name"])}</th>' for c in columns)
    sub = ("<tr>" + "".join('<th scope="col">P</th><th scope="col">R</th><th scope="col">F1</th>'
                             for _ in columns) + "</tr>") if prf else ""
    body = []
    for row in table["rows"]:
        cells = []
        for c, cell in zip(columns, row["cells"], strict=True):
            cls = "num published" if c["source"] == "published" else "num"
            if prf:
                cells += [f'<td class="{cls}">{"–" if not cell else f"{cell[k]:.2f}"}</td>'
                          for k in ("macro_precision", "macro_recall", "macro_f1")]
            else:
                cells.append(f'<td class="{cls}">{_e(tables.cell_text(cell))}</td>')
        cls = "average" if row["row"] == "average" else ""
        body.append(f"<tr{' class=average' if cls else ''}>{_rowhead(row['row'])}{''.join(cells)}</tr>")
    return _wide(f"<table><caption>{_e(table['title'])}: ours first, then the published models</caption>"
                 f"<thead><tr>{head}</tr>{sub}</thead><tbody>{''.join(body)}</tbody></table>", table["id"])


def _benchmark(bench: dict[str, Any], plots: Path | None) -> dict[str, str]:
    out = {}
    lead = [f"<td class=\"num\">{r.get('rank', '')}</td>{_rowhead(_judge_name(r))}<td>{_e(r['run_id'])}</td>"
            f"<td>{_e(r.get('item_set') or '')}</td>"
            f"<td>{_e(r.get('paper_model') or '')}</td><td>{_e(tables.coverage_text(r))}</td>"
            f"{_num(r['accuracy'], r['accuracy_sd'])}<td>{_e(tables.interval_text(r))}</td>{_num(r['macro_f1'])}"
            f"{_num(r['accuracy_ex_ct'])}{_num(r['macro_f1_ex_ct'])}<td class=\"num\">{r['unjudged']}</td>"
            f"<td>{_e(r.get('caveat') or '')}</td>"
            for r in bench["leaderboard"]]
    on = "; ".join(dict.fromkeys(r.get("item_set") or "" for r in bench["leaderboard"]))
    out["leaderboard"] = _wide(_table(
        f"Judges ranked against judges scored on the same items (mean ± population SD over repeats; 95% Wilson "
        f"interval over items) — {on}",
        ["rank", "judge", "run", "item set", "paper model", "coverage", "accuracy", "95% CI over items", "macro F1",
         "accuracy excl. Cannot Tell", "macro F1 excl. Cannot Tell", "unjudged (counted wrong)", "caveat"], lead,
        sortable=False), "leaderboard") + _comparisons(bench.get("comparisons") or [], on)
    out["paper-tables"] = "".join(_paper_table(t) for t in bench["paper_tables"]) + (
        f'<p class="note">Published columns: {_e(bench["published"]["citation"])} — reference values, never runs '
        f"here. {_e(tables.average_note(bench['paper_tables'], bench.get('averages')))}</p>")
    if any(f["flags"] for f in bench.get("flags") or []):
        out["flags"] = _table(f"Judgments each judge's self-checks flagged — {on}",
                              ["judge", "run", "judgments", "flag", "flagged", "share"],
                              (f"{_rowhead(r[0])}<td>{_e(r[1])}</td><td class=\"num\">{r[2]}</td><td>{_e(r[3])}</td>"
                               f"<td class=\"num\">{r[4]}</td><td class=\"num\">{_e(r[5])}</td>"
                               for r in tables.flag_rows(bench["flags"]))) + (
            '<p class="note">A flag never changes a label: the judge\'s label is kept as given, and counted as '
            "it is.</p>")
    out["errors"] = _errors(bench["errors"])
    if bench.get("checkers"):
        out["checkers"] = f'<p class="note">{_e(tables.CHECKER_NOTE)}</p>' + _table(
            "Checker judges: version, mapping, documents checked and seconds per document beside AccessBench's",
            tables.CHECKER_HEADER, ["".join(_rowhead(c) if i == 0 else f"<td>{_e(c)}</td>" for i, c in enumerate(row))
                                    for row in tables.checker_rows(bench["checkers"])])
        meaning = bench["checkers_vs_meaning"]
        out["checkers-meaning"] = f'<p class="note">{_e(tables.meaning_note(meaning))}</p>' + _table(
            "Base documents whose passed and failed variants every checker labels alike", tables.MEANING_HEADER,
            ["".join(_rowhead(c) if i == 0 else f"<td>{_e(c)}</td>" for i, c in enumerate(row))
             for row in tables.meaning_rows(meaning)])

    body = []
    for criterion in CRITERIA:  # ours only: the published models are in the side-by-side tables
        for row in (r for r in bench["accuracy"] if r["criterion"] == criterion):
            body.append(f"{_rowhead(criterion)}<td>{_e(_judge_name(row))}</td><td>{_e(row['run_id'])}</td>"
                        f"<td class=\"num\">{row['n']}</td>{_num(row['accuracy'], row['accuracy_sd'])}"
                        f"<td>{_e(tables.interval_text(row))}</td>"
                        f"{_num(row['macro_precision'])}{_num(row['macro_recall'])}"
                        f"{_num(row['macro_f1'], row['macro_f1_sd'])}{_num(row['accuracy_ex_ct'])}"
                        f"{_num(row['macro_f1_ex_ct'])}")
    per_criterion = _wide(_table(
        "Our judges' accuracy and macro precision/recall/F1 per criterion, with and without Cannot Tell items — "
        + on, ["criterion", "judge", "run", "items", "accuracy", "95% CI over items", "macro P", "macro R", "macro F1",
               "accuracy excl. CT", "macro F1 excl. CT"], body), "accuracy per criterion")
    judges = list(dict.fromkeys((r["run_id"], _judge_name(r)) for r in bench["accuracy"]))
    criteria = [c for c in CRITERIA if any(r["criterion"] == c for r in bench["accuracy"])]
    acc = {(r["run_id"], _judge_name(r), r["criterion"]): r for r in bench["accuracy"]}
    several = len({run for run, _ in judges}) > 1

    def name(run: str, judge: str) -> str:
        return f"{judge} ({run})" if several else judge

    series = {name(run, j): [acc[(run, j, c)]["accuracy"] if (run, j, c) in acc else None for c in criteria]
              for run, j in judges}
    errors = {name(run, j): [acc[(run, j, c)]["accuracy_sd"] if (run, j, c) in acc else None for c in criteria]
              for run, j in judges}
    bars = charts.bars("accuracy_by_criterion", "Accuracy per criterion", criteria, series, errors)
    out["accuracy"] = (_figure(bars, "Accuracy per criterion and judge; whiskers: population SD over repeats.",
                               plots) + per_criterion)

    rows = [f"{_rowhead(r['expected_label'])}<td>{_e(_judge_name(r))}</td><td>{_e(r['run_id'])}</td>"
            f"<td class=\"num\">{r['n']}</td>{_num(r['accuracy'], r['accuracy_sd'])}"
            f"<td>{_e(tables.interval_text(r))}</td>" for r in bench["by_label"]]
    out["by-label"] = _table("Our judges' accuracy by expected label, pooled over criteria (the published models: "
                             f"Table 5 above) — {on}",
                             ["expected label", "judge", "run", "items", "accuracy", "95% CI over items"], rows)
    out["confusion"] = _confusion(bench["confusion"], plots)
    return out


def _comparisons(rows: list[dict[str, Any]], on: str) -> str:
    if not rows:
        return ""
    body = [f"{_rowhead(r['judge_a'] + ' vs ' + r['judge_b'])}<td class=\"num\">{r['n']}</td>"
            f"<td class=\"num\">{r['both_right']}</td><td class=\"num\">{r['only_a']}</td>"
            f"<td class=\"num\">{r['only_b']}</td><td class=\"num\">{r['difference']:+.3f}</td>"
            f"<td class=\"num\">{r['p_value']:.3f}</td><td>{_e(r['verdict'])}</td>" for r in rows]
    return _table(f"Paired comparison of judges on the same items (McNemar exact, two-sided) — {on}",
                  ["judges (A vs B)", "shared items", "both right", "only A right", "only B right", "A − B", "p",
                   "verdict"], body, sortable=False)


def _errors(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return '<p class="note">No item was judged wrong.</p>'
    shown = rows[:tables.MAX_ERROR_ROWS]
    body = [f"{_rowhead(r['doc_id'])}<td>{_e(r['criterion'])}</td><td>{_e(_judge_name(r))}</td>"
            f"<td>{_e(r['run_id'])}</td><td>{_e(r['expected'])}</td><td class=\"failed\">{_e(r['got'])}</td>"
            f"<td>{_e(', '.join(map(str, r['repeats'])))}</td><td class=\"num\">{_e(r['page'] or '')}</td>"
            f"<td>{_e(r['reason'])}</td><td><code>{_e(tables.call_command(r['call_id']))}</code></td>"
            for r in shown]
    more = len(rows) - len(shown)
    return _table("Items a judge got wrong (repeats folded into one row): what it said and the call behind it",
                  ["item", "criterion", "judge", "run", "expected", "got", "repeats wrong", "page", "judge's reason",
                   "model call"], body) + (f'<p class="note">{more} more in the JSON report.</p>' if more else "")


def _review(rows: list[dict[str, Any]]) -> str:
    body = [f"{_rowhead(r['item_id'])}<td>{_e(r['judge'])}</td><td>{_e(r['run_id'])}</td><td>{_e(r['doc_id'])}</td>"
            f"<td>{_e(r['criterion'])}</td><td class=\"num\">{r['page']}</td><td>{_e(r['label'] or '')}</td>"
            f"<td>{_e(r['reason'])}</td><td class=\"num\">{_e(r['repeats'] or '')}</td>" for r in rows]
    return (_table("Pages the hybrid judge asks a person to review", ["item", "judge", "run", "document", "criterion",
                                                                     "page", "label meanwhile", "why", "repeats"], body)
            + '<p class="note">Resolve an item with <code>accessbench review resolve ITEM LABEL</code>.</p>')


def _usage(rows: list[dict[str, Any]]) -> str:
    def usd(v: float | None) -> str:
        return "–" if v is None else f"{v:.4f}"

    body = [f"{_rowhead(_judge_name(r))}<td>{_e(r['run_id'])}</td><td class=\"num\">{r['calls']}</td>"
            f"<td class=\"num\">{r['cached']}</td><td class=\"num\">{r['failed']}</td>"
            f"<td class=\"num\">{r['tokens_in']}</td><td class=\"num\">{r['tokens_out']}</td>"
            f"<td class=\"num\">{usd(r['cost_usd'])}</td>" for r in rows]
    body.append(f"{_rowhead('total')}<td></td><td class=\"num\">{sum(r['calls'] for r in rows)}</td>"
                f"<td class=\"num\">{sum(r['cached'] for r in rows)}</td>"
                f"<td class=\"num\">{sum(r['failed'] for r in rows)}</td>"
                f"<td class=\"num\">{sum(r['tokens_in'] for r in rows)}</td>"
                f"<td class=\"num\">{sum(r['tokens_out'] for r in rows)}</td>"
                f"<td class=\"num\">{usd(sum(r['cost_usd'] or 0 for r in rows))}</td>")
    return _table("Model calls per judge: tokens and cost", ["judge", "run", "calls", "cached", "failed",
                                                             "tokens in", "tokens out", "cost (USD)"], body,
                  sortable=False)


def _confusion(cells: list[dict[str, Any]], plots: Path | None) -> str:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for cell in cells:
        groups[(cell["run_id"], _judge_name(cell))].append(cell)
    parts = []
    for (run, judge), rows in groups.items():
        anchor = _anchor("confusion", run, judge)
        parts.append(f'<h3 id="{anchor}">{_e(judge)} — run {_e(run)}</h3>'
                     f'<p class="note">Cells are {_e(tables.repeats_note(rows[0]["repeats"]))}.</p>')
        every = [lab.value for lab in Label]
        total: dict[tuple[str, str], int] = defaultdict(int)
        for r in rows:
            total[(r["expected_label"], r["label"])] += r["n"]
        cols = every + sorted({p for _, p in total} - set(every))
        chart = charts.heatmap(_anchor("confusion", run, judge, "all"), f"{judge}: all criteria",
                               every, cols, dict(total))
        parts.append(_figure(chart, f"All criteria pooled (the paper's Figure 2) — {judge}, run {run}.", plots))
        for criterion in CRITERIA:
            counts = {(r["expected_label"], r["label"]): r["n"] for r in rows if r["criterion"] == criterion}
            if not counts:
                continue
            labels = [lab.value for lab in labels_for(criterion)]
            cols = labels + sorted({p for _, p in counts} - set(labels))
            chart = charts.heatmap(_anchor("confusion", run, judge, criterion), f"{judge}: {criterion}",
                                   labels, cols, counts)
            parts.append(_figure(chart, f"{criterion} — {judge}, run {run}.", plots))
    return "".join(parts)


def _audit(audit: dict[str, Any], plots: Path | None) -> str:
    from judges.inclusivity.categories import CATEGORY_NAMES

    run, pub = audit["run_id"], audit["published"]
    rows = [f"{_rowhead(r['judge'] + ' judge: ' + r['model'])}<td>{_e(r['variant'])}</td>"
            f"{_num(r['qlcs'], r['qlcs_sd'])}<td class=\"num\">{r['responses']}</td>" for r in audit["qlcs"]]
    aware = {r["model"]: r for r in pub.get("aware") or []}
    for r in pub["qlcs"]:  # each published model's aware-prompt row (Table 7) right below its base row
        rows.append(f'{_rowhead(r["model"], "published")}<td class="published">base (published, Dash et al. 2025)'
                    f'</td>{_num(r["qlcs"])}<td class="num">35</td>')
        if r["model"] in aware:
            a = aware[r["model"]]
            rows.append(f'{_rowhead(r["model"], "published")}<td class="published">aware prompt (published, Dash '
                        f'et al. 2025 Table 7; {a["delta"]:+.3f})</td>{_num(a["qlcs_aware"])}<td class="num">35</td>')
    parts = [_table("Question-level coverage (QLCS): share of the nine categories a response covers, beside the "
                    "published rows", ["model", "variant", "QLCS", "responses"], rows, sortable=False)]
    kappa = [f"<td>ours</td>{_rowhead(r['judge_a'] + ' vs ' + r['judge_b'])}<td class=\"num\">{r['n']}</td>"
             f"{_num(r['coverage_agreement'])}{_num(r['coverage_kappa'])}{_num(r['depth_kappa'])}"
             for r in audit.get("agreement") or []]
    published_kappa = {r["dimension"]: r for r in pub.get("agreement") or []}
    if published_kappa:
        judges = next(iter(published_kappa.values()))["judges"]
        kappa.append(f'<td class="published">published</td>{_rowhead(judges, "published")}<td class="num">–</td>'
                     f"{_num(None)}{_num((published_kappa.get('coverage') or {}).get('kappa'))}"
                     f"{_num((published_kappa.get('depth') or {}).get('kappa'))}")
    parts.append(_table("Judge agreement: Cohen's κ on coverage, quadratic-weighted κ on depth, beside the study's "
                        "(Table 6)", ["source", "judges", "verdicts", "coverage agreement", "coverage κ",
                                      "depth κ"], kappa, sortable=False, ))
    if not audit.get("agreement"):
        parts.append('<p class="note">Judge agreement needs two judges on the same responses '
                     "(<code>--judges lexicon embedding</code>).</p>")
    for key, value, what, title in (("dlcs", "dlcs", "DLCS (share of questions covering the category)",
                                     "Disability-level coverage (DLCS)"),
                                    ("depth3", "share", "the share of responses at depth 3", "Depth@3")):
        ours = {(f"{r['judge']}: {r['model']} ({r['variant']})", r["category"]): r[value] for r in audit[key]}
        theirs = {(f"{r['model']} (published)", r["category"]): r[value] for r in pub[key]}
        for label, values in (("ours", ours), ("published", theirs)):
            if not values:
                continue
            names = list(dict.fromkeys(k[0] for k in values))
            chart = charts.value_heatmap(_anchor(key, run, label), f"{title}: {label}", names, list(CATEGORY_NAMES),
                                         values, what)
            parts.append(_figure(chart, f"{title} per model and disability category — {label}"
                                        + (" (Dash et al. 2025)." if label == "published" else f", run {run}."),
                                 plots))
    return "".join(parts)


def _remediation(rows: list[dict[str, Any]]) -> str:
    body = [f"{_rowhead(_judge_name(r))}<td>{_e(r['run_id'])}</td><td class=\"num\">{r['failed_judgments']}</td>"
            f"{_num(r['specificity'])}{_num(r['actionability'])}{_num(r['technical_validity'])}"
            f"<td class=\"num\">{r['checkable']}</td><td class=\"num\">{r['with_invalid']}</td>{_num(r['score'])}"
            for r in rows]
    note = ('<p class="note">Scored automatically on every Failed judgment (table <code>remediation_scores</code>): '
            "specificity — names a page and an element; actionability — names a tag, attribute or value to change; "
            "technical validity — the structure types and attributes it names exist in ISO 32000 / PDF/UA-1 and the "
            "WCAG 2.2 criteria and PDF/UA-1 clauses it cites exist (over judgments that name any).</p>")
    return note + _table("Remediation quality per judge (means over Failed judgments)",
                         ["judge", "run", "Failed judgments", "specificity", "actionability", "technical validity",
                          "judgments naming checkable references", "naming something that does not exist",
                          "score"], body)


def _screening(screening: dict[str, Any], page_images: bool = False) -> str:
    files = screening["files"]
    run = screening["run_id"]
    shown = [f for f in files if f["page_images"]] if page_images else []
    budget = IMAGE_BUDGET // max(1, len(shown))  # bytes of page images per file
    rows = []
    for f in files:
        anchor = _anchor("file", run, f["doc_id"])
        verdict = f'<span class="failed">{_e(f["verdict"])}</span>' if f["verdict"] != "passes" else "passes"
        rows.append(f'<th scope="row"><a href="#{anchor}">{_e(f["file"])}</a></th>'
                    f'<td>{verdict}</td><td>{_e(f.get("conformance") or "not checked")}</td>'
                    f'<td class="num">{tables.count_text(f.get("error_count"))}</td>'
                    f'<td class="num">{len(f.get("warnings") or [])}</td><td>{_e(f["reason"] or "")}</td>'
                    f'<td class="num">{_e(f["pages"])}</td><td class="num">{len(f["failed"])}</td>'
                    f"<td>{_e(', '.join(f['failed']) or 'none')}</td><td>{_e(f['first_issue'] or '')}</td>")
    counts = ", ".join(f"{sum(1 for f in files if f['verdict'] == v)} {v}"
                       for v in ("could not be checked", "fails", "passes"))
    parts = [f'<p class="note">{_e(counts)} ({len(files)} file(s)). A file fails when a criterion failed, when '
             "it is untagged (PDF/UA-1 7.1 requires a structure tree), or when the PDF/UA-1 validator finds it does "
             "not conform.</p>",
             _table("Files, could not be checked and failing first",
                    ["file", "verdict", "PDF/UA-1", "errors", "warnings", "reason", "pages", "criteria failed", "which",
                     "fix first"],
                    rows)]
    if not page_images and any(f["page_images"] for f in files):
        parts.append('<p class="note">Page images with the failing regions outlined are left out; to add them: '
                     f"<code>accessbench report --run {_e(run)} --format html --page-images --out report.html</code>"
                     "</p>")
    for f in files:
        anchor = _anchor("file", run, f["doc_id"])
        parts.append(f'<h3 id="{anchor}">{_e(f["file"])}</h3>')
        parts.append(f'<p>Verdict: {_e(f["verdict"])}' + (f" — {_e(f['reason'])}" if f["reason"] else "") + "</p>")
        if f["errors"]:
            parts.append("<ul>" + "".join(f"<li>{_e(err)}</li>" for err in f["errors"]) + "</ul>")
        if f.get("fix_first"):  # each finding's words once: in its criterion's table below (column "fix order")
            parts.append("<h4>What to fix first</h4><ol>" + "".join(
                f"<li>{_e(step['how'] if not step['pages'] else tables.step_text(step))}</li>"
                for step in f["fix_first"]) + "</ol>")
        if f.get("warnings"):
            rows_ = f.get("warning_errors") or []
            parts.append(f'<h4>Warnings ({len(f["warnings"])})</h4><p class="note">Findings of severity “warning” '
                         "fail nothing; they are listed in the tables below.</p>"
                         + ('<ul class="warning">' + "".join(f"<li>{_e(w)}</li>" for w in rows_) + "</ul>"
                            if rows_ else ""))
        verdicts = []
        for criterion in CRITERIA:
            judged = f["criteria"].get(criterion)
            if not judged:
                continue
            labels = "; ".join(f"{lab['label'].replace('_', ' ')}" + (f" ({lab['judge']} {lab['model']})".rstrip()
                                                                      if len(judged["labels"]) > 1 else "")
                               for lab in judged["labels"])
            cls = "failed" if "failed" in labels else ("passed" if labels.startswith("passed") else "")
            verdicts.append(f'{_rowhead(criterion)}<td class="{cls}">{_e(labels)}</td>')
        parts.append(_table(f"{f['file']}: label per criterion", ["criterion", "label"], verdicts, sortable=False))
        if f.get("checkpoints"):
            parts.append(f"<h4>PDF/UA-1 per Matterhorn checkpoint: {_e(f.get('conformance'))}</h4>")
            parts.append(_table(f"{f['file']}: PDF/UA-1 conformance per Matterhorn checkpoint",
                                ["checkpoint", "clause", "status", "what", "rules failed", "failures"],
                                (f'<th scope="row">{_e(c["checkpoint"])}</th><td>{_e(c["clause"])}</td>'
                                 f'<td class="{"failed" if c["status"] == "failed" else ""}">{_e(c["status"])}</td>'
                                 f'<td>{_e(c["title"])}</td><td>{_e(", ".join(c["rules"]))}</td>'
                                 f'<td class="num">{c["failures"]}</td>' for c in f["checkpoints"]), sortable=True))
        for criterion in CRITERIA:
            issues = (f["criteria"].get(criterion) or {}).get("issues") or []
            if not issues:
                continue
            parts.append(f"<h4>{_e(criterion)}: what fails and how to fix it</h4>")
            parts.append(_table(f"{f['file']}: {criterion} issues, each finding once with the pages it is on",
                                ["fix order", "severity", "pages", "where (first page)", "sub-criterion", "problem",
                                 "remediation"],
                                (f'<td class="num">{i.get("fix_order") or ""}</td>'
                                 f'<td class="{i["severity"]}">{_e(i["severity"])}</td>'
                                 f'<td class="num">{_e(tables.page_list(i["pages"]))}</td><td>{_e(i["location"])}</td>'
                                 f'<td>{_e(i["sub_criterion"])}</td><td>{_e(i["problem"])}</td>'
                                 f'<td>{_e(i["remediation"])}</td>' for i in issues), sortable=False))
        left, dropped = budget, 0
        for k, page in enumerate(f["page_images"] if page_images else ()):
            figure = _page_figure(f, page, left, first=k == 0)
            if figure is None:
                dropped += 1
                continue
            parts.append(figure)
            left -= len(figure)
        if page_images and f.get("pages_not_shown"):
            parts.append(f'<p class="note">{f["pages_not_shown"]} more failed page(s) repeat findings shown above; '
                         "the issues tables list every page.</p>")
        if dropped:
            parts.append(f'<p class="note">{dropped} more page image(s) left out to keep the report small; the '
                         "issues tables list every page.</p>")
    return "".join(parts)


IMAGE_BUDGET = 1_500_000  # bytes of page images in one report, shared by its screened files
FALLBACK_DPI = (96, 72, 60)  # a first page over its share of the budget is rendered again at these, in turn


def _fitted(path: Path, page: dict[str, Any], drawn: list[tuple[Any, ...]], budget: int,
            first: bool) -> tuple[bytes, int, int] | None:
    """The page at the largest resolution whose image (base64) fits `budget`: REPORT_DPI, then, for a file's
    first page only, each of FALLBACK_DPI; a first page that fits at none is shown at the smallest, any other
    page is left out (None). A page's image grows with its resolution, though not strictly (lossless text
    can be a little smaller at 72 than at 60 dpi) and more slowly than its pixel count, so the cheap smallest
    image is made first: over twice the budget, nothing larger is tried; and a resolution whose pixel-count
    estimate from a larger image is over twice the budget is not rendered."""
    def render(dpi: int) -> tuple[bytes, int, int]:
        return charts.outlined_page_image(path, page.get("source_pdf"), page["page"], page["width_pt"], drawn,
                                          dpi=dpi)

    def fits(size: float, margin: int = 1) -> bool:
        return size * 4 // 3 <= budget * margin

    source = page.get("source_pdf")
    if not (source and Path(source).is_file()):  # the stored page image, at its one resolution
        stored = render(charts.REPORT_DPI)
        return stored if first or fits(len(stored[0])) else None
    smallest = render(FALLBACK_DPI[-1])
    if not fits(len(smallest[0]), margin=2):
        return smallest if first else None
    chain = (charts.REPORT_DPI, *FALLBACK_DPI[:-1]) if first else (charts.REPORT_DPI,)
    larger: tuple[int, int] | None = None  # (dpi, bytes) of the last image over the budget
    for dpi in chain:
        if larger is not None and not fits(larger[1] * (dpi / larger[0]) ** 2, margin=2):
            continue
        shown = render(dpi)
        if fits(len(shown[0])):
            return shown
        larger = (dpi, len(shown[0]))
    return smallest if first else None


def _page_figure(f: dict[str, Any], page: dict[str, Any], budget: int, first: bool) -> str | None:
    """The page as WebP (re-rendered legibly from its PDF when it is still there), one outline and number per
    finding kind, and a legend that names each kind once. Over `budget` bytes a file's first page is rendered
    smaller (96, then 72, then 60 dpi) and any other page is left out (None)."""
    path = Path(page["image_path"])
    if not path.is_file() and not page.get("source_pdf"):
        return f'<p class="note">Page {page["page"]}: the rendered image {_e(path.name)} is missing.</p>'
    if budget <= 0 and not first:  # no image fits: not rendered at all
        return None
    regions = page["regions"][:MAX_REGIONS]
    drawn = [(r["boxes"], tables.region_label(r), charts.outline_colour(r["criterion"])) for r in regions]
    fitted = _fitted(path, page, drawn, budget, first)
    if fitted is None:
        return None
    image, width, height = fitted
    more = len(page["regions"]) - len(regions)
    caption = (f"Page {page['page']}: one outline and number per kind of failing finding"
               + (f" ({more} more kinds not drawn)" if more > 0 else "")
               + ("; no region could be located from the evidence" if not regions else "") + ".")
    described = "; ".join(f"{k}: {label}" for k, (_, label, _c) in enumerate(drawn, start=1))
    alt = (f"Page {page['page']} of {f['file']}, with {len(drawn)} kind(s) of failing region outlined (one colour "
           "per criterion) and numbered" + (f" — {described}" if described else "") + ".")
    legend = "".join(f'<li><span aria-hidden="true" style="display:inline-block;width:1.4em;height:.9em;'
                     f'border:3px solid {colour};margin-right:.4em;vertical-align:middle"></span>{_e(label)}</li>'
                     for _, label, colour in drawn)
    uri = "data:image/webp;base64," + base64.b64encode(image).decode("ascii")
    return (f'<figure><img src="{uri}" alt="{_e(alt)}" width="{width}" height="{height}" loading="lazy" '
            f'decoding="async"><figcaption>{_e(caption)}</figcaption></figure>'
            + (f'<p class="note">Legend: each outline\'s number, colour (one per criterion) and finding.</p>'
               f"<ol>{legend}</ol>" if legend else ""))
