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
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common.filenames import readable_name
from corpus.dataset_layout import MANIFEST as MANIFEST  # declared where the CLI reads it without PyMuPDF
from corpus.unreadable import unreadable_reason
from extractors.errors import scrub_paths
from extractors.stream_limits import DEFAULT_MAX_STREAM_MB, StreamLimitError, StreamLimits
from judges.criteria import CRITERIA
from judges.labels import Label, parse_label

if TYPE_CHECKING:  # imported where a PDF is opened (`open_pdf_data`): in the run's workers, never its own process
    import pymupdf


class CorpusError(ValueError):
    """The corpus source itself is unusable (not one document: the whole input)."""


class FileRefused(ValueError):
    """One input file is not read: over a limit, not a regular file, or a symlink out of the folder."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # limit | skipped


@dataclass(frozen=True)
class FileLimits:
    """What one document may cost before it is refused with a `limit` error row."""

    max_bytes: int = 512 * 2**20
    max_pages: int = 2000
    max_stream_bytes: int = int(DEFAULT_MAX_STREAM_MB * 2**20)  # decoded size of one stream (extractors.streams)


_CHUNK = 1 << 20

# What a loader hands the PDF reading to: (root, each document's files, limits, follow_symlinks) → each
# document's `describe_files` result, in order. The corpus stage describes in its worker processes
# (`tasks.benchmark.corpus`), so that the run's own process never parses a PDF; `describe_each` reads here.
Describe = Callable[[Path, Sequence[Sequence[str]], FileLimits, bool], list[dict[str, Any]]]


def describe_each(root: Path, documents: Sequence[Sequence[str]], limits: FileLimits,
                  follow_symlinks: bool) -> list[dict[str, Any]]:
    """`describe_files` for each document's files, one after another in this process."""
    return [describe_files(root, list(files), limits, follow_symlinks=follow_symlinks) for files in documents]


def open_pdf_data(data: bytes) -> pymupdf.Document:
    """The one way the corpus opens a PDF's bytes: the corpus stage of `run --pdfs` / `--dataset`
    (`describe_files`) and `corpus sample` (`corpus.screening.screen_pdf`) alike.

    PyMuPDF, as a PDF whatever the file's name; damaged cross-reference data (a broken or missing
    xref table, truncation, bad offsets) is rebuilt on open (`is_repaired`). What a caller then reads of
    a repaired file must skip the objects that are still broken, as the pipeline's extractors do.
    """
    import pymupdf

    return pymupdf.open(stream=data, filetype="pdf")


