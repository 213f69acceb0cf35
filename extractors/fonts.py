"""Fonts (one record per font object) and text spans (one per styled run of text).

Both come from PyMuPDF: the page font lists for the font dictionaries, and the
'dict' text output for spans. Spans name their font the way MuPDF does (BaseFont
cut to 31 characters, subset tag dropped; Type3 fonts as "Type3 (N 0 R)"), so
``fonts.font_name`` is built the same way and the two tables join on
(doc_id, font_name), and on page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pymupdf

from extractors.errors import reading
from extractors.source import PdfSource, pdf_source

FONTS_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("font_name", pa.string(), nullable=False),  # as in text_spans.font_name
        pa.field("base_font", pa.string(), nullable=False),  # /BaseFont as written ("" if absent)
        pa.field("font_type", pa.string(), nullable=False),  # /Subtype: Type1, TrueType, Type0, Type3 ...
        pa.field("descendant_type", pa.string()),  # Type0 only: CIDFontType0 or CIDFontType2
        pa.field("embedded", pa.bool_(), nullable=False),  # font program in the file (Type3: always)
        pa.field("subset", pa.bool_(), nullable=False),  # ABCDEF+ prefix
        pa.field("has_tounicode", pa.bool_(), nullable=False),
        pa.field("encoding", pa.string()),
        pa.field("xref", pa.int32(), nullable=False),  # font object number, unique per file
        pa.field("pages", pa.list_(pa.int32()), nullable=False),  # pages whose resources use it
        pa.field("char_count", pa.int64(), nullable=False),  # non-space characters drawn with it
        pa.field("sizes", pa.list_(pa.float32()), nullable=False),  # distinct sizes, 0.5 pt steps
    ]
)

TEXT_SPANS_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("span_index", pa.int32(), nullable=False),  # order on the page, 0-based
        pa.field("block", pa.int32(), nullable=False),  # MuPDF block and line numbers on the page
        pa.field("line", pa.int32(), nullable=False),
        pa.field("font_name", pa.string(), nullable=False),
        pa.field("size", pa.float32(), nullable=False),  # points
        pa.field("bold", pa.bool_(), nullable=False),
        pa.field("italic", pa.bool_(), nullable=False),
        pa.field("superscript", pa.bool_(), nullable=False),
        pa.field("color", pa.string(), nullable=False),  # #rrggbb
        pa.field("alpha", pa.float32(), nullable=False),  # 0 transparent .. 1 opaque
        pa.field("text", pa.string(), nullable=False),
        pa.field("char_count", pa.int32(), nullable=False),
        pa.field("bbox", pa.list_(pa.float32()), nullable=False),  # PDF points, top-left origin
        pa.field("render_invisible", pa.bool_(), nullable=False),  # neither filled nor stroked, or alpha 0
        pa.field("clipped", pa.bool_(), nullable=False),  # drawn outside the clip path
        pa.field("unmapped_chars", pa.int32(), nullable=False),  # U+FFFD, private-use, BOM/noncharacters, controls
    ]
)

# No TEXT_CID_FOR_UNKNOWN_UNICODE: characters without a Unicode mapping must show
# up as U+FFFD so that they can be counted, not as arbitrary code points.
_DICT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_MEDIABOX_CLIP
_FILLED, _STROKED, _CLIPPED, _FAKE_BOLD = 16, 32, 64, 8  # MuPDF per-character flags
_SUBSET_TAG = re.compile(r"^[A-Z]{6}\+")
_MUPDF_NAME_LIMIT = 31  # MuPDF keeps this many characters of a font's name
_SIZE_STEP = 0.5
# No usable Unicode mapping: MuPDF's replacement character, a private-use code point, or a code
# point with nothing to speak (a ToUnicode that maps glyphs to U+FEFF, U+FFFE, a noncharacter or a
# control character is a mapping in name only).
_UNMAPPED = re.compile("[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff\ufeff\ufffe\uffff\ufdd0-\ufdef"
                       "\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def mupdf_font_name(xref: int, font_type: str, base_font: str) -> str:
    """The name MuPDF gives this font in text output."""
    if font_type == "Type3":
        return f"Type3 ({xref} 0 R)"
    return _SUBSET_TAG.sub("", base_font[:_MUPDF_NAME_LIMIT])


# --------------------------------------------------------------------------- spans


def extract_text_spans(pdf: str | Path | PdfSource, *, doc_id: str, page_offset: int = 0) -> list[dict]:
    """One record per non-blank text span, in MuPDF's reading order per page."""
    with pdf_source(pdf) as source, reading(source, "text"):
        return [
            {"doc_id": doc_id, "page": number + 1 + page_offset, **span}
            for number in range(source.page_count)
            for span in _page_spans(source, number)
        ]


