"""`accessbench report [--run ID …] --format text|md|json|html [--out PATH]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

FORMATS = ("text", "md", "json", "html", "junit", "sarif", "ci-json")
CI_FORMATS = {"junit": "junit", "sarif": "sarif", "ci-json": "json"}  # flows/report/ci.py: one run's per-file results


def add_parser(sub: Any) -> None:
    report = sub.add_parser("report", help="accuracy, confusion matrices, remediation quality, screening results "
                                           "(text, Markdown, JSON or a self-contained HTML file)")
    report.add_argument("--run", action="append", metavar="ID",
                        help="run id (default: the latest run); repeat it to report several runs together")
    report.add_argument("--format", choices=FORMATS, default="text",
                        help="text (terminal tables, default), md, json, or html (one self-contained file); for CI, "
                             "one run's per-file results: junit (JUnit XML), sarif (SARIF 2.1.0) or ci-json")
    report.add_argument("--out", help="write the report to this file instead of standard output")
    from flows.cli.options import add_options
    from tasks.engine.options import CommandOptions

    add_options(report, CommandOptions, ("fail_on", "page_images"))


def plots_folder(home: Path, run_ids: list[str]) -> Path:
    return home / "reports" / "plots" / ("+".join(run_ids) if len(run_ids) <= 3 else f"{run_ids[0]}+{len(run_ids)-1}")


def build(home: Path, run_ids: list[str], fmt: str, page_images: bool = False) -> str:
    """The report of `run_ids` in `fmt`; html also writes its charts as SVG and PNG under the data home, and
    with `page_images` shows each screened file's failing pages, outlined."""
    if fmt in CI_FORMATS:
        from flows.report.ci import render

        return "".join(render(home, run_id, CI_FORMATS[fmt]) for run_id in run_ids)
    if fmt == "text":
        from flows.report.audit import is_audit_run, render_audit_report
        from flows.report.text import render_report

        return "\n".join(render_audit_report(home, r, False) if is_audit_run(home, r) else render_report(home, r)
                         for r in run_ids)
    from flows.report.data import collect

    data = collect(home, run_ids)
    if fmt == "json":
        from flows.report.md import render_json

        return render_json(data)
    if fmt == "md":
        from flows.report.md import render_markdown

        return render_markdown(data)
    from flows.report.html import render_html

    return render_html(data, plots=plots_folder(home, run_ids), page_images=page_images)


def write_run_report(home: Path, run_id: str, page_images: bool = False) -> Path:
    """`<home>/reports/<run>.html`, written at the end of `accessbench run` (`--page-images`: with page images)."""
    path = home / "reports" / f"{run_id}.html"
    text = build(home, [run_id], "html", page_images)
    path.parent.mkdir(parents=True, exist_ok=True)
    from common.text import write_atomic

    write_atomic(path, text)
    return path


def run_report(home: Path, args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from flows.cli.console import EXIT_NOT_FOUND
    from flows.cli.console import error as _error
    from flows.cli.options import describe_errors, given
    from tasks.engine.options import CommandOptions
    from warehouse.store import ArtifactStore

    try:
        command = CommandOptions.model_validate(given(args, CommandOptions))
    except ValidationError as exc:
        return _error(describe_errors(exc, CommandOptions))

    runs = ArtifactStore(home).runs()
    if not runs:
        return _error(f"no runs in {home}; start one with: accessbench run", EXIT_NOT_FOUND)
    known = {r["run_id"] for r in runs}
    run_ids = list(dict.fromkeys(args.run or [runs[-1]["run_id"]]))
    missing = [r for r in run_ids if r not in known]
    if missing:
        return _error(f"no run {missing[0]!r}; list runs with: accessbench runs", EXIT_NOT_FOUND)
    if args.format in CI_FORMATS and len(run_ids) > 1:
        return _error(f"--format {args.format} writes one run's results: give one --run")
    from common.text import visible, write_atomic

    text = build(home, run_ids, args.format, command.page_images)
    if args.format in ("text", "md"):  # read in a terminal (or with cat): text of PDFs and models shown escaped
        text = visible(text)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, text)  # whole or not at all: an error leaves an earlier file as it was
        print(f"report written to {visible(str(out.resolve()))}", file=sys.stderr)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    from flows.cli.gate import screening_exit

    return screening_exit(home, run_ids, command.fail_on, nothing_checked_fails=False)
