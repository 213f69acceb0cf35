"""`accessbench run --dry-run`: what a run would read and what its judges would cost, before any stage runs.

The corpus is read as the corpus stage would (the same `--limit`, `--sample`, limits), nothing is written to
the warehouse and no model is called. Per judge: the documents and pages it judges, its model calls (one per
page, item and repeat; the rules judge makes none; a hybrid judge at most that many), and tokens and cost
estimated from the prompt it would send (its instructions measured, the page's evidence and images assumed at
the sizes below) and litellm's price table.
"""

from __future__ import annotations

import sys
from typing import Any

from flows.cli.console import EXIT_NOT_FOUND, EXIT_OK
from flows.cli.console import error as _error

CHARS_PER_TOKEN = 4  # English prompt text and JSON, roughly
EVIDENCE_TOKENS = 1200  # one page's evidence (tag structure, links, fonts …), a typical scholarly page
IMAGE_TOKENS = 765  # one page image sent to a vision model (a 1024 px page, as OpenAI counts tiles)
REPLY_TOKENS = 350  # a JSON reply: label, sub-criteria, a few located issues


# The judge kinds whose pages cost model calls (their argument is the model), and what the estimate is for each.
PRICED = {"llm": "", "hybrid": "at most (the LLM tier runs only on semantic sub-criteria); "}

def _rows(cfg: Any) -> list[dict[str, Any]]:
    from corpus.manifest import FileLimits, load_dataset, load_pdf_folder
    from tasks.benchmark.corpus import source_root

    root = source_root(cfg)  # the synthetic benchmark is generated once into the data home, as a run would
    limits = FileLimits(max_bytes=int(cfg.max_file_mb * 2**20), max_pages=cfg.max_pages,
                        max_stream_bytes=int(cfg.max_stream_mb * 2**20))
    if cfg.source == "pdfs":
        return load_pdf_folder(root, cfg.run_id, cfg.criteria, follow_symlinks=cfg.follow_symlinks, limits=limits)
    return load_dataset(root, cfg.run_id, cfg.criteria, source=cfg.source, limits=limits, limit=cfg.limit,
                        sample=cfg.sample, seed=cfg.seed)


def estimate(cfg: Any, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per judge: documents, pages, calls, tokens in and out, cost in USD (None: no price known)."""
    from judges.base import JudgeSpec
    from judges.llm.prompts import system_prompt

    usable = [r for r in rows if not r.get("error")]
    pages = sum(int(r.get("pages") or 0) for r in usable)
    out = []
    for text in cfg.judges:
        spec = JudgeSpec.parse(text)
        entry: dict[str, Any] = {"judge": text, "documents": len(usable), "pages": pages, "calls": 0,
                                 "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0, "note": "offline, no model calls"}
        if spec.name in PRICED and spec.argument:
            repeats = cfg.repeats
            vision = _vision(cfg, spec.argument)
            calls = tokens_in = 0
            for row in usable:
                per_call = (len(system_prompt(row["criterion"])) // CHARS_PER_TOKEN + EVIDENCE_TOKENS
                            + (IMAGE_TOKENS if vision else 0))
                n = int(row.get("pages") or 0) * repeats
                calls += n
                tokens_in += n * per_call
            tokens_out = calls * min(REPLY_TOKENS, cfg.max_tokens)
            entry.update(calls=calls, tokens_in=tokens_in, tokens_out=tokens_out,
                         cost_usd=_price(spec.argument, tokens_in, tokens_out),
                         note=PRICED[spec.name] + f"{repeats} repeat(s), images {'on' if vision else 'off'}")
        out.append(entry)
    return out


def _vision(cfg: Any, model: str) -> bool:
    if cfg.vision in ("on", "off"):
        return bool(cfg.vision == "on")
    from models.client import ModelClient

    try:
        return ModelClient(model).supports_vision()
    except ValueError:
        return False


def _price(model: str, tokens_in: int, tokens_out: int) -> float | None:
    if model == "local" or model.startswith("local/"):
        return 0.0  # the packaged model on this machine
    from models.client import ModelClient

    try:
        return ModelClient(model).price(tokens_in, tokens_out)
    except ValueError:
        return None


def print_dry_run(cfg: Any) -> int:
    from corpus.manifest import CorpusError

    try:
        rows = _rows(cfg)
    except CorpusError as exc:
        return _error(str(exc), EXIT_NOT_FOUND)
    refused = sum(1 for r in rows if r.get("error"))
    files = len({tuple(r.get("files") or [r["doc_id"]]) for r in rows})
    print(f"dry run of {cfg.source}{' ' + cfg.source_path if cfg.source_path else ''}: {len(rows)} documents "
          f"({files} files; {refused} would be error rows), criteria: {', '.join(cfg.criteria)}; nothing was run")
    header = ("judge", "documents", "pages", "calls", "tokens in (est.)", "tokens out (est.)", "cost USD (est.)",
              "note")
    lines = [header]
    for e in estimate(cfg, rows):
        cost = "unknown (no price for this model)" if e["cost_usd"] is None else f"{e['cost_usd']:.4f}"
        lines.append((e["judge"], str(e["documents"]), str(e["pages"]), str(e["calls"]), str(e["tokens_in"]),
                      str(e["tokens_out"]), cost, e["note"]))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    for line in lines:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())
    print(f"estimates assume {EVIDENCE_TOKENS} evidence tokens and {IMAGE_TOKENS} tokens per page image per call, "
          f"and {REPLY_TOKENS}-token replies; cached calls cost nothing", file=sys.stderr)
    return EXIT_OK
