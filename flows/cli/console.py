"""What every `accessbench` command shares: exit codes, error lines, Prefect's preparation and the
table of stage results. The subcommands' modules (`flows/*_cli.py`) import it, and so does the parser
and dispatcher (`flows/cli/app.py`), which imports them: nothing here imports a command's module.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOT_FOUND = 0, 1, 2, 3
EXIT_GATE = 4  # --fail-on: a screened file fails (or has warnings): for CI


def error(message: str, code: int = EXIT_USAGE) -> int:
    print(f"accessbench: error: {message}", file=sys.stderr)
    return code


def prepare_prefect(home: Path, verbose: bool) -> None:
    """Point Prefect at this data home's persistent local server (started when none answers).

    `PREFECT_API_URL` (Prefect Cloud, a team server) is honoured as is. `ACCESSBENCH_PREFECT=ephemeral`
    starts Prefect's throwaway in-process server instead (slow: 14–18 s per command). Prefect's
    database and logs stay inside the data home. Must run before prefect is imported: Prefect reads
    these settings at import time. Raises `flows.server.ServerError` with what to do when the server
    cannot start.
    """
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "INFO" if verbose else "WARNING")
    quiet_run_logs(verbose)
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    if os.environ.get("PREFECT_API_URL"):
        return
    from flows import server

    own_home = not os.environ.get("PREFECT_HOME")
    if own_home:
        server.prefect_home(home).mkdir(parents=True, exist_ok=True)
        os.environ["PREFECT_HOME"] = str(server.prefect_home(home))
    mode = os.environ.get("ACCESSBENCH_PREFECT", "server")
    if mode == "ephemeral" and (state := server.running(home)) is not None:
        os.environ.update(server.client_env(home, state))  # never a second server on the same database
        return
    if mode == "ephemeral":
        if own_home:
            server.seed_database(home)  # no migration of a new database (see flows/server.py)
        # Prefect's throwaway server listens on a port of 127.0.0.1 for the command's life: it asks for the
        # home's auth string too (its client in this process sends it).
        try:
            auth = server.auth_string(home) or ""
        except OSError:  # a home that cannot be written: a string for this command alone
            import secrets

            auth = f"{server.AUTH_USER}:{secrets.token_urlsafe(32)}"
        os.environ.update(PREFECT_SERVER_API_AUTH_STRING=auth, PREFECT_API_AUTH_STRING=auth)
        os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", str(int(server.start_timeout_s())))
        return
    if mode != "server":
        raise server.ServerError(f"ACCESSBENCH_PREFECT={mode!r}: use server (the default) or ephemeral")
    state, started = server.ensure(home)
    if started:
        print(f"started the local Prefect server of {home}: {state.ui_url} (kept for later commands; "
              "stop it with: accessbench server stop)", file=sys.stderr)
    os.environ.update(server.client_env(home, state))  # the URL and the home's API auth string


# Prefect's loggers of flow and task runs: they report a failed stage three times, each with a traceback,
# before the exception reaches the command, which says it in one line (`accessbench: error: ...`).
RUN_LOGGERS = ("prefect.flow_runs", "prefect.task_runs")


class _QuietRunLogs(logging.Filter):
    """Keeps Prefect's flow- and task-run records off a terminal handler (the Prefect UI still gets them)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not any(record.name == name or record.name.startswith(name + ".") for name in RUN_LOGGERS)


def quiet_run_logs(verbose: bool) -> None:
    """Without `-v`, Prefect's flow- and task-run logs (failures with their tracebacks, "Finished in state
    ...") stay off the terminal: every failure they report reaches the command as an exception, which
    prints the one line that says what failed and what to do. With `-v` they are shown as Prefect writes
    them. Applies to the handlers of the root logger (the command's `logging.basicConfig`)."""
    for handler in logging.getLogger().handlers:
        quiet = [f for f in handler.filters if isinstance(f, _QuietRunLogs)]
        if verbose:
            for f in quiet:
                handler.removeFilter(f)
        elif not quiet:
            handler.addFilter(_QuietRunLogs())


def start_prefect_server() -> None:
    """Start this process's local Prefect API server while holding a lock on its database.

    Runs sharing a data home share Prefect's SQLite database; two servers starting at once on a
    new one both migrate it, and one fails ("no such table"). Starting them one at a time is
    enough: a migrated database serves both. A team server or the persistent local one
    (PREFECT_API_URL, set by `prepare_prefect`) needs nothing.
    """
    if os.environ.get("PREFECT_API_URL") or not os.environ.get("PREFECT_HOME"):
        return
    import fcntl

    from prefect.client.orchestration import get_client

    lock_path = Path(os.environ["PREFECT_HOME"]) / ".accessbench-server-start.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        get_client(sync_client=True)  # starts (and migrates) the ephemeral server; the flow reuses it


def print_stage_results(results: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table("stage", "status", "rows", "error rows", title="stages")
    for r in results:
        table.add_row(r["stage"], r["status"], str(r["rows"] if r["rows"] is not None else ""), str(r["errors"] or 0))
    Console(stderr=True).print(table)


PIPE_WIDTH = 120  # the width of a table printed into a pipe or a file, when COLUMNS does not say


def terminal_width(stream: Any = None) -> int:
    """The width for a table printed to `stream` (stdout by default).

    `COLUMNS` when set (as shells and `COLUMNS=80 accessbench runs` set it); else the terminal's own
    width when the stream is one; else `PIPE_WIDTH`, wide enough for a pager or a log file.
    """
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = sys.stdout if stream is None else stream
    try:
        if stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):  # a stream with no file descriptor (tests' capture, StringIO)
        pass
    return PIPE_WIDTH


