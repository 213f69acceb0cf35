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
    listing.add_argument("--status", choices=("open", "resolved", "all"), default="open",
                         help="open: waiting for a decision (default); resolved: decided; all")
    show = actions.add_parser("show", help="one item: the file and page, both tiers' opinions with their reasons, "
                                           "and the evidence they saw")
    show.add_argument("item")
    show.add_argument("--format", choices=("text", "json"), default="text",
                      help="text (default: for a person) or json (every field, the whole evidence, for scripts)")
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
    from tasks.engine.common import document_files
    from warehouse.review import latest_resolutions

    run_id, doc_id, page = row["run_id"], row["doc_id"], row["page"]
    doc = next((d for d in store.read_rows("corpus", run_id, "documents") if d["doc_id"] == doc_id), {})
    files = [str(path) for path in document_files(doc)] if doc.get("root") else doc.get("files")
    inputs = next((r for r in store.read_rows("inputs", run_id, "judge_inputs")
                   if r["doc_id"] == doc_id and r["page"] == page and r["criterion"] == row["criterion"]), {})
    def here(r: dict[str, Any]) -> bool:
        return r["doc_id"] == doc_id and r["page"] == page and r["criterion"] == row["criterion"] \
            and r["judge"] == row["judge"]

    findings: dict[int, list[dict[str, Any]]] = {}
    for f in sorted((f for f in store.read_rows("judge", run_id, "findings") if here(f)), key=lambda f: f["seq"]):
        findings.setdefault(f["repeat"], []).append({k: f[k] for k in ISSUE_FIELDS})
    opinions = [{"repeat": j["repeat"], "label": j["label"], "tiers": json.loads(j["tier_labels"] or "{}"),
                 "summary": j["summary"], "issues": findings.get(j["repeat"], []), "error": j["error"]}
                for j in store.read_rows("judge", run_id, "judgments") if here(j)]
    calls = [c for stage in ("judge",) for c in store.read_rows(stage, run_id, "llm_calls")
             if c["doc_id"] == doc_id and c["page"] == page and c["criterion"] == row["criterion"]
             and c["judge"] == row["judge"]]
    tiers = json.loads(row["tier_labels"] or "{}")
    return {**{k: v for k, v in row.items() if k not in ("issues", "tier_labels")},
            "files": files, "page_image": inputs.get("image_path"),
            "tier_labels": tiers, "opinions": opinions,
            "rules": rules_opinion(tiers, opinions), "llm": llm_opinion(tiers, calls),
            "evidence": json.loads(inputs["evidence"]) if inputs.get("evidence") else None,
            "decision": latest_resolutions(store, run_id).get(row["item_id"])}


# What a reviewer sees of each finding (the `findings` table's columns about it).
ISSUE_FIELDS = ("rule_id", "severity", "sub_criterion", "location", "bbox", "problem", "remediation")

# Where the hybrid judge's summary goes on from the rules' part to the LLM's (judges/hybrid.py).
LLM_SUMMARY_MARKERS = (" LLM on the rules' candidates: ", " LLM: ")


