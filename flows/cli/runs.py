"""`accessbench runs`: every run of the data home with its stages' status, as a table that fits the terminal
(`--format text`) or, for scripts, every column untruncated (`--format csv|json`)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from flows.cli.console import EXIT_OK

FORMATS = ("text", "csv", "json")
DONE = frozenset({"completed", "skipped", "reused"})  # a stage whose outputs stand


def add_parser(sub: Any) -> None:
    runs = sub.add_parser("runs", help="list runs with per-stage status")
    runs.add_argument("--format", choices=FORMATS, default="text",
                      help="text (default: a table that fits the terminal; COLUMNS sets its width), csv or json "
                           "(every column, untruncated, for scripts)")


def run_runs(home: Path, args: argparse.Namespace) -> int:
    from warehouse.store import ArtifactStore
    from warehouse.tables import AUDIT_STAGE_NAMES as AUDIT_STAGES
    from warehouse.tables import BENCHMARK_STAGE_NAMES as STAGES

    store = ArtifactStore(home)
    runs = store.runs()
    fmt = getattr(args, "format", "text")
    if not runs and fmt == "text":
        print(f"no runs in {home}; start one with: accessbench run")
        return EXIT_OK
    states: dict[str, dict[str, str]] = {}
    progress: dict[str, dict[str, dict[str, Any]]] = {}  # run → running stage → its last recorded progress
    for row in store.stage_runs():
        states.setdefault(row.run_id, {})[row.stage] = row.status
        if row.status == "running" and (recorded := store.progress(row.stage, row.run_id)) is not None:
            progress.setdefault(row.run_id, {})[row.stage] = recorded
    audits = {run["source"] == "audit" for run in runs}  # audit stages shown only when there are audit runs
    shown = [*(STAGES if False in audits else []), *(AUDIT_STAGES if True in audits else [])]
    if fmt == "text":
        shown_states = {run_id: {stage: with_progress(status, progress.get(run_id, {}).get(stage))
                                 for stage, status in stages.items()} for run_id, stages in states.items()}
        print_runs_table(runs, shown_states, shown, {run["run_id"]: list(AUDIT_STAGES if run["source"] == "audit"
                                                                         else STAGES) for run in runs})
        return EXIT_OK
    def record(run: dict[str, Any]) -> dict[str, Any]:
        return {"run_id": run["run_id"], "created": run["created"].isoformat() if run["created"] else None,
                "source": run["source"], "judge": run["judge"], "status": run["status"]}

    if fmt == "json":  # each run's stages nested: a stage named `judge` is not the run's judge
        records = [{**record(run), "stages": {stage: states.get(run["run_id"], {}).get(stage) for stage in shown},
                    "progress": {stage: {key: value.get(key) for key in ("done", "total", "unit", "updated")}
                                 for stage, value in progress.get(run["run_id"], {}).items()}}
                   for run in runs]
        sys.stdout.write(json.dumps(records, indent=1, ensure_ascii=False) + "\n")
        return EXIT_OK
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")  # LF, as `$(accessbench runs --format csv)` expects
    writer.writerow(["run_id", "created", "source", "judge", "status", *(f"stage:{stage}" for stage in shown)])
    writer.writerows([*record(run).values(), *(states.get(run["run_id"], {}).get(stage, "") for stage in shown)]
                     for run in runs)
    sys.stdout.write(buffer.getvalue())
    return EXIT_OK


def with_progress(status: str, recorded: dict[str, Any] | None) -> str:
    """A running stage's cell with how far it is ("running 120/352 pages"), as its runner last recorded."""
    if status != "running" or not recorded:
        return status
    return f"running {recorded.get('done')}/{recorded.get('total')} {recorded.get('unit')}"


def stages_summary(stage_states: dict[str, str], own: list[str]) -> str:
    """One cell for a run's stages: how many are done, which did not finish, how many never ran."""
    done = sum(stage_states.get(s) in DONE for s in own)
    parts = [f"{done}/{len(own)} done"]
    others: dict[str, list[str]] = {}
    for stage in own:
        status = stage_states.get(stage)
        if status is not None and status not in DONE:
            kind, _, detail = status.partition(" ")  # "running 120/352 pages": the stage's progress
            others.setdefault(kind, []).append(f"{stage} {detail}" if detail else stage)
    parts += [f"{status}: {', '.join(names)}" for status, names in others.items()]
    if missing := sum(s not in stage_states for s in own):
        parts.append(f"{missing} not run")
    return "; ".join(parts)


def print_runs_table(runs: list[dict[str, Any]], states: dict[str, dict[str, str]], shown: list[str],
                     own: dict[str, list[str]]) -> None:
    """The widest layout that fits the terminal: a column per stage; else one folded `stages` column;
    else without `created` (a generated run id starts with it), then without `source`. The run id is
    never cut."""
    from rich.table import Table

    from flows.cli.console import fit_widths, print_table, table_fits, terminal_width

    width = terminal_width()
    id_width = max(len("run"), *(len(run["run_id"]) for run in runs))
    layouts = [(shown, ("created", "source")), (None, ("created", "source")), (None, ("source",)), (None, ())]
    table = None
    for stage_columns, optional in layouts:
        table = Table(title=None)
        table.add_column("run", no_wrap=True, min_width=id_width)
        for name in optional:
            table.add_column(name, overflow="fold")
        table.add_column("judge", overflow="fold")
        table.add_column("status", overflow="fold")
        for stage in stage_columns if stage_columns is not None else ["stages"]:
            table.add_column(stage, overflow="fold")
        for run in runs:
            values = {"created": f"{run['created']:%Y-%m-%d %H:%M}" if run["created"] else "-",
                      "source": run["source"] or "-"}
            stage_states = states.get(run["run_id"], {})
            cells = ([stage_states.get(s, "-") for s in stage_columns] if stage_columns is not None
                     else [stages_summary(stage_states, own[run["run_id"]])])
            table.add_row(run["run_id"], *(values[n] for n in optional), run["judge"] or "-", run["status"] or "-",
                          *cells)
        if table_fits(table, width):
            fit_widths(table, width)  # no word broken
            break
    print_table(table)