def _measure(table: Any) -> tuple[list[int], list[int]]:
    """Per column, (the width that breaks no word of any cell, the width of its longest cell), headers included."""
    from rich.console import Console
    from rich.measure import Measurement

    console = Console(width=10_000, markup=False)
    options = console.options
    lower, natural = [], []
    for column in table.columns:
        sizes = [Measurement.get(console, options, cell) for cell in [column.header, *column.cells]]
        lower.append(max(max(m.minimum for m in sizes), column.min_width or 0))
        natural.append(max(lower[-1], max(m.maximum for m in sizes)))
    return lower, natural


def _frame(table: Any) -> int:
    """The columns a table's padding and borders take."""
    left, right = table.padding[3], table.padding[1]  # (top, right, bottom, left)
    frame = (left + right) * len(table.columns)
    if table.box is not None:
        frame += len(table.columns) - 1 + (2 if table.show_edge else 0)
    return frame


def fit_widths(table: Any, width: int) -> bool:
    """Fix the width of each column so that the table fits `width`: the widest columns give up space first,
    none below its longest word; only when that is not enough (no layout fits) do the folding columns break
    words, down to a few characters each. A `no_wrap` column (an id) keeps its width. (Rich narrows the widest
    columns too, but through their words, and its last resort cuts ids.) Whether the table now fits."""
    lower, widths = _measure(table)
    excess = sum(widths) + _frame(table) - width
    floors = (lower, [w if column.no_wrap else min(w, 3) for w, column in zip(lower, table.columns, strict=True)])
    for floor in floors:
        while excess > 0:
            shrinkable = [i for i, w in enumerate(widths) if w > floor[i]]
            if not shrinkable:
                break
            widest = max(shrinkable, key=lambda i: widths[i])
            widths[widest] -= 1
            excess -= 1
    for column, fixed in zip(table.columns, widths, strict=True):
        column.width = fixed
    return excess <= 0


def table_fits(table: Any, width: int) -> bool:
    """Whether `table` can be drawn within `width` columns without breaking a word of any cell.

    Rich always draws a table within the console's width, cutting or folding cells to get there;
    this asks whether it would have to, so a caller can choose a narrower layout instead.
    """
    return sum(_measure(table)[0]) + _frame(table) <= width


def print_table(table: Any, stderr: bool = False) -> None:
    """Print a rich table at the width of the terminal it goes to; cells are data, never rich markup."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    Console(file=stream, width=terminal_width(stream), markup=False).print(table)


def key_column(table: Any, name: str, values: Iterable[str], whole: bool = True) -> None:
    """Add the column a user copies values from (a run, call or item id, a rule id): whole, on one line,
    as wide as its longest value; or (`whole=False`, for a terminal narrower than that) folded onto
    several lines, but never cut."""
    if whole:
        table.add_column(name, no_wrap=True, min_width=max([len(name), *(len(v) for v in values)]))
    else:
        table.add_column(name, overflow="fold")


def print_first_fitting(layouts: Iterable[Any], stderr: bool = False) -> None:
    """Print the first of `layouts` (tables, widest first) that fits the terminal it goes to with no word
    broken. When none does: the narrowest that fits with its ids whole (other cells folded through words),
    else the last (ids folded too). Nothing is cut.

    `layouts` may be a generator: a layout is built only when the wider ones did not fit.
    """
    stream = sys.stderr if stderr else sys.stdout
    width = terminal_width(stream)
    tried = []
    for table in layouts:
        if table_fits(table, width):
            fit_widths(table, width)
            print_table(table, stderr)
            return
        tried.append(table)
    if not tried:
        return
    whole_ids = [table for table in tried[:-1] if any(column.no_wrap for column in table.columns)]
    chosen = next((table for table in reversed(whole_ids) if fit_widths(table, width)), tried[-1])
    fit_widths(chosen, width)
    print_table(chosen, stderr)


def layouts(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], keys: Sequence[str] = (),
            drops: Sequence[Sequence[str]] = ((),), note: str = "") -> Iterator[Any]:
    """Tables of `rows` for `print_first_fitting`, widest first: every column, then without each set of
    `drops` in turn (the title says what is not shown, then `note`), then the narrowest with the `keys`
    columns (ids a user copies) folded instead of whole. Every other column folds; nothing is cut."""
    from rich.table import Table

    from common.text import visible

    # Cells are data (file names, PDF text, model replies): controls escaped, and a newline cannot forge a row.
    rows = [[visible(cell, newlines=False) if isinstance(cell, str) else cell for cell in row] for row in rows]
    title = visible(title, newlines=False)
    steps = [*((True, tuple(d)) for d in drops), (False, tuple(drops[-1]))]
    for whole, dropped in steps:
        shown = [i for i, name in enumerate(columns) if name not in dropped]
        table = Table(title=title + (f" (not shown: {', '.join(dropped)}{note})" if dropped else ""))
        for i in shown:
            if columns[i] in keys:
                key_column(table, columns[i], [row[i] for row in rows], whole)
            else:
                table.add_column(columns[i], overflow="fold")
        for row in rows:
            table.add_row(*(row[i] for i in shown))
        yield table
