"""Screening a folder of PDFs against the checkers a user would pick instead (issue 56).

Runs, on the same folder and interleaved (`--runs` rounds, each tool once a round, the order rotated
from round to round so that a burst of load elsewhere on the machine does not always fall on one tool):

- AccessBench: ``accessbench run --pdfs FOLDER`` (every criterion, the rules judge), each run in a new data
  home so that nothing is skipped or reused, all of them talking to one local Prefect server started
  beforehand (as a user's second command finds it running); the server's CPU during the run is added;
- outloud (pure Python, PyPI): ``outloud --json - --fail-on never FILE...``, one process for the folder;
- page (the Rust PDF/UA-1 validator, PyPI ``page-validation``): ``page.validate_pdf(path, profile="ua1")``
  for every file, in one Python process.

Each tool runs as a child process. Its CPU is the sum over its whole process tree (the fork server and
its workers included): every process of the tree is sampled with psutil (user + system seconds, last
value seen), and the child's own ``wait4`` rusage (itself and every descendant it reaped) is taken when
larger. Peak RSS is the largest sum of resident sets over the tree at one sampling instant (every 50 ms):
shared pages of forked workers count once per process, as ``ps`` shows them; peak PSS (sampled every
200 ms) counts a page shared by n processes 1/n in each, the tree's real footprint. Per-file figures divide
by the number of PDFs. Prints one row per run, the median per tool, and AccessBench's ratios to each peer,
each ratio taken within one round (the same minutes of machine load) and then the median. Asserts nothing.

``--baseline SRC`` adds another AccessBench source tree (e.g. main's, ``git archive main | tar -x -C SRC``)
as a fourth tool run with this environment, so that a change is measured before and after in one sitting; the
two trees' first-round runs are then compared table by table (labels, screening verdicts, judgments, findings,
and the tables, table cells and figures that layout regions feed):
a speed-up must not change what screening concludes.

    python -m benchmarks.peers [--folder DIR] [--runs 2] [--limit N] [--workers N] [--baseline SRC]

The default folder is the development split of the upstream benchmark (``../shared/pdf-accessibility-
benchmark/data``: its ``processed/`` and ``inputs/`` PDFs); the benchmark says so and stops when it is absent.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from benchmarks.sample_pdfs import DEV_BENCHMARK

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FOLDER = DEV_BENCHMARK.parent  # data/: processed/ and inputs/
SAMPLE_S = 0.05
PSS_EVERY = 4
TARGET_RATIO = 4.0  # AccessBench's wall and CPU per file, times outloud's
TARGET_PEAK_MB = 600.0

# page: one process validating every file, as a user's script would.
PAGE_SCRIPT = """
import sys
import page
for path in sys.argv[1:]:
    try:
        page.validate_pdf(path, profile="ua1")
    except Exception as exc:
        print(f"{path}: {type(exc).__name__}: {exc}", file=sys.stderr)
"""


@dataclass
class Measure:
    tool: str
    run: int
    wall_s: float
    cpu_s: float
    peak_mb: float
    peak_pss_mb: float
    code: int
    server_cpu_s: float = 0.0


class TreeSampler(threading.Thread):
    """Samples a process and its descendants: CPU seconds per process (last value seen) and the peak RSS sum."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.root = psutil.Process(pid)
        self.cpu: dict[tuple[int, float], float] = {}  # (pid, create time) → user + system seconds
        self.peak_rss = 0
        self.peak_pss = 0  # proportional set size: a page shared by n processes counts 1/n in each
        self.samples = 0
        self._halt = threading.Event()

    def sample(self) -> None:
        try:
            processes = [self.root, *self.root.children(recursive=True)]
        except psutil.Error:
            return
        rss = pss = 0
        with_pss = self.samples % PSS_EVERY == 0  # reading smaps costs more: every 4th sample
        self.samples += 1
        for process in processes:
            try:
                with process.oneshot():
                    times = process.cpu_times()
                    rss += process.memory_info().rss
                    pss += process.memory_full_info().pss if with_pss else 0
                    self.cpu[(process.pid, process.create_time())] = times.user + times.system
            except psutil.Error:  # gone between the listing and the read
                continue
        self.peak_rss = max(self.peak_rss, rss)
        self.peak_pss = max(self.peak_pss, pss)

    def run(self) -> None:
        while not self._halt.is_set():
            self.sample()
            self._halt.wait(SAMPLE_S)

    def stop(self) -> None:
        self._halt.set()
        self.join()


