"""Layout regions (text, title, list, table, figure) per page, from a backend chosen by name.

``pymupdf`` (default, offline, bundled) | ``fasterrcnn`` (torchvision, local PubLayNet weights)
| ``layoutparser`` (detectron2, local PubLayNet config and weights). Every backend maps its
own classes onto PubLayNet's five ``kind`` values and keeps its own class in ``raw_kind``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from extractors.errors import open_pdf
from extractors.layout import fasterrcnn_backend, layoutparser_backend, pymupdf_backend  # noqa: F401 - registers
from extractors.layout.base import (
    PUBLAYNET_KINDS,
    LayoutBackend,
    LayoutBackendError,
    Region,
    available_backends,
    clear_backend_cache,
    get_backend,
    register_backend,
)

__all__ = [
    "LAYOUT_SCHEMA",
    "PUBLAYNET_KINDS",
    "LayoutBackend",
    "LayoutBackendError",
    "Region",
    "available_backends",
    "clear_backend_cache",
    "detect_layout",
    "get_backend",
    "register_backend",
]

LAYOUT_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),  # 1-based, plus the file's page offset
        pa.field("region_index", pa.int32(), nullable=False),  # the backend's order on the page
        pa.field("kind", pa.string(), nullable=False),  # text | title | list | table | figure
        pa.field("raw_kind", pa.string()),  # the backend's own class, e.g. 'section-header'
        pa.field("bbox", pa.list_(pa.float64())),  # [x0, y0, x1, y1], points, top-left origin
        pa.field("score", pa.float64()),  # null when the backend gives none (pymupdf)
        pa.field("backend", pa.string(), nullable=False),
    ]
)


def detect_layout(
    pdf: str | Path,
    *,
    doc_id: str,
    backend: str = "pymupdf",
    weights: str | Path | None = None,
    page_offset: int = 0,
) -> list[dict[str, Any]]:
    """Layout records (``LAYOUT_SCHEMA``) for every page of ``pdf``.

    Raises LayoutBackendError before opening the file when the backend cannot run as
    configured, and :class:`extractors.errors.ExtractionError` when the file cannot be read.
    """
    detector = get_backend(backend, weights)
    records: list[dict[str, Any]] = []
    with open_pdf(pdf) as doc:
        for page in doc:
            for index, region in enumerate(detector.detect(page)):
                records.append({
                    "doc_id": doc_id,
                    "page": page.number + 1 + page_offset,
                    "region_index": index,
                    "kind": region.kind,
                    "raw_kind": region.raw_kind,
                    "bbox": list(region.bbox),
                    "score": region.score,
                    "backend": backend,
                })
    return records
