"""Corpus stage: the `documents` table from the synthetic default, a dataset, or a PDF folder."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from common.filenames import readable_name, stored_name
from corpus.manifest import (
    DOCUMENTS_SCHEMA,
    LABEL_CONFLICT,
    MANIFEST,
    CorpusError,
    FileLimits,
    label_conflict_message,
    label_conflicts,
    load_dataset,
    load_pdf_folder,
    walk_files,
)
from corpus.unreadable import FILE_NOTE
from tasks.context import RunConfig
from tasks.options import stage_keys
from tasks.runner import Stage, StageIO
from warehouse.catalog import TableSpec


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


def corpus_body(io: StageIO) -> dict[str, list[dict[str, Any]]]:
    cfg = io.cfg
    root = source_root(cfg)
    limits = FileLimits(max_bytes=int(cfg.max_file_mb * 2**20), max_pages=cfg.max_pages,
                        max_stream_bytes=int(cfg.max_stream_mb * 2**20))
    if cfg.source == "pdfs":
        rows = load_pdf_folder(root, cfg.run_id, cfg.criteria, follow_symlinks=cfg.follow_symlinks, limits=limits)
    else:
        rows = load_dataset(root, cfg.run_id, cfg.criteria, source=cfg.source, limits=limits)
    if not rows:
        raise CorpusError(f"{root} has no items for criteria {', '.join(cfg.criteria)}")
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
    return {"documents": rows}


DOCUMENTS = TableSpec("documents", "corpus", DOCUMENTS_SCHEMA)


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

CORPUS = Stage(
    name="corpus",
    upstream=(),
    config_keys=stage_keys("corpus", "source", "source_path"),
    tables=(DOCUMENTS,),
    body=corpus_body,
    code=("corpus", "common"),
    reusable=False,
    external_inputs=_tree_digest,
    validate=check_corpus,
)
