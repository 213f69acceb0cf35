"""Peak memory and wall time of a full run over a fault corpus (issue 12's "done when" check).

The folder holds a generated paper, a 14,400 x 14,400 pt page (the largest PDF allows), a FIFO
named x.pdf, a symlink to /dev/zero and one to /etc/passwd. The run must finish, every hostile
file must end as an error row, and no process may pass the ceiling (2 GiB by default). Peak RSS
is the largest resident size of any process of the run (the CLI and its worker processes), from
getrusage(RUSAGE_CHILDREN). Run from the repository root::

    python -m benchmarks.hostile_files --ceiling-gib 2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pymupdf

from corpus.typst_docs import compile_base_doc, make_base_doc

HUGE_PT = 14_400


def build_fault_corpus(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "paper.pdf").write_bytes(compile_base_doc(make_base_doc(0, 0)))
    doc = pymupdf.open()
    page = doc.new_page(width=HUGE_PT, height=HUGE_PT)
    page.draw_rect(pymupdf.Rect(0, 0, HUGE_PT, HUGE_PT / 2), color=None, fill=(0.9, 0.95, 1.0))
    for row in range(20):
        page.insert_text((72, 200 + row * 700), f"Poster line {row}: results of the survey", fontsize=48)
    doc.save(folder / "huge.pdf")
    doc.close()
    os.mkfifo(folder / "x.pdf")
    (folder / "zero.pdf").symlink_to("/dev/zero")
    (folder / "passwd.pdf").symlink_to("/etc/passwd")


def _cli(home: Path, *args: str, timeout: float = 1800, api_url: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ACCESSBENCH_HOME": str(home)}
    if not api_url:
        env.pop("PREFECT_API_URL", None)
    env.pop("PREFECT_HOME", None)
    return subprocess.run([sys.executable, "-m", "flows.cli", *args], env=env, text=True, capture_output=True,
                          timeout=timeout)


def measure(folder: Path, home: Path, workers: int = 2, *, api_url: bool = False) -> dict[str, Any]:
    """Run the benchmark flow over `folder`; the peak RSS of any process, wall time, error rows.

    The run starts the data home's own Prefect server, as a user's first run does; with `api_url` it uses
    the server of PREFECT_API_URL instead, if one is set (the tests' shared server)."""
    started = time.monotonic()
    run = _cli(home, "run", "--pdfs", str(folder), "--run-id", "fault", "--workers", str(workers),
               "--criteria", "color_contrast", "fonts_readability", api_url=api_url)
    wall = time.monotonic() - started
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    query = ("select d.metadata->>'$.path' as file, e.stage, e.kind from errors e join documents d "
             "using (run_id, doc_id) group by all order by all")
    errors = json.loads(_cli(home, "sql", query, "--format", "json").stdout or "[]")
    return {"returncode": run.returncode, "stderr_tail": run.stderr[-2000:], "wall_s": round(wall, 1),
            "peak_rss_mib": round(peak_kib / 1024, 1), "errors": errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ceiling-gib", type=float, default=2.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="accessbench-faults-") as tmp:
        folder = Path(tmp) / "pdfs"
        build_fault_corpus(folder)
        result = measure(folder, Path(tmp) / "home", args.workers)
    print(f"exit code {result['returncode']}; wall {result['wall_s']} s; peak RSS of any process "
          f"{result['peak_rss_mib']} MiB (ceiling {args.ceiling_gib * 1024:.0f} MiB)")
    for row in result["errors"]:
        print(f"  error row: {row['file']}: {row['stage']} / {row['kind']}")
    if result["returncode"] != 0:
        print(result["stderr_tail"], file=sys.stderr)
    over = result["peak_rss_mib"] > args.ceiling_gib * 1024
    sys.exit(1 if result["returncode"] != 0 or over else 0)


if __name__ == "__main__":
    main()
