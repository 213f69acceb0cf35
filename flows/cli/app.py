"""`accessbench`: run the benchmark, list runs, re-run a stage, query and report in SQL."""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flows.cli.console import EXIT_FAILED, EXIT_NOT_FOUND, EXIT_OK
from flows.cli.console import EXIT_USAGE as EXIT_USAGE  # the tests read the exit codes from flows.cli.app
from flows.cli.console import error as _error
from flows.cli.console import prepare_prefect as _prepare_prefect
from flows.cli.console import print_stage_results as _print_stage_results
from flows.cli.console import start_prefect_server as _start_prefect_server


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="accessbench", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("--home", help="data home (default: $ACCESSBENCH_HOME or ./.accessbench); s3://BUCKET/PREFIX "
                        "keeps the tables there and a local cache home under ./.accessbench/s3/")
    parser.add_argument("--artifacts", metavar="s3://BUCKET/PREFIX",
                        help="keep this home's final tables and run state on S3 (remembered by the home; default: "
                             "$ACCESSBENCH_ARTIFACTS or <home>/artifacts); credentials from AWS_* variables")
    parser.add_argument("-v", "--verbose", action="store_true", help="show Prefect's own logs")
    parser.add_argument("--allow-private-endpoint", action="store_true",
                        help="let --api-base name a link-local or cloud-metadata address (169.254.0.0/16, "
                             "fd00:ec2::254, metadata.google.internal …), refused by default")
    sub = parser.add_subparsers(dest="command", required=True)

    from flows.cli.options import add_options
    from tasks.engine.options import BenchmarkOptions, CommandOptions, Execution, StageSettings

    run = sub.add_parser("run", help="run the benchmark flow (default corpus: the embedded synthetic benchmark)")
    add_options(run.add_mutually_exclusive_group(), BenchmarkOptions, ("dataset", "pdfs"))
    add_options(run, BenchmarkOptions, ("run_id", *StageSettings.model_fields, *Execution.model_fields))
    add_options(run, CommandOptions)
    run.add_argument("--report-format", choices=("junit", "sarif", "json"),
                     help="also write per-file results for CI when the run finishes: JUnit XML, SARIF 2.1.0 or "
                          "JSON, a test case per file × criterion with the rule ids of its findings")
    run.add_argument("--report-out", metavar="PATH",
                     help="where --report-format writes (default: <home>/reports/<run>.junit.xml, .sarif or "
                          ".results.json)")

    from flows.cli.runs import add_parser as add_runs_parser

    add_runs_parser(sub)

    rerun = sub.add_parser("rerun", help="re-execute one stage of a run from its persisted upstream artifacts")
    rerun.add_argument("--run", required=True, help="run id (see: accessbench runs)")
    rerun.add_argument("--stage", required=True,
                       help="corpus|render|layout|extract|transcript|inputs|judge|aggregate|metrics; for an audit "
                            "run: questions|responses|category_judgments|audit_metrics")
    rerun.add_argument("--downstream", action="store_true", help="also re-execute every stage after it")

    sql = sub.add_parser("sql", help="read-only SQL over the warehouse")
    sql.add_argument("query", help='e.g. "select criterion, label, count(*) from doc_labels group by all"')
    sql.add_argument("--format", choices=("table", "csv", "json"), default="table",
                     help="table (default: fits the terminal), csv (LF line ends) or json (a list, an object per row)")
    sql.add_argument("--timeout", type=float, default=60.0, metavar="S",
                     help="stop the query after S seconds (default 60)")
    sql.add_argument("--memory-mb", type=float, default=2048.0, metavar="MB",
                     help="memory the query may use, in MiB (default 2048)")
    sql.add_argument("--raw", action="store_true",
                     help="csv: write cells as stored (by default a cell starting with = + - @ gets a leading ' so "
                          "that a spreadsheet reads it as text, not as a formula)")

    from flows.cli.audit import add_parser as add_audit_parser
    from flows.cli.calls import add_parsers as add_calls_parsers
    from flows.cli.corpus import add_parser as add_corpus_parser
    from flows.cli.doctor import add_parser as add_doctor_parser
    from flows.cli.model import add_parser as add_model_parser
    from flows.cli.review import add_parser as add_review_parser
    from flows.cli.rules import add_parser as add_rules_parser

    add_review_parser(sub)
    add_corpus_parser(sub)
    add_calls_parsers(sub)
    add_audit_parser(sub)
    add_doctor_parser(sub)
    add_model_parser(sub)
    add_rules_parser(sub)
    from flows.cli.fix import add_parser as add_fix_parser

    add_fix_parser(sub)

    from flows.cli.report import add_parser as add_report_parser

    add_report_parser(sub)

    from flows.cli.server import add_parsers as add_server_parsers

    add_server_parsers(sub)
    _global_options_everywhere(parser)
    return parser