def rules_opinion(tiers: dict[str, str], opinions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What Tier 1 said: its label, its summary and the issues its rules raised (those carry a rule id)."""
    if "rules" not in tiers:
        return None
    summaries, issues = [], []
    for opinion in opinions:
        summary = opinion.get("summary") or ""
        for marker in LLM_SUMMARY_MARKERS:
            summary = summary.split(marker)[0]
        summaries.append(summary.strip())
        issues += [i for i in opinion.get("issues") or [] if i.get("rule_id") and i not in issues]
    return {"label": tiers["rules"], "summary": next((s for s in summaries if s), ""), "issues": issues}


def llm_opinion(tiers: dict[str, str], calls: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What Tier 2 said, call by call: a page judgment's label, summary and issues, or a candidate's verdict and
    reason (from the call log, which keeps every reply); None when no LLM was asked."""
    if "llm" not in tiers and not calls:
        return None
    answers = []
    for call in sorted(calls, key=lambda c: (c["repeat"], c.get("attempt") or 0)):
        parsed = json.loads(call["parsed"]) if call.get("parsed") else None
        answers.append({"call_id": call["call_id"], "purpose": call.get("purpose") or "judge_page",
                        "repeat": call["repeat"], "kind": call.get("kind"), "parsed": parsed,
                        "error": call.get("error") or call.get("parse_error")})
    return {"label": tiers.get("llm"), "model": next((c["model"] for c in calls if c.get("model")), None),
            "answers": answers}


def format_item(details: dict[str, Any]) -> str:
    """A review item for a person: where it is, why it is queued, each tier's opinion with its reasons, the
    evidence the judges saw (long lists shortened: `--format json` has it all) and what to run next."""
    decision = details.get("decision")
    out = [f"review item {details['item_id']} ({'resolved' if decision else 'open'}) — run {details['run_id']}, "
           f"judge {details['judge']}",
           f"  {details['criterion']}, document {details['doc_id']}, page {details['page']}"]
    out += [f"  file: {path}" for path in details.get("files") or []]
    if details.get("page_image"):
        out.append(f"  page image: {details['page_image']}")
    out.append(f"why a person should look: {details['reason']}")
    out.append(f"label meanwhile: {details.get('label') or '-'}"
               + (f" (raised by {details['repeats']} repeat(s))" if details.get("repeats") else ""))
    if decision:
        out.append(f"decision: {decision.get('label')}" + (f" by {decision['reviewer']}" if decision.get("reviewer")
                                                           else "") + (f" — {decision['note']}" if decision.get("note")
                                                                       else ""))
    rules = details.get("rules")
    out.append("")
    if rules is None:
        out.append("rules (Tier 1): no opinion recorded")
    else:
        out.append(f"rules (Tier 1): {rules['label']}")
        if rules["summary"]:
            out.append(f"  {rules['summary']}")
        out += _issue_lines(rules["issues"], "  ") or ["  no issues raised"]
    llm = details.get("llm")
    out.append("")
    if llm is None:
        out.append("LLM (Tier 2): not asked (the rules' label stands, or the criterion has no semantic sub-criteria)")
    else:
        out.append(f"LLM (Tier 2{', ' + llm['model'] if llm.get('model') else ''}): {llm.get('label') or '-'}")
        out += [line for answer in llm["answers"] for line in _answer_lines(answer)] or ["  no call recorded"]
    out.append("")
    out.append("evidence (what the judges saw):")
    out += _value_lines(details.get("evidence"), "  ") if details.get("evidence") else ["  none recorded"]
    out.append("")
    out.append(f"decide: accessbench review resolve {details['item_id']} --label passed|failed|not_present|"
               "cannot_tell --note '…'")
    if llm and llm["answers"]:
        out.append(f"a call in full: accessbench calls show {llm['answers'][0]['call_id']}")
    out.append(f"every field: accessbench review show {details['item_id']} --format json")
    return "\n".join(out) + "\n"


def _issue_lines(issues: list[dict[str, Any]], indent: str) -> list[str]:
    lines = []
    for issue in issues:
        where = ", ".join(str(x) for x in (issue.get("sub_criterion"), issue.get("location")) if x)
        rule = f" [{issue['rule_id']}]" if issue.get("rule_id") else ""
        lines.append(f"{indent}- {where}: {issue.get('problem') or ''}{rule}")
        if issue.get("remediation"):
            lines.append(f"{indent}  fix: {issue['remediation']}")
    return lines


def _answer_lines(answer: dict[str, Any]) -> list[str]:
    head = f"  repeat {answer['repeat']}, call {answer['call_id']}"
    if answer.get("kind") == "repair":
        head += " (repair request)"
    parsed = answer.get("parsed")
    if not isinstance(parsed, dict):
        return [f"{head}: no usable answer" + (f" ({answer['error']})" if answer.get("error") else "")]
    if answer["purpose"] == "confirm_candidate":
        defect = parsed.get("defect")
        verdict = "a real defect" if defect is True else "not a defect" if defect is False else "unsure"
        return [f"{head}: rule {parsed.get('rule_id') or '-'}: {verdict} — {parsed.get('reason') or 'no reason given'}"]
    lines = [f"{head}: {parsed.get('label') or '-'}" + (f" — {parsed['summary']}" if parsed.get("summary") else "")]
    failed = [name for name, value in (parsed.get("sub_criteria") or {}).items() if value in ("failed", "cannot_tell")]
    if failed:
        lines.append("    sub-criteria: " + ", ".join(f"{name} {parsed['sub_criteria'][name]}" for name in failed))
    return lines + _issue_lines(parsed.get("issues") or [], "    ")


MAX_ITEMS = 8  # list items of the evidence shown in text; --format json has every one
MAX_TEXT = 160  # characters of one evidence value shown in text


def _scalar(value: Any, limit: int = MAX_TEXT) -> str:
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
    text = "-" if value is None else str(value).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _flat(value: Any) -> bool:
    """A value that reads on one line: a scalar, or a short list of scalars (a bbox, a colour)."""
    if isinstance(value, list):
        return len(value) <= MAX_ITEMS and all(_flat(v) and not isinstance(v, list) for v in value)
    return not isinstance(value, dict)


def _inline(value: Any, limit: int = MAX_TEXT) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v, limit) for v in value) + "]"
    return _scalar(value, limit)


