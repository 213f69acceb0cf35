"""`accessbench rules`: the rules judge's checks as declared in its catalog (judges/rules/catalog/*.toml)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    rules = sub.add_parser("rules", help="the rules judge's checks: id, criterion, PDF/UA clause, Matterhorn "
                                         "checkpoint, WCAG criterion, severity")
    rules.add_argument("--criterion", help="only this criterion's rules")
    rules.add_argument("--format", choices=("table", "md", "json"), default="table",
                       help="table (default), md (a Markdown table for the docs) or json")
    rules.add_argument("--conformance", action="store_true",
                       help="the PDF/UA-1 validator's rules instead: clause, Matterhorn checkpoint, the criterion a "
                            "failure is folded into (or syntax only) and its severity when screening / benchmarking")


def _severity(rule: Any) -> str:
    if rule.benchmark_severity and rule.benchmark_severity != rule.severity:
        return f"{rule.severity} (benchmark: {rule.benchmark_severity})"
    return str(rule.severity)


def run_conformance(args: argparse.Namespace) -> int:
    """`accessbench rules --conformance`: every rule of the page validator's PDF/UA-1 profile and its mapping."""
    from judges.conformance import checks

    declared = [c for c in checks().values() if not args.criterion or c.criterion == args.criterion]
    rows: list[dict[str, Any]] = [
        {"validator_rule": c.page, "clause": c.clause, "matterhorn": c.matterhorn, "title": c.title,
         "applies": list(c.applies), "folded_into": c.fold or None, "catalog_id": c.rule_id or None,
         "severity_screening": c.severity if c.fold else None, "severity_benchmark": c.benchmark if c.fold else None}
        for c in declared]
    if args.format == "json":
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if args.format == "md":
        print("| validator rule | what it checks | PDF/UA-1 | Matterhorn | folded into "
              "| severity (screening / benchmark) |\n|---|---|---|---|---|---|")
        for r in rows:
            severity = f"{r['severity_screening']} / {r['severity_benchmark']}" if r["folded_into"] else "–"
            print(f"| `{r['validator_rule']}` | {r['title']} | {r['clause']} | {r['matterhorn'] or '–'} | "
                  f"{r['folded_into'] or 'syntax only'} | {severity} |")
        return 0
    from rich.table import Table

    from flows.cli.console import print_table

    table = Table(title=f"{len(rows)} PDF/UA-1 rules of the page validator (folded ones: switch off with "
                        "--disable-rule <catalog id>)")
    for name in ("validator rule", "PDF/UA-1", "Matterhorn", "folded into", "severity"):
        table.add_column(name, overflow="fold")
    for r in rows:
        table.add_row(str(r["validator_rule"]), str(r["clause"]), str(r["matterhorn"] or "-"),
                      str(r["catalog_id"] or "syntax only"),
                      f"{r['severity_screening']} / {r['severity_benchmark']}" if r["folded_into"] else "-")
    print_table(table)
    return 0


def run_rules(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.console import error as _error
    from judges.criteria import CRITERIA
    from judges.rules.catalog import catalog

    if args.criterion and args.criterion not in CRITERIA:
        return _error(f"unknown criterion {args.criterion!r}; criteria: {', '.join(CRITERIA)}")
    if getattr(args, "conformance", False):
        return run_conformance(args)
    rules = [r for r in catalog().values() if not args.criterion or r.criterion == args.criterion]
    rules.sort(key=lambda r: (CRITERIA.index(r.criterion) if r.criterion in CRITERIA else 99, r.id))
    if args.format == "json":
        print(json.dumps([{"id": r.id, "criterion": r.criterion, "sub_criterion": r.sub_criterion, "title": r.title,
                           "pdfua": r.pdfua, "matterhorn": r.matterhorn, "wcag": list(r.wcag),
                           "severity": r.severity, "benchmark_severity": r.benchmark_severity or r.severity,
                           "conformance": r.conformance or None, "message": r.message, "remediation": r.remediation}
                          for r in rules], indent=2, ensure_ascii=False))
        return 0
    if args.format == "md":
        print("| rule | what it checks | PDF/UA-1 | Matterhorn | WCAG 2.2 | severity |\n|---|---|---|---|---|---|")
        for r in rules:
            print(f"| `{r.id}` | {r.title} | {r.pdfua or '–'} | {r.matterhorn or '–'} | "
                  f"{', '.join(r.wcag) or '–'} | {_severity(r)} |")
        return 0
    from rich.table import Table

    from flows.cli.console import fit_widths, print_table, table_fits, terminal_width

    # The widest layout that fits the terminal; the rule id (what --disable-rule takes) is never cut.
    columns = {"what it checks": lambda r: r.title, "PDF/UA-1": lambda r: r.pdfua or "-",
               "Matterhorn": lambda r: r.matterhorn or "-", "WCAG": lambda r: ", ".join(r.wcag) or "-",
               "severity": _severity}
    width = terminal_width()
    for dropped, whole_ids in (((), True), (("Matterhorn",), True), (("Matterhorn", "PDF/UA-1"), True),
                               (("Matterhorn", "PDF/UA-1", "WCAG"), True), (("Matterhorn", "PDF/UA-1", "WCAG"), False)):
        table = Table(title=f"{len(rules)} rules (switch one off: accessbench run --disable-rule ID)"
                      + (f"; not shown here: {', '.join(dropped)} (see --format md or json)" if dropped else ""))
        if whole_ids:
            table.add_column("rule", no_wrap=True, min_width=max((len(r.id) for r in rules), default=4))
        else:  # a terminal too narrow for the longest id: ids folded onto two lines, never cut
            table.add_column("rule", overflow="fold")
        shown = [name for name in columns if name not in dropped]
        for name in shown:
            table.add_column(name, overflow="fold")
        for r in rules:
            table.add_row(r.id, *(columns[name](r) for name in shown))
        if table_fits(table, width):
            fit_widths(table, width)  # no word broken
            break
    print_table(table)  # at the terminal's width
    return 0