def measure(tool: str, run: int, cmd: list[str], env: dict[str, str], log: Path,
            server: psutil.Process | None = None, cwd: Path = REPO) -> Measure:
    """Run `cmd` to its end; its wall time, process-tree CPU and peak tree RSS (and the server's CPU meanwhile)."""
    server_before = _cpu(server)
    with log.open("w") as out:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        sampler = TreeSampler(child.pid)
        sampler.start()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        sampler.stop()
        child.returncode = os.waitstatus_to_exitcode(status)
    sampled = sum(sampler.cpu.values())
    reaped = usage.ru_utime + usage.ru_stime  # the child and every descendant it waited for
    server_cpu = _cpu(server) - server_before
    return Measure(tool, run, wall, max(sampled, reaped) + server_cpu, sampler.peak_rss / 2**20,
                   sampler.peak_pss / 2**20, child.returncode, server_cpu)


def _cpu(process: psutil.Process | None) -> float:
    if process is None:
        return 0.0
    try:
        times = process.cpu_times()
    except psutil.Error:
        return 0.0
    return times.user + times.system


def pdfs_in(folder: Path, limit: int | None) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() == ".pdf" and p.is_file())[:limit]


def stage_folder(paths: list[Path], root: Path, into: Path) -> Path:
    """A folder of symlinks to `paths` (for --limit): AccessBench reads a folder, never a file list."""
    into.mkdir(parents=True)
    for path in paths:
        link = into / "__".join(path.relative_to(root).parts)
        link.symlink_to(path.resolve())
    return into


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=DEFAULT_FOLDER, help="a folder of PDFs (searched recursively)")
    parser.add_argument("--runs", type=int, default=2, help="rounds; each runs every tool once")
    parser.add_argument("--limit", type=int, help="only the first N PDFs (sorted by path)")
    parser.add_argument("--workers", type=int, help="accessbench --workers (default: its own default)")
    parser.add_argument("--keep", action="store_true", help="keep the data homes and logs (their folder is printed)")
    parser.add_argument("--baseline", type=Path, metavar="SRC",
                        help="also run the AccessBench source tree SRC (e.g. `git archive main | tar -x -C SRC`) "
                             "with this environment, as 'baseline', interleaved with the others")
    args = parser.parse_args(argv)

    folder = args.folder.resolve()
    paths = pdfs_in(folder, args.limit) if folder.is_dir() else []
    if not paths:
        print(f"no PDFs under {folder}: pass --folder DIR (the default is the upstream benchmark's development "
              "split, ../shared/pdf-accessibility-benchmark/data, which this checkout does not have)")
        return 0
    outloud = shutil.which("outloud", path=str(Path(sys.executable).parent)) or shutil.which("outloud")
    if outloud is None:
        print("outloud is not installed: make install (it is in the dev extra)")
        return 1
    accessbench = shutil.which("accessbench", path=str(Path(sys.executable).parent)) or "accessbench"
    from flows import server

    work = Path(tempfile.mkdtemp(prefix="accessbench-peers-"))
    try:
        target = stage_folder(paths, folder, work / "pdfs") if args.limit else folder
        base = work / "home-server"
        print(f"{len(paths)} PDFs in {folder}; starting the Prefect server the AccessBench runs share ...", flush=True)
        state, _ = server.ensure(base)
        server_process = psutil.Process(state.pid)
        env = {**os.environ, **server.client_env(base, state)}
        extra = ["--workers", str(args.workers)] if args.workers else []
        if args.limit:
            extra.append("--follow-symlinks")  # the staged folder links to the files
        files = [str(p) for p in paths]
        commands = {
            "accessbench": lambda run: [accessbench, "run", "--pdfs", str(target), "--home",
                                        str(work / f"home-{run}"), *extra],
            "outloud": lambda run: [outloud, "--json", "-", "--fail-on", "never", *files],
            "page": lambda run: [sys.executable, "-c", PAGE_SCRIPT, *files],
        }
        places = {tool: REPO for tool in commands}
        envs = {tool: env for tool in commands}
        if args.baseline:
            source = args.baseline.resolve()
            commands["baseline"] = lambda run: [sys.executable, "-m", "flows.cli", "run", "--pdfs", str(target),
                                                "--home", str(work / f"home-baseline-{run}"), *extra]
            places["baseline"] = source
            envs["baseline"] = {**env, "PYTHONPATH": str(source)}  # its modules, not this checkout's
        tools = list(commands)
        results: list[Measure] = []
        for run in range(1, args.runs + 1):
            shift = (run - 1) % len(tools)
            for tool in tools[shift:] + tools[:shift]:  # the order rotated each round
                log = work / f"{tool}-{run}.log"
                m = measure(tool, run, commands[tool](run), envs[tool], log,
                            server_process if tool in ("accessbench", "baseline") else None, places[tool])
                results.append(m)
                print(f"run {run} {tool:<11} {m.wall_s:7.1f} s wall  {m.cpu_s:7.1f} s CPU  "
                      f"peak {m.peak_mb:6.0f} MB RSS, {m.peak_pss_mb:6.0f} MB PSS  exit {m.code}  (log {log})",
                      flush=True)
        report(results, len(paths))
        if args.baseline:
            same_results(accessbench, work / "home-1", work / "home-baseline-1", env)
    finally:
        server.stop(base)
        if args.keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def report(results: list[Measure], files: int) -> None:
    def median(tool: str, attr: str) -> float:
        return statistics.median(getattr(m, attr) for m in results if m.tool == tool)

    tools = list(dict.fromkeys(m.tool for m in results))
    print(f"\nper file ({files} PDFs), median of {len(results) // len(tools)} interleaved runs; CPU summed over each "
          "tool's process tree (AccessBench: plus its Prefect server's)")
    print(f"{'tool':<12} {'wall s/file':>11} {'CPU s/file':>10} {'peak tree RSS':>13} {'peak tree PSS':>13}")
    for tool in tools:
        print(f"{tool:<12} {median(tool, 'wall_s') / files:>11.3f} {median(tool, 'cpu_s') / files:>10.3f} "
              f"{median(tool, 'peak_mb'):>10.0f} MB {median(tool, 'peak_pss_mb'):>10.0f} MB")
    ours = "accessbench"
    print(f"\nAccessBench server CPU (included above): {median(ours, 'server_cpu_s') / files:.3f} s/file")
    # Ratios within each round (the same minutes of machine load), then their median.
    for peer in [tool for tool in tools if tool != ours]:
        for attr, name in (("wall_s", "wall"), ("cpu_s", "CPU")):
            ratios = []
            for run in sorted({m.run for m in results}):
                a = [m for m in results if m.run == run and m.tool == ours]
                b = [m for m in results if m.run == run and m.tool == peer]
                if a and b and getattr(b[0], attr) > 0:
                    ratios.append(getattr(a[0], attr) / getattr(b[0], attr))
            goal = f" (target ≤ {TARGET_RATIO:.0f}×)" if peer == "outloud" else ""
            print(f"AccessBench {name:<4} ÷ {peer:<8} {statistics.median(ratios):6.1f}×  "
                  f"(per run: {', '.join(f'{r:.1f}' for r in ratios)}){goal}")
    print(f"AccessBench peak tree RSS {median(ours, 'peak_mb'):.0f} MB, PSS {median(ours, 'peak_pss_mb'):.0f} MB "
          f"(target ≤ {TARGET_PEAK_MB:.0f} MB)")