def read_bounded(path: Path, max_bytes: int, *, follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file `path`, refusing FIFOs, devices and files over `max_bytes`.

    Opened non-blocking and checked with fstat on the open descriptor, so a FIFO named x.pdf never
    blocks and a symlink to /dev/zero is never read; at most `max_bytes` + 1 bytes are read even
    if the file grows while it is read.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_symlinks else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise FileRefused("skipped", f"cannot open the file ({exc.strerror}); check it exists and is readable") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused("skipped", "not a regular file (a FIFO, device, socket or folder named .pdf); "
                                         "skipped: copy the PDF into the folder as a plain file")
        if info.st_size > max_bytes:
            raise FileRefused("limit", _too_big(info.st_size, max_bytes))
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while total <= max_bytes:
            chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise FileRefused("limit", _too_big(total, max_bytes))
        return b"".join(chunks)
    finally:
        os.close(fd)


def _too_big(size: int, max_bytes: int) -> str:
    return (f"limit: the file is larger than the {max_bytes / 2**20:.0f} MiB limit ({size / 2**20:.0f} MiB or more); "
            "raise it with accessbench run --max-file-mb N if you trust the file")


def walk_files(root: Path) -> Iterator[Path]:
    """Every entry under `root` that is not a folder, without descending into symlinked folders."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        base = Path(folder)
        yield from (base / name for name in files)
        # os.walk lists a symlink to a folder among dirs; it is an entry too (checked by the caller).
        yield from (base / name for name in dirs if (base / name).is_symlink())


def doc_id_for(criterion: str, relpath: str) -> str:
    # Neutral and stable: hides the label folder that the manifest path contains.
    return "d" + hashlib.sha1(os.fsencode(f"{criterion}\0{relpath}")).hexdigest()[:11]  # names may not be UTF-8


def read_manifest(root: Path) -> dict[str, Any]:
    """The dataset's manifest (data/dataset.json) as an object; CorpusError when it is missing or unreadable."""
    manifest = Path(root).resolve() / MANIFEST
    if not manifest.exists():
        raise CorpusError(f"{root} has no {MANIFEST}; point --dataset at the folder that contains data/dataset.json")
    try:
        data = json.loads(manifest.read_text())
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{manifest} is not valid JSON ({exc}); fix or regenerate the manifest") from exc
    if not isinstance(data, dict):
        raise CorpusError(f"{manifest} is not a JSON object")
    return data


def load_dataset(root: Path, run_id: str, criteria: Sequence[str] | None = None,
                 source: str = "dataset", limits: FileLimits | None = None, *, limit: int | None = None,
                 sample: int | None = None, seed: int = 0, describe: Describe = describe_each) -> list[dict[str, Any]]:
    """Rows for every item of an upstream-layout dataset (one per criterion × label × item), or for `limit` /
    `sample` of them chosen per (criterion, label) by `corpus.item_set.select`."""
    from corpus.item_set import select

    root = Path(root).resolve()
    manifest = root / MANIFEST
    data = read_manifest(root)
    tasks = data.get("tasks")
    if not isinstance(tasks, dict):
        raise CorpusError(f"{manifest} has no 'tasks' object (expected tasks.<criterion>.<label> → items)")
    wanted = list(criteria) if criteria else list(CRITERIA)
    entries = []
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
                entries.append((criterion, label, item))
    chosen = select(entries, lambda e: (e[0], e[1]), limit=limit, sample=sample, seed=seed)
    rows = [_item_row(root, run_id, criterion, label, item, source) for criterion, label, item in chosen]
    # Each distinct set of files is read once, however many criteria and labels list it.
    wanted_files = list(dict.fromkeys(tuple(row["files"]) for row in rows if "error" not in row))
    described = dict(zip(wanted_files, describe(root, wanted_files, limits or FileLimits(), True), strict=True))
    return [row if "error" in row else {**row, **described[tuple(row["files"])]} for row in rows]


def dataset_items(root: Path, criteria: Sequence[str] | None = None) -> int:
    """How many items the dataset's manifest lists for `criteria` (all criteria: None)."""
    tasks = read_manifest(root).get("tasks") or {}
    wanted = list(criteria) if criteria else list(CRITERIA)
    return sum(len(items) for c in wanted if isinstance(tasks.get(c), dict)
               for items in tasks[c].values() if isinstance(items, list))


LABEL_CONFLICT = "label_conflict"  # the error kind (a warning) of a document in a label conflict


def label_conflicts(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Byte-identical documents that the benchmark labels differently for the same criterion.

    One entry per conflict: the criterion, the content hash, and each document as (doc_id, its files,
    its expected label), sorted by file. Identical bytes give every judge the same evidence, so at most
    one of the labels can be right: the benchmark's manifest needs fixing, and its accuracy counts one
    of the two as wrong whatever a judge says.

    Cannot Tell items are left out: the benchmark makes them from unmodified documents, often the very
    bytes of another label's file, and withholds the evidence at evaluation time (DESIGN.md), so their
    bytes are meant to equal another item's.
    """
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("error") or not row.get("sha256") or row.get("expected_label") in (None, Label.CANNOT_TELL.value):
            continue
        groups.setdefault((row["criterion"], row["sha256"]), []).append(row)
    conflicts = []
    for (criterion, sha256), members in sorted(groups.items()):
        if len({row["expected_label"] for row in members}) < 2:
            continue
        docs = sorted(((row["doc_id"], [readable_name(f) for f in row.get("files") or []], row["expected_label"])
                       for row in members), key=lambda doc: (doc[1], doc[0]))
        conflicts.append({"criterion": criterion, "sha256": sha256, "documents": docs})
    return conflicts


def label_conflict_message(conflict: dict[str, Any]) -> str:
    """One line naming the files, their labels and the criterion, and what to do."""
    files = " and ".join(f"{', '.join(files) or doc_id} ({label})" for doc_id, files, label in conflict["documents"])
    return (f"{files} are byte-identical (sha256 {conflict['sha256'][:12]}) but carry different expected labels for "
            f"{conflict['criterion']}: at most one label can be right; fix the dataset's {MANIFEST}")


def _expected(label_name: str) -> Label | None:
    """The label a manifest key names; other keys (e.g. a sample's `to_label`) mean unlabelled."""
    try:
        return parse_label(label_name)
    except ValueError:
        return None


def _item_row(root: Path, run_id: str, criterion: str, label: Label | None, item: dict[str, Any],
              source: str) -> dict[str, Any]:
    """An item's row, with its files (to describe) or its error (nothing to describe)."""
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
        return {**row, "files": listed, "error": str(exc), "error_kind": "corpus"}
    except (TypeError, ValueError) as exc:  # not a string, a NUL byte, …: this item's problem only
        return {**row, "files": [], "error_kind": "corpus",
                "error": f"manifest item {base!r}: pdf_path and input_pdfs must be relative path strings inside "
                         f"the dataset ({type(exc).__name__}: {exc})"}
    return {**row, "files": files}


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


def describe_job(job: tuple[Path, list[str], FileLimits | None, bool]) -> dict[str, Any]:
    """`describe_files` of one (root, files, limits, follow_symlinks) job, as a worker process runs it."""
    root, files, limits, follow_symlinks = job
    return describe_files(root, files, limits, follow_symlinks=follow_symlinks)


def describe_files(root: Path, files: list[str], limits: FileLimits | None = None, *,
                   follow_symlinks: bool = True) -> dict[str, Any]:
    """Page count, content hash and PDF metadata of a document made of one or more files."""
    from extractors.streams import check_pdf_bytes

    limits = limits or FileLimits()
    digest = hashlib.sha256()
    pages = 0
    repaired = False
    metadata: list[dict[str, Any]] = []
    data = b""
    try:
        for rel in files:
            data = read_bounded(root / rel, limits.max_bytes, follow_symlinks=follow_symlinks)
            digest.update(hashlib.sha256(data).digest())
            with open_pdf_data(data) as pdf:
                if pdf.needs_pass:
                    raise CorpusError(f"{rel} is encrypted; supply a decrypted copy")
                pages += pdf.page_count
                repaired = repaired or pdf.is_repaired
                metadata.append({k: v for k, v in (pdf.metadata or {}).items() if v})
            if pages > limits.max_pages:
                raise FileRefused("limit", f"limit: the document has more than {limits.max_pages} pages; raise it "
                                           "with accessbench run --max-pages N")
            # Decompression and form bombs are refused here, before any extractor decodes a stream.
            check_pdf_bytes(data, StreamLimits(max_stream_bytes=limits.max_stream_bytes))
    except StreamLimitError as exc:
        return {"files": files, "error": str(exc), "error_kind": "limit"}
    except FileRefused as exc:
        return {"files": files, "error": str(exc), "error_kind": exc.kind}
    except CorpusError as exc:
        return {"files": files, "error": str(exc), "error_kind": "corpus"}
    except Exception as exc:  # noqa: BLE001 - any parser failure is this document's error row
        what = "" if isinstance(exc, OSError) else f"{unreadable_reason(data)}: "  # said first: the verdict's reason
        return {"files": files, "error_kind": "corpus",
                "error": scrub_paths(f"{what}unreadable PDF ({type(exc).__name__}: {exc}); replace or remove the file")}
    return {
        "files": files,
        "pages": pages,
        "sha256": digest.hexdigest(),
        "pdf_metadata": json.dumps(metadata, sort_keys=True, default=str),
        "error": None if pages else ("the file is damaged beyond repair: no page could be recovered; re-export it"
                                     if repaired else "the PDF has no pages; re-export it from its source document"),
        "error_kind": None if pages else "corpus",
    }


class InputChanged(CorpusError):
    """A document's file is not what the corpus stage read (edited, replaced, or swapped for a symlink)."""

    kind = "corpus"
    transient = False


def file_sha256(path: Path) -> str:
    """The sha256 of a regular file, read in chunks (never a FIFO or device: refused as FileRefused)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FileRefused("skipped", "not a regular file any more")
        digest = hashlib.sha256()
        while chunk := os.read(fd, _CHUNK):
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)


def verify_files(paths: Sequence[Path], recorded: str | None) -> list[Path]:
    """`paths`, once their content is checked against the sha256 the corpus stage recorded for them
    (as `describe_files` computes it); raises InputChanged naming what changed. No record: no check."""
    if not recorded:
        return list(paths)
    digest = hashlib.sha256()
    for path in paths:
        link = f" (now a symlink to {path.resolve()})" if path.is_symlink() else ""
        try:
            digest.update(bytes.fromhex(file_sha256(path)))
        except (OSError, FileRefused) as exc:
            raise InputChanged(f"{readable_name(path.name)} changed after the corpus stage{link}: it cannot be read "
                               f"now ({getattr(exc, 'strerror', None) or exc}); restore it, or rerun the corpus stage "
                               "(accessbench rerun --run RUN --stage corpus --downstream)") from None
        if link and digest.hexdigest() != recorded:
            break
    if digest.hexdigest() != recorded:
        names = ", ".join(readable_name(p.name) for p in paths)
        links = [f"{readable_name(p.name)} is now a symlink to {p.resolve()}" for p in paths if p.is_symlink()]
        raise InputChanged(f"{names} changed after the corpus stage (its sha256 is not the recorded "
                           f"{recorded[:12]}…{'; ' + '; '.join(links) if links else ''}); not read: restore the file, "
                           "or rerun the corpus stage (accessbench rerun --run RUN --stage corpus --downstream)")
    return list(paths)


def _outside_link(folder: Path, rel: str) -> str | None:
    """Why `rel` is skipped when it is a symlink (or under one) that leaves `folder`, else None."""
    try:
        target = (folder / rel).resolve()
    except (RuntimeError, OSError):  # Python 3.11 says RuntimeError for a loop, later ones OSError
        return "skipped: a symlink loop (the link points, through other links, back to itself); remove it"
    if target.is_relative_to(folder):
        return None
    return "skipped: a symlink to a file outside the folder; pass --follow-symlinks to read what symlinks point to"


def load_pdf_folder(folder: Path, run_id: str, criteria: Sequence[str], *, follow_symlinks: bool = False,
                    limits: FileLimits | None = None, describe: Describe = describe_each) -> list[dict[str, Any]]:
    """Unlabelled PDFs: one row per (file, criterion), expected label null.

    Symlinks that leave the folder are skipped with an error row unless `follow_symlinks`;
    FIFOs, devices and other non-regular files are skipped with an error row; files over
    `limits` get a `limit` error row.
    """
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise CorpusError(f"{folder} is not a folder of PDFs")
    pdfs = sorted(p.relative_to(folder).as_posix() for p in walk_files(folder) if p.suffix.lower() == ".pdf")
    if not pdfs:
        raise CorpusError(f"no .pdf files under {folder}")
    outside = {rel: None if follow_symlinks else _outside_link(folder, rel) for rel in pdfs}
    inside = [rel for rel in pdfs if not outside[rel]]
    read = dict(zip(inside, describe(folder, [[rel] for rel in inside], limits or FileLimits(), True), strict=True))
    rows = []
    for rel in pdfs:
        described = read.get(rel) or {"files": [rel], "error": outside[rel], "error_kind": "skipped"}
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
