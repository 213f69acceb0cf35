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


def run_rules(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.console import error as _error
    from judges.criteria import CRITERIA
    from judges.rules.catalog import catalog

    if args.criterion and args.criterion not in CRITERIA:
        return _error(f"unknown criterion {args.criterion!r}; criteria: {', '.join(CRITERIA)}")
    rules = [r for r in catalog().values() if not args.criterion or r.criterion == args.criterion]
    rules.sort(key=lambda r: (CRITERIA.index(r.criterion) if r.criterion in CRITERIA else 99, r.id))
    if args.format == "json":
        print(json.dumps([{"id": r.id, "criterion": r.criterion, "sub_criterion": r.sub_criterion, "title": r.title,
                           "pdfua": r.pdfua, "matterhorn": r.matterhorn, "wcag": list(r.wcag),
                           "severity": r.severity, "message": r.message, "remediation": r.remediation}
                          for r in rules], indent=2, ensure_ascii=False))
        return 0
    if args.format == "md":
        print("| rule | what it checks | PDF/UA-1 | Matterhorn | WCAG 2.2 | severity |\n|---|---|---|---|---|---|")
        for r in rules:
            print(f"| `{r.id}` | {r.title} | {r.pdfua or '–'} | {r.matterhorn or '–'} | "
                  f"{', '.join(r.wcag) or '–'} | {r.severity} |")
        return 0
    from rich.table import Table

    from flows.cli.console import fit_widths, print_table, table_fits, terminal_width

    # The widest layout that fits the terminal; the rule id (what --disable-rule takes) is never cut.
    columns = {"what it checks": lambda r: r.title, "PDF/UA-1": lambda r: r.pdfua or "-",
               "Matterhorn": lambda r: r.matterhorn or "-", "WCAG": lambda r: ", ".join(r.wcag) or "-",
               "severity": lambda r: r.severity}
    width = terminal_width()
    for dropped, whole_ids in (((), True), (("Matterhorn",), True), (("Matterhorn", "PDF/UA-1"), True),
                               (("Matterhorn", "PDF/UA-1"), False)):
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
