"""`accessbench model start|status|stop`: the data home's local model server (models/local.py)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    model = sub.add_parser("model", help="a local model server (llama.cpp) for llm:local and audit --models local")
    actions = model.add_subparsers(dest="action", required=True)
    start = actions.add_parser("start", help="start the local model server of this data home (the packaged "
                                             "SmolLM2-135M-Instruct, or --gguf PATH)")
    start.add_argument("--gguf", help="a GGUF model file of your own (default: the packaged SmolLM2-135M-Instruct)")
    start.add_argument("--name", help="the model's name in llm:local/<name> (default: the GGUF's file name)")
    start.add_argument("--threads", type=int, help="CPU threads (default: 1 on ≤ 2 or busy cores, else up to 4)")
    start.add_argument("--ctx", type=int, default=8192, help="context window in tokens (default 8192)")
    start.add_argument("--port", type=int, help="port on 127.0.0.1 (default: a free one)")
    start.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the model to load")
    actions.add_parser("status", help="whether it runs, and where")
    actions.add_parser("stop", help="stop it")


def run_model(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.console import EXIT_FAILED
    from flows.cli.console import error as _error
    from models import local

    if args.action == "start":
        if args.threads is not None and args.threads < 1:
            return _error("--threads must be ≥ 1")
        try:
            state, started = local.start(home, args.gguf, name=args.name, port=args.port, threads=args.threads,
                                         ctx=args.ctx, timeout_s=args.timeout)
        except local.LocalModelError as exc:
            return _error(str(exc), EXIT_FAILED)
        verb = "started" if started else "already running"
        print(f"local model {verb}: {state.name} at {state.api_base} (pid {state.pid}, {state.threads} thread(s), "
              f"{state.ctx} tokens of context)\nuse it: accessbench run --judge llm:local …; accessbench audit "
              f"--models local …; stop it: accessbench model stop", file=sys.stderr)
        return 0
    if args.action == "status":
        current = local.running(home)
        if current is None:
            stale = local.recorded_state(home)
            print("no local model running" + (f" (the last one, {stale.name}, is gone; see {local.log_file(home)})"
                                              if stale else "") + "; start one: accessbench model start")
            return 3
        print(f"local model: {current.name}\n  endpoint: {current.api_base} (litellm id {current.model_id})\n"
              f"  gguf: {current.gguf}\n  pid {current.pid}, {current.threads} thread(s), {current.ctx} tokens of "
              f"context, up {time.time() - current.started:.0f} s\n  log: {local.log_file(home)}")
        return 0
    try:
        stopped, note = local.stop(home)
    except local.LocalModelError as exc:  # still there after SIGKILL: never reported as stopped
        return _error(str(exc), EXIT_FAILED)
    if note:
        print(f"note: {note}", file=sys.stderr)
    print(f"stopped the local model {stopped.name} (pid {stopped.pid})" if stopped else "no local model was running",
          file=sys.stderr)
    return 0 if stopped or local.recorded_state(home) is None else EXIT_FAILED