def _value_lines(value: Any, indent: str) -> list[str]:
    """Nested evidence as indented `key: value` lines; a list's flat records one line each (empty fields left
    out, long text shortened), at most MAX_ITEMS of them."""
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if _flat(item):
                lines.append(f"{indent}{key}: {_inline(item) if item != [] else 'none'}")
            else:
                count = f" ({len(item)})" if isinstance(item, list) else ""
                lines += [f"{indent}{key}{count}:", *_value_lines(item, indent + "  ")]
        return lines
    if isinstance(value, list):
        lines = []
        for item in value[:MAX_ITEMS]:
            if isinstance(item, dict) and all(_flat(v) for v in item.values()):
                lines.append(f"{indent}- " + ", ".join(f"{k}: {_inline(v, 60)}" for k, v in item.items()
                                                      if v is not None and v != ""))
            elif _flat(item):
                lines.append(f"{indent}- {_inline(item)}")
            else:
                nested = _value_lines(item, indent + "  ")
                lines += [f"{indent}- {nested[0].strip()}", *nested[1:]] if nested else [f"{indent}- none"]
        if len(value) > MAX_ITEMS:
            lines.append(f"{indent}… {len(value) - MAX_ITEMS} more (--format json shows every one)")
        return lines
    return [f"{indent}{_scalar(value)}"]


def tiers_text(tier_labels: str | None) -> str:
    """What each tier said, rules first: "rules passed, llm failed"."""
    tiers = json.loads(tier_labels or "{}")
    order = sorted(tiers, key=lambda name: (name != "rules", name))
    return ", ".join(f"{name} {tiers[name]}" for name in order) or "-"


def print_queue(run_id: str, items: list[tuple[dict[str, Any], dict[str, Any] | None]]) -> None:
    """The queue in the widest layout that fits the terminal: every column; then without the tiers (review show
    has them); then without the label meanwhile; then with the item id folded. Item and document ids are never
    cut; the reason folds."""
    from flows.cli.console import layouts, print_first_fitting

    names = ["criterion", "doc", "page", "label", "tiers", "reason"]
    if any(decision for _, decision in items):  # the open queue has none: no empty column
        names.append("decision")

    def cells(item: dict[str, Any], decision: dict[str, Any] | None) -> dict[str, str]:
        return {"criterion": item["criterion"], "doc": item["doc_id"], "page": str(item["page"]),
                "label": item["label"] or "-", "tiers": tiers_text(item["tier_labels"]), "reason": item["reason"],
                "decision": decision["label"] if decision else ""}

    rows = [[item["item_id"], *(shown[n] for n in names)] for item, decision in items
            for shown in [cells(item, decision)]]
    columns = ["item", *names]
    drops: list[tuple[str, ...]] = [(), ("tiers",), ("tiers", "label")]
    print_first_fitting(layouts(f"review queue of run {run_id}", columns, rows, keys=("item", "doc"), drops=drops,
                                note="; see accessbench review show ITEM"))


def run_review(home: Path, args: argparse.Namespace) -> int:
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
        chosen = [(item, decided.get(item["item_id"])) for item in rows
                  if not ((args.status == "open" and decided.get(item["item_id"]))
                          or (args.status == "resolved" and not decided.get(item["item_id"])))]
        print_queue(run_id, chosen)
        shown = len(chosen)
        print(f"{shown} item(s); decide one with: accessbench review resolve ITEM --label failed --note '…'")
        return 0
    found = _find(store, args.item)
    if found is None:
        print(f"accessbench: error: no review item {args.item!r}; see: accessbench review list", file=sys.stderr)
        return 3
    row = found
    if args.action == "show":
        details = item_details(store, row)
        if getattr(args, "format", "text") == "json":
            print(json.dumps(details, indent=1, default=str, ensure_ascii=False))
        else:
            from common.text import visible

            sys.stdout.write(visible(format_item(details)))  # PDF text and model reasons: shown escaped
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
    from tasks.benchmark.registry import STAGES
    from tasks.engine.context import RunConfig
    from tasks.engine.runner import execute

    run = store.get_run(row["run_id"])
    cfg = RunConfig.from_record(json.loads(run["config"]) if run else {"run_id": row["run_id"]}, home=home,
                                progress=False)
    for name in ("aggregate", "metrics"):  # the decision flows into doc_labels right away
        execute(cfg, STAGES[name])
    print(f"resolved {row['item_id']} as {label.value}; doc_labels now include judge '{row['judge']}+human'")
    return 0
