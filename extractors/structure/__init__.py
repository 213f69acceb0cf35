"""Tag tree: one record per structure element, plus a document-level summary.

- :mod:`~extractors.structure.tree` reads the tag tree with pikepdf (types, RoleMap, attributes);
- :mod:`~extractors.structure.content` attributes each piece of page content to its element
  by running the page through MuPDF (own text and content boxes);
- :mod:`~extractors.structure.records` joins the two into ``struct_elements`` records;
- :mod:`~extractors.structure.summary` gives the document-level ``struct_summary``.

Coordinates are PDF points, top-left origin, in the unrotated page space that
PyMuPDF's get_text() uses (text_spans and links use the same space).
"""

from __future__ import annotations

from common.lazy_exports import lazy_exports
from extractors.structure.content import STRUCT_BLOCK, STRUCTURE_TEXT_FLAGS
from extractors.structure.records import extract_struct_elements, record_attributes
from extractors.structure.summary import struct_summary
from extractors.structure.tree import (
    MAX_ELEMENTS,
    Box,
    ObjGen,
    StructNode,
    StructTree,
    annotation_index,
    element_attributes,
    is_standard_type,
    read_struct_tree,
    resolve_role,
    source_annotation_index,
    source_struct_tree,
)

# The tables' schemas (pyarrow) when first asked for: a worker that reads the tag tree imports none (issue 56).
__getattr__ = lazy_exports(globals(), dict.fromkeys(("STRUCT_ELEMENTS_SCHEMA", "STRUCT_SUMMARY_SCHEMA"),
                                                    "warehouse.tables"))

__all__ = [
    "MAX_ELEMENTS",
    "STRUCTURE_TEXT_FLAGS",
    "STRUCT_BLOCK",
    "STRUCT_ELEMENTS_SCHEMA",
    "STRUCT_SUMMARY_SCHEMA",
    "Box",
    "ObjGen",
    "StructNode",
    "StructTree",
    "annotation_index",
    "element_attributes",
    "extract_struct_elements",
    "is_standard_type",
    "read_struct_tree",
    "record_attributes",
    "resolve_role",
    "source_annotation_index",
    "source_struct_tree",
    "struct_summary",
]
