"""Wall time of the test suite (`make test`'s pytest command) with the machine's load beside it.

Runs the README's test command (or `--fast`: `make test-fast`'s) `--runs` times and prints, for each:
the wall time, the CPU seconds it took (pytest and every process it waited for), the exit status, the
failures, the load average sampled every second while it ran (mean and maximum) and the CPUs. `--load N`
starts N busy-looping processes first and keeps them running over every run, to show the suite at a given
load (issue 35: no failure at load 10 across three runs; N busy loops beside the suite's own two workers
give a load average of about N + 2). Before
the runs, a fixed CPU-bound baseline (a pure-Python loop) is timed in this process, and again after them
with the same extra load: the ratio of the suite's time to the baseline's says how much of a slow run is
the machine rather than the suite. Targets (issue 35): ≤ 5 min at normal load, ≤ 8 min at load ~4,
`--fast` ≤ 60 s. Prints a table; asserts nothing.

    python -m benchmarks.suite [--runs 1] [--load 0] [--fast] [-- PYTEST-ARGS...]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_S = {"full": 300.0, "full at load ~4": 480.0, "fast": 60.0}
# The Makefile's PYTEST (bytecode caching on, every core, a module's tests on one worker).
PYTEST = ["-m", "pytest", "-q", "-n", "auto", "--dist", "loadscope", "--no-loadscope-reorder"]
FAST_MARKS = ["-m", "not slow and not benchmark_data and not heavy"]  # the Makefile's test-fast


def _busy() -> None:  # pragma: no cover - a load generator, killed by the parent
    while True:
        pass


def _baseline(loops: int = 20_000_000) -> float:
    """Seconds of a fixed pure-Python loop: what one core gives now."""
    start = time.perf_counter()
    total = 0
    for i in range(loops):
        total += i & 7
    return time.perf_counter() - start


class _LoadSampler(threading.Thread):
    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[float] = []
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.wait(1.0):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> tuple[float, float]:
        self._halt.set()
        self.join()
        if not self.samples:
            return os.getloadavg()[0], os.getloadavg()[0]
        return sum(self.samples) / len(self.samples), max(self.samples)


def _children_cpu() -> float:
    """User + system seconds of the finished child processes so far (pytest, its workers and what they waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _summary(output: str) -> str:
    lines = [line for line in output.splitlines() if re.search(r"\b(passed|failed|error)\b", line)]
    return lines[-1].strip("= ") if lines else "(no summary line)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="how many times to run the suite")
    parser.add_argument("--load", type=int, default=0, help="busy-looping processes to run beside it")
    parser.add_argument("--fast", action="store_true", help="make test-fast's selection instead of the whole suite")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    cmd = [sys.executable, *PYTEST, *(FAST_MARKS if args.fast else []), *args.pytest_args]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    hogs = [mp.Process(target=_busy, daemon=True) for _ in range(max(0, args.load))]
    for hog in hogs:
        hog.start()
    rows = []
    try:
        before = _baseline()
        for run in range(1, args.runs + 1):
            sampler = _LoadSampler()
            sampler.start()
            start, cpu_start = time.perf_counter(), _children_cpu()
            result = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
            wall, cpu = time.perf_counter() - start, _children_cpu() - cpu_start
            log = Path(tempfile.gettempdir()) / f"accessbench-suite-{os.getpid()}-{run}.log"
            log.write_text(result.stdout + result.stderr, encoding="utf-8")  # kept whatever happens next
            print(f"run {run}: pytest's output is in {log}", flush=True)
            mean_load, max_load = sampler.stop()
            failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", result.stdout, re.M)
            rows.append((run, wall, cpu, result.returncode, mean_load, max_load, _summary(result.stdout), failed))
            print(f"run {run}: {wall:.0f} s ({cpu:.0f} s of CPU), exit {result.returncode}, load {mean_load:.1f} "
                  f"(max {max_load:.1f}): "
                  f"{_summary(result.stdout)}", flush=True)
            for name in failed:
                print(f"  failed: {name}", flush=True)
        after = _baseline()
    finally:
        for hog in hogs:
            hog.terminate()
    baseline = (before + after) / 2
    kind = "fast" if args.fast else "full"
    target = TARGET_S[kind]
    print(f"\nsuite: {kind} ({' '.join(cmd[1:])}); CPUs {os.cpu_count()}; extra load {args.load}")
    print(f"baseline loop: {before:.2f} s before, {after:.2f} s after")
    print(f"{'run':>3}  {'wall':>7}  {'CPU':>7}  {'÷ target':>8}  {'÷ baseline':>10}  {'load':>5}  {'max':>5}  "
          "exit  result")
    for run, wall, cpu, code, mean_load, max_load, summary, _ in rows:
        print(f"{run:>3}  {wall:>6.0f}s  {cpu:>6.0f}s  {wall / target:>8.2f}  {wall / baseline:>10.0f}  "
              f"{mean_load:>5.1f}  {max_load:>5.1f}  {code:>4}  {summary}")
    print(f"target: {target:.0f} s ({kind}); {TARGET_S['full at load ~4']:.0f} s for the full suite at load ~4")
    return 0 if all(code == 0 for _, _, _, code, *_ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
