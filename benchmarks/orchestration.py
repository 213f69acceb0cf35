"""Fixed cost of Prefect orchestration per CLI command: the persistent local server vs the ephemeral one.

Times, for a fresh data home: the first `server start` (cold), then for runs on the warm server and on
Prefect's ephemeral server the seconds from launching `accessbench run` to the start of its first
stage (the fixed cost), and the wall time of `accessbench run --pdfs` on one PDF. Targets (issue 15):
warm fixed cost ≤ 3 s, one-PDF screen < 10 s. Prints a table; asserts nothing.

    python -m benchmarks.orchestration [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_FIXED_S, TARGET_ONE_PDF_S = 3.0, 10.0


def _cli(home: Path, *args: str, ephemeral: bool = False) -> float:
    env = {k: v for k, v in os.environ.items() if k not in {"PREFECT_API_URL", "PREFECT_HOME", "ACCESSBENCH_PREFECT"}}
    env["ACCESSBENCH_HOME"] = str(home)
    if ephemeral:
        env["ACCESSBENCH_PREFECT"] = "ephemeral"
    start = time.time()
    result = subprocess.run([sys.executable, "-m", "flows.cli.app", *args], env=env, capture_output=True, text=True,
                            cwd=home.parent)
    if result.returncode != 0:
        raise SystemExit(f"accessbench {' '.join(args)} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return start


def _first_stage_started(home: Path, run_id: str) -> float:
    from warehouse.store import ArtifactStore

    started = [row.started for row in ArtifactStore(home).stage_runs() if row.run_id == run_id and row.started]
    return min(started).timestamp()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    from corpus.synthetic import build_synthetic_benchmark

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        pdfs = Path(tmp) / "one-pdf"
        bench = Path(tmp) / "bench"
        build_synthetic_benchmark(bench, seed=0, base_docs=1)
        pdfs.mkdir()
        first = next(p for p in sorted(bench.rglob("*.pdf")))
        (pdfs / first.name).write_bytes(first.read_bytes())
        try:
            start = time.time()
            _cli(home, "server", "start")
            cold = time.time() - start
            rows = [("server start (cold)", cold, None)]
            for mode in ("warm server", "ephemeral"):
                costs = []
                # The ephemeral server gets a data home of its own: never two servers on one database.
                where = home if mode == "warm server" else Path(tmp) / "ephemeral-home"
                for i in range(args.repeats):
                    run_id = f"{mode.split()[0]}{i}"
                    launched = _cli(where, "run", "--run-id", run_id, "--base-docs", "1", "--criteria",
                                    "semantic_tagging", ephemeral=mode == "ephemeral")
                    costs.append(_first_stage_started(where, run_id) - launched)
                rows.append((f"fixed cost, {mode} (median of {args.repeats})", sorted(costs)[len(costs) // 2],
                             TARGET_FIXED_S if mode == "warm server" else None))
            start = time.time()
            _cli(home, "run", "--pdfs", str(pdfs), "--run-id", "one-pdf")
            rows.append(("run --pdfs, one PDF, warm server (wall)", time.time() - start, TARGET_ONE_PDF_S))
        finally:
            _cli(home, "server", "stop")
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'measure':<48} {'seconds':>8} {'target':>8}")
    for name, seconds, target in rows:
        verdict = "" if target is None else (" ok" if seconds <= target else " MISSED")
        print(f"{name:<48} {seconds:>8.2f} {'' if target is None else f'≤ {target:.0f}':>8}{verdict}")


if __name__ == "__main__":
    main()
