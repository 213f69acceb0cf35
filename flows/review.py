"""`accessbench review list|show|resolve`: work through the hybrid judge's human-review queue."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # every command builds this parser: the warehouse (pyarrow) loads only for `review` itself
    from warehouse.store import ArtifactStore


def add_parser(sub: Any) -> None:
    review = sub.add_parser("review", help="the human-review queue of the hybrid judge")
    actions = review.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="items waiting for (or given) a decision")
    listing.add_argument("--run", help="run id (default: the latest run with a queue)")
    listing.add_argument("--status", choices=("open", "resolved", "all"), default="open")
    show = actions.add_parser("show", help="one item: what each tier said and why")
    show.add_argument("item")
    resolve = actions.add_parser("resolve", help="decide an item; doc_labels gain a <judge>+human tier")
    resolve.add_argument("item")
    resolve.add_argument("--label", required=True, help="passed | failed | not_present | cannot_tell")
    resolve.add_argument("--note", help="why (kept with the decision)")
    resolve.add_argument("--by", dest="reviewer", help="who decided")


def _find(store: ArtifactStore, item: str) -> dict[str, Any] | None:
    for run in reversed(store.runs()):
        for row in store.read_rows("judge", run["run_id"], "review_queue"):
            if row["item_id"] == item:
                return row
    return None


def item_details(store: ArtifactStore, row: dict[str, Any]) -> dict[str, Any]:
    """A review item as a reviewer needs it: the file and page, the evidence, what each tier said."""
    from tasks.common import document_files
    from warehouse.review import latest_resolutions

    run_id, doc_id, page = row["run_id"], row["doc_id"], row["page"]
    doc = next((d for d in store.read_rows("corpus", run_id, "documents") if d["doc_id"] == doc_id), {})
    files = [str(path) for path in document_files(doc)] if doc.get("root") else doc.get("files")
    inputs = next((r for r in store.read_rows("inputs", run_id, "judge_inputs")
                   if r["doc_id"] == doc_id and r["page"] == page and r["criterion"] == row["criterion"]), {})
    opinions = [{"repeat": j["repeat"], "label": j["label"], "tiers": json.loads(j["tier_labels"] or "{}"),
                 "summary": j["summary"], "issues": json.loads(j["issues"] or "[]"), "error": j["error"]}
                for j in store.read_rows("judge", run_id, "judgments")
                if j["doc_id"] == doc_id and j["page"] == page and j["criterion"] == row["criterion"]
                and j["judge"] == row["judge"]]
    return {**{k: v for k, v in row.items() if k not in ("issues", "tier_labels")},
            "files": files, "page_image": inputs.get("image_path"),
            "tier_labels": json.loads(row["tier_labels"] or "{}"), "opinions": opinions,
            "evidence": json.loads(inputs["evidence"]) if inputs.get("evidence") else None,
            "decision": latest_resolutions(store, run_id).get(row["item_id"])}


def run_review(home: Path, args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from judges.labels import parse_label
    from warehouse.review import add_resolution, latest_resolutions
    from warehouse.store import ArtifactStore

    store = ArtifactStore(home)
    if args.action == "list":
        run_id, rows = store.latest_rows("judge", "review_queue", args.run)
        if run_id is None:
            print("the review queue is empty (only the hybrid judge fills it: accessbench run --judge hybrid:<model>)")
            return 0
        decided = latest_resolutions(store, run_id)
        table = Table("item", "criterion", "doc", "page", "label", "tiers", "reason", "decision",
                      title=f"review queue of run {run_id}")
        shown = 0
        for item in rows:
            decision = decided.get(item["item_id"])
            if (args.status == "open" and decision) or (args.status == "resolved" and not decision):
                continue
            shown += 1
            table.add_row(item["item_id"], item["criterion"], item["doc_id"], str(item["page"]), item["label"] or "-",
                          item["tier_labels"] or "-", item["reason"], decision["label"] if decision else "")
        Console(width=200, markup=False).print(table)
        print(f"{shown} item(s); decide one with: accessbench review resolve ITEM --label failed --note '…'")
        return 0
    found = _find(store, args.item)
    if found is None:
        print(f"accessbench: error: no review item {args.item!r}; see: accessbench review list", file=sys.stderr)
        return 3
    row = found
    if args.action == "show":
        print(json.dumps(item_details(store, row), indent=1, default=str, ensure_ascii=False))
        return 0
    try:
        label = parse_label(args.label)
    except ValueError as exc:
        print(f"accessbench: error: {exc}", file=sys.stderr)
        return 2
    add_resolution(store, {"run_id": row["run_id"], "item_id": row["item_id"], "doc_id": row["doc_id"],
                           "criterion": row["criterion"], "page": row["page"], "label": label.value,
                           "note": args.note, "reviewer": args.reviewer})
    # The stages load only here: every other command builds this parser without importing them.
    from tasks.context import RunConfig
    from tasks.registry import STAGES
    from tasks.runner import execute

    run = store.get_run(row["run_id"])
    cfg = RunConfig.from_record(json.loads(run["config"]) if run else {"run_id": row["run_id"]}, home=home,
                                progress=False)
    for name in ("aggregate", "metrics"):  # the decision flows into doc_labels right away
        execute(cfg, STAGES[name])
    print(f"resolved {row['item_id']} as {label.value}; doc_labels now include judge '{row['judge']}+human'")
    return 0
