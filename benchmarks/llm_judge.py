"""Throughput and caching of the LLM judge against a local server that answers in 200 ms.

Runs the judge over N bundles (synthetic, or the `judge_inputs` of a run in a data home) with the
configured concurrency, then reruns it with a fresh judge on the same cache. Prints calls, tokens,
wall time and cache hits for both, and the ratio wall / (calls × latency / concurrency): 1.0 is a
perfectly packed pipe; the target is ≤ 1.5. One warm-up call (litellm builds its schemas on first use)
is made beforehand and not counted.

    python -m benchmarks.llm_judge [--pages 96] [--repeats 1] [--concurrency 8] [--latency 0.2]
                                   [--home DIR --run RUN_ID]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from judges.criteria import CRITERIA
from judges.evidence import PageBundle
from judges.llm.judge import LLMJudge, make_llm_judge
from judges.llm.scripted_server import ScriptedServer, chat, judgment_json


def synthetic_bundles(count: int) -> list[PageBundle]:
    """Small tag-structure bundles over all criteria, each page distinct (so nothing is cached by accident)."""
    bundles = []
    for index in range(count):
        elements = [{"id": 0, "type": "Document", "depth": 0}] + [
            {"id": k, "parent": 0, "type": "P" if k % 4 else "H2", "depth": 1, "page": 1,
             "text": f"Paragraph {k} of synthetic page {index}."} for k in range(1, 25)]
        evidence = {"page_image": {"width_pt": 612, "height_pt": 792, "has_text": True},
                    "tag_structure": {"tagged": True, "element_count": len(elements), "elements": elements}}
        bundles.append(PageBundle(CRITERIA[index % len(CRITERIA)], index + 1, evidence))
    return bundles


def stored_bundles(home: Path, run_id: str, limit: int) -> list[PageBundle]:
    from warehouse.store import ArtifactStore

    rows = ArtifactStore(home).read_rows("inputs", run_id, "judge_inputs")[:limit]
    if not rows:
        raise SystemExit(f"no judge_inputs for run {run_id!r} under {home}; run the inputs stage first")
    return [PageBundle(r["criterion"], r["page"], json.loads(r["evidence"]), r.get("image_path")) for r in rows]


def build_judge(options: dict[str, Any]) -> LLMJudge:
    judge = make_llm_judge("openai/bench-model", options)
    assert isinstance(judge, LLMJudge)
    return judge


def timed_run(judge: LLMJudge, items: list[tuple[PageBundle, int]], server: ScriptedServer) -> dict[str, Any]:
    calls_before, hits_before = server.calls, judge.client.stats.cache_hits
    start = time.perf_counter()
    results = judge.judge_many(items)
    wall = time.perf_counter() - start
    return {
        "calls": server.calls - calls_before, "cache_hits": judge.client.stats.cache_hits - hits_before,
        "tokens_in": sum(r.tokens_in or 0 for r in results), "tokens_out": sum(r.tokens_out or 0 for r in results),
        "errors": sum(r.error is not None for r in results), "wall_s": wall,
        "cost_usd": sum(r.cost_usd or 0.0 for r in results),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=96)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the server takes per reply")
    parser.add_argument("--home", type=Path, help="read judge_inputs from this data home (with --run)")
    parser.add_argument("--run", help="run id whose judge_inputs to use")
    args = parser.parse_args(argv)

    os.environ.setdefault("OPENAI_API_KEY", "sk-local-benchmark")  # the local server ignores it
    bundles = stored_bundles(args.home, args.run, args.pages) if args.home and args.run \
        else synthetic_bundles(args.pages)
    items = [(bundle, repeat) for repeat in range(args.repeats) for bundle in bundles]
    server = ScriptedServer().start()
    server.responder = lambda body: chat(judgment_json("passed"), prompt_tokens=1200, completion_tokens=150,
                                         delay_s=args.latency)
    try:
        with tempfile.TemporaryDirectory() as cache_home:
            options = {"api_base": server.api_base, "home": Path(cache_home), "concurrency": args.concurrency,
                       "price_table": {"openai/bench-model": (2.5, 10.0)}}  # gpt-4o-like prices, for the report
            build_judge({**options, "cache": "off"}).judge_page(synthetic_bundles(1)[0], -1)
            full = timed_run(build_judge(options), items, server)
            rerun = timed_run(build_judge(options), items, server)
    finally:
        server.stop()

    ideal = full["calls"] * args.latency / args.concurrency
    print(f"{len(items)} page judgments, concurrency {args.concurrency}, server latency {args.latency:.2f} s")
    for name, run in (("full run", full), ("rerun", rerun)):
        print(f"{name:>8}: {run['calls']:4d} calls, {run['cache_hits']:4d} cache hits, "
              f"{run['tokens_in']:7d} tokens in, {run['tokens_out']:6d} out, ${run['cost_usd']:.4f}, "
              f"{run['errors']} errors, wall {run['wall_s']:.2f} s")
    ratio = full["wall_s"] / ideal if ideal else float("nan")
    print(f"wall / (calls × {args.latency} / {args.concurrency}) = {full['wall_s']:.2f} / {ideal:.2f} = "
          f"{ratio:.2f} (target ≤ 1.5)")
    return 0 if ratio <= 1.5 and rerun["calls"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