# What a screening run concludes, compared between this tree's run and the baseline's (their first round):
# every column but the run's id; `findings` without its row order within a judgment.
COMPARED = {
    "doc_labels": "select * exclude (run_id) from doc_labels",
    "screening": "select * exclude (run_id) from screening",
    "judgments": "select * exclude (run_id, latency_s) from judgments",
    "findings": "select * exclude (run_id) from findings",
    # The evidence the layout regions feed (a change to which pages are laid out must leave it as it was).
    "tables": "select * exclude (run_id) from tables",
    "table_cells": "select * exclude (run_id) from table_cells",
    "figures": "select * exclude (run_id) from figures",
}


def same_results(accessbench: str, ours: Path, baseline: Path, env: dict[str, str]) -> bool:
    """Print, per table of COMPARED, whether both runs hold the same rows (as sorted JSON), and return it."""
    def rows(home: Path, sql: str) -> list[str] | None:
        done = subprocess.run([accessbench, "--home", str(home), "sql", "--format", "json", "--raw", sql],
                              capture_output=True, text=True, env=env, check=False)
        if done.returncode:
            return None
        import json

        return sorted(json.dumps(row, sort_keys=True, default=str) for row in json.loads(done.stdout or "[]"))

    same = True
    print("\nlabels and findings against the baseline (first round):")
    for table, sql in COMPARED.items():
        a, b = rows(ours, sql), rows(baseline, sql)
        if a is None or b is None:
            print(f"  {table:<11} could not be read ({'this tree' if a is None else 'baseline'})")
            same = False
        elif a == b:
            print(f"  {table:<11} identical ({len(a)} rows)")
        else:
            same = False
            print(f"  {table:<11} DIFFER: {len(set(a) - set(b))} rows only here, "
                  f"{len(set(b) - set(a))} only in the baseline")
    return same


if __name__ == "__main__":
    sys.exit(main())
