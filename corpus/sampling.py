"""Corpus sampling, the paper's first stage: from a screened PDF collection plus bibliographic
metadata, choose documents per criterion for experts (or judges) to label.

For each criterion only documents with what it evaluates are eligible (figures for alt text,
tables for table structure, links for hyperlinks, a tag tree for semantic tagging, text for
the rest). Eligible documents are stratified by field of study and drawn round-robin across
fields, so no field dominates. Within a field, documents are drawn by weighted sampling
without replacement: the weight grows with the square root of the citation count, so highly
cited papers are preferred without the most cited few taking every slot; without citations
the draw is uniform. Reading order prefers two-column layouts (harder) before others. Every
choice is seeded.

The manifest written for a sample uses the upstream layout, but nobody has labelled the
documents yet: items sit under the label key ``to_label`` (:data:`UNLABELLED`), which a loader
must read as "expected label unknown".
"""

from __future__ import annotations

import csv
import json
import math
import os
import random
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from corpus.screening import screen_folder, screen_pdf, screening_table
from judges.criteria import SPECS
from warehouse.tables import SAMPLES_SCHEMA, SCREENING_SCHEMA

# Screening is re-exported so the whole stage has one import site.
__all__ = ["METADATA_FIELDS", "SAMPLES_SCHEMA", "SCREENING_SCHEMA", "UNLABELLED", "load_metadata", "sample",
           "samples_table", "screen_folder", "screen_pdf", "screening_table", "write_sample_manifest"]

METADATA_FIELDS = ("id", "title", "field", "year", "citations", "prior_score")
UNKNOWN_FIELD = "unknown"
UNLABELLED = "to_label"

Row = dict[str, Any]


def _has(feature: str) -> Callable[[Row], bool]:
    """Whether a screened document has `feature` (a count above zero, or a true flag)."""
    return lambda row: bool(row.get(feature))


# Each criterion's spec (judges.criteria) names the screening feature that makes a document eligible for it,
# and the one that makes it preferred.
ELIGIBLE: dict[str, Callable[[Row], bool]] = {spec.name: _has(spec.sample_when) for spec in SPECS}
PREFERRED: dict[str, Callable[[Row], bool]] = {spec.name: _has(spec.sample_prefers) for spec in SPECS
                                               if spec.sample_prefers}


# --------------------------------------------------------------------------- metadata


def load_metadata(path: Path | str) -> list[Row]:
    """Metadata rows from CSV (header row) or JSON Lines, normalised to :data:`METADATA_FIELDS`.

    ``id`` must match the PDF's file stem. Empty values become None; a non-numeric year,
    citation count or prior score is an error that names the line to fix.
    """
    path = Path(path)
    if path.suffix.lower() == ".csv":
        with path.open(newline="", encoding="utf-8") as handle:
            raw = list(csv.DictReader(handle))
        start = 2  # line 1 is the header
    elif path.suffix.lower() in {".jsonl", ".ndjson"}:
        lines = path.read_text(encoding="utf-8").splitlines()
        raw = [json.loads(line) for line in lines if line.strip()]
        start = 1
    else:
        raise ValueError(f"{path}: metadata must be .csv or .jsonl")
    return [_normalise(record, f"{path}:{n}") for n, record in enumerate(raw, start=start)]


def _normalise(record: dict[str, Any], where: str) -> Row:
    if not str(record.get("id") or "").strip():
        raise ValueError(f"{where}: missing id (it must equal the PDF file name without .pdf)")

    def number(key: str, kind: Callable[[Any], Any]) -> Any:
        value = record.get(key)
        if value is None or str(value).strip() == "":
            return None
        try:
            return kind(float(value)) if kind is int else kind(value)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: {key}={value!r} is not a number") from None

    return {
        "id": str(record["id"]).strip(),
        "title": (str(record.get("title") or "").strip() or None),
        "field": (str(record.get("field") or "").strip() or None),
        "year": number("year", int),
        "citations": number("citations", int),
        "prior_score": number("prior_score", float),
    }


# --------------------------------------------------------------------------- sampling


def sample(screened_rows: Iterable[Row], metadata_rows: Iterable[Row], *, per_criterion: int, seed: int,
           min_prior_score: float | None = None, criteria: Sequence[str] | None = None) -> list[Row]:
    """Up to ``per_criterion`` documents per criterion, stratified by field; rows fit :data:`SAMPLES_SCHEMA`.

    Rows with a screening error are skipped. With ``min_prior_score``, only documents whose
    metadata has a prior accessibility score at or above it are eligible.
    """
    if per_criterion < 1:
        raise ValueError("per_criterion must be at least 1")
    chosen = list(criteria) if criteria is not None else list(ELIGIBLE)
    unknown = [c for c in chosen if c not in ELIGIBLE]
    if unknown:
        raise ValueError(f"unknown criteria {unknown}; choose from {list(ELIGIBLE)}")
    meta = {m["id"]: m for m in metadata_rows}
    docs = [_joined(r, meta.get(r["doc_id"], {})) for r in screened_rows if not r.get("error")]
    if min_prior_score is not None:
        docs = [d for d in docs if d["prior_score"] is not None and d["prior_score"] >= min_prior_score]
    out: list[Row] = []
    for criterion in chosen:
        rng = random.Random(f"accessbench-sample:{seed}:{criterion}")
        eligible = [d for d in docs if ELIGIBLE[criterion](d["screen"])]
        picked = _round_robin(_by_field(eligible, rng, PREFERRED.get(criterion)), per_criterion)
        out.extend(_sample_row(criterion, rank, doc, seed) for rank, doc in enumerate(picked, start=1))
    return out


