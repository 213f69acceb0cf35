"""Evidence bundle → the user message: compact, bounded text plus images for vision models.

Bundles are built from extracted records, but this module still refuses anything that could leak a
label (file paths, manifest fields, PDF dates and producer) and caps every list so a prompt stays well
under ~6k tokens. PDF text is untrusted: every evidence block sits between <pdf_data> markers, strings
are JSON-quoted (so line breaks in the PDF cannot fake structure) and marker look-alikes are defused.
"""

from __future__ import annotations

import base64
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.evidence import EVIDENCE, PageBundle
from judges.llm.prompts import DATA_CLOSE, DATA_OPEN, required_evidence

MAX_LINES_PER_ITEM = 120
MAX_CHARS_PER_ITEM = 7000
MAX_CHARS_TOTAL = 16000  # ≈ 4k tokens of evidence; the instructions add ≈ 1.2k
MAX_STRING = 200
MAX_CROPS = 4
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
_CROP_KEYS = ("path", "crop_path", "image_path", "file")


@dataclass
class RenderedPage:
    text: str
    images: list[str] = field(default_factory=list)  # data URLs, page image first


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
    """Drop leaky keys, redact path-like strings and shorten long ones, recursively."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if str(k).lower() not in LEAKY_KEYS}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, str):
        if _is_local_path(value.strip()):
            return "[path removed]"
        text = _defuse(value)
        return text if len(text) <= MAX_STRING else text[: MAX_STRING - 1] + "…"
    return value


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _pairs(item: dict[str, Any], skip: tuple[str, ...] = ()) -> str:
    return " ".join(f"{k}={_scalar(v)}" for k, v in item.items() if k not in skip and v not in (None, "", []))


def _tag_lines(value: dict[str, Any]) -> list[str]:
    """A tag tree as indented lines: `H1 #3 text="Introduction"`."""
    header = {k: v for k, v in value.items() if k != "elements"}
    lines = [_pairs(header)]
    for element in value.get("elements") or []:
        if not isinstance(element, dict):
            continue
        indent = "  " * int(element.get("depth") or 0)
        raw = element.get("raw_type")
        kind = str(element.get("type")) + (f" (raw {raw})" if raw and raw != element.get("type") else "")
        rest = _pairs(element, skip=("type", "raw_type", "depth", "id", "parent"))
        lines.append(f"{indent}{kind} #{element.get('id')}" + (f" {rest}" if rest else ""))
    return lines


def _generic_lines(value: Any) -> list[str]:
    """Scalars as `key: value`; lists of records one per line; anything else as compact JSON."""
    if not isinstance(value, dict):
        if isinstance(value, list):
            return [_pairs(v) if isinstance(v, dict) else _scalar(v) for v in value]
        return [_scalar(value)]
    lines = []
    for key, item in value.items():
        if isinstance(item, list) and item and all(isinstance(v, dict) for v in item):
            lines.append(f"{key} ({len(item)}):")
            lines.extend(f"- {_pairs(v)}" for v in item)
        else:
            lines.append(f"{key}: {_scalar(item)}")
    return lines


def _cap(lines: list[str], budget: int) -> str:
    kept: list[str] = []
    used = 0
    for line in lines[:MAX_LINES_PER_ITEM]:
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    if len(kept) < len(lines):
        kept.append(f"[… {len(lines) - len(kept)} more lines omitted to keep the prompt short]")
    return "\n".join(kept)


def render_evidence(bundle: PageBundle) -> str:
    """The evidence of one bundle as delimited text blocks (images are handled separately)."""
    blocks = []
    remaining = MAX_CHARS_TOTAL
    for name, _starred in EVIDENCE[bundle.criterion]:
        if not bundle.has(name):
            continue
        value = _clean(bundle.evidence[name])
        if name.endswith("_crops"):  # crops are sent as images; their paths are not evidence
            value = {"count": len(value) if isinstance(value, list) else 1}
        lines = _tag_lines(value) if name == "tag_structure" and isinstance(value, dict) else _generic_lines(value)
        body = _cap(lines, min(MAX_CHARS_PER_ITEM, max(remaining, 200)))
        remaining -= len(body)
        blocks.append(f'{DATA_OPEN} evidence="{name}">\n{body}\n{DATA_CLOSE}')
    return "\n\n".join(blocks)


def user_text(bundle: PageBundle, *, images_attached: int, vision: bool) -> str:
    """The page-specific part of the prompt."""
    provided = [n for n, _ in EVIDENCE[bundle.criterion] if bundle.has(n)]
    missing = [n for n in required_evidence(bundle.criterion) if not bundle.has(n)]
    if vision:
        seen = f"{images_attached} image(s) attached (the page image first, then any crops)." if images_attached \
            else "No page image is available."
    else:
        seen = "You receive text only; the page image is not available to you."
    evidence = render_evidence(bundle) or "(no evidence could be extracted for this page)"
    return (
        f"Page {bundle.page}. Criterion: {bundle.criterion}.\n"
        f"Evidence provided: {', '.join(provided) or 'none'}.\n"
        f"Needed evidence not available: {', '.join(missing) or 'none'}.\n"
        f"{seen}\n\n{evidence}\n\nReply with the JSON object only."
    )


def _crop_paths(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    paths = []
    for item in items:
        if isinstance(item, str):
            paths.append(item)
        elif isinstance(item, dict):
            paths.extend(str(item[k]) for k in _CROP_KEYS if isinstance(item.get(k), str))
    return paths


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


def page_images(bundle: PageBundle) -> list[str]:
    """Page image, then crops listed in the evidence (figure_crops, table_crops), as data URLs."""
    paths: list[str] = [bundle.image_path] if bundle.image_path else []
    for name, _starred in EVIDENCE[bundle.criterion]:
        if name.endswith("_crops") and bundle.has(name):
            paths.extend(_crop_paths(bundle.evidence[name])[:MAX_CROPS])
    urls = [image_data_url(p) for p in paths]
    return [u for u in urls if u is not None]


def render_page(bundle: PageBundle, *, vision: bool) -> RenderedPage:
    images = page_images(bundle) if vision else []
    return RenderedPage(user_text(bundle, images_attached=len(images), vision=vision), images)
