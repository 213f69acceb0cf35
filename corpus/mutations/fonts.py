"""fonts_readability mutations that edit the PDF (the size, spacing and consistency failures
re-render the source instead; see the registry).

* the body font loses its embedded font program (``/FontFile*``) and subset tag: viewers
  substitute another font, and checkers report it as not embedded;
* the body font loses its ``/ToUnicode`` map: glyphs still render, but text extraction (and a
  screen reader) gets garbage.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pikepdf
from pikepdf import Dictionary, Name

from corpus.mutations.structure import NotApplicable, PdfObject

_FONT_FILES = ("/FontFile", "/FontFile2", "/FontFile3")


def _fonts_by_use(pdf: pikepdf.Pdf) -> list[PdfObject]:
    """Fonts ordered by how many text-showing operators use them (the body font first)."""
    uses: Counter[tuple[int, int]] = Counter()
    objects: dict[tuple[int, int], PdfObject] = {}
    for page in pdf.pages:
        fonts = page.obj.get("/Resources", Dictionary()).get("/Font", Dictionary())
        current = None
        for op in pikepdf.parse_content_stream(page, "Tf Tj TJ ' \""):
            if str(op.operator) == "Tf":
                current = fonts.get(str(op.operands[0]))
            elif current is not None:
                uses[current.objgen] += 1
                objects[current.objgen] = current
    return [objects[key] for key, _ in uses.most_common()]


def _descriptor(font: PdfObject) -> PdfObject | None:
    if font.get("/Subtype") == Name.Type0:
        font = font.DescendantFonts[0]
    return font.get("/FontDescriptor")


def body_font(pdf: pikepdf.Pdf) -> PdfObject:
    fonts = _fonts_by_use(pdf)
    if not fonts:
        raise NotApplicable("no text")
    return fonts[0]


def _strip_subset_tag(name: Any) -> Name:
    # "ABCDEF+Family-Style" marks an embedded subset; an unembedded font has no such tag.
    text = str(name).lstrip("/")
    if len(text) > 7 and text[6] == "+" and text[:6].isupper():
        text = text[7:]
    return Name("/" + text)


def font_unembedded(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """The body font's program is removed; only its name and metrics remain."""
    font = body_font(pdf)
    descriptor = _descriptor(font)
    if descriptor is None or not any(k in descriptor for k in _FONT_FILES):
        raise NotApplicable("body font is not embedded to begin with")
    for key in (*_FONT_FILES, "/CIDSet"):
        if key in descriptor:
            del descriptor[key]
    descriptor.FontName = _strip_subset_tag(descriptor.FontName)
    font.BaseFont = _strip_subset_tag(font.BaseFont)
    if font.get("/Subtype") == Name.Type0:
        font.DescendantFonts[0].BaseFont = _strip_subset_tag(font.DescendantFonts[0].BaseFont)


def tounicode_removed(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """The body font's ToUnicode map is deleted; with Identity-H encoding nothing maps glyphs to text."""
    font = body_font(pdf)
    if "/ToUnicode" not in font:
        raise NotApplicable("body font has no ToUnicode map")
    del font["/ToUnicode"]
