"""The paper's tag-tree backend (pdfix-sdk), and the registry that picks a tag-tree backend by name.

:func:`extract_struct_elements_pdfix` reads the structure tree through PDFix and
returns records of exactly :data:`extractors.structure.records.STRUCT_ELEMENTS_SCHEMA`, so
either backend can feed the ``struct_elements`` table. It fills what PDFix exposes
(the raw type, Alt, ActualText, Lang, /T, /ID, attributes, MCIDs, OBJRs, pages,
subtree boxes). ``type`` follows the document's RoleMap (read through
PDFix) with the default backend's rule, so both backends mean the same by it.
PDFix reports a subtree's text and box, not an element's own content, so ``text``
and ``bbox`` are filled only for elements without element kids (where the two are
the same) and are null elsewhere. Those two cost PDFix a content pass per call
(about 3 ms an element); ``content=False`` skips them when only the tree is needed.

pdfix-sdk reads without a licence, is imported only when this backend runs, and is
never asked to save: writing a file with it stamps and changes the document.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymupdf

from extractors.errors import ExtractionError, open_pdf
from extractors.structure.records import (  # noqa: F401 - re-exported
    TAG_TREE_BACKENDS,
    TagTreeBackendError,
    extract_struct_elements,
    get_tag_tree_backend,
)
from extractors.structure.tree import MAX_ELEMENTS, is_standard_type, resolve_role

INSTALL = "pip install 'accessbench[pdfix]'  (pdfix-sdk>=8,<10)"
_PDFIX_WRONG_PASSWORD = 34  # PDFix error type for "invalid password"
_MAX_TEXT = 1_000_000  # GetText needs a cap; a real element never reaches it
_MAX_ATTR_DEPTH = 4  # as in extractors.structure: attribute values stay small
_MAX_ATTR_ITEMS = 256

TagTreeBackend = Callable[..., list[dict]]


def load_pdfix() -> Any:
    """The ``pdfixsdk`` module, or a TagTreeBackendError with the install command."""
    try:
        import pdfixsdk
    except (ImportError, OSError) as exc:  # OSError: the bundled native library does not load here
        raise TagTreeBackendError(f"the 'pdfix' tag-tree backend needs pdfix-sdk: {INSTALL} ({exc})") from exc
    return pdfixsdk


@TAG_TREE_BACKENDS.register("pdfix")
def extract_struct_elements_pdfix(pdf: str | Path, *, doc_id: str, page_offset: int = 0,
                                  content: bool = True) -> list[dict]:
    """One record per structure element, read with PDFix, in preorder; [] for an untagged PDF.

    ``content=False`` leaves ``text``, ``bbox`` and ``subtree_bbox`` null (much faster).

    Raises ExtractionError for unreadable input (PyMuPDF checks the file first, so
    the error kinds match the default backend's) and TagTreeBackendError when
    pdfix-sdk is not installed.
    """
    sdk = load_pdfix()
    with open_pdf(pdf) as doc:  # also gives the matrices that map PDFix boxes to our page space
        matrices = [page.transformation_matrix for page in doc]
    pdfix = sdk.GetPdfix()
    if pdfix is None:
        raise TagTreeBackendError(f"pdfix-sdk did not initialise; reinstall it: {INSTALL}")
    pdoc = pdfix.OpenDoc(str(pdf), "")
    if pdoc is None:
        if pdfix.GetErrorType() == _PDFIX_WRONG_PASSWORD:
            raise ExtractionError("encrypted", "the PDF is encrypted with a user password", path=pdf)
        raise ExtractionError("corrupt", f"PDFix cannot parse it ({pdfix.GetError()})", path=pdf)
    try:
        tree = pdoc.GetStructTree()
        if tree is None:
            return []
        return _PdfixReader(sdk, pdoc, tree, matrices if content else None, doc_id, page_offset).records()
    finally:
        pdoc.Close()  # close only: never Save with PDFix


class _PdfixReader:
    """Walks one PDFix structure tree iteratively, in preorder, each object once."""

    def __init__(self, sdk: Any, pdoc: Any, tree: Any, matrices: list[pymupdf.Matrix] | None, doc_id: str,
                 page_offset: int) -> None:
        self.sdk, self.pdoc, self.tree, self.matrices = sdk, pdoc, tree, matrices
        self.doc_id, self.page_offset = doc_id, page_offset
        self.class_map = tree.GetClassMap()
        role_map = tree.GetRoleMap()
        self.role_map = self._name_map(role_map.GetObject() if role_map is not None else None)
        self.types: dict[str, str] = {}
        self.class_cache: dict[str, dict[str, Any]] = {}
        self.annots: dict[int, dict[int, int]] = {}  # page -> annotation object number -> /Annots index

    def records(self) -> list[dict]:
        roots = [self.tree.GetChildObject(i) for i in range(self.tree.GetNumChildren())]
        # (object, parent id, depth, order, parent's page); reversed so pops come in document order
        stack = [(obj, None, 0, order, None) for order, obj in reversed(list(enumerate(self._elements(roots))))]
        seen: set[int] = set()
        records: list[dict] = []
        while stack and len(records) < MAX_ELEMENTS:
            obj, parent, depth, order, parent_page = stack.pop()
            if obj.GetId():  # direct objects (id 0) cannot be shared or cyclic
                if obj.GetId() in seen:
                    continue
                seen.add(obj.GetId())
            elem = self.tree.GetStructElementFromObject(obj)
            if elem is None:
                continue
            record, kids = self._record(elem, obj, len(records), parent, depth, order, parent_page)
            records.append(record)
            page = None if record["page"] is None else record["page"] - 1 - self.page_offset
            stack.extend((kid, record["elem_id"], depth + 1, i, page) for i, kid in reversed(list(enumerate(kids))))
        return records

    def _elements(self, objects: list[Any]) -> list[Any]:
        dicts = (o for o in objects if isinstance(o, self.sdk.PdsDictionary))
        return [o for o in dicts if _known(o, "S") and not _known(o, "MCID")]

    def _record(self, elem: Any, obj: Any, elem_id: int, parent: int | None, depth: int, order: int,
                parent_page: int | None) -> tuple[dict, list[Any]]:
        sdk = self.sdk
        kids, mcids, annots = [], [], []
        for i in range(elem.GetNumChildren()):
            kind = elem.GetChildType(i)
            if kind == sdk.kPdsStructChildElement:
                kids.append(elem.GetChildObject(i))
            elif kind in (sdk.kPdsStructChildPageContent, sdk.kPdsStructChildStreamContent):
                mcids.append(elem.GetChildMcid(i))
            elif kind == sdk.kPdsStructChildObject:
                annots.append(self._annot_index(elem.GetChildObject(i), elem.GetChildPageNumber(i)))
        kids = self._elements(kids)
        pages = sorted(p for p in (elem.GetPageNumber(i) for i in range(elem.GetNumPages())) if p >= 0)
        page = pages[0] if pages else self._pg(obj, parent_page)
        attributes = self._attributes(elem, obj)
        scope = attributes.get("Scope")
        subtree_box = self._box(elem, page)
        text = " ".join(elem.GetText(_MAX_TEXT).split()) if not kids and self.matrices is not None else ""
        raw_type = elem.GetType(False) or ""
        if raw_type not in self.types:
            self.types[raw_type] = resolve_role(raw_type, self.role_map)
        record = {
            "doc_id": self.doc_id,
            "elem_id": elem_id,
            "parent_id": parent,
            "depth": depth,
            "order": order,
            "raw_type": raw_type,
            "type": self.types[raw_type],
            "standard": is_standard_type(self.types[raw_type]),
            "page": None if page is None else page + 1 + self.page_offset,
            # PDFix returns "" for a missing entry; '' and absent mean different things for Alt.
            "alt": elem.GetAlt() if _known(obj, "Alt") else None,
            "actual_text": elem.GetActualText() if _known(obj, "ActualText") else None,
            "lang": elem.GetLang() if _known(obj, "Lang") else None,
            "title": elem.GetTitle() if _known(obj, "T") else None,
            "attributes": json.dumps(attributes, ensure_ascii=False, sort_keys=True),
            "scope": scope if isinstance(scope, str) else None,
            "elem_key": elem.GetId() if _known(obj, "ID") else None,
            "mcid_count": len(mcids),
            "mcids": mcids,
            "objr_count": len(annots),
            "objr_annots": [a for a in annots if a is not None],
            "text": text or None,
            "bbox": subtree_box if not kids else None,
            "subtree_bbox": subtree_box,
            "obj_num": obj.GetId() or None,
        }
        return record, kids

    def _pg(self, obj: Any, default: int | None) -> int | None:
        pg = obj.Get("Pg")
        if pg is None:
            return default
        number = self.pdoc.GetPageNumFromObject(pg)
        return number if number >= 0 else default

    def _annot_index(self, objr: Any, page: int) -> int | None:
        """Index of the OBJR's annotation in its page's /Annots (what links.annot_index uses)."""
        target = objr.Get("Obj") if isinstance(objr, self.sdk.PdsDictionary) else None
        if target is None or not target.GetId() or page < 0:
            return None
        if page not in self.annots:
            self.annots[page] = {}
            pdf_page = self.pdoc.AcquirePage(page)
            if pdf_page is not None:
                try:
                    array = pdf_page.GetObject().Get("Annots")
                    if isinstance(array, self.sdk.PdsArray):
                        for i in range(array.GetNumObjects()):
                            annot = array.Get(i)
                            if annot is not None and annot.GetId():
                                self.annots[page].setdefault(annot.GetId(), i)
                finally:
                    pdf_page.Release()
        return self.annots[page].get(target.GetId())

    def _attributes(self, elem: Any, obj: Any) -> dict[str, Any]:
        """ClassMap classes first, then the element's own attribute objects (which win)."""
        merged: dict[str, Any] = {}
        if self.class_map is not None:
            for name in self._class_names(obj.Get("C")):
                if name not in self.class_cache:
                    self.class_cache[name] = {}
                    for i in range(self.class_map.GetNumAttrObjects(name)):
                        self.class_cache[name].update(self._attribute_items(self.class_map.GetAttrObject(name, i)))
                merged.update(self.class_cache[name])
        for i in range(elem.GetNumAttrObjects()):
            merged.update(self._attribute_items(elem.GetAttrObject(i)))
        return merged

    def _name_map(self, value: Any) -> dict[str, str]:
        if not isinstance(value, self.sdk.PdsDictionary):
            return {}
        names = {}
        for key in (value.GetKey(i) for i in range(value.GetNumKeys())):
            target = value.Get(key)
            if isinstance(target, self.sdk.PdsName):
                names[key] = target.GetText()
        return names

    def _class_names(self, value: Any) -> list[str]:
        if isinstance(value, self.sdk.PdsName):
            return [value.GetText()]
        if isinstance(value, self.sdk.PdsArray):
            items = (value.Get(i) for i in range(value.GetNumObjects()))
            return [item.GetText() for item in items if isinstance(item, self.sdk.PdsName)]
        return []

    def _attribute_items(self, attrs: Any) -> dict[str, Any]:
        if not isinstance(attrs, self.sdk.PdsDictionary):
            return {}  # a revision number between attribute objects, or a stream
        keys = (attrs.GetKey(i) for i in range(attrs.GetNumKeys()))
        return {key: self._jsonable(attrs.Get(key), 0) for key in keys if key != "O"}

    def _jsonable(self, value: Any, depth: int) -> Any:
        """Plain JSON values, the way extractors.structure writes attributes."""
        sdk = self.sdk
        if value is None or isinstance(value, sdk.PdsNull):
            return None
        if isinstance(value, sdk.PdsBoolean):
            return _c_bool(value.GetValue())
        if isinstance(value, sdk.PdsNumber):
            return value.GetIntegerValue() if _c_bool(value.IsIntegerValue()) else _pdf_real(value.GetValue())
        if isinstance(value, (sdk.PdsName, sdk.PdsString)):
            return value.GetText()
        if value.GetId():  # an indirect object: name it rather than inline a whole graph
            return f"{value.GetId()} {value.GetGenId()} R"
        if depth >= _MAX_ATTR_DEPTH:
            return None
        if isinstance(value, sdk.PdsArray):
            count = min(value.GetNumObjects(), _MAX_ATTR_ITEMS)
            return [self._jsonable(value.Get(i), depth + 1) for i in range(count)]
        if isinstance(value, sdk.PdsDictionary):
            keys = [value.GetKey(i) for i in range(min(value.GetNumKeys(), _MAX_ATTR_ITEMS))]
            return {key: self._jsonable(value.Get(key), depth + 1) for key in keys}
        return None  # streams and anything exotic

    def _box(self, elem: Any, page: int | None) -> list[float] | None:
        """PDFix's box for the element on ``page``, in PyMuPDF's unrotated top-left space."""
        if self.matrices is None or page is None or page >= len(self.matrices):
            return None
        r = elem.GetBBox(page)
        if not (r.right > r.left and r.top > r.bottom):
            return None
        rect = pymupdf.Rect(r.left, r.bottom, r.right, r.top) * self.matrices[page]
        return [round(v, 2) for v in (rect.x0, rect.y0, rect.x1, rect.y1)]


def _c_bool(value: int) -> bool:
    # pdfix-sdk's ctypes wrapper declares C ``bool`` results as ``int``: only the low byte is
    # set and the rest is whatever the register held (``Known`` returns e.g. -1261242111).
    return bool(value & 0xFF)


def _pdf_real(value: float) -> float:
    """A PDFix real at the precision PDF files write: PDFix keeps reals in single precision
    (and a unit off in the last place), so 0.9 comes back as 0.90000004 where the file
    and the default backend say 0.9."""
    return float(f"{value:.6g}")


def _known(obj: Any, key: str) -> bool:
    return _c_bool(obj.Known(key))
