"""`accessbench calls list|show` (what a model was sent and answered) and `accessbench cache info|clear`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def add_parsers(sub: Any) -> None:
    calls = sub.add_parser("calls", help="the LLM call log: what each model was sent and what it answered")
    actions = calls.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="calls of a run, one line each")
    listing.add_argument("--run", help="run id (default: the latest run with calls)")
    listing.add_argument("--doc", help="only this document")
    listing.add_argument("--model", help="only this model")
    listing.add_argument("--errors", action="store_true", help="only calls that failed or could not be parsed")
    listing.add_argument("--limit", type=int, default=50, metavar="N", help="show the first N calls (default 50)")
    show = actions.add_parser("show", help="one call as the model saw it: instructions, evidence, images, reply")
    show.add_argument("call_id")

    cache = sub.add_parser("cache", help="the LLM response cache under the data home")
    what = cache.add_subparsers(dest="action", required=True)
    what.add_parser("info", help="entries, size and models")
    clear = what.add_parser("clear", help="delete cached replies (the next run calls the models again)")
    clear.add_argument("--model", help="only this model's replies")


def run_cache(home: Path, args: argparse.Namespace) -> int:
    from models.cache import ResponseCache

    cache = ResponseCache.under_home(home)
    if args.action == "info":
        info = cache.info()
        print(f"LLM response cache: {info['root']}\n{info['entries']} entries, {info['bytes'] / 1e6:.1f} MB")
        for model, count in info["models"].items():
            print(f"  {model}: {count}")
        return 0
    removed = cache.clear(args.model)
    which = f" of {args.model}" if args.model else ""
    print(f"removed {removed} cached repl{'y' if removed == 1 else 'ies'}{which}")
    return 0


CALL_STAGES = ("judge", "responses", "category_judgments", "fix")  # what writes llm_calls (both studies, fix)


def _call_rows(store: Any, run_id: str) -> list[dict[str, Any]]:
    return [row for stage in CALL_STAGES for row in store.read_rows(stage, run_id, "llm_calls")]


def _latest_calls(store: Any, run_id: str | None) -> tuple[str | None, list[dict[str, Any]]]:
    """The calls of `run_id`, or (without one) of the newest run that has any."""
    for run in [run_id] if run_id else [r["run_id"] for r in reversed(store.runs())]:
        rows = _call_rows(store, run)
        if rows or run_id:
            return run, rows
    return None, []


def run_calls(home: Path, args: argparse.Namespace) -> int:
    from warehouse.store import ArtifactStore

    store = ArtifactStore(home)
    if args.action == "list":
        run_id, rows = _latest_calls(store, args.run)
        if run_id is None:
            print("no LLM calls recorded yet (llm: and hybrid: judges record them: accessbench run --judge llm:MODEL; "
                  "so do audited models and llm: category judges: accessbench audit --models MODEL)")
            return 0
        rows = [r for r in rows if (not args.doc or r["doc_id"] == args.doc)
                and (not args.model or r["model"] == args.model)
                and (not args.errors or r["error"] or r["parse_error"])]
        print_calls_table(run_id, rows[: args.limit])
        print(f"{len(rows)} call(s){f', first {args.limit} shown' if len(rows) > args.limit else ''}; "
              "one in full: accessbench calls show CALL")
        return 0
    for run in reversed(store.runs()):
        for row in _call_rows(store, run["run_id"]):
            if row["call_id"] == args.call_id:
                from common.text import visible

                sys.stdout.write(visible(format_call(home, row)))  # a prompt or reply may carry ESC/OSC sequences
                return 0
    print(f"accessbench: error: no call {args.call_id!r}; see: accessbench calls list", file=sys.stderr)
    return 3


def print_calls_table(run_id: str, rows: list[dict[str, Any]]) -> None:
    """The calls, one line each, in the widest layout that fits the terminal: every column; then without
    purpose, how the reply was read and the kind of call; then without repeat and tokens; then with the call
    ids folded. The call id (what `calls show` takes) and the document are never cut."""
    from flows.cli.console import layouts, print_first_fitting

    def cells(r: dict[str, Any]) -> dict[str, str]:
        return {"purpose": r.get("purpose") or "judge_page", "model": r["model"] or "-", "doc / response": r["doc_id"],
                "criterion": r["criterion"] or "-", "page": "-" if r["page"] is None else str(r["page"]),
                "repeat": str(r["repeat"]), "kind": r["kind"] or "", "cached": "yes" if r["cached"] else "",
                "tokens": f"{r['tokens_in'] or '-'}/{r['tokens_out'] or '-'}",
                "read as": ", ".join(json.loads(r.get("normalised") or "[]")),
                "error": (r["error"] or r["parse_error"] or "")[:60]}

    names = ["purpose", "model", "doc / response", "criterion", "page", "repeat", "kind", "cached", "tokens",
             "read as", "error"]
    drops = [(), ("purpose", "read as", "kind"), ("purpose", "read as", "kind", "repeat", "tokens")]
    table_rows = [[r["call_id"], *(shown[n] for n in names)] for r in rows for shown in [cells(r)]]
    print_first_fitting(layouts(f"LLM calls of run {run_id}", ["call", *names], table_rows,
                                keys=("call", "doc / response"), drops=drops,
                                note="; see accessbench calls show CALL"))


def format_call(home: Path, row: dict[str, Any]) -> str:
    """One call as plain text: every message (images by file), then the reply and what it parsed to."""
    images = Path(home) / "calls" / "images"
    where = (f"{row['criterion']}, page {row['page']}" if row.get("criterion") else
             f"{row.get('purpose') or 'call'} ({row.get('study') or 'audit'} study)")
    out = [f"call {row['call_id']} — run {row['run_id']}, {row['judge']} {row['model'] or ''}, {row['doc_id']}, "
           f"{where}, repeat {row['repeat']}, {row['kind']} (prompt {row['prompt_version']})",
           f"parameters: {row['params']}",
           f"cached: {bool(row['cached'])}  latency: {_seconds(row['latency_s'])}  tokens: {row['tokens_in']}/"
           f"{row['tokens_out']}  cost: {row['cost_usd'] if row['cost_usd'] is not None else 'unknown'}"]
    for message in json.loads(row["messages"] or "[]"):
        out.append(f"\n===== {message.get('role')} =====")
        content = message.get("content")
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for part in parts:
            if part.get("type") == "image_url":
                ref = str(part.get("image_url", {}).get("url", "")).removeprefix("sha256:")
                out.append(f"[image {ref[:12]}…: {images / (ref + '.png')}]")
            else:
                out.append(str(part.get("text", "")))
    out.append("\n===== reply =====")
    out.append(row["reply"] if row["reply"] is not None else "(no reply)")
    if row.get("parsed"):
        out.append(f"\n===== parsed =====\n{row['parsed']}")
    if row.get("normalised") and json.loads(row["normalised"]):
        out.append(f"read as: {', '.join(json.loads(row['normalised']))} (normalisations applied to the reply)")
    if row["parse_error"]:
        out.append(f"\n(not usable: {row['parse_error']})")
    if row["error"]:
        out.append(f"\nerror: {row['error']}")
    return "\n".join(out) + "\n"


def _seconds(value: Any) -> str:
    """A latency as people read it: 2.35 s, 0.041 s; "-" when not measured (a cached reply)."""
    if value is None:
        return "-"
    seconds = float(value)
    return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds:.3f} s"
