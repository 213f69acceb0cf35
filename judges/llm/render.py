"""Evidence bundle → the user message: bounded text blocks plus images for vision models.

Bundles are built from extracted records, but this module still refuses anything that could leak a
label (file paths, manifest fields, PDF dates and producer). PDF text is untrusted: every evidence block
sits between <pdf_data> markers, strings are JSON-quoted (so line breaks in the PDF cannot fake
structure) and marker look-alikes are defused.

Budgets never make evidence disappear silently: text is shortened before structure, and whatever is
still cut is counted in the message ("12 more rows, same pattern: TD × 4"). The message names nothing
about evidence that is absent — a Cannot Tell item's prompt is the same prompt without its ★ blocks.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.criteria import SPEC, SPECS
from judges.evidence import PageBundle, view
from judges.llm.prompts import DATA_CLOSE, DATA_OPEN

MAX_CHARS_PER_ITEM = 9000
MAX_CHARS_TOTAL = 20000  # ≈ 5k tokens of evidence; the instructions add ≈ 1.5k
TEXT_STEPS = (200, 80, 30, 12)  # string lengths tried, longest first, before any line is cut
MAX_CROPS = 8
MAX_IMAGE_SIDE = 1568  # larger images are downscaled: providers resize anyway and bill by size

# Keys that could reveal the expected label or the file: never shown to a judge.
LEAKY_KEYS = frozenset({
    "doc_id", "run_id", "expected_label", "label", "labels", "path", "file", "files", "filename", "file_name",
    "image_path", "crop_path", "source", "source_path", "base_document", "sha256", "producer", "creator",
    "creation_date", "creationdate", "mod_date", "moddate", "modified", "created", "metadata", "compliance",
    "manifest", "author", "title_metadata",
})
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]+:(?![\\/][^\\/])")  # https://…, mailto:…; not C:\ or C:/
_PATH_START = re.compile(r"^(?:/[^/\s]+/|~/|[A-Za-z]:[\\/]|\.{1,2}/)\S")  # "/WinAnsiEncoding" is a PDF name
_FILE_WITH_DIR = re.compile(r"[\\/][^\\/]*\.(?:pdf|png|jpe?g|tiff?|json|parquet)$", re.IGNORECASE)
_PDF_DATE = re.compile(r"\bD:\d{8,14}")


@dataclass
class RenderedPage:
    text: str
    images: list[str] = field(default_factory=list)  # data URLs, page image first
    image_notes: list[str] = field(default_factory=list)  # what each image is ("page 3", "figure 2 crop")


def _defuse(text: str) -> str:
    # A PDF cannot close our data block early by containing the marker itself.
    text = re.sub(r"</?\s*pdf_data", lambda m: m.group(0).replace("<", "‹"), text, flags=re.IGNORECASE)
    return _PDF_DATE.sub("[date removed]", text)


def _is_local_path(text: str) -> bool:
    """A file-system path (ours or the author's), as opposed to a URI, alt text or a bare file name."""
    if " " in text or _URI.match(text):
        return False
    return bool(_PATH_START.match(text) or _FILE_WITH_DIR.search(text))


def _clean(value: Any) -> Any:
    """Drop leaky keys and redact path-like strings, recursively (strings are shortened later)."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if str(k).lower() not in LEAKY_KEYS}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, str):
        return "[path removed]" if _is_local_path(value.strip()) else _defuse(value)
    return value


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def _scalar(value: Any, limit: int) -> str:
    if isinstance(value, str):
        value = _short(value, limit)
    elif isinstance(value, float):
        value = round(value, 2)
    elif isinstance(value, list) and value and all(isinstance(v, float) for v in value):
        value = [round(v, 1) for v in value]  # boxes: a tenth of a point is plenty
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _pairs(item: dict[str, Any], limit: int, skip: tuple[str, ...] = ()) -> str:
    return " ".join(f"{k}={_scalar(v, limit)}" for k, v in item.items() if k not in skip and v not in (None, "", []))


# -- one renderer per kind of evidence: (value, string limit) → lines ---------------------------------------

def _tag_lines(value: dict[str, Any], limit: int) -> list[str]:
    """A tag tree as indented lines: `H1 #3 text="Introduction"`."""
    lines = [_pairs({k: v for k, v in value.items() if k != "elements"}, limit)]
    for element in value.get("elements") or []:
        if not isinstance(element, dict):
            continue
        indent = "  " * min(int(element.get("depth") or 0), 20)
        raw = element.get("raw_type")
        kind = str(element.get("type")) + (f" (raw {raw})" if raw and raw != element.get("type") else "")
        rest = _pairs(element, limit, skip=("type", "raw_type", "depth", "id", "parent"))
        lines.append(f"{indent}{kind} #{element.get('id')}" + (f" {rest}" if rest else ""))
    return lines


def _cell_text(cell: dict[str, Any], limit: int) -> str:
    kind = str(cell.get("kind") or "?")
    attrs = [f"Scope={cell['scope']}"] if cell.get("scope") else []
    attrs += [f"{k}={cell[k]}" for k in ("rowspan", "colspan") if (cell.get(k) or 1) != 1]
    if cell.get("headers"):
        attrs.append(f"Headers={_scalar(cell['headers'], limit)}")
    text = _scalar(cell.get("text") or "", limit) if limit > 0 else ""
    return kind + (f"[{' '.join(attrs)}]" if attrs else "") + (f" {text}" if text else "")


def _row_pattern(cells: list[dict[str, Any]]) -> str:
    return " | ".join(_cell_text(c, 0) for c in cells)


MAX_GRID_ROWS = 40


def _table_lines(value: dict[str, Any], limit: int) -> list[str]:
    """Each table as a header line and a grid of its cells, one row per line.

    When rows are cut, the cut is counted and described by its cell pattern, so the Passed and
    Failed versions of a long table never look alike.
    """
    lines = [_pairs({k: v for k, v in value.items() if k != "tables"}, limit)]
    for table in value.get("tables") or []:
        cells = table.get("cells") or []
        header = {k: v for k, v in table.items() if k != "cells"}
        lines.append(f"table {_pairs(header, limit)}")
        rows: dict[int, list[dict[str, Any]]] = {}
        for cell in cells:
            rows.setdefault(int(cell.get("row") or 0), []).append(cell)
        ordered = [sorted(rows[r], key=lambda c: int(c.get("col") or 0)) for r in sorted(rows)]
        for number, row in enumerate(ordered[:MAX_GRID_ROWS]):
            lines.append(f"  row {number + 1}: " + " | ".join(_cell_text(c, limit) for c in row))
        rest = ordered[MAX_GRID_ROWS:]
        if rest:
            patterns = Counter(_row_pattern(row) for row in rest)
            last = _row_pattern(ordered[MAX_GRID_ROWS - 1])
            if len(patterns) == 1 and last in patterns:
                lines.append(f"  [{len(rest)} more rows, same pattern: {last}]")
            else:
                described = "; ".join(f"{n} × {p}" for p, n in patterns.most_common(4))
                lines.append(f"  [{len(rest)} more rows: {described}"
                             + (f"; {len(patterns) - 4} other patterns" if len(patterns) > 4 else "") + "]")
    return lines


def _generic_lines(value: Any, limit: int) -> list[str]:
    """Scalars as `key: value`; lists of records one per line; anything else as compact JSON."""
    if not isinstance(value, dict):
        if isinstance(value, list):
            return [_pairs(v, limit) if isinstance(v, dict) else _scalar(v, limit) for v in value]
        return [_scalar(value, limit)]
    lines = []
    for key, item in value.items():
        if isinstance(item, list) and item and all(isinstance(v, dict) for v in item):
            lines.append(f"{key} ({len(item)}):")
            lines.extend(f"- {_pairs(v, limit)}" for v in item)
        else:
            lines.append(f"{key}: {_scalar(item, limit)}")
    return lines


# When a tag tree must lose lines, these element types go last: the ones the criterion is about.
FOCUS: dict[str, frozenset[str]] = {spec.name: spec.focus_tags for spec in SPECS}


def _kind(line: str) -> str:
    return line.strip().split(" ", 1)[0]


def _fit(render: Callable[[int], list[str]], budget: int, focus: frozenset[str] = frozenset()) -> str:
    """The longest rendering within `budget`: shorter strings first, then fewer lines — lines of the
    `focus` element types (and the first, summary line) are cut last. Whatever is cut is counted."""
    lines: list[str] = []
    for limit in TEXT_STEPS:
        lines = render(limit)
        if sum(len(line) + 1 for line in lines) <= budget:
            return "\n".join(lines)
    room = budget - 160
    keep = [False] * len(lines)
    groups = ([0], [i for i in range(1, len(lines)) if _kind(lines[i]) in focus],
              [i for i in range(1, len(lines)) if _kind(lines[i]) not in focus])
    for group in groups:  # the first lines of each group in priority order; page order is kept
        for i in group:
            if len(lines[i]) + 1 > room:
                break
            keep[i] = True
            room -= len(lines[i]) + 1
    kept = [line for line, k in zip(lines, keep, strict=True) if k]
    omitted = [line for line, k in zip(lines, keep, strict=True) if not k]
    kinds = Counter(_kind(line) for line in omitted)
    summary = ", ".join(f"{n} {kind}" for kind, n in kinds.most_common(8))
    kept.append(f"[{len(omitted)} more lines not shown (prompt budget): {summary}]")
    return "\n".join(kept)


def render_evidence(bundle: PageBundle, mode: str = "paper", images: dict[str, int] | None = None) -> str:
    """The evidence of one bundle as delimited text blocks (images are attached separately).

    `images` maps an attached crop's path to its image number, so each figure or table says which
    image shows it.
    """
    evidence = view(bundle, mode)
    blocks = []
    remaining = MAX_CHARS_TOTAL
    for item in SPEC[bundle.criterion].evidence:
        if evidence.get(item.name) is None:
            continue
        value = _clean(_number_crops(evidence[item.name], images or {}))
        lines: Callable[[Any, int], list[str]] = _generic_lines
        if isinstance(value, dict):
            lines = {"tag_structure": _tag_lines, "table_tags": _table_lines}.get(item.name, _generic_lines)
        focus = FOCUS.get(bundle.criterion, frozenset()) if item.name == "tag_structure" else frozenset()
        body = _fit(_bind(lines, value), min(MAX_CHARS_PER_ITEM, max(remaining, 1500)), focus)
        remaining -= len(body)
        blocks.append(f'{DATA_OPEN} evidence="{item.name}">\n{body}\n{DATA_CLOSE}')
    return "\n\n".join(blocks)


def _bind(lines: Callable[[Any, int], list[str]], value: Any) -> Callable[[int], list[str]]:
    return lambda limit: lines(value, limit)


def _number_crops(value: Any, images: dict[str, int]) -> Any:
    """Put `image: N` first in each listed figure or table whose crop is attached as image N."""
    if not images or not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if isinstance(item, list):
            item = [{"image": images[e["crop_path"]], **e} if isinstance(e, dict) and e.get("crop_path") in images
                    else e for e in item]
        out[key] = item
    return out


def crop_paths(value: Any) -> list[str]:
    """Crop image paths of a figure_crops / table_crops item, in the order they are listed."""
    paths: list[str] = []
    if isinstance(value, dict):
        for item in value.values():
            if isinstance(item, list):
                paths.extend(str(e["crop_path"]) for e in item if isinstance(e, dict) and e.get("crop_path"))
    return paths


def user_text(bundle: PageBundle, *, mode: str, images: list[tuple[str, str | None]] | None) -> str:
    """The page-specific part of the prompt. `images`: (note, crop path or None) per attached image, in
    order; None when the model receives text only."""
    if images is None:
        seen = "You receive text only; no images are attached."
    elif images:
        seen = ("Images attached: " + "; ".join(f"image {i + 1}: {note}" for i, (note, _) in enumerate(images))
                + ".")
    else:
        seen = "No image could be attached for this page."
    numbers = {path: i + 1 for i, (_, path) in enumerate(images or []) if path}
    evidence = render_evidence(bundle, mode, numbers)
    return (f"Page {bundle.page}. Criterion: {bundle.criterion}.\n{seen}\n\n{evidence}\n\n"
            "Reply with the JSON object only.")


def image_data_url(path: str | Path) -> str | None:
    """A base64 PNG data URL, downscaled to MAX_IMAGE_SIDE; None when the file is missing or unreadable."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as opened:
            image: Image.Image = opened
            image.load()
            if max(image.size) > MAX_IMAGE_SIDE:
                image.thumbnail((MAX_IMAGE_SIDE, MAX_IMAGE_SIDE))
            if image.mode not in ("RGB", "L"):
                image = image.convert("RGB")
            buffer = io.BytesIO()
            image.save(buffer, format="PNG", optimize=False)
    except (OSError, UnidentifiedImageError, ValueError):
        return None
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def page_images(bundle: PageBundle) -> list[tuple[str, str | None, str]]:
    """(note, crop path or None, data URL) of the page image, then every figure and table crop the evidence
    lists (at most MAX_CROPS per kind); unreadable files are left out."""
    found: list[tuple[str, str | None, str]] = []
    if bundle.image_path and (url := image_data_url(bundle.image_path)):
        found.append((f"page {bundle.page}", None, url))
    for item in SPEC[bundle.criterion].evidence:
        if item.image and item.name != "page_image" and bundle.has(item.name):
            kind = item.name.removesuffix("_crops").rstrip("s")
            for path in crop_paths(bundle.evidence[item.name])[:MAX_CROPS]:
                if url := image_data_url(path):
                    found.append((f"{kind} crop", path, url))
    return found


def render_page(bundle: PageBundle, *, vision: bool, mode: str = "paper") -> RenderedPage:
    if not vision:
        return RenderedPage(user_text(bundle, mode=mode, images=None))
    attached = page_images(bundle)
    text = user_text(bundle, mode=mode, images=[(note, path) for note, path, _ in attached])
    return RenderedPage(text, [url for _, _, url in attached], [note for note, _, _ in attached])
