"""Fast screening of a PDF collection: the features the sampler needs, one row per file.

The paper's first stage picks documents that contain what each criterion evaluates (figures
for alt text, tables for table structure, ...). Screening reads only cheap evidence with
PyMuPDF: the catalog and structure-element types (no tree walk, no rendering), image and link
annotation lists, the outline, and text-block positions of the first pages. Table detection
by layout analysis is far too slow here; tables are counted from ``Table`` tags, or from
"Table N" captions when a file is untagged.

A file that cannot be read yields a row with ``error`` set; it never stops the scan.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa
import pymupdf

from common.captions import is_table_caption
from corpus.manifest import FileLimits, FileRefused, open_pdf_data, read_bounded, walk_files
from extractors.errors import scrub_paths
from warehouse.tables import SCREENING_SCHEMA

TEXT_PAGES = 6  # layout and text features come from the first pages: enough to tell, and fast
MIN_IMAGE_SIDE = 48  # smaller images are icons, rules or bullets, not figures
_BULLET = re.compile(r"^\s*([\u2022\u25e6\u25aa\u2013\u2014*-]|\(?[0-9]{1,2}[.)])\s+\S")  # on a line of a block
_HEADINGS = {"H", "H1", "H2", "H3", "H4", "H5", "H6"}
LINK_ANNOTATION = 1  # pymupdf.PDF_ANNOT_LINK; the type stubs lack the constant


def screen_pdf(path: Path | str) -> dict[str, Any]:
    """Screening features of one PDF; ``error`` says why a file could not be screened."""
    path = Path(path)
    row: dict[str, Any] = {name: None for name in SCREENING_SCHEMA.names}
    row.update(doc_id=path.stem, path=str(path))
    try:
        data = read_bounded(path, FileLimits().max_bytes)  # never a FIFO, a device or an unbounded read
    except FileRefused as exc:
        return {**row, "error": str(exc)}
    try:
        with open_pdf_data(data) as doc:  # as `run --pdfs` opens it (and repairs it)
            if doc.needs_pass:
                return {**row, "error": "encrypted: supply a decrypted copy to screen it"}
            if doc.page_count == 0:
                return {**row, "error": "the PDF has no pages"}
            row.update(_features(doc))
    except Exception as exc:  # noqa: BLE001 - any parser failure is this file's error row
        return {**row, "error": scrub_paths(f"unreadable PDF ({type(exc).__name__}: {exc})")}
    return row


def _pages(doc: pymupdf.Document, stop: int | None = None) -> Iterator[pymupdf.Page]:
    """The pages MuPDF can load: a page whose object is still broken after the repair is skipped (the
    pipeline's extractors read a damaged file the same way: what can be read, is)."""
    for number in range(doc.page_count if stop is None else min(stop, doc.page_count)):
        try:
            yield doc.load_page(number)
        except Exception:  # noqa: BLE001, S112 - a broken page object: its features are not counted
            continue


def _page_features(page: pymupdf.Page, images: set[int], fonts: dict[tuple[Any, Any], Any]) -> tuple[int, int]:
    """Links and external links of a page, its images and fonts added; (0, 0) and nothing added for a
    page whose resources or annotations MuPDF cannot parse."""
    try:
        found = {img[0] for img in page.get_images() if min(img[2], img[3]) >= MIN_IMAGE_SIDE}
        links = len([annot for annot in page.annot_xrefs() if annot[1] == LINK_ANNOTATION])
        external = len([link for link in page.get_links() if link.get("kind") == pymupdf.LINK_URI])
        page_fonts = {(f[0], f[3]): f[1] for f in page.get_fonts()}
    except Exception:  # noqa: BLE001 - a damaged page: the rest of the file is still screened
        return 0, 0
    images.update(found)
    fonts.update(page_fonts)
    return links, external


def _features(doc: pymupdf.Document) -> dict[str, Any]:
    tags = struct_type_counts(doc)
    images: set[int] = set()
    fonts: dict[tuple[Any, Any], Any] = {}
    links = external = 0
    for page in _pages(doc):
        page_links, page_external = _page_features(page, images, fonts)
        links += page_links
        external += page_external
    text = _text_features(doc)
    tagged = tags is not None and sum(tags.values()) > 0
    counts = tags or Counter()
    return {
        "pages": doc.page_count,
        "repaired": bool(doc.is_repaired),
        "tagged": tagged,
        "struct_elements": sum(counts.values()),
        "figures": len(images),
        "figure_tags": counts["Figure"],
        "tables": max(counts["Table"], text["table_captions"]),
        "headings": sum(counts[h] for h in _HEADINGS) if tagged else len(doc.get_toc(simple=True)),
        "lists": counts["L"] if tagged else text["bullet_blocks"],
        "links": links,
        "external_links": external,
        "two_column": text["two_column"],
        "fonts": len(fonts),
        "unembedded_fonts": sum(1 for ext in fonts.values() if ext == "n/a"),
        "text_chars": text["chars"],
    }


def struct_type_counts(doc: pymupdf.Document) -> Counter[str] | None:
    """Structure types (role-mapped) by scanning objects for ``/S`` with a ``/P`` parent; None if untagged.

    Walking the tree through PyMuPDF's xref API is slower than this scan, and the counts are all
    the sampler needs. Elements written as direct objects are missed; producers rarely do that.
    """
    catalog = doc.pdf_catalog()
    if doc.xref_get_key(catalog, "StructTreeRoot")[0] == "null":
        return None
    role_map = _role_map(doc.xref_get_key(catalog, "StructTreeRoot/RoleMap")[1])
    counts: Counter[str] = Counter()
    for xref in range(1, doc.xref_length()):
        try:
            kind, value = doc.xref_get_key(xref, "S")
            parent = doc.xref_get_key(xref, "P")[0]
        except Exception:  # noqa: BLE001, S112 - an object MuPDF cannot parse (a damaged file): not counted
            continue
        if kind == "name" and parent == "xref":
            counts[_resolve_role(value.lstrip("/"), role_map)] += 1
    return counts


def _role_map(source: str) -> dict[str, str]:
    return dict(re.findall(r"/([^\s/<>\[\]()]+)\s*/([^\s/<>\[\]()]+)", source or ""))


def _resolve_role(name: str, role_map: dict[str, str]) -> str:
    seen = {name}
    while name in role_map and role_map[name] not in seen:  # role maps may chain; never loop
        name = role_map[name]
        seen.add(name)
    return name


def _text_features(doc: pymupdf.Document) -> dict[str, Any]:
    """Characters, caption and bullet counts, and a two-column guess from text-block x positions."""
    chars = captions = bullets = two_column_pages = text_pages = 0
    for page in _pages(doc, TEXT_PAGES):
        try:
            blocks = [b for b in page.get_text("blocks") if b[6] == 0 and b[4].strip()]
        except Exception:  # noqa: BLE001, S112 - a page whose content MuPDF cannot read: no text counted
            continue
        chars += sum(len(b[4]) for b in blocks)
        captions += sum(1 for b in blocks if is_table_caption(b[4]))
        bullets += sum(1 for b in blocks if any(_BULLET.match(line) for line in b[4].splitlines()))
        if blocks:
            text_pages += 1
            two_column_pages += _looks_two_column(blocks, page.rect.width)
    return {"chars": chars, "table_captions": captions, "bullet_blocks": bullets,
            "two_column": text_pages > 0 and two_column_pages * 2 >= text_pages}


def _looks_two_column(blocks: list[tuple[Any, ...]], width: float) -> bool:
    """Two columns when several substantial, narrow blocks sit wholly on each side of the middle."""
    middle = width / 2
    narrow = [b for b in blocks if b[2] - b[0] < width * 0.48 and len(b[4]) > 80]
    left = sum(1 for b in narrow if b[2] <= middle + 4)
    right = sum(1 for b in narrow if b[0] >= middle - 4)
    return left >= 2 and right >= 2


def screen_folder(folder: Path | str, workers: int = 2, *, follow_symlinks: bool = False) -> list[dict[str, Any]]:
    """Screen every ``*.pdf`` under ``folder`` (sorted by path) with ``workers`` processes.

    Unreadable files come back as rows with ``error`` set; a second file with an already used
    stem gets an error too, because metadata is matched on the stem. Symlinks that leave the
    folder are not read (an error row says so) unless ``follow_symlinks``.
    """
    folder = Path(folder)
    root = folder.resolve()
    candidates = sorted(p for p in walk_files(folder) if p.suffix.lower() == ".pdf")
    outside = {p for p in candidates if not follow_symlinks and not p.resolve().is_relative_to(root)}
    paths = [p for p in candidates if p not in outside]
    if workers <= 1 or len(paths) < 2:
        rows = [screen_pdf(p) for p in paths]
    else:
        chunk = max(1, len(paths) // (workers * 8))
        with ProcessPoolExecutor(max_workers=min(workers, os.cpu_count() or 1, len(paths))) as pool:
            rows = list(pool.map(screen_pdf, paths, chunksize=chunk))
    by_path = dict(zip(paths, rows, strict=True))
    for path in outside:
        empty: dict[str, Any] = {name: None for name in SCREENING_SCHEMA.names}
        by_path[path] = {**empty, "doc_id": path.stem, "path": str(path),
                         "error": "skipped: a symlink to a file outside the folder; pass --follow-symlinks to read it"}
    rows = [by_path[p] for p in candidates]
    seen: set[str] = set()
    for row in rows:
        if row["doc_id"] in seen and row["error"] is None:
            row["error"] = f"duplicate document id {row['doc_id']!r}: rename the file so stems are unique"
        seen.add(row["doc_id"])
    return rows


def screening_table(rows: list[dict[str, Any]]) -> pa.Table:
    """Rows as an Arrow table; raises if a row does not fit :data:`SCREENING_SCHEMA`."""
    return pa.Table.from_pylist(rows, schema=SCREENING_SCHEMA)
