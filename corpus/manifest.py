"""Corpus sources → `documents` rows: the upstream dataset layout and a folder of PDFs.

The upstream layout is `data/dataset.json` with `tasks.<criterion>.<label>` → items; the
synthetic generator writes the same layout, so one loader reads both. Manifest compliance
fields, paths and PDF metadata are kept for provenance in `metadata`; the evidence stages never
pass them to a judge.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from extractors.errors import open_mupdf, scrub_paths
from judges.criteria import CRITERIA
from judges.labels import Label, parse_label

DOCUMENTS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("expected_label", pa.string()),
        pa.field("base_doc", pa.string()),
        pa.field("files", pa.list_(pa.string())),  # relative to `root`, as the manifest lists them
        pa.field("root", pa.string()),
        pa.field("pages", pa.int32()),
        pa.field("sha256", pa.string()),
        pa.field("source", pa.string()),  # dataset|pdfs|synthetic
        pa.field("title", pa.string()),
        pa.field("metadata", pa.string()),  # JSON: manifest fields (provenance only)
        pa.field("pdf_metadata", pa.string()),  # JSON: producer, dates (provenance only)
        pa.field("error", pa.string()),
    ]
)

MANIFEST = Path("data") / "dataset.json"


class CorpusError(ValueError):
    """The corpus source itself is unusable (not one document: the whole input)."""


def doc_id_for(criterion: str, relpath: str) -> str:
    # Neutral and stable: hides the label folder that the manifest path contains.
    return "d" + hashlib.sha1(os.fsencode(f"{criterion}\0{relpath}")).hexdigest()[:11]  # names may not be UTF-8


def load_dataset(root: Path, run_id: str, criteria: Sequence[str] | None = None,
                 source: str = "dataset") -> list[dict[str, Any]]:
    """Rows for every item of an upstream-layout dataset (one per criterion × label × item)."""
    root = Path(root).resolve()
    manifest = root / MANIFEST
    if not manifest.exists():
        raise CorpusError(f"{root} has no {MANIFEST}; point --dataset at the folder that contains data/dataset.json")
    try:
        data = json.loads(manifest.read_text())
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{manifest} is not valid JSON ({exc}); fix or regenerate the manifest") from exc
    tasks = data.get("tasks")
    if not isinstance(tasks, dict):
        raise CorpusError(f"{manifest} has no 'tasks' object (expected tasks.<criterion>.<label> → items)")
    wanted = list(criteria) if criteria else list(CRITERIA)
    rows = []
    for criterion in wanted:
        labels = tasks.get(criterion) or {}
        if not isinstance(labels, dict):
            raise CorpusError(f"{manifest}: tasks.{criterion} must be an object mapping labels to item lists, "
                              f"not {type(labels).__name__}")
        for label_name, items in labels.items():
            if not isinstance(items, list):
                raise CorpusError(f"{manifest}: tasks.{criterion}.{label_name} must be a list of items, "
                                  f"not {type(items).__name__}")
            label = _expected(label_name)
            for number, item in enumerate(items):
                if not isinstance(item, dict):
                    item = {"id": f"{label_name}-{number}", "invalid_item": repr(item)[:200]}
                rows.append(_item_row(root, run_id, criterion, label, item, source))
    return rows


def _expected(label_name: str) -> Label | None:
    """The label a manifest key names; other keys (e.g. a sample's `to_label`) mean unlabelled."""
    try:
        return parse_label(label_name)
    except ValueError:
        return None


def _item_row(root: Path, run_id: str, criterion: str, label: Label | None, item: dict[str, Any],
              source: str) -> dict[str, Any]:
    base = str(item.get("openalex_id") or item.get("id") or Path(str(item.get("pdf_path", "?"))).stem)
    listed = [str(item["pdf_path"])] if item.get("pdf_path") else []
    row: dict[str, Any] = {
        "run_id": run_id,
        "doc_id": doc_id_for(criterion, listed[0] if listed else f"{label}/{base}"),
        "criterion": criterion,
        "expected_label": label.value if label else None,
        "base_doc": base,
        "root": str(root),
        "source": source,
        "title": item.get("title"),
        "metadata": json.dumps(item, sort_keys=True, default=readable_name),
    }
    try:
        files = _resolve_files(root, item)
    except CorpusError as exc:
        return {**row, "files": listed, "error": str(exc)}
    except (TypeError, ValueError) as exc:  # not a string, a NUL byte, …: this item's problem only
        return {**row, "files": [], "error": f"manifest item {base!r}: pdf_path and input_pdfs must be relative "
                                             f"path strings inside the dataset ({type(exc).__name__}: {exc})"}
    return {**row, **describe_files(root, files)}


def _inside(root: Path, rel: str) -> Path:
    path = (root / rel).resolve()
    if not path.is_relative_to(root):
        raise CorpusError(f"manifest path {rel!r} escapes the dataset root; refusing to read it")
    return path


def _resolve_files(root: Path, item: dict[str, Any]) -> list[str]:
    """The processed PDF, else the item's per-page PDFs that exist."""
    if "invalid_item" in item:
        raise CorpusError(f"manifest item {item['invalid_item']} is not an object with a pdf_path")
    primary = item.get("pdf_path")
    if primary is not None and not isinstance(primary, str):
        raise TypeError(f"pdf_path is {type(primary).__name__}")
    if primary and _inside(root, primary).is_file():
        return [primary]
    pages = [p for p in item.get("input_pdfs") or [] if _inside(root, p).is_file()]
    if pages:
        return pages
    raise CorpusError(
        f"no PDF found for item (pdf_path={primary!r}, {len(item.get('input_pdfs') or [])} page PDFs listed); "
        "check the dataset folder is complete"
    )


def readable_name(name: object) -> str:
    """A file name for display and JSON: bytes that are not UTF-8 shown as \\xNN escapes."""
    return os.fsencode(str(name)).decode("utf-8", "backslashreplace")


def describe_files(root: Path, files: list[str]) -> dict[str, Any]:
    """Page count, content hash and PDF metadata of a document made of one or more files."""
    digest = hashlib.sha256()
    pages = 0
    repaired = False
    metadata: list[dict[str, Any]] = []
    try:
        for rel in files:
            path = root / rel
            digest.update(hashlib.sha256(path.read_bytes()).digest())
            with open_mupdf(path) as pdf:
                if pdf.needs_pass:
                    raise CorpusError(f"{rel} is encrypted; supply a decrypted copy")
                pages += pdf.page_count
                repaired = repaired or pdf.is_repaired
                metadata.append({k: v for k, v in (pdf.metadata or {}).items() if v})
    except CorpusError as exc:
        return {"files": files, "error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - any parser failure is this document's error row
        return {"files": files, "error": scrub_paths(f"unreadable PDF ({type(exc).__name__}: {exc}); replace or remove "
                                                     "the file")}
    return {
        "files": files,
        "pages": pages,
        "sha256": digest.hexdigest(),
        "pdf_metadata": json.dumps(metadata, sort_keys=True, default=str),
        "error": None if pages else ("the file is damaged beyond repair: no page could be recovered; re-export it"
                                     if repaired else "the PDF has no pages; re-export it from its source document"),
    }


def load_pdf_folder(folder: Path, run_id: str, criteria: Sequence[str]) -> list[dict[str, Any]]:
    """Unlabelled PDFs: one row per (file, criterion), expected label null."""
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise CorpusError(f"{folder} is not a folder of PDFs")
    pdfs = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.suffix.lower() == ".pdf")
    if not pdfs:
        raise CorpusError(f"no .pdf files under {folder}")
    rows = []
    for rel in pdfs:
        described = describe_files(folder, [rel])
        for criterion in criteria:
            rows.append({
                "run_id": run_id,
                "doc_id": doc_id_for(criterion, rel),
                "criterion": criterion,
                "expected_label": None,
                "base_doc": Path(rel).stem,
                "root": str(folder),
                "source": "pdfs",
                "title": None,
                "metadata": json.dumps({"path": readable_name(rel)}),
                **described,
            })
    return rows
