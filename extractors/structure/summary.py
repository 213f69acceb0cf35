"""struct_summary: document-level tagging facts of one PDF file."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pikepdf
from pymupdf import mupdf

from extractors.errors import ExtractionError
from extractors.source import PdfSource, pdf_source
from extractors.structure.tree import StructTree, pdf_text, source_struct_tree

_MCID_IN_CONTENT = re.compile(rb"/MCID\s+(\d+)")


def struct_summary(pdf: str | Path | PdfSource) -> dict:
    """Document-level tagging facts (one PDF file); never raises for bad input (see ``error``)."""
    summary: dict[str, Any] = {
        "tagged": False, "marked": None, "has_rolemap": False,
        "element_count": 0, "truncated": False, "repeated_refs": 0, "orphan_mcids": None,
        "lang": None, "has_title": False, "display_doc_title": None, "pages": None, "pdfua_part": None,
        "xmp_title": None, "accessibility_permitted": None, "error": None,
    }
    try:
        with pdf_source(pdf) as source:
            tree = source_struct_tree(source)
            summary.update(_summarise(source.qpdf, tree))
            if tree.nodes:
                summary["orphan_mcids"] = _count_orphan_mcids(source, tree)
    except ExtractionError as exc:
        summary["error"] = str(exc)
    except (pikepdf.PdfError, mupdf.FzErrorBase) as exc:
        summary["error"] = str(ExtractionError("corrupt", f"cannot read the catalog ({exc})"))
    return summary


def _summarise(qpdf: pikepdf.Pdf, tree: StructTree) -> dict[str, Any]:
    catalog = qpdf.Root
    mark_info = catalog.get("/MarkInfo")
    marked = mark_info.get("/Marked") if isinstance(mark_info, pikepdf.Dictionary) else None
    prefs = catalog.get("/ViewerPreferences")
    display_title = prefs.get("/DisplayDocTitle") if isinstance(prefs, pikepdf.Dictionary) else None
    return {
        "tagged": bool(tree.nodes),
        "marked": marked if isinstance(marked, bool) else None,
        "has_rolemap": bool(tree.role_map),
        "element_count": len(tree.nodes),
        "truncated": tree.truncated,
        "repeated_refs": tree.repeated_refs,
        "lang": pdf_text(catalog.get("/Lang")),
        "has_title": _has_title(qpdf),
        "display_doc_title": display_title if isinstance(display_title, bool) else None,
        "pages": len(qpdf.pages),
        "pdfua_part": _pdfua_part(qpdf),
        "xmp_title": _xmp_title(qpdf),
        # Bit 10 of the encryption's /P (qpdf's reading; an unencrypted file permits everything). PDF 2.0
        # deprecates the bit, but PDF/UA-1 7.16 requires it set, and screen readers still honour it.
        "accessibility_permitted": bool(qpdf.allow.accessibility),
    }


def _has_title(qpdf: pikepdf.Pdf) -> bool:
    # Only presence: the title's value can leak a benchmark item's identity.
    title = qpdf.docinfo.get("/Title") if qpdf.trailer.get("/Info") is not None else None
    if pdf_text(title):
        return True
    metadata = qpdf.Root.get("/Metadata")
    if isinstance(metadata, pikepdf.Stream):
        try:
            return b"<dc:title" in metadata.read_bytes()
        except pikepdf.PdfError:
            return False
    return False


_XMP_TITLE = re.compile(rb"""<dc:title\b[^>]*>(.*?)</dc:title>|\bdc:title\s*=\s*["']([^"']*)["']""", re.DOTALL)
_TAG = re.compile(rb"<[^>]*>")


def _xmp_title(qpdf: pikepdf.Pdf) -> bool:
    """Whether the XMP metadata has a non-empty dc:title (only presence: the value can identify an item)."""
    metadata = qpdf.Root.get("/Metadata")
    if not isinstance(metadata, pikepdf.Stream):
        return False
    try:
        data = metadata.read_bytes()
    except pikepdf.PdfError:
        return False
    return any(_TAG.sub(b"", m.group(1) or m.group(2) or b"").strip() for m in _XMP_TITLE.finditer(data))


_PDFUA_NS = re.compile(rb"""xmlns:([\w.-]+)\s*=\s*["']http://www\.aiim\.org/pdfua/ns/id/?["']""")


def _pdfua_part(qpdf: pikepdf.Pdf) -> int | None:
    """The PDF/UA part the XMP metadata claims (``pdfuaid:part``, element or attribute form), or None."""
    metadata = qpdf.Root.get("/Metadata")
    if not isinstance(metadata, pikepdf.Stream):
        return None
    try:
        data = metadata.read_bytes()
    except pikepdf.PdfError:
        return None
    for prefix in dict.fromkeys(_PDFUA_NS.findall(data)):
        part = rb""":part\s*(?:=\s*["']\s*(\d{1,4})|>\s*(\d{1,4})\s*<)"""
        found = re.search(rb"(?<![\w.-])" + re.escape(prefix) + part, data)
        if found:
            return int(found.group(1) or found.group(2))
    return None


def _count_orphan_mcids(source: PdfSource, tree: StructTree) -> int:
    """MCIDs in page content streams that no element cites for that page.

    A regex over the decoded content is enough here and costs well under a
    millisecond per page; MCIDs inside form XObjects are not counted.
    """
    cited: dict[int, set[int]] = defaultdict(set)
    for node in tree.nodes:
        for mcid, page_no in node.mcids:
            if page_no is not None:
                cited[page_no].add(mcid)
    orphans = 0
    for page in source.pages():
        used = {int(m) for m in _MCID_IN_CONTENT.findall(page.read_contents())}
        orphans += len(used - cited[page.number])
    return orphans

