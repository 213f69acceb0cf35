"""struct_elements records: one per structure element, in preorder, with its own text and boxes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from common import backends, geometry
from common.registry import Registry, UnknownName
from extractors.errors import open_pdf, reading
from extractors.source import PdfSource, pdf_source
from extractors.structure.content import Content, collect_content
from extractors.structure.tree import (
    Box,
    ObjGen,
    StructNode,
    StructTree,
    element_attributes,
    is_standard_type,
    pdf_text,
    source_annotation_index,
    source_struct_tree,
)

# Readers of the tag tree by name (`--tag-tree`): both give records of STRUCT_ELEMENTS_SCHEMA.
TAG_TREE_BACKENDS: Registry[list[dict]] = Registry("tag-tree backend", backends.TAG_TREE_BACKENDS)


class TagTreeBackendError(RuntimeError):
    """A tag-tree backend that cannot run (unknown, or its package missing); the message says what to do."""


def get_tag_tree_backend(name: str) -> Any:
    """The tag-tree reader registered as ``name``; registration does not mean its package is installed."""
    try:
        return TAG_TREE_BACKENDS.factory(name)
    except UnknownName as exc:
        raise TagTreeBackendError(str(exc)) from None


@TAG_TREE_BACKENDS.register("pikepdf")
def extract_struct_elements(pdf: str | Path | PdfSource, *, doc_id: str, page_offset: int = 0) -> list[dict]:
    """One record per structure element, in preorder; [] for an untagged PDF.

    Raises ExtractionError for unreadable input.
    """
    with pdf_source(pdf) as source, reading(source, "tag tree"):
        # Once per source and page offset (the layout plan and the extract stage both read it in one pass over a
        # document: `tasks.engine.chain`); each caller gets its own records, under its own document id.
        records = source.memo(("struct_elements", page_offset), lambda: _source_records(source, page_offset))
        return [{**record, "doc_id": doc_id} for record in records]


def _source_records(source: PdfSource, page_offset: int) -> list[dict]:
    tree = source_struct_tree(source)
    if not tree.nodes:
        return []
    # A private PyMuPDF copy: _collect_content edits it in memory, other extractors must not see that.
    with open_pdf(source.path) as doc:
        content = collect_content(doc, source.qpdf, tree.nodes)
    return _records(tree, content, source_annotation_index(source), "", page_offset)


def _records(tree: StructTree, content: dict[int, Content], annot_index: dict[ObjGen, tuple[int, int]],
             doc_id: str, page_offset: int) -> list[dict]:
    pages = _element_pages(tree.nodes, content)
    own_boxes = [_own_box(content.get(i), pages[i]) for i in range(len(tree.nodes))]
    subtree_boxes = _subtree_boxes(tree.nodes, pages, own_boxes)
    records = []
    class_cache: dict[str, dict[str, Any]] = {}
    for i, node in enumerate(tree.nodes):
        obj = node.obj
        attributes = element_attributes(obj, tree.class_map, class_cache)
        scope = attributes.get("Scope")
        own = content.get(i)
        text = " ".join(" ".join(own.parts).split()) if own is not None else ""
        records.append(
            {
                "doc_id": doc_id,
                "elem_id": i,
                "parent_id": node.parent,
                "depth": node.depth,
                "order": node.order,
                "raw_type": node.raw_type,
                "type": tree.type_of(node.raw_type),
                "standard": is_standard_type(tree.type_of(node.raw_type)),
                "page": _numbered(pages[i], page_offset),
                "alt": pdf_text(obj.get("/Alt")),
                "actual_text": pdf_text(obj.get("/ActualText")),
                "lang": pdf_text(obj.get("/Lang")),
                "title": pdf_text(obj.get("/T")),
                "attributes": json.dumps(attributes, ensure_ascii=False, sort_keys=True),
                "scope": scope if isinstance(scope, str) else None,
                "elem_key": pdf_text(obj.get("/ID")),
                "mcid_count": len(node.mcids),
                "mcids": [mcid for mcid, _ in node.mcids],
                "objr_count": len(node.objrs),
                "objr_annots": [annot_index[og][1] for og, _ in node.objrs if og in annot_index],
                "text": text or None,
                "bbox": _rounded(own_boxes[i]),
                "subtree_bbox": _rounded(subtree_boxes[i]),
                "obj_num": obj.objgen[0] if obj.is_indirect else None,
            }
        )
    return records


def _element_pages(nodes: list[StructNode], content: dict[int, Content]) -> list[int | None]:
    """0-based page of each element: /Pg (own or inherited), else its MCRs/OBJRs,
    else the first page its own content is on, else the page of its first
    descendant that has one (a Table without /Pg is on the page of its first cell)."""
    pages: list[int | None] = []
    for i, node in enumerate(nodes):
        own = content.get(i)
        page = node.page
        if page is None and own is not None and own.boxes:
            page = min(own.boxes)
        pages.append(page)
    # Reverse preorder: every child is settled before its parent, and the earliest
    # child is seen last, so it wins.
    for i in range(len(nodes) - 1, -1, -1):
        parent = nodes[i].parent
        if parent is not None and nodes[parent].page is None and pages[i] is not None:
            first_own = content.get(parent)
            if first_own is None or not first_own.boxes:
                pages[parent] = pages[i]
    return pages


def _own_box(own: Content | None, page: int | None) -> Box | None:
    if own is None or page is None:
        return None
    return own.boxes.get(page)


def _subtree_boxes(nodes: list[StructNode], pages: list[int | None], own: list[Box | None]) -> list[Box | None]:
    boxes = list(own)
    # Reverse preorder visits every child before its parent.
    for i in range(len(nodes) - 1, -1, -1):
        parent, box = nodes[i].parent, boxes[i]
        if parent is None or box is None or pages[parent] != pages[i]:
            continue
        boxes[parent] = box if boxes[parent] is None else list(geometry.union(boxes[parent], box))  # type: ignore[arg-type]
    return boxes


def _numbered(page: int | None, page_offset: int) -> int | None:
    return None if page is None else page + 1 + page_offset


def _rounded(box: Box | None) -> Box | None:
    return None if box is None else [round(v, 2) for v in box]


def record_attributes(record: dict) -> dict[str, Any]:
    """The attribute dict of a struct_elements record (its JSON `attributes`), {} when unreadable."""
    try:
        value = json.loads(record["attributes"] or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
