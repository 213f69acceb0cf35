"""`accessbench fix`: repair what the rules judge's findings say can be repaired mechanically, re-judge the
repaired copies, and list what remains for a person.

    accessbench fix FILE.pdf --out FIXED.pdf [--lang en] [--model llm:<id> | local] [--force]
    accessbench fix --run ID [--doc DOC …] --out DIR [--lang en] [--model llm:<id> | local] [--force]

A single file is judged first (in the data home given by --home or $ACCESSBENCH_HOME, else in a scratch
home removed afterwards); a finished run's documents are repaired from that run's findings. Originals are
never written; the repaired files go under --out only, never over an input, an existing file (without
--force) or through a symlink. A file fix leaves alone (over a limit, signed, protected, unreadable) is one
line and exit 1; the others are still repaired.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

EXIT_USAGE, EXIT_NOT_FOUND = 2, 3  # the CLI's exit codes (README: 2 bad usage, 3 input not found)


def _error(message: str, code: int = EXIT_USAGE) -> int:
    # the CLI's own error line; kept here so flows.cli.app (which registers this command) is not imported back
    print(f"accessbench: error: {message}", file=sys.stderr)
    return code


def add_parser(sub: Any) -> None:
    fix = sub.add_parser("fix", help="repair what can be repaired mechanically (a copy; never the original), "
                                     "re-judge it, and list what a person must still do")
    fix.add_argument("file", nargs="?", help="the PDF to repair (or give --run)")
    fix.add_argument("--run", metavar="ID", help="repair the documents of this finished run")
    fix.add_argument("--doc", action="append", default=[], metavar="DOC",
                     help="with --run: only this document (doc id or file name; repeatable)")
    fix.add_argument("--out", required=True, help="the repaired file (FILE.pdf) or folder (--run)")
    fix.add_argument("--lang", help="the document language (BCP 47, e.g. en) for files without /Lang, where no "
                                    "language detector is installed")
    fix.add_argument("--model", metavar="SPEC",
                     help="draft alt text and link descriptions with a model: llm:<litellm model id> or local (the "
                          "data home's model server); drafts are marked in the file and listed for review; without "
                          "it they stay findings (needs a model)")
    fix.add_argument("--report", metavar="HTML",
                     help="also write the before → after page here (default: fix.html beside the repaired files)")
    fix.add_argument("--criteria", nargs="+", help="criteria to judge (default: all)")
    fix.add_argument("--format", choices=("text", "json"), default="text",
                     help="text (default: a summary for a person) or json (every fix and remaining finding)")
    fix.add_argument("--force", action="store_true",
                     help="replace repaired files that already exist at --out (never an input, never a symlink)")
    fix.add_argument("--allow-invalidating-signatures", action="store_true",
                     help="repair signed files too: their signatures no longer hold in the copy and Reader usage "
                          "rights (/Perms /UR3) are removed from it (default: signed files are left as they are)")
    from flows.cli.options import add_options
    from tasks.engine.options import StageSettings

    add_options(fix, StageSettings, LIMIT_OPTIONS)  # the limits of `run`, the same flags and defaults


LIMIT_OPTIONS = ("max_file_mb", "max_pages", "max_stream_mb", "doc_timeout_s", "worker_memory_mb")


def run_fix(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.console import EXIT_FAILED, EXIT_NOT_FOUND
    from flows.cli.console import error as _error
    from judges.criteria import CRITERIA
    from repairs.fix import FixError, check_output, run_documents, unique_outputs
    from warehouse.paths import DiskFull
    from warehouse.store import ArtifactStore

    if bool(args.file) == bool(args.run):
        return _error("give one PDF (accessbench fix FILE.pdf --out FIXED.pdf) or a run (accessbench fix --run ID "
                      "--out DIR)")
    if args.doc and not args.run:
        return _error("--doc picks documents of a --run")
    unknown = [c for c in args.criteria or [] if c not in CRITERIA]
    if unknown:
        return _error(f"unknown criterion {unknown[0]!r}; criteria: {', '.join(CRITERIA)}")
    out = Path(args.out).expanduser()
    scratch: Path | None = None
    try:
        if args.file:
            original = Path(args.file).expanduser()
            if not original.is_file():
                return _error(f"no such file: {original}", EXIT_NOT_FOUND)
            if out.is_dir():
                return _error(f"--out {out} is a folder: name the repaired file, e.g. --out {out / original.name}")
            check_output(original, out, force=args.force)
            if args.home is None and not os.environ.get("ACCESSBENCH_HOME"):
                scratch = Path(tempfile.mkdtemp(prefix="accessbench-fix-"))
                home = scratch
                os.environ["XDG_CACHE_HOME"] = str(scratch / "cache" / "xdg")  # onnxruntime's files go there too
            pairs, original_run = [(original.resolve(), out.parent.resolve() / out.name)], None
            inputs: tuple[Path, ...] = ()
        else:
            if ArtifactStore(home).get_run(args.run) is None:
                return _error(f"no run {args.run!r} in {home}; see: accessbench runs", EXIT_NOT_FOUND)
            documents = run_documents(home, args.run)
            if not documents:
                return _error(f"run {args.run} has no documents judged by the rules judge: fix repairs the "
                              "rules judge's findings (accessbench run --judge rules …)")
            chosen = [p for p, ids in documents.items()
                      if not args.doc or p.name in args.doc or ids & set(args.doc)]
            if not chosen:
                return _error(f"no document {', '.join(args.doc)} in run {args.run}; its documents: "
                              f"{', '.join(sorted(p.name for p in documents)[:10])}", EXIT_NOT_FOUND)
            missing = [p for p in chosen if not p.is_file()]
            if missing:
                return _error(f"the run's file {missing[0]} is gone: restore it, or fix a copy with accessbench "
                              f"fix FILE.pdf --out FIXED.pdf", EXIT_NOT_FOUND)
            if out.exists() and not out.is_dir():
                return _error(f"--out {out} is a file: with --run, name a folder for the repaired files")
            pairs, original_run, inputs = unique_outputs(chosen, out, list(documents)), args.run, tuple(documents)
        return _fix(home, pairs, original_run, args, scratch is not None, inputs)
    except FixError as exc:
        return _error(str(exc))
    except DiskFull as exc:
        return _error(f"{exc}: nothing more was written; free space there and run fix again", EXIT_FAILED)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _fix(home: Path, pairs: list[tuple[Path, Path]], original_run: str | None, args: argparse.Namespace,
         scratch: bool, inputs: tuple[Path, ...]) -> int:
    from flows.cli.console import EXIT_FAILED
    from flows.report.fix import write_fix_report
    from repairs.fix import draft_model, drafts, fix_files, remaining, rule_counts
    from repairs.guards import FixLimits
    from tasks.engine.options import StageSettings

    limits = FixLimits.of(StageSettings(**{n: getattr(args, n) for n in LIMIT_OPTIONS if hasattr(args, n)}))
    model = draft_model(home, args.model) if args.model else None
    before_run, after_run, results = fix_files(
        home, pairs, original_run=original_run, criteria=args.criteria, lang=args.lang, model=model, limits=limits,
        allow_invalidating_signatures=args.allow_invalidating_signatures, force=args.force, inputs=inputs)
    refused = [r for r in results if r.refused is not None]
    for r in refused:  # one line each, on stderr, before anything else
        print(f"accessbench: {r.original}: not repaired, {r.refused}", file=sys.stderr)
    code = EXIT_FAILED if refused else 0
    refused_json = [{"file": str(r.original), "kind": r.refused.kind, "reason": r.refused.message}
                    for r in refused if r.refused is not None]
    everything, results = results, [r for r in results if r.refused is None]
    if not results or after_run is None:
        if args.format == "json":
            print(json.dumps({"original_run": before_run, "fixed_run": None, "scratch_home": scratch, "files": [],
                              "refused": refused_json}, indent=2, ensure_ascii=False))
        return code
    left = remaining(results)
    review = drafts(results)
    report = Path(args.report).expanduser() if args.report else _report_path(home, pairs, original_run, scratch)
    if report is not None:
        write_fix_report(report, everything, before_run, after_run)
    counts = rule_counts(results)
    criteria = sorted({c for r in results for c in r.labels} | {c for r in results for c in r.labels_after})
    if args.format == "json":
        print(json.dumps({
            "original_run": before_run, "fixed_run": after_run, "scratch_home": scratch,
            "files": [{"original": str(r.original), "fixed": str(r.fixed), "labels_before": r.labels,
                       "labels_after": r.labels_after, "fixed_rules": r.fixed_rules, "worse_rules": r.worse_rules,
                       "notes": r.notes,
                       "remedies": {name: {"rules": rules, "changes": o.changes, "left": o.left}
                                    for name, (rules, o) in r.outcomes.items()}} for r in results],
            "refused": refused_json,
            "rules": {rid: {"before": b, "after": a} for rid, (b, a) in counts.items()},
            "remaining": [{"file": str(x.file), "criterion": x.criterion, "rule_id": x.rule_id,
                           "location": x.location, "problem": x.problem, "reason": x.reason} for x in left],
            "drafts": [{"file": str(f), "remedy": name, "draft": d} for f, name, d in review],
            "report": str(report) if report else None,
        }, indent=2, ensure_ascii=False))
        return code
    from rich.console import Console

    from common.text import visible
    from flows.cli.console import layouts, print_first_fitting, terminal_width

    console = Console(width=terminal_width(), markup=False, highlight=False)
    for r in results:
        changes = [f"{name}: {c}" for name, (_, o) in r.outcomes.items() for c in o.changes]
        worse = f", {len(r.worse_rules)} fire more than before" if r.worse_rules else ""
        console.print(visible(f"{r.original} → {r.fixed}: {len(changes)} change(s); on re-judging "
                              f"{len(r.fixed_rules)} rule(s) no longer fire{worse}", newlines=False))
        for line in changes:  # a change may quote the document's text (a title, a link's words)
            console.print(f"  {visible(line, newlines=False)}")
        for name, (_, o) in r.outcomes.items():
            if o.left and "rolled back" in o.left:
                console.print(f"  {name}: {visible(o.left, newlines=False)}")
        for rid in r.worse_rules:
            console.print(f"  worse: {rid} has more findings on the copy than on the original")
        for note in r.notes:
            console.print(f"  note: {visible(note, newlines=False)}")
    where = "a scratch data home, removed now (pass --home to keep both runs)" if scratch else str(home)
    console.print(f"re-judged as run {after_run}, linked to run {before_run} ({where})")
    print_first_fitting(layouts("labels before → after (rules judge)", ("criterion", "before", "after"),
                                [(c, _labels(r.labels.get(c) for r in results),
                                  _labels(r.labels_after.get(c) for r in results)) for c in criteria],
                                keys=("criterion",)))
    from judges.rules.catalog import catalog

    by_rule = []
    for rid, (b, a) in counts.items():
        rule = catalog().get(rid)
        by_rule.append((rid, "not judged" if b is None else str(b), str(a),
                        rule.remedy if rule and rule.remedy else "-"))
    print_first_fitting(layouts("findings per rule before → after", ("rule", "findings before", "after", "remedy"),
                                by_rule, keys=("rule",)))
    if left:
        print_first_fitting(layouts(f"{len(left)} finding(s) left for a person", ("file", "rule", "where", "reason"),
                                    [(x.file.name, x.rule_id, x.location[:60], x.reason) for x in left],
                                    keys=("file", "rule"), drops=((), ("where",)),
                                    note="; accessbench fix --format json lists it"))
    elif not refused:
        console.print("nothing left for a person: every finding was repaired")
    if review:
        print_first_fitting(layouts(f"{len(review)} draft(s) for a person to review", ("file", "remedy", "draft"),
                                    [(f.name, name, d) for f, name, d in review], keys=("file",)))
    where_report = f"; report: {report}" if report else " (give --report FILE.html for the before → after page)"
    print(visible(f"written: {', '.join(str(r.fixed) for r in results)}{where_report}"), file=sys.stderr)
    return code


def _report_path(home: Path, pairs: list[tuple[Path, Path]], run: str | None, scratch: bool) -> Path | None:
    """Where fix.html goes by default: in --out's folder for a run; for one file (--out names the file, and
    nothing is written beside it) in the data home's reports, unless that home is a scratch one."""
    if run is not None:
        return pairs[0][1].parent / "fix.html"
    return None if scratch else home / "reports" / f"fix-{pairs[0][1].stem}.html"


def _labels(values: Any) -> str:
    counted = Counter(v or "-" for v in values)
    if len(counted) == 1 and sum(counted.values()) == 1:
        return next(iter(counted))
    return ", ".join(f"{label} {n}" for label, n in sorted(counted.items()))
