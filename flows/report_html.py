"""The report as one self-contained, accessible HTML file (no network: charts and pages inline).

Built from `report_data.collect`. Every string from a PDF, a model or the warehouse is escaped
(`_e`); charts are `<img>` with data URIs and an alt text that states what they show; tables have
captions, `<th scope>` and sort by any column with a few lines of inline script (keyboard
operable buttons, `aria-sort`). Charts are also written as SVG and PNG under `<home>/reports/plots/`.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from flows import charts
from flows.report_data import MAX_REGIONS
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


def render_html(data: dict[str, Any], plots: Path | None = None, title: str = "AccessBench report") -> str:
    sections: list[tuple[str, str, str]] = []  # (anchor, heading, body)
    sections.append(("runs", "Runs", _runs(data["runs"])))
    if data.get("benchmark"):
        sections.extend(_benchmark(data["benchmark"], plots))
    if data.get("remediation"):
        sections.append(("remediation", "Remediation quality", _remediation(data["remediation"])))
    for screening in data.get("screening") or []:
        sections.append((_anchor("screening", screening["run_id"]), f"Screening: run {screening['run_id']}",
                         _screening(screening)))
    for audit in data.get("audits") or []:
        sections.append((_anchor("audit", audit["run_id"]), f"Inclusivity audit: run {audit['run_id']}",
                         _audit(audit, plots)))
    toc = "".join(f'<li><a href="#{a}">{_e(h)}</a></li>' for a, h, _ in sections)
    body = "".join(f'<section aria-labelledby="{a}"><h2 id="{a}">{_e(h)}</h2>{b}</section>' for a, h, b in sections)
    runs = ", ".join(r["run_id"] for r in data["runs"])
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}: {_e(runs)}</title><style>{CSS}</style></head><body>"
            f'<a class="skip" href="#main">Skip to the report</a><header><h1>{_e(title)}</h1>'
            f'<p class="note">Runs: {_e(runs)}. Every number comes from the AccessBench warehouse views; rows marked '
            f"“published” are reference values from the papers, not results of these runs.</p></header>"
            f'<nav aria-label="Contents"><h2 id="contents">Contents</h2><ol>{toc}</ol></nav>'
            f'<main id="main">{body}</main><script>{SORT_JS}</script></body></html>')


def _run_kind(run: dict[str, Any]) -> str:
    if run["source"] == "audit":
        return "inclusivity audit"
    return "benchmark (expected labels)" if run["scored"] else "screening (no expected labels)"


def _runs(runs: list[dict[str, Any]]) -> str:
    rows = [f"{_rowhead(r['run_id'])}<td>{_e(r['created'][:19])}</td><td>{_e(r['source'])}</td>"
            f"<td>{_e(r['judge'])}</td><td>{_e(r['status'])}</td>"
            f"<td>{_run_kind(r)}</td>"
            for r in runs]
    return _table("The runs in this report", ["run", "created", "source", "judges", "status", "kind"], rows)


def _benchmark(bench: dict[str, Any], plots: Path | None) -> list[tuple[str, str, str]]:
    out = []
    lead = [f"{_rowhead(_judge_name(r))}<td>{_e(r['run_id'])}</td><td>{_e(r.get('paper_model') or '')}</td>"
            f"<td class=\"num\">{r['n']}</td>{_num(r['accuracy'], r['accuracy_sd'])}{_num(r['macro_f1'])}"
            f"{_num(r['accuracy_ex_ct'])}{_num(r['macro_f1_ex_ct'])}<td class=\"num\">{r['unjudged']}</td>"
            for r in bench["leaderboard"]]
    out.append(("leaderboard", "Leaderboard", _table(
        "Judges across runs, best accuracy first (mean ± population SD over repeats)",
        ["judge", "run", "paper model", "items", "accuracy", "macro F1", "accuracy excl. Cannot Tell",
         "macro F1 excl. Cannot Tell", "unjudged (counted wrong)"], lead)))

    published = bench["published"]
    t3 = {(r["criterion"], r["model"]): r for r in published["accuracy"]}
    t4 = {(r["criterion"], r["model"]): r for r in published["macro_prf"]}
    body = []
    for criterion in [*CRITERIA, "average"]:  # ours first, then the published rows of the same criterion
        for row in (r for r in bench["accuracy"] if r["criterion"] == criterion):
            body.append(f"{_rowhead(criterion)}<td>{_e(_judge_name(row))}</td><td>{_e(row['run_id'])}</td>"
                        f"<td class=\"num\">{row['n']}</td>{_num(row['accuracy'], row['accuracy_sd'])}"
                        f"{_num(row['macro_precision'])}{_num(row['macro_recall'])}"
                        f"{_num(row['macro_f1'], row['macro_f1_sd'])}{_num(row['accuracy_ex_ct'])}"
                        f"{_num(row['macro_f1_ex_ct'])}")
        for model in published["models"]:
            a, p = t3.get((criterion, model)), t4.get((criterion, model)) or {}
            if a is None:
                continue
            body.append(f'{_rowhead(criterion, "published")}<td class="published">{_e(model)} (published)</td>'
                        f'<td class="published">{_e(published["citation"])}</td><td class="num">–</td>'
                        f"{_num(a['accuracy'], a['accuracy_sd'])}{_num(p.get('macro_precision'))}"
                        f"{_num(p.get('macro_recall'))}{_num(p.get('macro_f1'))}{_num(None)}{_num(None)}")
    per_criterion = _table(
        "Accuracy and macro precision/recall/F1 per criterion, with and without Cannot Tell items, beside the "
        "published rows (Tables 3 and 4)",
        ["criterion", "judge", "run", "items", "accuracy", "macro P", "macro R", "macro F1",
         "accuracy excl. CT", "macro F1 excl. CT"], body)
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
    out.append(("accuracy", "Accuracy per criterion",
                _figure(bars, "Accuracy per criterion and judge; whiskers: population SD over repeats.", plots)
                + per_criterion))

    pub5 = {(r["expected_label"], r["model"]): r for r in published["by_label"]}
    rows = [f"{_rowhead(r['expected_label'])}<td>{_e(_judge_name(r))}</td><td>{_e(r['run_id'])}</td>"
            f"<td class=\"num\">{r['n']}</td>{_num(r['accuracy'], r['accuracy_sd'])}" for r in bench["by_label"]]
    rows += [f'{_rowhead(lab.value, "published")}<td class="published">{_e(m)} (published)</td>'
             f'<td class="published">{_e(published["citation"])}</td><td class="num">–</td>'
             f"{_num(pub5[(lab.value, m)]['accuracy'], pub5[(lab.value, m)]['accuracy_sd'])}"
             for lab in Label for m in published["models"] if (lab.value, m) in pub5]
    out.append(("by-label", "Accuracy by expected label", _table(
        "Accuracy by expected label, pooled over criteria, beside the published rows (Table 5)",
        ["expected label", "judge", "run", "items", "accuracy"], rows)))
    out.append(("confusion", "Confusion matrices", _confusion(bench["confusion"], plots)))
    return out


def _confusion(cells: list[dict[str, Any]], plots: Path | None) -> str:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for cell in cells:
        groups[(cell["run_id"], _judge_name(cell))].append(cell)
    parts = []
    for (run, judge), rows in groups.items():
        anchor = _anchor("confusion", run, judge)
        parts.append(f'<h3 id="{anchor}">{_e(judge)} — run {_e(run)}</h3>')
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
    rows += [f'{_rowhead(r["model"], "published")}<td class="published">base (published, Dash et al. 2025)</td>'
             f'{_num(r["qlcs"])}<td class="num">35</td>' for r in pub["qlcs"]]
    parts = [_table("Question-level coverage (QLCS): share of the nine categories a response covers, beside the "
                    "published rows", ["model", "variant", "QLCS", "responses"], rows)]
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


def _screening(screening: dict[str, Any]) -> str:
    files = screening["files"]
    run = screening["run_id"]
    rows = []
    for f in files:
        anchor = _anchor("file", run, f["doc_id"])
        verdict = f'<span class="failed">{_e(f["verdict"])}</span>' if f["verdict"] != "passes" else "passes"
        rows.append(f'<th scope="row"><a href="#{anchor}">{_e(f["file"])}</a></th>'
                    f'<td>{verdict}</td><td>{_e(f["reason"] or "")}</td>'
                    f'<td class="num">{_e(f["pages"])}</td><td class="num">{len(f["failed"])}</td>'
                    f"<td>{_e(', '.join(f['failed']) or 'none')}</td><td>{_e(f['first_issue'] or '')}</td>")
    counts = ", ".join(f"{sum(1 for f in files if f['verdict'] == v)} {v}"
                       for v in ("could not be checked", "fails", "passes"))
    parts = [f'<p class="note">{_e(counts)} ({len(files)} file(s)). A file fails when a criterion failed or when '
             "it is untagged (PDF/UA-1 7.1 requires a structure tree).</p>",
             _table("Files, could not be checked and failing first",
                    ["file", "verdict", "reason", "pages", "criteria failed", "which", "first issue"], rows)]
    for f in files:
        anchor = _anchor("file", run, f["doc_id"])
        parts.append(f'<h3 id="{anchor}">{_e(f["file"])}</h3>')
        parts.append(f'<p>Verdict: {_e(f["verdict"])}' + (f" — {_e(f['reason'])}" if f["reason"] else "") + "</p>")
        if f["errors"]:
            parts.append("<ul>" + "".join(f"<li>{_e(err)}</li>" for err in f["errors"]) + "</ul>")
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
        for criterion in CRITERIA:
            issues = (f["criteria"].get(criterion) or {}).get("issues") or []
            if not issues:
                continue
            parts.append(f"<h4>{_e(criterion)}: what fails and how to fix it</h4>")
            parts.append(_table(f"{f['file']}: {criterion} issues",
                                ["page", "where", "sub-criterion", "problem", "remediation"],
                                (f'<td class="num">{i["page"]}</td><td>{_e(i["location"])}</td>'
                                 f'<td>{_e(i["sub_criterion"])}</td><td>{_e(i["problem"])}</td>'
                                 f'<td>{_e(i["remediation"])}</td>' for i in issues), sortable=False))
        for page in f["page_images"]:
            parts.append(_page_figure(f, page))
        if f.get("pages_not_shown"):
            parts.append(f'<p class="note">{f["pages_not_shown"]} more failed page(s) are listed in the issues '
                         "above but not shown as images.</p>")
    return "".join(parts)


def _page_figure(f: dict[str, Any], page: dict[str, Any]) -> str:
    path = Path(page["image_path"])
    if not path.is_file():
        return f'<p class="note">Page {page["page"]}: the rendered image {_e(path.name)} is missing.</p>'
    regions = page["regions"][:MAX_REGIONS]
    drawn = [(r["bbox"], f"{r['criterion'].replace('_', ' ')}: {r['what']}") for r in regions]
    scale = page["width_px"] / page["width_pt"] if page["width_pt"] else 1.0
    chart = charts.outlined_page(_anchor("page", f["doc_id"], str(page["page"])), path.read_bytes(),
                                 (page["width_px"], page["height_px"]), scale, drawn,
                                 f"Page {page['page']} of {f['file']}")
    more = len(page["regions"]) - len(regions)
    caption = (f"Page {page['page']}: failing regions outlined and numbered"
               + (f" ({more} more not drawn)" if more > 0 else "")
               + ("; no region could be located from the evidence" if not regions else "") + ".")
    legend = "".join(f"<li>{_e(label)}</li>" for _, label in drawn)
    return (f'<figure><img src="{chart.data_uri()}" alt="{_e(chart.alt)}" width="{page["width_px"]}" '
            f'height="{page["height_px"]}"><figcaption>{_e(caption)}</figcaption></figure>'
            + (f"<ol>{legend}</ol>" if legend else ""))