def _global_options_everywhere(parser: argparse.ArgumentParser) -> None:
    """`--home` and `-v` work after any subcommand too (`accessbench runs --home X`)."""
    for action in parser._actions:  # noqa: SLF001 - argparse exposes subparsers only this way
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for child in dict.fromkeys(action.choices.values()):
                child.add_argument("--home", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
                child.add_argument("--artifacts", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
                child.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                                   help=argparse.SUPPRESS)
                child.add_argument("--allow-private-endpoint", action="store_true", default=argparse.SUPPRESS,
                                   help=argparse.SUPPRESS)
                _global_options_everywhere(child)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("accessbench")
    except PackageNotFoundError:
        return "(not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from flows.cli.preflight import refusal_for

    if (refusal := refusal_for(args)) is not None:  # usage errors before any heavy import: well under 1.5 s
        return _error(refusal.message, refusal.code)
    _use_system_allocator()
    from warehouse.artifact_roots import ArtifactRootError
    from warehouse.store import RunBusy, UnsafePathError, check_run_id

    try:
        # The local Prefect server never reads the tables: stopping it needs no S3 credentials or network.
        home = _open_home(args.home, args.artifacts, tables=args.command not in ("server", "model", "rules"))
    except ArtifactRootError as exc:
        return _error(str(exc), EXIT_FAILED)
    except _HomeIsAFile as exc:
        return _error(str(exc))
    # onnxruntime (the layout model) writes a device id and a telemetry database under
    # $XDG_CACHE_HOME as soon as it is imported: keep that inside the data home too. AccessBench's own
    # per-user cache (a migrated Prefect database, flows/server.py) stays where the user's cache is.
    from flows.server import cache_dir

    os.environ["ACCESSBENCH_CACHE"] = str(cache_dir())
    if args.allow_private_endpoint:
        from models.endpoints import ALLOW_ENV

        os.environ[ALLOW_ENV] = "1"
    os.environ["XDG_CACHE_HOME"] = str(home / "cache" / "xdg")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    for option in ("run_id", "run"):  # run ids become folder names: refuse unsafe ones before anything
        given = getattr(args, option, None) or []
        for run_id in given if isinstance(given, list) else [given]:
            try:
                check_run_id(run_id)
            except UnsafePathError as exc:
                return _error(str(exc))
    missing = _missing_home(home, args)
    if missing:
        return _error(missing, EXIT_NOT_FOUND)
    from flows.cli.server import cmd_deploy, cmd_server, cmd_worker
    from flows.server import ServerError

    # SIGTERM unwinds like Ctrl-C: the per-document worker processes a run started are stopped on the way out,
    # and model calls in flight are cancelled at once (see _interrupt).
    previous = signal.signal(signal.SIGTERM, _interrupt)
    previous_int = signal.signal(signal.SIGINT, _interrupt) if signal.getsignal(signal.SIGINT) is \
        signal.default_int_handler else None
    try:
        handler = {"run": cmd_run, "runs": cmd_runs, "rerun": cmd_rerun, "sql": cmd_sql, "report": cmd_report,
                   "review": cmd_review, "corpus": cmd_corpus, "calls": cmd_calls, "cache": cmd_cache,
                   "audit": cmd_audit, "doctor": cmd_doctor, "server": cmd_server, "deploy": cmd_deploy,
                   "worker": cmd_worker, "model": cmd_model, "rules": cmd_rules, "fix": cmd_fix}
        return int(handler[args.command](home, args))
    except RunBusy as exc:  # refused before it wrote anything: the other process's run is left as it is
        return _error(str(exc), EXIT_FAILED)
    except (ServerError, ArtifactRootError) as exc:
        return _error(str(exc), EXIT_FAILED)
    except KeyboardInterrupt:
        print("interrupted: resume with the same --run-id, or accessbench rerun", file=sys.stderr)
        return 130
    except BaseException as exc:
        if (full := _disk_full(exc)) is not None:
            return _error(f"the disk of the data home {home} is full ({full}): free space there or pass --home on "
                          "another disk, then resume with the same --run-id (the run is kept, marked failed)",
                          EXIT_FAILED)
        if not _is_termination(exc):
            raise
        print("terminated: resume with the same --run-id, or accessbench rerun", file=sys.stderr)
        return 143
    finally:
        signal.signal(signal.SIGTERM, previous)
        if previous_int is not None:
            signal.signal(signal.SIGINT, previous_int)
        if (transport := sys.modules.get("models.transport")) is not None:
            transport.allow_calls()


def _use_system_allocator() -> None:
    """Arrow's buffers in this process from glibc's heap, not Arrow's default (mimalloc). The command holds a
    stage's tables at a time and hands the freed pages back after each stage (tasks.engine.runner.release_memory);
    mimalloc's per-thread segments (Arrow reads Parquet on a pool of threads) kept ~80 MB more at each stage's
    peak. The stage workers, in processes of their own, keep Arrow's default."""
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())