def _page_spans(source: PdfSource, number: int) -> Iterator[dict]:
    index = 0
    for block in source.text_dict(number, _DICT_FLAGS)["blocks"]:
        for line_no, line in enumerate(block.get("lines", ())):
            for span in line["spans"]:
                text = span["text"]
                if not text.strip():
                    continue  # blank spans only inflate the table
                yield _span_record(span, index, block["number"], line_no)
                index += 1


def _span_record(span: dict, index: int, block: int, line: int) -> dict:
    flags, char_flags = span["flags"], span.get("char_flags", _FILLED)
    alpha = span.get("alpha", 255) / 255
    text = span["text"]
    return {
        "span_index": index,
        "block": block,
        "line": line,
        "font_name": span["font"],
        "size": round(span["size"], 2),
        "bold": bool(flags & pymupdf.TEXT_FONT_BOLD or char_flags & _FAKE_BOLD),
        "italic": bool(flags & pymupdf.TEXT_FONT_ITALIC),
        "superscript": bool(flags & pymupdf.TEXT_FONT_SUPERSCRIPT),
        "color": f"#{span['color'] & 0xFFFFFF:06x}",
        "alpha": round(alpha, 3),
        "text": text,
        "char_count": len(text),
        "bbox": [round(v, 2) for v in span["bbox"]],
        # Render mode 3 (and 7) text is neither filled nor stroked: OCR layers, hidden text.
        "render_invisible": not char_flags & (_FILLED | _STROKED) or alpha == 0,
        "clipped": bool(char_flags & _CLIPPED),
        "unmapped_chars": len(_UNMAPPED.findall(text)),
    }


# --------------------------------------------------------------------------- fonts


@dataclass
class _FontUse:
    record: dict
    pages: set[int] = field(default_factory=set)
    char_count: int = 0
    sizes: set[float] = field(default_factory=set)


def extract_fonts(pdf: str | Path | PdfSource, *, doc_id: str, page_offset: int = 0) -> list[dict]:
    """One record per font object used by some page, with how much text it sets.

    When two font objects share a name on a page (two subsets of one font), the
    page's text counts towards the first of them.
    """
    with pdf_source(pdf) as source, reading(source, "fonts"):
        doc = source.doc
        fonts: dict[int, _FontUse] = {}
        for number in range(source.page_count):
            by_name: dict[str, _FontUse] = {}
            for xref, ext, font_type, base_font, _, encoding, *_ in doc.get_page_fonts(number, full=True):
                if xref not in fonts:
                    fonts[xref] = _FontUse(_font_record(doc, xref, ext, font_type, base_font, encoding))
                use = fonts[xref]
                use.pages.add(number + 1 + page_offset)
                by_name.setdefault(use.record["font_name"], use)
            for span in _page_spans(source, number):
                setter = by_name.get(span["font_name"])
                if setter is not None:
                    setter.char_count += len("".join(span["text"].split()))
                    setter.sizes.add(round(span["size"] / _SIZE_STEP) * _SIZE_STEP)
        return [
            {
                "doc_id": doc_id,
                **use.record,
                "pages": sorted(use.pages),
                "char_count": use.char_count,
                "sizes": sorted(use.sizes),
            }
            for use in fonts.values()
        ]


def _font_record(doc: pymupdf.Document, xref: int, ext: str, font_type: str, base_font: str,
                 encoding: str) -> dict[str, Any]:
    descendant = _descendant(doc, xref) if font_type == "Type0" else None
    # MuPDF names a Type0 font after its descendant CIDFont ("X+Font", not "X+Font-Identity-H").
    name_source = _name_value(doc, descendant, "BaseFont") if descendant else None
    return {
        "font_name": mupdf_font_name(xref, font_type, name_source or base_font),
        "base_font": base_font,
        "font_type": font_type,
        "descendant_type": _name_value(doc, descendant, "Subtype") if descendant else None,
        # PyMuPDF reports the font file's extension, "n/a" when there is none; Type3
        # glyphs are drawn by content streams inside the file, so they are embedded.
        "embedded": ext != "n/a" or font_type == "Type3",
        "subset": bool(_SUBSET_TAG.match(base_font)),
        "has_tounicode": doc.xref_get_key(xref, "ToUnicode")[0] != "null",
        "encoding": encoding or None,
        "xref": xref,
    }


_FIRST_REF = re.compile(r"\[\s*(\d+)\s+\d+\s+R")


def _descendant(doc: pymupdf.Document, xref: int) -> int | None:
    """Object number of a Type0 font's CIDFont (/DescendantFonts [N 0 R])."""
    kind, value = doc.xref_get_key(xref, "DescendantFonts")
    if kind == "xref":  # the array itself is an indirect object
        value = doc.xref_object(int(value.split()[0]), compressed=True)
    elif kind != "array":
        return None
    match = _FIRST_REF.match(value)
    return int(match.group(1)) if match else None


def _name_value(doc: pymupdf.Document, xref: int, key: str) -> str | None:
    kind, value = doc.xref_get_key(xref, key)
    return value.lstrip("/") if kind == "name" else None
