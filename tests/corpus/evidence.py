"""Independent evidence readers for the corpus tests.

They read PDFs with pikepdf and PyMuPDF directly and share no code with ``corpus.mutations``,
so a bug in a mutation's helpers cannot hide itself in the check that is meant to catch it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pikepdf
import pymupdf

HEADING = re.compile(r"^/H([1-6])$")
CAPTION = re.compile(r"^(Figure|Table)\s\d+:")


def open_pdf(data: bytes) -> pikepdf.Pdf:
    return pikepdf.open(io.BytesIO(data))


def kids(node: Any) -> list[Any]:
    k = node.get("/K")
    if k is None:
        return []
    return list(k) if isinstance(k, pikepdf.Array) else [k]


def is_elem(obj: object) -> bool:
    return isinstance(obj, pikepdf.Dictionary) and "/S" in obj


def walk(pdf: pikepdf.Pdf, top: Any = None) -> Iterator[tuple[Any, Any]]:
    """(element, parent) pairs in document order."""
    root = top if top is not None else pdf.Root.StructTreeRoot
    stack = [(k, root) for k in reversed(kids(root))]
    while stack:
        elem, parent = stack.pop()
        if is_elem(elem):
            yield elem, parent
            stack.extend((k, elem) for k in reversed(kids(elem)))


def types(pdf: pikepdf.Pdf) -> list[str]:
    return [str(e.S) for e, _ in walk(pdf)]


def of_type(pdf: pikepdf.Pdf, *wanted: str, top: Any = None) -> list[Any]:
    return [e for e, _ in walk(pdf, top) if str(e.S) in wanted]


def table_attrs(cell: Any) -> dict[str, Any]:
    """The /O /Table attribute dictionary of a cell as a plain dict."""
    attrs = cell.get("/A")
    for entry in list(attrs) if isinstance(attrs, pikepdf.Array) else [attrs]:
        if isinstance(entry, pikepdf.Dictionary) and entry.get("/O") == "/Table":
            return {str(k): entry[k] for k in entry}
    return {}


def document_blocks(pdf: pikepdf.Pdf) -> list[Any]:
    root = pdf.Root.StructTreeRoot
    top = [k for k in kids(root) if is_elem(k)]
    container = top[0] if len(top) == 1 and top[0].S == "/Document" else root
    return [k for k in kids(container) if is_elem(k)]


# --------------------------------------------------------------------------- page content


def painted_positions(pdf: pikepdf.Pdf) -> dict[tuple[int, int], tuple[int, int, float, float]]:
    """(page objnum, MCID) -> (page index, paint rank, x, y) of the sequence's first ``cm`` translation.

    typst paints each run as ``q 1 0 0 -1 x y cm ... Q`` inside its marked content, so the
    translation of the innermost cm is where it starts; the rank is the paint order.
    """
    found: dict[tuple[int, int], tuple[int, int, float, float]] = {}
    rank = 0
    for index, page in enumerate(pdf.pages):
        current: int | None = None
        for op in pikepdf.parse_content_stream(page):
            name = str(op.operator)
            if name == "BDC" and isinstance(op.operands[1], pikepdf.Dictionary) and "/MCID" in op.operands[1]:
                current = int(op.operands[1].MCID)
            elif name == "EMC":
                current = None
            elif name == "cm" and current is not None and (page.obj.objgen[0], current) not in found:
                rank += 1
                found[(page.obj.objgen[0], current)] = (index, rank, float(op.operands[4]), float(op.operands[5]))
    return found


def first_position(elem: Any, positions: dict[tuple[int, int], tuple[int, int, float, float]]
                   ) -> tuple[int, int, float, float] | None:
    """Position of the first MCID (in tree order) below ``elem``."""
    stack = [(k, elem) for k in reversed(kids(elem))]
    while stack:
        kid, owner = stack.pop()
        page = owner.get("/Pg")
        if isinstance(kid, pikepdf.Dictionary) and kid.get("/Type") == "/MCR":
            page, kid = kid.get("/Pg", page), int(kid.MCID)
        if isinstance(kid, int) and page is not None and (page.objgen[0], kid) in positions:
            return positions[(page.objgen[0], kid)]
        if is_elem(kid):
            stack.extend((k, kid) for k in reversed(kids(kid)))
    return None


def block_positions(pdf: pikepdf.Pdf) -> list[tuple[int, int, float, float]]:
    positions = painted_positions(pdf)
    found = [first_position(b, positions) for b in document_blocks(pdf)]
    return [p for p in found if p is not None]


def order_violations(pdf: pikepdf.Pdf) -> int:
    """Adjacent top-level blocks whose tree order runs against the paint (visual) order."""
    ranks = [(page, rank) for page, rank, _, _ in block_positions(pdf)]
    return sum(1 for a, b in zip(ranks, ranks[1:], strict=False) if b < a)


def column_switches(pdf: pikepdf.Pdf) -> int:
    width = float(pdf.pages[0].mediabox[2])
    cols = [(page, x > width / 2) for page, _, x, _ in block_positions(pdf)]
    return sum(1 for a, b in zip(cols, cols[1:], strict=False) if a != b)


# --------------------------------------------------------------------------- rendered text and colours


def spans(data: bytes) -> list[dict[str, Any]]:
    """PyMuPDF text spans with page index, size, font, sRGB colour and bbox."""
    out = []
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for page in doc:
            for block in page.get_text("dict")["blocks"]:
                lines = block.get("lines", [])
                # Captions are recognised by their block's opening ("Table 1:"), continuation lines included.
                start = lines[0]["spans"][0]["text"] if lines and lines[0]["spans"] else ""
                for line in lines:
                    for span in line["spans"]:
                        if span["text"].strip():
                            c = span["color"]
                            rgb = ((c >> 16 & 255) / 255, (c >> 8 & 255) / 255, (c & 255) / 255)
                            out.append({**span, "page": page.number, "rgb": rgb, "caption": bool(CAPTION.match(start))})
    return out


def luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, float, float], b: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def filled_rects(data: bytes) -> list[tuple[int, pymupdf.Rect, tuple[float, float, float]]]:
    """Filled, non-white shapes (backgrounds) per page."""
    out = []
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for page in doc:
            for drawing in page.get_drawings():
                fill = drawing.get("fill")
                if fill and len(fill) == 3 and min(fill) < 0.995 and drawing["rect"].width > 20:
                    out.append((page.number, drawing["rect"], tuple(fill)))
    return out


def background_pairs(data: bytes) -> list[float]:
    """Contrast of each span drawn on a filled shape against that shape's colour."""
    rects = filled_rects(data)
    ratios = []
    for span in spans(data):
        box = pymupdf.Rect(span["bbox"])
        for page, rect, fill in rects:
            if page == span["page"] and rect.contains(box.tl + (1, 1)) and rect.contains(box.br - (1, 1)):
                ratios.append(contrast(span["rgb"], fill))
    return ratios


