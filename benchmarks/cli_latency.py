"""How long `accessbench run`, `audit` and `fix` take to refuse bad usage (issue 58): each refusal should come
back in ≤ 1.5 s on a quiet machine, before Prefect, the stages, PyMuPDF, pyarrow or litellm are imported.

Each case runs as a new `accessbench` process in a scratch folder and data home (nothing is created there: a
refusal writes nothing), `--repeats` times; the table gives the median and the slowest wall time, the exit
code and whether the median is within the limit, with the load average, since a busy machine is slower; the
CPU seconds each refusal used (user + system) are what it costs on a quiet machine, give or take the start.
Exits 1 when a case is not refused as expected or its median is over the limit.

    python -m benchmarks.cli_latency [--repeats 5] [--limit 1.5]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIMIT_S = 1.5


def cases(root: Path) -> list[tuple[str, list[str], int]]:
    """(what, arguments, expected exit code): each a refusal a user meets."""
    (root / "no-pdfs").mkdir()
    (root / "no-pdfs" / "notes.txt").write_text("not a PDF\n")
    (root / "empty-pdf").mkdir()
    (root / "empty-pdf" / "empty.pdf").write_bytes(b"")
    return [
        ("misspelled criterion", ["run", "--criteria", "semantic_taging"], 2),
        ("unknown option value", ["run", "--repeats", "0"], 2),
        ("--pdfs folder missing", ["run", "--pdfs", str(root / "missing")], 3),
        ("--dataset folder missing", ["run", "--dataset", str(root / "missing")], 3),
        ("--dataset without manifest", ["run", "--dataset", str(root / "no-pdfs")], 3),
        ("--pdfs folder without PDFs", ["run", "--pdfs", str(root / "no-pdfs")], 3),
        ("--pdfs: one empty PDF", ["run", "--pdfs", str(root / "empty-pdf")], 3),
        ("missing API key (llm:)", ["run", "--judge", "llm:openai/gpt-4o"], 2),
        ("missing API key (hybrid:)", ["run", "--judge", "hybrid:anthropic/claude-3-5-sonnet-20241022"], 2),
        ("audit: missing API key", ["audit", "--models", "openai/gpt-4.1"], 2),
        ("audit: judge's API key", ["audit", "--judges", "lexicon", "llm:gemini/gemini-1.5-pro"], 2),
        ("audit: --questions missing", ["audit", "--questions", str(root / "missing.json")], 3),
        ("fix: file missing", ["fix", str(root / "missing.pdf"), "--out", str(root / "out.pdf")], 3),
        ("fix: model's API key", ["fix", str(root / "empty-pdf" / "empty.pdf"), "--out", str(root / "out.pdf"),
                                  "--model", "llm:openai/gpt-4o"], 2),
    ]


def command() -> list[str]:
    """The console script a user runs, next to this interpreter (else the module)."""
    script = Path(sys.executable).with_name("accessbench")
    return [str(script)] if script.exists() else [sys.executable, "-m", "flows.cli.app"]


def time_case(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds of the process, exit code, its last line on stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([*command(), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = result.stderr.strip().splitlines()
    return wall, cpu, result.returncode, lines[-1] if lines else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--limit", type=float, default=LIMIT_S, help="seconds a refusal may take (default 1.5)")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="accessbench-cli-latency-"))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k not in {"GOOGLE_API_KEY"}}
    env["ACCESSBENCH_HOME"] = str(root / "home")
    ok = True
    try:
        load = os.getloadavg()[0]
        print(f"accessbench refusals, {args.repeats} runs each; load average {load:.2f} on {os.cpu_count()} cores")
        print(f"{'case':<30} {'median s':>9} {'max s':>7} {'CPU s':>6} {'exit':>5}  within {args.limit} s   message")
        for what, case_args, expected in cases(root):
            runs = [time_case(case_args, env, root) for _ in range(args.repeats)]
            times = [wall for wall, _, _, _ in runs]
            codes = {code for _, _, code, _ in runs}
            median = statistics.median(times)
            good = codes == {expected} and median <= args.limit
            ok &= good
            print(f"{what:<30} {median:>9.2f} {max(times):>7.2f} {statistics.median(c for _, c, _, _ in runs):>6.2f} "
                  f"{'/'.join(map(str, sorted(codes))):>5}  {'yes' if good else 'NO':<15} {runs[-1][3][:80]}")
        if (root / "home").exists():
            print(f"note: a refusal created the data home {root / 'home'}")
            ok = False
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
