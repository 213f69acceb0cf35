"""The page `accessbench fix` writes beside the repaired files (`fix.html`): labels before → after per
criterion, findings before → after per rule, the changes made to each file, the drafts a person should
review, and every finding that remains with the reason a person has to deal with it (needs meaning, needs
a model, not mechanically fixable). Same house style and accessible markup as the run report
(flows/report/html.py: captions, scoped header cells, sortable tables by keyboard, a skip link)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from flows.report.html import CSS, SORT_JS, _e, _rowhead, _table
from judges.rules.catalog import catalog
from repairs.fix import FileFix, drafts, remaining, rule_counts
from repairs.remedies import MODEL_REMEDIES


def _labels(values: Iterable[str | None]) -> str:
    counted = Counter(v or "–" for v in values)
    return ", ".join(f"{label} {n}" if len(counted) > 1 or n > 1 else label for label, n in sorted(counted.items()))


def _cell(text: object, cls: str = "") -> str:
    return f'<td{f" class={cls!r}" if cls else ""}>{_e(text)}</td>'


def _num(n: int | None) -> str:
    if n is None:  # a rule of a criterion not judged before the fix
        return '<td class="num" data-v="-1">not judged</td>'
    return f'<td class="num" data-v="{n}">{n}</td>'


def _by_criterion(results: list[FileFix]) -> str:
    criteria = sorted({c for r in results for c in r.labels} | {c for r in results for c in r.labels_after})
    rows = []
    for c in criteria:
        before = _labels(r.labels.get(c) for r in results)
        after = _labels(r.labels_after.get(c) for r in results)
        cls = "passed" if before != after and "failed" not in after else ""
        rows.append(_rowhead(c) + _cell(before) + _cell(after, cls))
    return _table("Labels of the rules judge per criterion, before → after", ["criterion", "before", "after"], rows)


def _by_rule(results: list[FileFix]) -> str:
    rows = []
    for rule_id, (before, after) in rule_counts(results).items():
        rule = catalog().get(rule_id)
        remedy = rule.remedy if rule and rule.remedy else "–"
        kind = "model draft" if remedy in MODEL_REMEDIES else "mechanical" if remedy != "–" else "for a person"
        rows.append(_rowhead(rule_id) + _cell(remedy) + _cell(kind) + _num(before) + _num(after)
                    + _num(None if before is None else max(0, before - after)))
    return _table("Findings per rule, before → after", ["rule", "remedy", "kind", "before", "after",
                                                         "turned into passes"], rows)


def _changes(results: list[FileFix]) -> str:
    parts = []
    for r in results:
        items = [f"<li><strong>{_e(name)}</strong>: {_e(change)}</li>" for name, (_, o) in r.outcomes.items()
                 for change in o.changes]
        items += [f"<li><strong>{_e(name)}</strong>: {_e(o.left)}</li>" for name, (_, o) in r.outcomes.items()
                  if o.left and "rolled back" in o.left]
        items += [f"<li>worse: {_e(rid)} has more findings on the copy than on the original</li>"
                  for rid in r.worse_rules]
        items += [f"<li>note: {_e(note)}</li>" for note in r.notes]
        parts.append(f"<h3>{_e(r.fixed.name)}</h3><p class=\"note\">Repaired copy of {_e(r.original)}: "
                     f"{len(items)} item(s); on re-judging {len(r.fixed_rules)} rule(s) no longer fire.</p>"
                     + (f"<ul>{''.join(items)}</ul>" if items else ""))
    return "".join(parts)


def _refused(results: list[FileFix]) -> str:
    rows = [_rowhead(r.original.name) + _cell(r.refused.kind) + _cell(r.refused.message)
            for r in results if r.refused is not None]
    if not rows:
        return "<p>None: every file was repaired.</p>"
    return _table("Files left as they are (nothing written), with the reason", ["file", "kind", "reason"], rows)


def _drafts(results: list[FileFix]) -> str:
    rows = [_rowhead(f.name) + _cell(name) + _cell(text) for f, name, text in drafts(results)]
    if not rows:
        return "<p>No drafts: nothing was derived or written by a model.</p>"
    return ("<p>Each draft is recorded in the repaired file too (model drafts in the document information's "
            "<code>/AccessBenchDrafts</code>). Confirm or rewrite each before publishing.</p>"
            + _table("Drafts for a person to review", ["file", "remedy", "draft"], rows))


def _remaining(results: list[FileFix], refused: bool) -> str:
    left = remaining(results)
    if not left:
        return ("<p>Nothing is left for a person in the repaired files.</p>" if refused else
                "<p>Nothing is left for a person: every finding was repaired.</p>")
    reasons = Counter(x.reason.split(":")[0] for x in left)
    summary = "".join(f"<li>{_e(reason)}: {n}</li>" for reason, n in sorted(reasons.items()))
    rows = [_rowhead(x.file.name) + _cell(x.criterion) + _cell(x.rule_id) + _cell(x.location) + _cell(x.problem)
            + _cell(x.reason) for x in left]
    return (f"<p>{len(left)} finding(s) remain, by reason:</p><ul>{summary}</ul>"
            + _table("Findings left for a person, with the reason", ["file", "criterion", "rule", "where",
                                                                     "problem", "reason"], rows))


def render_fix_report(everything: list[FileFix], original_run: str, fixed_run: str) -> str:
    results = [r for r in everything if r.refused is None]
    sections = [("labels", "Labels before → after", _by_criterion(results)),
                ("rules", "Findings per rule before → after", _by_rule(results)),
                ("refused", "Files left as they are", _refused(everything)),
                ("remaining", "What remains for a person", _remaining(results, len(results) < len(everything))),
                ("drafts", "Drafts to review", _drafts(results)),
                ("changes", "Changes made", _changes(results))]
    toc = "".join(f'<li><a href="#{a}">{_e(h)}</a></li>' for a, h, _ in sections)
    body = "".join(f'<section aria-labelledby="{a}"><h2 id="{a}">{_e(h)}</h2>{b}</section>' for a, h, b in sections)
    title = "AccessBench fix: before → after"
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}: {_e(fixed_run)}</title><style>{CSS}</style></head><body>"
            f'<a class="skip" href="#main">Skip to the report</a><header><h1>{_e(title)}</h1>'
            f'<p class="note">{len(results)} file(s) repaired from the findings of run {_e(original_run)} and '
            f"re-judged as run {_e(fixed_run)} (rules judge). The originals were not changed.</p></header>"
            f'<nav aria-label="Contents"><h2 id="contents">Contents</h2><ol>{toc}</ol></nav>'
            f'<main id="main">{body}</main><script>{SORT_JS}</script></body></html>')


def write_fix_report(path: Path, results: list[FileFix], original_run: str, fixed_run: str) -> Path:
    """Write the page atomically (common.text.write_atomic: a temporary file beside it, then a rename)."""
    from common.text import write_atomic

    text = render_fix_report(results, original_run, fixed_run)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    return path
