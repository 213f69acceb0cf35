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

from __future__ import annotations

import common.layout_deferral  # noqa: F401 - first: pymupdf's layout model loads only where it is used
from common.lazy_exports import lazy_exports

# Each name and the module that defines it, imported when first asked for (PEP 562): importing one
# extractor, or a module that only needs a constant of one, never imports PyMuPDF, pikepdf and every
# other extractor with it. The run's own process imports the stage modules, but only its workers read PDFs.
_EXPORTS = {
    "ExtractionError": "extractors.errors",
    "open_pdf": "extractors.errors",
    "open_pikepdf": "extractors.errors",
    "extract_fonts": "extractors.fonts",
    "extract_text_spans": "extractors.fonts",
    "extract_links": "extractors.links",
    "extract_orphan_link_elements": "extractors.links",
    "uri_well_formed": "extractors.links",
    "render_pages": "extractors.pages",
    "PdfSource": "extractors.source",
    "extract_struct_elements": "extractors.structure.records",
    "struct_summary": "extractors.structure.summary",
    "FONTS_SCHEMA": "warehouse.tables",
    "LINKS_SCHEMA": "warehouse.tables",
    "ORPHAN_LINK_ELEMENTS_SCHEMA": "warehouse.tables",
    "PAGES_SCHEMA": "warehouse.tables",
    "STRUCT_ELEMENTS_SCHEMA": "warehouse.tables",
    "STRUCT_SUMMARY_SCHEMA": "warehouse.tables",
    "TEXT_SPANS_SCHEMA": "warehouse.tables",
}


__getattr__ = lazy_exports(globals(), _EXPORTS)


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