def image_max_contrast(pdf: pikepdf.Pdf) -> list[float]:
    """For each image XObject: the highest contrast of any of its pixels against white."""
    out = []
    seen = set()
    for page in pdf.pages:
        for xobj in page.obj.get("/Resources", {}).get("/XObject", {}).values():
            if xobj.get("/Subtype") != "/Image" or xobj.objgen in seen:
                continue
            seen.add(xobj.objgen)
            pixels = np.asarray(pikepdf.PdfImage(xobj).as_pil_image().convert("RGB"), dtype=np.float64) / 255
            darkest = pixels.reshape(-1, 3)[np.argmin(pixels.reshape(-1, 3) @ (0.2126, 0.7152, 0.0722))]
            out.append(contrast(tuple(darkest)))
    return out


def texts(data: bytes) -> list[str]:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return [page.get_text() for page in doc]


def words(data: bytes) -> set[str]:
    """Alphabetic words of three or more letters: layout-independent text identity."""
    # typst marks the hyphens it inserts as soft hyphens (U+00AD); join the word halves again.
    joined = re.sub(r"\s*[\u00ad-]\s*\n\s*", "", " ".join(texts(data)))
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", joined)}


def page_count(data: bytes) -> int:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return doc.page_count


def font_table(data: bytes) -> list[tuple[str, str]]:
    """(font name, extension) per font PyMuPDF finds; extension 'n/a' means not embedded."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return sorted({(f[3], f[1]) for i in range(doc.page_count) for f in doc.get_page_fonts(i)})


def body_size(data: bytes) -> float:
    """The font size that carries the most characters."""
    sizes: dict[float, int] = {}
    for span in spans(data):
        sizes[round(span["size"], 1)] = sizes.get(round(span["size"], 1), 0) + len(span["text"])
    return max(sizes, key=lambda s: sizes[s])
