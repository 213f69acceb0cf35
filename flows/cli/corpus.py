"""`accessbench corpus synth|sample`: grow a labelled benchmark, or sample one from a PDF collection."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from judges.criteria import CRITERIA


def add_parser(sub: Any) -> None:
    corpus = sub.add_parser("corpus", help="make a synthetic labelled benchmark, or sample one from a folder")
    actions = corpus.add_subparsers(dest="action", required=True)
    synth = actions.add_parser("synth", help="generate labelled variants for all seven criteria (typst + pikepdf)")
    synth.add_argument("--out", required=True, help="output folder (upstream layout: data/dataset.json + PDFs)")
    synth.add_argument("--base-docs", type=int, default=10,
                       help="base documents; each gets labelled variants per criterion (default 10)")
    synth.add_argument("--seed", type=int, default=0, help="seed of the documents and defects drawn (default 0)")
    synth.add_argument("--criteria", nargs="+", choices=CRITERIA, metavar="CRITERION",
                       help=f"only these criteria (default: all seven): {', '.join(CRITERIA)}")
    sample = actions.add_parser("sample", help="screen a folder of PDFs and sample documents per criterion")
    sample.add_argument("--pdfs", required=True, help="folder of PDFs (file stem = document id)")
    sample.add_argument("--metadata", help="CSV or JSONL: id, title, field, year, citations, prior_score")
    sample.add_argument("--per-criterion", type=int, required=True, metavar="N",
                        help="documents to sample for each criterion (stratified by the screening's verdicts)")
    sample.add_argument("--seed", type=int, default=0,
                        help="seed of the sampling (default 0): the same seed, the same sample")
    sample.add_argument("--criteria", nargs="+", choices=CRITERIA, metavar="CRITERION",
                        help=f"only these criteria (default: all seven): {', '.join(CRITERIA)}")
    sample.add_argument("--min-prior-score", type=float, help="keep documents whose prior score is at least this")
    sample.add_argument("--out", help="manifest folder (default: <home>/samples/<sample id>)")
    sample.add_argument("--workers", type=int, default=2, help="processes that screen the PDFs (default 2)")
    sample.add_argument("--follow-symlinks", action="store_true",
                        help="also read files that symlinks point to outside the folder (skipped by default)")


def run_corpus(home: Path, args: argparse.Namespace) -> int:
    if args.action == "synth":
        return _synth(args)
    return _sample(home, args)


def _synth(args: argparse.Namespace) -> int:
    from corpus.synthetic import build_synthetic_benchmark

    if args.base_docs < 1:
        print("accessbench: error: --base-docs must be at least 1", file=sys.stderr)
        return 2
    started = time.monotonic()
    manifest = build_synthetic_benchmark(Path(args.out), seed=args.seed, base_docs=args.base_docs,
                                         criteria=args.criteria)
    print(f"wrote {manifest} in {time.monotonic() - started:.1f} s; evaluate it with: "
          f"accessbench run --dataset {args.out}")
    return 0


def _sample(home: Path, args: argparse.Namespace) -> int:
    from corpus.sampling import load_metadata, sample, write_sample_manifest
    from corpus.screening import screen_folder
    from tasks.engine.context import new_run_id
    from warehouse.store import ArtifactStore
    from warehouse.tables import SAMPLES_SCHEMA, SCREENING_SCHEMA

    folder = Path(args.pdfs).resolve()  # relative to where the user stands, once
    if not folder.is_dir():
        print(f"accessbench: error: {folder} is not a folder of PDFs", file=sys.stderr)
        return 3
    started = time.monotonic()
    screened = screen_folder(folder, workers=args.workers, follow_symlinks=args.follow_symlinks)
    seconds = time.monotonic() - started
    try:
        metadata = load_metadata(args.metadata) if args.metadata else []
        rows = sample(screened, metadata, per_criterion=args.per_criterion, seed=args.seed,
                      min_prior_score=args.min_prior_score, criteria=args.criteria)
    except (ValueError, OSError) as exc:
        print(f"accessbench: error: {exc}", file=sys.stderr)
        return 2
    sample_id = "sample-" + new_run_id()
    store = ArtifactStore(home)
    store.write_table("sample", sample_id, "sample_screening", [{"run_id": sample_id, **r} for r in screened],
                      _with_run(SCREENING_SCHEMA))
    store.write_table("sample", sample_id, "samples", [{"run_id": sample_id, **r} for r in rows],
                      _with_run(SAMPLES_SCHEMA))
    out = Path(args.out) if args.out else home / "samples" / sample_id
    manifest = write_sample_manifest(rows, folder, out)
    bad = sum(1 for r in screened if r.get("error"))
    print(f"screened {len(screened)} PDFs in {seconds:.1f} s ({len(screened) / max(seconds, 1e-9):.0f}/s, "
          f"{bad} unreadable); sampled {len(rows)} items -> {manifest}\n"
          f"query: accessbench sql \"select * from samples where run_id='{sample_id}'\"")
    return 0


def _with_run(schema: Any) -> Any:
    from warehouse.tables import with_run_id

    return with_run_id(schema)
