"""Extract stage: tag tree, links, fonts, text spans with colour contrast, per document."""

from __future__ import annotations

import importlib.util
from functools import partial
from typing import TYPE_CHECKING, Any

from common import backends
from tasks.benchmark.render import pages_of
from tasks.benchmark.work.extract import (
    EXTRACT_TABLE_NAMES,
    extract_document,
    extract_item,
    extract_item_of,
)
from tasks.engine.chain import Link
from tasks.engine.common import good_documents
from tasks.engine.runner import Stage, StageIO
from tasks.engine.stage_hash import stage_keys
from warehouse.tables import (
    CONFORMANCE,
    DOC_STRUCTURE,
    FIGURES,
    FONTS,
    LINKS,
    ORPHAN_LINK_ELEMENTS,
    READING_ORDER,
    STRUCT_ELEMENTS,
    TABLE_CELLS,
    TABLES,
    TEXT_SPANS,
)

if TYPE_CHECKING:
    from tasks.engine.context import RunConfig

# The work runs in the workers that read the PDFs (`tasks.benchmark.work.extract`, which imports the extractors,
# PyMuPDF and pikepdf where it runs them): the run's own process imports this module for the stage's definition.

EXTRACT_TABLES = (STRUCT_ELEMENTS, LINKS, ORPHAN_LINK_ELEMENTS, FONTS, TEXT_SPANS, DOC_STRUCTURE, READING_ORDER,
                  TABLES, TABLE_CELLS, FIGURES, CONFORMANCE)
if tuple(spec.name for spec in EXTRACT_TABLES) != EXTRACT_TABLE_NAMES:
    raise ImportError("tasks.benchmark.work.extract.EXTRACT_TABLE_NAMES must name EXTRACT_TABLES, in order")


def extract_work(cfg: RunConfig) -> partial[dict[str, list[dict[str, Any]]]]:
    crops = str(cfg.home / "artifacts" / "extract" / "crops") if cfg.model_evidence else None  # for model judges
    return partial(extract_document, cfg.run_id, crops, cfg.crop_dpi, int(cfg.max_page_megapixels * 1e6),
                   cfg.tag_tree_backend, (cfg.max_file_mb, cfg.max_stream_mb))


def extract_body(io: StageIO) -> dict[str, Any]:
    cfg = io.cfg
    regions: dict[str, list[dict[str, Any]]] = {}
    for row in io.read("layout", "layout_regions"):
        regions.setdefault(row["doc_id"], []).append(row)
    items = [(d["doc_id"], extract_item_of(d, regions.get(d["doc_id"], []))) for d in good_documents(io)]
    return io.per_key(items, extract_work(cfg), "extract evidence", isolated=True, same=lambda item: item["sha"],
                      weight=lambda item: pages_of(item["doc"]), unit="pages")


def check_extract(cfg: RunConfig) -> None:
    """What can be known before the stage runs, by names only (the run's process loads no extractor)."""
    if cfg.tag_tree_backend not in backends.TAG_TREE_BACKENDS:
        from extractors.structure.records import get_tag_tree_backend

        get_tag_tree_backend(cfg.tag_tree_backend)  # raises, naming the choices
    if cfg.tag_tree_backend == "pdfix" and importlib.util.find_spec("pdfixsdk") is None:
        from extractors.pdfix_backend import INSTALL as PDFIX_INSTALL

        raise ValueError(f"--tag-tree pdfix needs pdfix-sdk: {PDFIX_INSTALL}")
    if cfg.crop_dpi < 10:
        raise ValueError(f"crop_dpi {cfg.crop_dpi}: figure and table crops need at least 10 dpi")
    if cfg.max_page_megapixels < 0.01:
        raise ValueError(f"max_page_megapixels {cfg.max_page_megapixels}: use at least 0.01")


EXTRACT = Stage(
    name="extract",
    upstream=("corpus", "layout"),
    config_keys=stage_keys("extract", "crop_dpi", "model_evidence"),
    tables=EXTRACT_TABLES,
    body=extract_body,
    code=("extractors", "common"),
    validate=check_extract,
    per_document=True,
    link=Link(work=extract_work, item=extract_item),
    worker_imports=("tasks.benchmark.work.extract", "extractors.conformance", "extractors.contrast",
                    "extractors.figures", "extractors.fonts", "extractors.links", "extractors.reading_order",
                    "extractors.source", "extractors.structure.records", "extractors.structure.summary",
                    "extractors.tables", "judges.conformance"),
)
