"""Throughput of per-document work: the local runner and 1, 2 and 4 Dask workers on the synthetic benchmark.

Each configuration runs the synthetic benchmark in a data home of its own (nothing reused) against
one warm local Prefect server. Documents per minute count the documents of the run over the wall
time of its per-document stages (render, layout, extract, transcript). For Dask, the orchestration
overhead per batch task is the worker time not spent inside task bodies, per task:
(Σ stage wall time × workers − Σ batch task run time) / batch tasks. "whole run s" is the wall time
of the whole `accessbench run` command (process start, Prefect, the cluster's start, which
overlaps the flow's start, and every stage). The issue's target on a 2-core machine: ≥ 1.6× from 1
to 2 Dask workers. Prints a table; asserts nothing.

    python -m benchmarks.scale [--base-docs 16] [--workers 1 2 4]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

PER_DOCUMENT = ("render", "layout", "extract", "transcript")


def _cli(home: Path, *args: str, api_url: str | None = None, auth: str = "") -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"PREFECT_API_URL", "PREFECT_HOME", "ACCESSBENCH_PREFECT"}}
    env["ACCESSBENCH_HOME"] = str(home)
    if api_url:
        env.update(PREFECT_API_URL=api_url, PREFECT_API_AUTH_STRING=auth)  # the server's home's auth string
    subprocess.run([sys.executable, "-m", "flows.cli.app", *args], env=env, check=True, capture_output=True)


def _api(url: str, path: str, body: dict[str, Any], auth: str) -> Any:
    """A filter query (a POST) on the local server: with its auth string and a CSRF token (README, Security)."""
    import base64
    import uuid

    headers = {"Content-Type": "application/json", "Authorization": "Basic " + base64.b64encode(auth.encode()).decode()}
    client = str(uuid.uuid4())
    with urllib.request.urlopen(urllib.request.Request(  # noqa: S310 - our own local server
            f"{url}/csrf-token?client={client}", headers=headers), timeout=30) as reply:
        headers.update({"Prefect-Csrf-Token": json.loads(reply.read())["token"], "Prefect-Csrf-Client": client})
    request = urllib.request.Request(f"{url}{path}", data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(request, timeout=30) as reply:  # noqa: S310 - our own local server
        return json.loads(reply.read())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-docs", type=int, default=16,
                        help="synthetic base documents (x8 documents); small corpora measure the cluster start")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args(argv)
    from corpus.synthetic import build_synthetic_benchmark
    from warehouse.store import ArtifactStore

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bench = root / "bench"
        build_synthetic_benchmark(bench, seed=1, base_docs=args.base_docs)
        server_home = root / "server"
        _cli(server_home, "server", "start")
        port = json.loads((server_home / "prefect/server.json").read_text())["port"]
        api_url = f"http://127.0.0.1:{port}/api"
        auth = (server_home / "prefect/api-auth").read_text().strip()
        rows = []
        try:
            configs = [("local", 2), *(("dask", n) for n in args.workers)]
            for runner, workers in configs:
                home = root / f"{runner}-{workers}"
                run_id = f"{runner}{workers}"
                started = time.perf_counter()
                _cli(home, "run", "--dataset", str(bench), "--run-id", run_id, "--runner", runner, "--workers",
                     str(workers), "--criteria", "semantic_tagging", "table_structure", api_url=api_url, auth=auth)
                whole = time.perf_counter() - started
                store = ArtifactStore(home)
                stages = {r.stage: r for r in store.stage_runs() if r.run_id == run_id}
                wall = sum((stages[s].finished - stages[s].started).total_seconds() for s in PER_DOCUMENT)
                documents = len(store.read_rows("corpus", run_id, "documents"))
                overhead = None
                if runner == "dask":
                    flow = next(r for r in _api(api_url, "/flow_runs/filter", {}, auth) if r["name"] == run_id)
                    batches = [t for t in _api(api_url, "/task_runs/filter",
                                               {"flow_runs": {"id": {"any_": [flow["id"]]}}}, auth)
                               if " batch " in t["name"]]
                    busy = sum(t["total_run_time"] for t in batches)
                    overhead = (wall * workers - busy) / max(1, len(batches))
                rows.append((f"{runner}, {workers} worker{'s' if workers > 1 else ''}", documents, wall,
                             documents / wall * 60, overhead, whole))
        finally:
            _cli(server_home, "server", "stop")
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs; "
          f"per-document stages: {', '.join(PER_DOCUMENT)}")
    print(f"{'runner':<18} {'documents':>9} {'seconds':>8} {'docs/min':>9} {'overhead/task s':>16} "
          f"{'whole run s':>12}")
    for name, documents, wall, rate, overhead, whole in rows:
        print(f"{name:<18} {documents:>9} {wall:>8.1f} {rate:>9.1f} "
              f"{'-' if overhead is None else f'{overhead:.2f}':>16} {whole:>12.1f}")
    dask = {name: rate for name, _, _, rate, _, _ in rows if name.startswith("dask")}
    if "dask, 1 worker" in dask and "dask, 2 workers" in dask:
        print(f"speed-up 1 → 2 Dask workers: {dask['dask, 2 workers'] / dask['dask, 1 worker']:.2f}× (target ≥ 1.6×)")


if __name__ == "__main__":
    main()