def _joined(screen: Row, meta: Row) -> Row:
    return {"screen": screen, "doc_id": screen["doc_id"], "path": screen["path"],
            "field": meta.get("field") or UNKNOWN_FIELD, "title": meta.get("title"), "year": meta.get("year"),
            "citations": meta.get("citations"), "prior_score": meta.get("prior_score")}


def _by_field(docs: list[Row], rng: random.Random, preferred: Callable[[Row], bool] | None) -> list[list[Row]]:
    """Per field (in a seeded order), its documents in draw order."""
    fields: dict[str, list[Row]] = {}
    for doc in sorted(docs, key=lambda d: d["doc_id"]):  # input order must not matter
        fields.setdefault(doc["field"], []).append(doc)
    names = sorted(fields)
    rng.shuffle(names)
    return [_draw_order(fields[name], rng, preferred) for name in names]


def _draw_order(docs: list[Row], rng: random.Random, preferred: Callable[[Row], bool] | None) -> list[Row]:
    """Weighted sampling without replacement (Efraimidis-Spirakis keys u^(1/w)), preferred tier first."""
    def key(doc: Row) -> tuple[bool, float]:
        weight = math.sqrt(1 + max(0, doc["citations"] or 0))
        tier = preferred is not None and not preferred(doc["screen"])
        return tier, -(rng.random() ** (1 / weight))

    keys = {doc["doc_id"]: key(doc) for doc in docs}
    return sorted(docs, key=lambda d: keys[d["doc_id"]])


def _round_robin(queues: list[list[Row]], limit: int) -> list[Row]:
    picked: list[Row] = []
    depth = 0
    while len(picked) < limit and any(depth < len(q) for q in queues):
        for queue in queues:
            if depth < len(queue) and len(picked) < limit:
                picked.append(queue[depth])
        depth += 1
    return picked


def _sample_row(criterion: str, rank: int, doc: Row, seed: int) -> Row:
    return {"criterion": criterion, "rank": rank, "doc_id": doc["doc_id"], "path": doc["path"],
            "field": doc["field"], "title": doc["title"], "year": doc["year"], "citations": doc["citations"],
            "prior_score": doc["prior_score"], "two_column": doc["screen"].get("two_column"), "seed": seed}


# --------------------------------------------------------------------------- manifest


def write_sample_manifest(samples: Sequence[Row], pdf_root: Path | str, out_dir: Path | str) -> Path:
    """Write ``out_dir/data/dataset.json`` (upstream layout, label key ``to_label``) and the PDFs.

    Each sampled PDF is placed once under ``data/pdfs/<doc_id>.pdf`` (a hard link where the
    file system allows, else a copy: dataset loaders refuse paths that leave the dataset root,
    so a symlink would not do). ``path`` in a sample is taken relative to ``pdf_root`` unless
    it is absolute.
    """
    out_dir, pdf_root = Path(out_dir), Path(pdf_root)
    tasks: dict[str, dict[str, list[Row]]] = {}
    for row in sorted(samples, key=lambda r: (r["criterion"], r["rank"])):
        rel = f"data/pdfs/{row['doc_id']}.pdf"
        _place(pdf_root / row["path"], out_dir / rel)
        item = {"openalex_id": row["doc_id"], "title": row.get("title"), "year": row.get("year"),
                "type": "sampled", "pdf_path": rel, "input_pdfs": [], "field": row["field"],
                "citations": row.get("citations"), "rank": row["rank"]}
        tasks.setdefault(row["criterion"], {UNLABELLED: []})[UNLABELLED].append(item)
    seeds = sorted({row["seed"] for row in samples})
    manifest = {"name": "AccessBench-Sample", "version": "1", "split": "sample", "seed": seeds[0] if seeds else None,
                "labels": "unknown: items under tasks.<criterion>.to_label await labelling", "tasks": tasks}
    path = out_dir / "data" / "dataset.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _place(source: Path, target: Path) -> None:
    if target.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:  # another file system, or links not allowed
        shutil.copy2(source, target)


def samples_table(rows: list[Row]) -> pa.Table:
    """Sample rows as an Arrow table; raises if a row does not fit :data:`SAMPLES_SCHEMA`."""
    return pa.Table.from_pylist(rows, schema=SAMPLES_SCHEMA)
