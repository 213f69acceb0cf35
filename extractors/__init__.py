"""Evidence extractors: a PDF in, typed records out.

Each module reads one kind of evidence and declares the pyarrow schema its
records fit exactly (plain Python values, every field present):

- ``structure``: tag tree elements (``extract_struct_elements``) and a
  document-level tagging summary (``struct_summary``).
- ``links``: link annotations (``extract_links``) and Link elements without a
  usable annotation (``extract_orphan_link_elements``).
- ``fonts``: font objects (``extract_fonts``) and styled text runs
  (``extract_text_spans``).
- ``pages``: page renders and page facts (``render_pages``, the one extractor
  that writes files).

Every extractor takes a path or a :class:`PdfSource`. Given a path it opens the file
itself; given a source (``with PdfSource(path) as source: ...``) it shares the one parse
of the file, and each page's display list and text pages, with every other extractor
that source is handed to. The extract stage works that way.

Page numbers are 1-based plus ``page_offset``, because one benchmark document can
be several PDF files. Unreadable input raises :class:`ExtractionError`, whose
``kind`` goes into an error row. Nothing here imports Prefect or writes anything
but page images.
"""

import common.layout_deferral  # noqa: F401 - first: pymupdf's layout model loads only where it is used
from extractors.errors import ExtractionError, open_pdf, open_pikepdf  # noqa: E402 - after the deferral
from extractors.fonts import extract_fonts, extract_text_spans
from extractors.links import extract_links, extract_orphan_link_elements, uri_well_formed
from extractors.pages import render_pages
from extractors.source import PdfSource
from extractors.structure.records import extract_struct_elements
from extractors.structure.summary import struct_summary
from warehouse.tables import (
    FONTS_SCHEMA,
    LINKS_SCHEMA,
    ORPHAN_LINK_ELEMENTS_SCHEMA,
    PAGES_SCHEMA,
    STRUCT_ELEMENTS_SCHEMA,
    STRUCT_SUMMARY_SCHEMA,
    TEXT_SPANS_SCHEMA,
)

__all__ = [
    "FONTS_SCHEMA",
    "LINKS_SCHEMA",
    "ORPHAN_LINK_ELEMENTS_SCHEMA",
    "PAGES_SCHEMA",
    "STRUCT_ELEMENTS_SCHEMA",
    "STRUCT_SUMMARY_SCHEMA",
    "TEXT_SPANS_SCHEMA",
    "ExtractionError",
    "PdfSource",
    "extract_fonts",
    "extract_links",
    "extract_orphan_link_elements",
    "extract_struct_elements",
    "extract_text_spans",
    "open_pdf",
    "open_pikepdf",
    "render_pages",
    "struct_summary",
    "uri_well_formed",
]
