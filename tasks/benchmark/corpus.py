"""Corpus stage: the `documents` table from the synthetic default, a dataset, or a PDF folder."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common.filenames import readable_name, stored_name
from corpus.item_set import SCREENING, label_of, selection_text
from corpus.manifest import (
    LABEL_CONFLICT,
    MANIFEST,
    CorpusError,
    FileLimits,
    dataset_items,
    describe_each,
    describe_job,
    label_conflict_message,
    label_conflicts,
    load_dataset,
    load_pdf_folder,
    read_manifest,
    walk_files,
)
from corpus.unreadable import FILE_NOTE
from extractors.errors import scrub_paths
from tasks.engine.failures import classify
from tasks.engine.isolation import run_isolated, shared_pool
from tasks.engine.runner import Stage, StageIO
from tasks.engine.stage_hash import stage_keys
from warehouse.tables import DOCUMENTS, ITEM_SET

if TYPE_CHECKING:  # annotations: a worker running the stage's work never loads the run's config classes
    from tasks.engine.context import RunConfig


def synthetic_root(cfg: RunConfig) -> Path:
    """Generate the embedded synthetic benchmark into the data home once per seed and size."""
    from corpus.synthetic import DATASET_VERSION, build_synthetic_benchmark

    root = cfg.home / "synthetic" / f"v{DATASET_VERSION}-seed={cfg.seed}-docs={cfg.base_docs}"
    if (root / MANIFEST).exists():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    # Build beside the target and rename, so a killed generation never leaves half a dataset.
    tmp = Path(tempfile.mkdtemp(prefix=".synthetic-", dir=root.parent))
    try:
        build_synthetic_benchmark(tmp, seed=cfg.seed, base_docs=cfg.base_docs)
        try:
            tmp.rename(root)
        except OSError:
            if not (root / MANIFEST).exists():  # else a concurrent run built the same dataset first
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return root


def source_root(cfg: RunConfig) -> Path:
    if cfg.source == "synthetic":
        return synthetic_root(cfg)
    if not cfg.source_path:
        raise CorpusError(f"source {cfg.source!r} needs a path")
    return Path(cfg.source_path).resolve()


def _tree_digest(cfg: RunConfig) -> str:
    """Cheap digest of the corpus files (names, sizes, mtimes) so an edited dataset is re-read."""
    root = source_root(cfg)
    digest = hashlib.sha256(os.fsencode(root))
    if root.is_dir():
        for path in sorted(walk_files(root)):
            if path.suffix.lower() == ".pdf" or path.name == "dataset.json":
                try:
                    stat = path.stat()  # stat never opens the file: a FIFO or device is safe here
                except OSError:
                    continue  # a dangling symlink: the corpus stage reports it
                digest.update(os.fsencode(f"{path.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}"))
    return digest.hexdigest()


def describe_in_workers(cfg: RunConfig, root: Path, documents: Sequence[Sequence[str]], limits: FileLimits,
                        follow_symlinks: bool) -> list[dict[str, Any]]:
    """`describe_files` for each document in the run's worker processes (`corpus.manifest.Describe`).

    Reading a PDF's page count and metadata parses it: a file that hangs or crashes MuPDF would take the run's
    own process with it, and PyMuPDF and pikepdf would stay loaded in it for the rest of the run (issue 56).
    The workers are the run's shared pool, which the stages after this one use; each file has --doc-timeout,
    and one over it, or over the workers' memory ceiling, is that document's error row.
    """
    jobs = [(root, list(files), limits, follow_symlinks) for files in documents]
    described: list[dict[str, Any]] = [{} for _ in jobs]
    for index, value in run_isolated(describe_job, jobs, workers=cfg.workers, timeout_s=cfg.doc_timeout_s):
        if isinstance(value, BaseException):
            failure = classify(value)
            value = {"files": jobs[index][1], "error": scrub_paths(failure.message),
                     "error_kind": failure.kind}
        described[index] = value
    return described


def corpus_body(io: StageIO) -> dict[str, list[dict[str, Any]]]:
    cfg = io.cfg
    root = source_root(cfg)
    limits = FileLimits(max_bytes=int(cfg.max_file_mb * 2**20), max_pages=cfg.max_pages,
                        max_stream_bytes=int(cfg.max_stream_mb * 2**20))
    # The run's workers read the files (they go on to the stages after this one); without a run's pool (the stage
    # called on its own, a Dask run) it reads them where it runs, as starting a pool for it alone would cost more.
    describe = partial(describe_in_workers, cfg) if cfg.runner == "local" and shared_pool() is not None \
        else describe_each
    if cfg.source == "pdfs":
        rows = load_pdf_folder(root, cfg.run_id, cfg.criteria, follow_symlinks=cfg.follow_symlinks, limits=limits,
                               describe=describe)
    else:
        rows = load_dataset(root, cfg.run_id, cfg.criteria, source=cfg.source, limits=limits, limit=cfg.limit,
                            sample=cfg.sample, seed=cfg.seed, describe=describe)
    if not rows:
        raise CorpusError(f"{root} has no items for criteria {', '.join(cfg.criteria)}")
    item_set = describe_item_set(cfg, root, rows)
    for conflict in label_conflicts(rows):
        # Said in the run's output and its Prefect log, and kept as a warning row of each document.
        message = label_conflict_message(conflict)
        print(f"warning: {message}", file=sys.stderr)
        logging.getLogger("accessbench").warning("%s", message)
        for doc_id, _, _ in conflict["documents"]:
            io.error(doc_id, LABEL_CONFLICT, message)
    for row in rows:
        named = ", ".join(readable_name(name) for name in row.get("files") or [])
        row["files"] = [stored_name(name) for name in row.get("files") or []]
        if row.get("error"):
            # The error row names the file, after the reason (said first: the screening verdict's reason).
            message = row["error"] if not named or named in row["error"] else f"{row['error']}{FILE_NOTE}{named})"
            io.error(row["doc_id"], row.get("error_kind") or "corpus", message)
    return {"documents": rows, "item_set": [item_set]}


def describe_item_set(cfg: RunConfig, root: Path, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's `item_set` row (corpus.item_set): what kind of items, from which manifest, how many."""
    if cfg.source == "pdfs":
        files = len({tuple(r.get("files") or [r["doc_id"]]) for r in rows})
        return {"run_id": cfg.run_id, "kind": SCREENING, "name": None, "split": None, "items": files,
                "of_items": files, "selection": "", "label": label_of(SCREENING, None, None, files)}
    manifest = read_manifest(root)
    kind = "synthetic" if cfg.source == "synthetic" else "dataset"
    name = str(manifest.get("name") or root.name)
    split = str(manifest["split"]) if manifest.get("split") else None
    of_items = dataset_items(root, cfg.criteria)
    selection = selection_text(cfg.limit, cfg.sample, cfg.seed)
    return {"run_id": cfg.run_id, "kind": kind, "name": name, "split": split, "items": len(rows),
            "of_items": of_items, "selection": selection,
            "label": label_of(kind, name, split, len(rows), of_items, selection,
                              seed=cfg.seed if kind == "synthetic" else None)}


