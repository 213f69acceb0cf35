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
    from flows.console import error as _error
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
    from rich.console import Console
    from rich.table import Table

    table = Table("rule", "what it checks", "PDF/UA-1", "Matterhorn", "WCAG", "severity",
                  title=f"{len(rules)} rules (switch one off: accessbench run --disable-rule ID)")
    for r in rules:
        table.add_row(r.id, r.title, r.pdfua or "-", r.matterhorn or "-", ", ".join(r.wcag) or "-", r.severity)
    Console(width=200).print(table, markup=False)
    return 0
