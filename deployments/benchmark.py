"""Scheduled deployment of the full benchmark flow.

Serve it from a long-running process (no work pool needed):

    python -m deployments.benchmark --cron "0 3 * * 1" --dataset /data/pdf-accessibility-benchmark

or register it with a work pool for workers (e.g. the image in docker/):

    python -m deployments.benchmark --pool accessbench --image accessbench-worker:latest --dataset /data/bench
"""

from __future__ import annotations

import argparse
from pathlib import Path

from judges.criteria import CRITERIA


def parameters(args: argparse.Namespace) -> dict[str, object]:
    from tasks.context import RunConfig, new_run_id
    from warehouse.home import resolve_home

    source = "dataset" if args.dataset else "pdfs" if args.pdfs else "synthetic"
    path = str(Path(args.dataset or args.pdfs).resolve()) if (args.dataset or args.pdfs) else None
    # The run id is filled per run by the flow when left empty; the rest is fixed by the deployment.
    cfg = RunConfig(home=resolve_home(args.home), run_id=new_run_id(), source=source, source_path=path,
                    criteria=args.criteria or list(CRITERIA), judges=args.judge or ["rules"], progress=False)
    record = cfg.to_record()
    record["run_id"] = ""
    return {"config": record}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", default="scheduled-benchmark")
    parser.add_argument("--cron", default="0 3 * * 1", help="schedule (default: Mondays 03:00)")
    parser.add_argument("--dataset")
    parser.add_argument("--pdfs")
    parser.add_argument("--criteria", nargs="+", choices=CRITERIA)
    parser.add_argument("--judge", action="append", help="repeatable: every judge runs on the same evidence")
    parser.add_argument("--home", help="data home the workers share (default: $ACCESSBENCH_HOME)")
    parser.add_argument("--pool", help="work pool name: register a deployment instead of serving")
    parser.add_argument("--image", help="worker image for --pool (see docker/Dockerfile)")
    args = parser.parse_args()

    from flows.benchmark import benchmark_flow

    params = parameters(args)
    if args.pool:
        benchmark_flow.deploy(name=args.name, work_pool_name=args.pool, image=args.image, cron=args.cron,
                              parameters=params, build=False, push=False)
    else:
        benchmark_flow.serve(name=args.name, cron=args.cron, parameters=params)


if __name__ == "__main__":
    main()
