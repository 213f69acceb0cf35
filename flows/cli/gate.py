"""Exit codes of a screening run for CI: `--fail-on fails|warnings|never`, and a run that checked nothing.

A run in which no screened file could be checked (every one refused, encrypted, damaged …) exits 1 whatever
`--fail-on` says: its report is empty of verdicts, and a CI job must not read that as a pass. Otherwise
`--fail-on fails` exits 4 when a file fails or could not be checked, `--fail-on warnings` also when one passes
with warnings, and `never` (the default) exits 0. The verdicts are the reports' (flows.report.data).
"""

from __future__ import annotations

import sys
from pathlib import Path

from flows.cli.console import EXIT_FAILED, EXIT_GATE, EXIT_OK


def screening_exit(home: Path, run_ids: list[str], fail_on: str, *, nothing_checked_fails: bool = True) -> int:
    if fail_on == "never" and not nothing_checked_fails:
        return EXIT_OK
    from flows.report.data import collect
    from tasks.benchmark.screening import NOT_CHECKED, trips

    screenings = collect(home, run_ids).get("screening") or []
    files = [f for s in screenings for f in s["files"]]
    if not files:
        return EXIT_OK
    if nothing_checked_fails and all(f["verdict"] == NOT_CHECKED for f in files):
        print(f"no file could be checked ({len(files)} refused or unreadable): exit {EXIT_FAILED}", file=sys.stderr)
        return EXIT_FAILED
    tripped = [f for f in files if trips(f["verdict"], len(f.get("warnings") or []), fail_on)]
    if not tripped:
        return EXIT_OK
    print(f"--fail-on {fail_on}: {len(tripped)} of {len(files)} file(s) "
          + ("fail, could not be checked or have warnings" if fail_on == "warnings"
             else "fail or could not be checked") + f": exit {EXIT_GATE}", file=sys.stderr)
    return EXIT_GATE