class _HomeIsAFile(ValueError):
    pass


def _disk_full(exc: BaseException) -> str | None:
    """How much is free, when `exc` (or what caused it) is a full disk (warehouse.paths.DiskFull)."""
    from warehouse.paths import DiskFull, human_size

    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return None
        if isinstance(seen, DiskFull):
            return "unknown space" if seen.free is None else f"{human_size(seen.free)} free"
        seen = seen.__cause__ or seen.__context__
    return None


# Commands that only read a data home: on a home that does not exist (a typo in --home) they say so and
# create nothing, instead of answering "no runs" from a folder they made.
READ_ONLY_COMMANDS = frozenset({"runs", "report", "sql"})


def _missing_home(home: Path, args: argparse.Namespace) -> str | None:
    from warehouse.home import ARTIFACTS_ENV, HOME_ENV, is_url

    remote = is_url(args.home) or args.artifacts or os.environ.get(ARTIFACTS_ENV)  # the tables are elsewhere
    if args.command not in READ_ONLY_COMMANDS or remote or home.exists():
        return None
    named = "--home" if args.home else f"${HOME_ENV}" if os.environ.get(HOME_ENV) else "the default home"
    return (f"the data home {home} does not exist (from {named}): check it for a typo, or start a run there "
            "first: accessbench --home PATH run")


def _open_home(home_option: str | None, artifacts_option: str | None, tables: bool = True) -> Path:
    """The local data home, its artifact root checked and (when one was named) recorded in it.

    `--home s3://B/P` is `--artifacts s3://B/P` with a local home of its own under
    `$ACCESSBENCH_HOME` (or ./.accessbench) `/s3/B/P`. A remote root is asked once, before any
    work, so a wrong endpoint, missing bucket or bad credentials end the command with one line.
    A command that never reads the tables (`tables=False`) gets the local home only.
    """
    from warehouse.artifact_roots import ArtifactRootError, open_root
    from warehouse.home import ARTIFACTS_ENV, artifact_url, bind_artifacts, home_for_url, is_url, resolve_home

    asked = artifacts_option or os.environ.get(ARTIFACTS_ENV) or None
    if isinstance(home_option, str) and is_url(home_option):
        if asked and asked.rstrip("/") != home_option.rstrip("/"):
            raise ArtifactRootError(f"--home {home_option} and --artifacts {asked} disagree: give one of them")
        asked, home = home_option, home_for_url(home_option)
    else:
        home = resolve_home(home_option)
    if home.exists() and not home.is_dir():
        raise _HomeIsAFile(f"the data home {home} is a file, not a folder: pass --home with a folder (it is created "
                           "when missing)")
    from warehouse.home import HomeLinkError, check_home_links

    try:  # a symlink planted in the home (reports, cache, warehouse.duckdb, ...) would send writes outside it
        check_home_links(home)
    except HomeLinkError as exc:
        raise _HomeIsAFile(str(exc)) from None
    if not tables:
        return home
    url = artifact_url(home, asked)
    if url is not None:
        open_root(url).check()
        if asked:
            bind_artifacts(home, url)
    return home


def _interrupt(signum: int, frame: object) -> None:
    # Threads blocked in a model call would hold the unwinding for minutes: shut their sockets first.
    if (transport := sys.modules.get("models.transport")) is not None:
        transport.cancel_calls()
    raise KeyboardInterrupt


