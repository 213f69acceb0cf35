"""Link annotations: where each goes, whether it can work, and how it is tagged.

One record per /Link annotation (``extract_links``), and one per Link structure
element that points at no usable link annotation (``extract_orphan_link_elements``).
Nothing here touches the network: a URI is judged on its form only.

``annot_index`` is the position in the page's /Annots array, the same index
``struct_elements.objr_annots`` uses, so links and tags join on (page, index).
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pikepdf
import pymupdf

from common import geometry
from extractors.errors import reading
from extractors.source import PdfSource, pdf_source
from extractors.structure.tree import ObjGen, StructTree, source_annotation_index, source_struct_tree

_NAMED_ACTIONS = frozenset({"NextPage", "PrevPage", "FirstPage", "LastPage"})
_ACTION_KINDS = {
    "URI": "uri", "GoTo": "goto", "GoToR": "gotor", "Launch": "launch",
    "Named": "named", "JavaScript": "javascript",
}
_WEB_SCHEMES = frozenset({"http", "https", "ftp", "ftps"})
_HOST_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
_MAILBOX = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_MAX_DEST_HOPS = 4  # a named destination may point at a dict with /D, and so on


def extract_links(pdf: str | Path | PdfSource, *, doc_id: str, page_offset: int = 0) -> list[dict]:
    """One record per link annotation, in page then /Annots order."""
    with pdf_source(pdf) as source, reading(source, "annotations"):
        qpdf = source.qpdf
        context = _LinkContext(qpdf, source_struct_tree(source), page_offset)
        records = []
        for page_no, page in enumerate(qpdf.pages[: source.page_count]):
            annots = _as_list(page.obj.get("/Annots"))
            links = [(i, a) for i, a in enumerate(annots) if _is_link(a)]
            if not links:
                continue
            fitz_page = source.page(page_no)
            words = _Words(source.text_words(page_no))  # get_textbox per link is far slower
            for index, annot in links:
                records.append({
                    "doc_id": doc_id,
                    "page": page_no + 1 + page_offset,
                    "annot_index": index,
                    **context.link_record(annot, fitz_page, words),
                })
        return records


def extract_orphan_link_elements(pdf: str | Path | PdfSource, *, doc_id: str, page_offset: int = 0) -> list[dict]:
    """Link structure elements that reference no usable link annotation."""
    with pdf_source(pdf) as source, reading(source, "tag tree"):
        qpdf = source.qpdf
        tree = source_struct_tree(source)
        annots = source_annotation_index(source)
        records = []
        for elem_id, node in enumerate(tree.nodes):
            if tree.type_of(node.raw_type) != "Link":
                continue
            reason = _orphan_reason(qpdf, node.objrs, annots)
            if reason is not None:
                page = None if node.page is None else node.page + 1 + page_offset
                records.append({"doc_id": doc_id, "elem_id": elem_id, "page": page, "reason": reason})
        return records


def _orphan_reason(qpdf: pikepdf.Pdf, objrs: list, annots: dict[ObjGen, tuple[int, int]]) -> str | None:
    targets = [objgen for objgen, _ in objrs if objgen is not None]
    if not targets:
        return "no_annotation"
    on_pages = [t for t in targets if t in annots]
    if not on_pages:
        return "annotation_missing"
    if not any(qpdf.get_object(t).get("/Subtype") == "/Link" for t in on_pages):
        return "not_a_link"
    return None


class _LinkContext:
    """What every link on every page is checked against."""

    def __init__(self, qpdf: pikepdf.Pdf, tree: StructTree, page_offset: int) -> None:
        self.qpdf, self.tree, self.page_offset = qpdf, tree, page_offset
        self.page_of = tree.page_of
        self.elem_of = tree.elem_by_objgen()
        self.referrers: dict[ObjGen, list[int]] = {}  # annotation -> elements with an OBJR to it
        for elem_id, node in enumerate(tree.nodes):
            for objgen, _ in node.objrs:
                if objgen is not None:
                    self.referrers.setdefault(objgen, []).append(elem_id)
        root = qpdf.Root.get("/StructTreeRoot")
        parent_tree = root.get("/ParentTree") if isinstance(root, pikepdf.Dictionary) else None
        self.parent_tree = pikepdf.NumberTree(parent_tree) if isinstance(parent_tree, pikepdf.Dictionary) else None
        names = qpdf.Root.get("/Names")
        dests = names.get("/Dests") if isinstance(names, pikepdf.Dictionary) else None
        self.name_tree = pikepdf.NameTree(dests) if isinstance(dests, pikepdf.Dictionary) else None
        old_dests = qpdf.Root.get("/Dests")  # PDF 1.1 style: a plain dictionary of names
        self.old_dests = old_dests if isinstance(old_dests, pikepdf.Dictionary) else None

    def link_record(self, annot: pikepdf.Dictionary, page: pymupdf.Page, words: _Words) -> dict:
        kind, target, target_page, dest_valid = self._target(annot)
        struct_parent = annot.get("/StructParent")
        claimants = self._claimants(annot, struct_parent)
        # Prefer a Link element when several claim the annotation (a Reference and its Link).
        elem_id = next((e for e in claimants if self._type(e) == "Link"), claimants[0] if claimants else None)
        elem_type = None if elem_id is None else self._type(elem_id)
        areas = _link_areas(annot, page.transformation_matrix)
        return {
            "kind": kind,
            "target": target,
            "target_page": target_page,
            "rect": _rect_list(areas[0]) if areas else None,
            "anchor_text": words.under(areas[1:] or areas[:1]),
            "dest_valid": dest_valid,
            "uri_well_formed": uri_well_formed(target) if kind == "uri" else None,
            "struct_parent": struct_parent if isinstance(struct_parent, int) else None,
            "has_link_element": elem_type == "Link",
            "element_id": elem_id,
            "element_type": elem_type,
            "contents": _string(annot.get("/Contents")),
        }

    def _type(self, elem_id: int) -> str:
        return self.tree.type_of(self.tree.nodes[elem_id].raw_type)

    def _claimants(self, annot: pikepdf.Dictionary, struct_parent: Any) -> list[int]:
        """Elements that claim this annotation: by OBJR, then the ParentTree entry."""
        claimants = list(self.referrers.get(annot.objgen, [])) if annot.is_indirect else []
        if self.parent_tree is None or not isinstance(struct_parent, int):
            return claimants
        try:
            element = self.parent_tree[struct_parent]
        except (KeyError, IndexError):  # pikepdf raises IndexError for absent keys
            return claimants
        if isinstance(element, pikepdf.Dictionary) and element.is_indirect and element.objgen in self.elem_of:
            claimants.append(self.elem_of[element.objgen])
        return claimants

    def _target(self, annot: pikepdf.Dictionary) -> tuple[str, str | None, int | None, bool | None]:
        """(kind, target, target_page, dest_valid) from /A, else /Dest."""
        action = annot.get("/A")
        if isinstance(action, pikepdf.Dictionary):
            action_type = _name(action.get("/S")) or ""
            kind = _ACTION_KINDS.get(action_type, "other")
            if kind == "uri":
                return kind, _string(action.get("/URI")), None, None
            if kind == "goto":
                return (kind, *self._destination(action.get("/D")))
            if kind == "named":
                name = _name(action.get("/N"))
                return kind, name, None, name in _NAMED_ACTIONS
            if kind in ("gotor", "launch"):
                return kind, _file_spec(action.get("/F"), action.get("/D")), None, None
            if kind == "javascript":
                return kind, _javascript(action.get("/JS")), None, None
            return kind, action_type or None, None, None
        if "/Dest" in annot:
            return ("goto", *self._destination(annot.get("/Dest")))
        return "none", None, None, None

    def _destination(self, dest: Any) -> tuple[str | None, int | None, bool]:
        """(target, target_page, valid) for an explicit or named destination."""
        name = _string(dest) if isinstance(dest, pikepdf.String) else _name(dest)
        resolved = dest
        for _ in range(_MAX_DEST_HOPS):
            if isinstance(resolved, (pikepdf.String, pikepdf.Name)):
                resolved = self._named(resolved)
            elif isinstance(resolved, pikepdf.Dictionary):
                resolved = resolved.get("/D")
            else:
                break
        page = self._dest_page(resolved)
        target_page = None if page is None else page + 1 + self.page_offset
        if name is not None:
            return name, target_page, page is not None
        return (None if target_page is None else f"page {target_page}"), target_page, page is not None

    def _named(self, name: pikepdf.String | pikepdf.Name) -> Any:
        if isinstance(name, pikepdf.Name):  # names as Name objects use the old /Dests dict
            return self.old_dests.get(name) if self.old_dests is not None else None
        key = _string(name) or ""
        if self.name_tree is not None and key in self.name_tree:
            return self.name_tree[key]
        if self.old_dests is not None:
            return self.old_dests.get("/" + key)
        return None

    def _dest_page(self, dest: Any) -> int | None:
        """0-based page of an explicit destination [page /XYZ ...], if it exists."""
        if not isinstance(dest, pikepdf.Array) or len(dest) == 0:
            return None
        first = dest[0]
        if isinstance(first, pikepdf.Dictionary) and first.is_indirect:
            return self.page_of.get(first.objgen)
        if isinstance(first, int) and 0 <= first < len(self.page_of):
            return first  # a page number: only valid for remote targets, but readers accept it
        return None


def uri_well_formed(uri: str | None) -> bool:
    """Whether ``uri`` looks usable: a known scheme with the parts it needs, no spaces.

    Accepted: http(s)/ftp(s) with a plausible host, mailto with an address,
    doi:10.x/y, tel and urn. Relative URIs and file: links are not well formed
    in a published document.
    """
    if not uri or any(c.isspace() or ord(c) < 32 for c in uri):
        return False
    try:
        parts = urlsplit(uri)
        scheme = parts.scheme.lower()
        if scheme in _WEB_SCHEMES:
            parts.port  # noqa: B018 - raises ValueError on a malformed port
            return _plausible_host(parts.hostname)
    except ValueError:
        return False
    if scheme == "mailto":
        return bool(_MAILBOX.fullmatch(parts.path))
    if scheme == "doi":
        return bool(_DOI.fullmatch(parts.path))
    if scheme == "tel":
        return bool(re.fullmatch(r"\+?[0-9().\-]{3,}", parts.path))
    return scheme == "urn" and bool(parts.path)


def _plausible_host(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        ipaddress.ip_address(host.strip("[]"))
        return True
    except ValueError:
        pass
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        return False
    labels = ascii_host.rstrip(".").split(".")
    return len(labels) >= 2 and all(_HOST_LABEL.fullmatch(label) for label in labels) and not labels[-1].isdigit()


def _link_areas(annot: pikepdf.Dictionary, matrix: pymupdf.Matrix) -> list[pymupdf.Rect]:
    """[rect, quad rects...] in page coordinates; [] when /Rect is unusable."""
    rect = _numbers(annot.get("/Rect"))
    if len(rect) != 4:
        return []
    areas = [(pymupdf.Rect(rect) * matrix).normalize()]
    quads = _numbers(annot.get("/QuadPoints"))  # multi-line links: one quad per line
    for i in range(0, len(quads) - 7, 8):
        xs, ys = quads[i:i + 8:2], quads[i + 1:i + 8:2]
        areas.append((pymupdf.Rect(min(xs), min(ys), max(xs), max(ys)) * matrix).normalize())
    return areas


class _Words:
    """A page's words, bucketed by height so each link only looks at nearby lines."""

    _BAND = 12.0  # points; about one line of body text

    def __init__(self, words: list) -> None:
        self.words = [(float(w[0]), float(w[1]), float(w[2]), float(w[3]), w[4]) for w in words]
        self.bands: dict[int, list[int]] = {}
        for i, (_, y0, _, y1, _) in enumerate(self.words):
            self.bands.setdefault(int((y0 + y1) / 2 // self._BAND), []).append(i)

    def under(self, areas: list[pymupdf.Rect]) -> str:
        """Words centred in one of ``areas`` or at least half inside it, in reading order."""
        picked: set[int] = set()
        for area in areas:
            first, last = int(area.y0 // self._BAND) - 1, int(area.y1 // self._BAND) + 1
            for band in range(first, last + 1):
                for i in self.bands.get(band, ()):
                    word = self.words[i]
                    # A word wholly left or right of the link has neither its centre nor any area in it.
                    if word[2] < area.x0 or word[0] > area.x1 or i in picked:
                        continue
                    if _covers(area, word):
                        picked.add(i)
        return " ".join(self.words[i][4] for i in sorted(picked))


def _covers(area: pymupdf.Rect, word: tuple) -> bool:
    box, link = word[:4], (area.x0, area.y0, area.x1, area.y1)
    # the word's centre (a citation "[1]." is wider than its link on "1"), or half the word
    return geometry.centre_inside(box, link) or geometry.covered(box, link, 0.5)


def _rect_list(rect: pymupdf.Rect) -> list[float]:
    return [round(v, 2) for v in (rect.x0, rect.y0, rect.x1, rect.y1)]


def _numbers(value: Any) -> list[float]:
    if not isinstance(value, pikepdf.Array):
        return []
    try:
        return [float(v) for v in value]
    except (TypeError, ValueError):
        return []


def _file_spec(spec: Any, dest: Any) -> str | None:
    if isinstance(spec, pikepdf.Dictionary):
        spec = spec.get("/UF") or spec.get("/F")
    name = _string(spec)
    where = _string(dest) if isinstance(dest, pikepdf.String) else _name(dest)
    if name and where:
        return f"{name}#{where}"
    return name


def _javascript(script: Any) -> str | None:
    if isinstance(script, pikepdf.Stream):
        try:
            return script.read_bytes()[:200].decode("latin-1")
        except pikepdf.PdfError:
            return None
    text = _string(script)
    return text[:200] if text else text


def _is_link(annot: Any) -> bool:
    return isinstance(annot, pikepdf.Dictionary) and annot.get("/Subtype") == "/Link"


def _as_list(value: Any) -> list:
    if isinstance(value, pikepdf.Array):
        return list(value)
    return []


def _name(value: Any) -> str | None:
    return str(value)[1:] if isinstance(value, pikepdf.Name) else None


def _string(value: Any) -> str | None:
    if not isinstance(value, pikepdf.String):
        return None
    try:
        return str(value)
    except UnicodeDecodeError:
        return bytes(value).decode("latin-1")
