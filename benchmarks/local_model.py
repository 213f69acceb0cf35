"""The local model (llama.cpp's server + the packaged SmolLM2-135M-Instruct) alone and through AccessBench.

1. Tokens per second of the server called directly (one HTTP request, as curl would) against the same
   request through AccessBench's model client (litellm, limits, redaction, call log; cache off),
   interleaved round by round so load from other processes falls on both alike. The ratio is the
   client's overhead (target ≤ 1.2×).
2. Pages judged per minute: the judge stage of a run on two synthetic documents (table_structure).
3. Audit answers per minute: the responses stage for the first N questions, both variants.
4. Peak resident memory of the server (VmHWM) and of this process.

    python -m benchmarks.local_model [--rounds 5] [--questions 3] [--gguf PATH]

Needs `make install-local`. Prints numbers; asserts nothing (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

MESSAGES = [{"role": "user", "content": "List three ways to make a scholarly PDF accessible to screen-reader users."}]


def _direct(api_base: str, max_tokens: int, key: str) -> tuple[float, int]:
    body = json.dumps({"model": "local", "messages": MESSAGES, "max_tokens": max_tokens, "temperature": 0.0,
                       "seed": 1}).encode()
    request = urllib.request.Request(f"{api_base}/chat/completions", body, {"content-type": "application/json",
                                                                            "authorization": f"Bearer {key}"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as reply:  # noqa: S310 - 127.0.0.1
        data = json.loads(reply.read())
    return time.perf_counter() - start, int(data["usage"]["completion_tokens"])


def _client(client: Any, max_tokens: int) -> tuple[float, int]:
    start = time.perf_counter()
    response = client.complete(MESSAGES, {"max_tokens": max_tokens, "temperature": 0.0, "seed": 1}, 0)
    return time.perf_counter() - start, int(response.tokens_out or 0)


def _peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _mini_dataset(root: Path) -> Path:
    from corpus.synthetic import build_synthetic_benchmark

    synthetic = root / "synthetic"
    build_synthetic_benchmark(synthetic, seed=0, base_docs=1)
    manifest = json.loads((synthetic / "data" / "dataset.json").read_text())
    tasks = {"table_structure": {label: manifest["tasks"]["table_structure"][label] for label in ("passed", "failed")}}
    dataset = root / "two"
    for entries in tasks["table_structure"].values():
        for entry in entries:
            (dataset / entry["pdf_path"]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(synthetic / entry["pdf_path"], dataset / entry["pdf_path"])
    (dataset / "data" / "dataset.json").write_text(json.dumps({**manifest, "tasks": tasks}))
    return dataset


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved direct/client rounds (default 5)")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--questions", type=int, default=3, help="audit questions to answer (default 3)")
    parser.add_argument("--gguf", help="another GGUF than the packaged model")
    args = parser.parse_args(argv)

    from models import local
    from models.client import ModelClient
    from tasks.audit.config import AuditConfig
    from tasks.audit.registry import AUDIT_STAGES
    from tasks.benchmark.registry import STAGE_LIST
    from tasks.engine.context import RunConfig
    from tasks.engine.runner import execute
    from warehouse import catalog
    from warehouse.tables import ALL_TABLES

    with tempfile.TemporaryDirectory(prefix="accessbench-local-") as tmp:
        root = Path(tmp)
        home = root / "home"
        began = time.perf_counter()
        state, _ = local.start(home, args.gguf)
        print(f"server: {state.name}, {state.threads} thread(s), {state.ctx} tokens of context; "
              f"ready in {time.perf_counter() - began:.1f} s")
        try:
            options = local.client_options(home, "local")
            client = ModelClient(options["model"], api_base=options["api_base"], api_key=options["api_key"],
                                 concurrency=1, timeout_s=600)
            _direct(state.api_base, 8, options["api_key"])  # warm-up: the first call loads the weights into the cache
            direct, through = [], []
            for _ in range(args.rounds):
                seconds, tokens = _direct(state.api_base, args.max_tokens, options["api_key"])
                direct.append(tokens / seconds)
                seconds, tokens = _client(client, args.max_tokens)
                through.append(tokens / seconds)
            d, c = statistics.median(direct), statistics.median(through)
            print(f"tokens/s (median of {args.rounds}, {args.max_tokens}-token replies): server alone {d:.1f}, "
                  f"through AccessBench {c:.1f}; client overhead {d / c:.2f}x (target <= 1.2x)")

            cfg = RunConfig(home=home, run_id="pages", source="dataset", source_path=str(_mini_dataset(root)),
                            judges=["llm:local"], criteria=["table_structure"], repeats=1, max_tokens=700,
                            concurrency=1, timeout_s=600, max_error_rate=1.0, progress=False, workers=1, cache="off")
            judge_s = None
            for stage in STAGE_LIST:
                result = execute(cfg, stage)
                if stage.name == "judge" and result.finished and result.started:
                    judge_s = (result.finished - result.started).total_seconds()

            _, rows = catalog.query(home, ALL_TABLES, "select count(*), count(*) filter (where error is null) "
                                                      "from judgments where run_id = 'pages'")
            pages, judged = rows[0]
            if judge_s:
                print(f"pages judged: {judged} of {pages} without error; {pages / judge_s * 60:.1f} pages/min "
                      f"({judge_s:.0f} s in the judge stage)")

            audit = AuditConfig(home=home, run_id="answers", models=["local"], audit_judges=["lexicon"],
                                question_limit=args.questions, concurrency=1, timeout_s=600, progress=False)
            execute(audit, AUDIT_STAGES["questions"])
            start = time.perf_counter()
            execute(audit, AUDIT_STAGES["responses"])
            seconds = time.perf_counter() - start
            answers = args.questions * len(audit.variants)
            print(f"audit answers: {answers} in {seconds:.0f} s: {answers / seconds * 60:.1f} answers/min "
                  f"(max_tokens {audit.max_tokens})")
            server_mb = _peak_rss_mb(state.pid)
            own_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"peak RSS: server {server_mb:.0f} MB, this process {own_mb:.0f} MB" if server_mb else
                  f"peak RSS: this process {own_mb:.0f} MB")
        finally:
            local.stop(home)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