def _is_termination(exc: BaseException) -> bool:
    """Prefect turns SIGTERM inside a flow run into its own TerminationSignal."""
    exceptions = sys.modules.get("prefect.exceptions")
    return exceptions is not None and isinstance(exc, exceptions.TerminationSignal)


def _unreachable(address: str, timeout_s: float = 10.0) -> str | None:
    """Why nothing answers at HOST:PORT (None when a TCP connection opens): checked before any work."""
    import socket

    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            return None
    except (OSError, ValueError) as exc:
        return str(exc) or type(exc).__name__


def cmd_run(home: Path, args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from flows.cli.options import describe_errors, given
    from flows.cli.preflight import input_refusal
    from judges.criteria import CRITERIA
    from tasks.benchmark.judge import check_judge_specs
    from tasks.engine.context import RunConfig, new_run_id
    from tasks.engine.options import BenchmarkOptions, CommandOptions

    try:  # every range, choice and runner address, as declared once in tasks.engine.options
        options = BenchmarkOptions.model_validate(given(args, BenchmarkOptions))
    except ValidationError as exc:
        return _error(describe_errors(exc, BenchmarkOptions))
    try:
        command = CommandOptions.model_validate(given(args, CommandOptions))
    except ValidationError as exc:
        return _error(describe_errors(exc, CommandOptions))
    args.fail_on = command.fail_on
    args.page_images = command.page_images
    settings = options.settings()
    run_id = options.run_id or new_run_id()
    if options.dataset:
        source, path = "dataset", str(Path(options.dataset).resolve())
    elif options.pdfs:
        source, path = "pdfs", str(Path(options.pdfs).resolve())
    else:
        source, path = "synthetic", None
    if options.layout_weights:
        settings["layout_weights"] = str(Path(options.layout_weights).resolve())
    # One run config for every check here: its judges are checked once (RunBase.checked_once).
    cfg = RunConfig(home=home, run_id=run_id, source=source, source_path=path, **settings)
    try:  # bad specs and missing keys stop here, before any call; nothing is built
        covered = check_judge_specs(cfg)
    except (ValueError, ImportError, KeyError) as exc:
        if not command.dry_run or "no credentials" not in str(exc):
            return _error(str(exc))
        print(f"note: {exc} (a dry run prices the run anyway; the run itself would stop here)", file=sys.stderr)
        covered = {spec: tuple(CRITERIA) for spec in options.judges}
    if (refusal := input_refusal(options.dataset, options.pdfs)) is not None:  # checked by main too: cheap
        return _error(refusal.message, refusal.code)
    criteria = options.criteria or [c for c in CRITERIA if any(c in judge for judge in covered.values())]
    for spec, judge in covered.items():
        unsupported = [c for c in criteria if c not in judge]
        if unsupported:
            print(f"note: judge {spec!r} does not cover {', '.join(unsupported)}; those documents get error rows",
                  file=sys.stderr)
    if options.runner != "local" and importlib.util.find_spec("prefect_dask") is None:  # prefect is not imported yet
        return _error("--runner dask needs prefect-dask: pip install -e '.[dask]'")
    if options.runner.startswith("dask://") and (problem := _unreachable(options.runner.removeprefix("dask://"))):
        return _error(f"cannot reach the Dask scheduler at {options.runner} ({problem}); start it (dask scheduler "
                      "--port PORT, then dask worker tcp://HOST:PORT), or run on this machine with --runner dask",
                      EXIT_FAILED)
    cfg.criteria = criteria
    from tasks.benchmark.registry import BENCHMARK
    from tasks.engine.runner import ConfigError

    if command.dry_run:  # before the stages' checks: a dry run prices a run whose keys are not set yet
        from flows.cli.dry_run import print_dry_run

        return print_dry_run(cfg)
    try:
        BENCHMARK.check(cfg)  # each stage's own config check, before the flow starts
    except ConfigError as exc:
        return _error(str(exc))
    existing = cfg.store.get_run(cfg.run_id)
    if existing:
        asked = cfg
        cfg = RunConfig.from_record(json.loads(existing["config"]), home=home, progress=True)
        cfg.runner, cfg.workers = asked.runner, asked.workers  # where the work runs never changes its outputs
        ignored = [key for key, value in asked.to_record().items()
                   if key not in ("progress", "home") and cfg.to_record().get(key) != value]
        print(f"resuming run {cfg.run_id} with its recorded settings"
              + (f"; ignoring what differs from them: {', '.join(ignored)} (start a new run, or accessbench rerun "
                 "a stage, to change them)" if ignored else ""), file=sys.stderr)
    print(f"run {cfg.run_id}: {source}{' ' + path if path else ''}; criteria: {', '.join(cfg.criteria)}; "
          f"judges: {cfg.judge_label}; data home: {home}", file=sys.stderr)
    return _flow(home, args, "benchmark", cfg)


def _flow(home: Path, args: argparse.Namespace, kind: str, cfg: Any, **extra: Any) -> int:
    from flows.report.data import reusing_collected

    with reusing_collected():  # the run's summary, HTML report and terminal report read its tables once
        return _run_flow(home, args, kind, cfg, **extra)


def _run_flow(home: Path, args: argparse.Namespace, kind: str, cfg: Any, **extra: Any) -> int:
    from warehouse.store import check_run_free

    check_run_free(home, cfg.run_id)  # a run another process is running: refused before Prefect starts
    _prepare_prefect(home, args.verbose)
    _start_prefect_server()
    if getattr(cfg, "runner", "local") == "dask":
        from tasks.engine.cluster import prestart

        prestart(cfg.runner, cfg.workers, home / "dask")  # its workers start while Prefect is imported
    from flows.benchmark import benchmark_flow, flow_parameters, rerun_flow
    from tasks.engine.runner import StageFailed

    try:
        results = (benchmark_flow(**flow_parameters(cfg)) if kind == "benchmark"
                   else rerun_flow(run_id=cfg.run_id, home=str(home), progress=cfg.progress, **extra))
    except StageFailed as exc:
        return _error(f"{exc}\nsee: accessbench runs; fix the cause, then: accessbench rerun --run {cfg.run_id} "
                      "--stage <stage> --downstream", EXIT_FAILED)
    _print_stage_results(results)
    errors = sum(r["errors"] or 0 for r in results)
    if errors and kind == "benchmark":  # counted in files, as a user reads them, not file × criterion
        from flows.report.text import error_files

        files = error_files(home, cfg.run_id)
        print(f"run {cfg.run_id} finished with errors in {files} file(s) ({errors} error rows: accessbench sql "
              f"\"select * from errors where run_id='{cfg.run_id}'\")", file=sys.stderr)
    else:
        print(f"run {cfg.run_id} finished" + (f" with {errors} error rows (accessbench sql \"select * from errors "
              f"where run_id='{cfg.run_id}'\")" if errors else ""), file=sys.stderr)
    if kind == "benchmark" or "aggregate" in {r["stage"] for r in results}:
        _print_report(home, cfg.run_id, brief=True)
        _print_next_steps(home, cfg.run_id, getattr(args, "page_images", False))
    if getattr(args, "report_format", None):
        from flows.report.ci import write_after_run

        write_after_run(home, cfg.run_id, args.report_format, args.report_out)
    if kind == "benchmark":
        from flows.cli.gate import screening_exit

        return screening_exit(home, [cfg.run_id], getattr(args, "fail_on", "never"))
    return EXIT_OK


def _print_next_steps(home: Path, run_id: str, page_images: bool = False) -> None:
    """Where the HTML report is, and what to run next."""
    from flows.cli.report import write_run_report

    try:
        path = write_run_report(home, run_id, page_images)
    except Exception as exc:  # noqa: BLE001 - the run is done and its results are in the warehouse
        print(f"could not write the HTML report ({exc}); try: accessbench report --run {run_id} --format html "
              "--out report.html", file=sys.stderr)
        return
    print(f"report: {path}\nnext: accessbench report --run {run_id} --format html --out report.html\n"
          f"      accessbench sql \"select * from doc_labels where run_id='{run_id}'\"", file=sys.stderr)


def cmd_runs(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.runs import run_runs

    return run_runs(home, args)


def cmd_rerun(home: Path, args: argparse.Namespace) -> int:
    from tasks.benchmark.registry import STAGES
    from tasks.engine.context import RunConfig
    from warehouse.store import ArtifactStore

    run = ArtifactStore(home).get_run(args.run)
    if run is None:
        return _error(f"no run {args.run!r} in {home}; list runs with: accessbench runs", EXIT_NOT_FOUND)
    if run.get("source") == "audit":
        from flows.cli.audit import rerun_audit

        return rerun_audit(home, args, run)
    if args.stage not in STAGES:
        return _error(f"unknown stage {args.stage!r}; stages: {', '.join(STAGES)}")
    cfg = RunConfig.from_record(json.loads(run["config"]), home=home)
    return _flow(home, args, "rerun", cfg, stage=args.stage, downstream=args.downstream)


def cmd_sql(home: Path, args: argparse.Namespace) -> int:
    import duckdb

    from warehouse.catalog import QueryLimitError, ReadOnlyError, query
    from warehouse.tables import ALL_TABLES  # declared apart from the stages: a query imports none of them

    if args.timeout <= 0 or args.memory_mb < 16:
        return _error("--timeout must be > 0 and --memory-mb at least 16")
    try:
        columns, rows = query(home, ALL_TABLES, args.query, timeout_s=args.timeout, memory_mb=args.memory_mb)
    except ReadOnlyError as exc:
        return _error(str(exc))
    except QueryLimitError as exc:
        return _error(str(exc), EXIT_FAILED)
    except duckdb.Error as exc:
        return _error(f"{exc}\ntables: {', '.join(t.name for t in ALL_TABLES)}, runs, stage_runs; "
                      "views: accuracy_by_criterion, accuracy_by_label, confusion_matrix, prf_by_criterion, "
                      "leaderboard, unjudged; audit: qlcs, dlcs, depth_at_k, prompt_effect, judge_agreement")
    sys.stdout.write(format_rows(columns, rows, args.format, raw=args.raw))
    return EXIT_OK


def format_rows(columns: list[str], rows: list[tuple[Any, ...]], fmt: str, *, escape: bool | None = None,
                raw: bool = False) -> str:
    """Rows as json, csv or a table. Table cells are always escaped (`visible`); csv only where it goes to
    a terminal (`escape` None) or when asked; json escapes every control character itself. A csv cell that
    starts with = + - @ gets a leading ' (a spreadsheet would run it as a formula) unless `raw`."""
    from common.text import csv_cell, visible

    if escape is None:
        escape = fmt == "table" or sys.stdout.isatty()
    if escape and fmt != "json":
        columns = [visible(str(c)) for c in columns]
        rows = [tuple(visible(v) if isinstance(v, str) else v for v in row) for row in rows]
    if fmt == "csv" and not raw:
        columns = [str(csv_cell(c)) for c in columns]
        rows = [tuple(csv_cell(v) for v in row) for row in rows]
    if fmt == "json":
        return json.dumps([dict(zip(columns, row, strict=True)) for row in rows], default=str, indent=1) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")  # LF: `$(accessbench sql ...)` gets no \r
        writer.writerow(columns)
        writer.writerows(rows)
        return buffer.getvalue()
    from rich.console import Console
    from rich.table import Table

    table = Table(*columns)
    for row in rows:
        table.add_row(*("" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v)) for v in row))
    # Cells are data (PDF text, model replies): never rich markup ("[/bold]" would crash, "[x]" vanish).
    from flows.cli.console import terminal_width

    console = Console(file=io.StringIO(), width=terminal_width(), markup=False)  # the width of the terminal
    console.print(table)
    console.print(f"{len(rows)} row(s)")
    return console.file.getvalue()  # type: ignore[attr-defined]


def cmd_corpus(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.corpus import run_corpus

    return run_corpus(home, args)


def cmd_calls(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.calls import run_calls

    return run_calls(home, args)


def cmd_cache(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.calls import run_cache

    return run_cache(home, args)


def cmd_model(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.model import run_model

    return run_model(home, args)


def cmd_rules(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.rules import run_rules

    return run_rules(home, args)


def cmd_fix(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.fix import run_fix

    return run_fix(home, args)


def cmd_audit(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.audit import run_audit

    return run_audit(home, args)


def cmd_doctor(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.doctor import run_doctor

    return run_doctor(home, args)


def cmd_review(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.review import run_review

    return run_review(home, args)


def cmd_report(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.report import run_report

    return run_report(home, args)


def _print_report(home: Path, run_id: str, brief: bool) -> None:
    from flows.report.audit import is_audit_run, render_audit_report
    from flows.report.text import render_report

    audit = is_audit_run(home, run_id)
    from common.text import visible

    print(visible(render_audit_report(home, run_id, brief) if audit else render_report(home, run_id, brief=brief)))


if __name__ == "__main__":
    raise SystemExit(main())