def check_corpus(cfg: RunConfig) -> None:
    if cfg.source not in {"synthetic", "dataset", "pdfs"}:
        raise ValueError(f"source {cfg.source!r}: use synthetic, dataset or pdfs")
    if cfg.source != "synthetic" and not cfg.source_path:
        raise ValueError(f"source {cfg.source!r} needs a path")
    if cfg.max_file_mb <= 0 or cfg.max_pages < 1:
        raise ValueError(f"limits max_file_mb={cfg.max_file_mb}, max_pages={cfg.max_pages}: max_file_mb must be > 0 "
                         "and max_pages ≥ 1")
    if cfg.base_docs < 1:
        raise ValueError(f"base_docs {cfg.base_docs}: the synthetic benchmark needs at least 1 base document")
    if cfg.source == "pdfs" and (cfg.limit is not None or cfg.sample is not None):
        raise ValueError("limit and sample choose labelled items: use them with a dataset or the synthetic benchmark")

CORPUS = Stage(
    name="corpus",
    upstream=(),
    config_keys=stage_keys("corpus", "source", "source_path"),
    tables=(DOCUMENTS, ITEM_SET),
    body=corpus_body,
    code=("corpus", "common"),
    reusable=False,
    external_inputs=_tree_digest,
    validate=check_corpus,
    worker_imports=("corpus.manifest",),  # `describe_job`, in the run's workers (`describe_in_workers`)
)
