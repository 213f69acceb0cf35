"""Fonts (one record per font object) and text spans (one per styled run of text).

Both come from PyMuPDF: the page font lists for the font dictionaries, and the
'dict' text output for spans. Each font also gets a per-page account of the glyphs it
draws (MuPDF's text trace: glyph ids and the text each one maps to), so that wrong
and empty Unicode mappings (PDF/UA-1 7.21.7, Matterhorn 10-001) can be told from the
glyphs themselves: see ``_mapping_conflict`` and ``_textless_glyphs``.

Spans name their font the way MuPDF does (BaseFont cut to 31 characters, subset
tag dropped; Type3 fonts as "Type3 (N 0 R)"), so ``fonts.font_name`` is built the
same way and the two tables join on (doc_id, font_name), and on page.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymupdf

from extractors.errors import reading
from extractors.source import PdfSource, pdf_source

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
    for index, (span, block, line) in enumerate(_page_raw_spans(source, number)):
        yield _span_record(span, index, block, line)


def _page_raw_spans(source: PdfSource, number: int) -> Iterator[tuple[dict, int, int]]:
    """The page's non-blank spans as MuPDF gives them (shared: do not modify), with block and line numbers."""
    for block in source.text_dict(number, _DICT_FLAGS)["blocks"]:
        for line_no, line in enumerate(block.get("lines", ())):
            for span in line["spans"]:
                if span["text"].strip():  # blank spans only inflate the table
                    yield span, block["number"], line_no


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
    glyphs: _Glyphs = field(default_factory=lambda: _Glyphs())


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
                first = by_name.setdefault(use.record["font_name"], use)
                if first is not use:  # two font objects of one name: whose glyph is whose is unknown
                    first.glyphs.ambiguous = True
            for span, _, _ in _page_raw_spans(source, number):  # text_spans' spans, without making their rows
                setter = by_name.get(span["font"])
                if setter is not None:
                    setter.char_count += len("".join(span["text"].split()))
                    setter.sizes.add(round(round(span["size"], 2) / _SIZE_STEP) * _SIZE_STEP)
            _trace_glyphs(source.page(number), number + 1 + page_offset, by_name)
        return [
            {
                "doc_id": doc_id,
                **use.record,
                "pages": sorted(use.pages),
                "char_count": use.char_count,
                "sizes": sorted(use.sizes),
                **_glyph_record(doc, use),
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


# --------------------------------------------------------------------------- glyphs and their text
#
# What the font itself says its glyphs are, against what the Unicode mapping (ToUnicode) says:
#  * a simple font's /Differences names its glyphs ("a", "Aacute", "uni0041", "f_i"): a code whose
#    name is a letter or digit that its ToUnicode maps to another letter or digit is contradicted;
#  * any font's advance widths: an "i" is narrow and an "m" wide in every proportional Latin face,
#    so the rank correlation between the widths of the glyphs mapped to letters and ordinary widths
#    of those letters is high (0.64 and up, 0.95 typical, over the 495 fonts of the 77 benchmark
#    PDFs) where the mapping is right and near zero where it is shifted or permuted. This is what
#    catches subset CID fonts, whose programs keep neither a cmap nor glyph names.
# Glyphs drawn visibly whose mapped text is only whitespace are textless: a font has one space
# glyph, seldom two (never more than two in the benchmark PDFs); more than _MAX_SPACE_GLYPHS
# glyphs mapped to whitespace means visible letters that map to a space.

_MIN_LETTERS = 12  # distinct letters before widths say anything
_MAX_WIDTH_RANK_CORRELATION = 0.3  # below this the widths contradict the letters (real fonts: >= 0.64)
_MIN_WIDTH_SPREAD = 0.08  # coefficient of variation of the letter widths; below it the face is monospaced
_MIN_CONFLICT_CODES = 3  # /Differences codes contradicted before a font counts as contradicted
_MAX_SPACE_GLYPHS = 3  # distinct glyphs a font may map to whitespace (space, no-break space, a fixed space)
_VISIBLE_TRACE = (0, 1)  # MuPDF text trace types: 0 fill, 1 stroke (2 clip, 3 invisible)
_REFERENCE_FONTS = ("helv", "tiro")  # Helvetica and Times: ordinary letter widths
_reference: dict[str, float] = {}


@dataclass
class _Glyphs:
    """The glyphs one font draws: per glyph id, the texts it maps to and its advance (em)."""
    texts: dict[int, Counter[str]] = field(default_factory=dict)
    width: dict[int, float] = field(default_factory=dict)
    # per page: glyph id -> uses, for visible glyphs; and the texts of those uses
    per_page: dict[int, Counter[int]] = field(default_factory=dict)
    page_texts: dict[int, Counter[str]] = field(default_factory=dict)
    space_uses: Counter[int] = field(default_factory=Counter)  # glyph id -> uses mapped to whitespace
    ambiguous: bool = False  # a page draws with two font objects of this name (the trace names fonts only)


def _trace_glyphs(page: pymupdf.Page, number: int, by_name: dict[str, _FontUse]) -> None:
    try:
        trace = page.get_texttrace()
    except (RuntimeError, ValueError):  # a page MuPDF cannot trace: its glyphs go unchecked, the rest stands
        return
    for span in trace:
        use = by_name.get(span["font"])
        if use is None or span.get("type") not in _VISIBLE_TRACE or not span.get("opacity", 1):
            continue
        glyphs = use.glyphs
        size = span.get("size") or 0
        horizontal = size > 0 and abs(span["dir"][0] - 1) < 1e-3
        uses = glyphs.per_page.setdefault(number, Counter())
        texts = glyphs.page_texts.setdefault(number, Counter())
        if not span["chars"]:
            continue
        # Counted a span at a time, not a glyph at a time (pages draw thousands): Counter keeps
        # first-seen order, on which later tie-breaks (a font's space glyph, a letter's glyph) depend.
        _codes, gids, _origins, boxes = zip(*span["chars"], strict=True)
        span_texts = [chr(code) if 0 <= code < 0x110000 else "" for code in _codes]
        uses.update(gids)
        texts.update(span_texts)
        for (gid, text), n in Counter(zip(gids, span_texts, strict=True)).items():
            known = glyphs.texts.get(gid)
            if known is None:
                known = glyphs.texts[gid] = Counter()
            known[text] += n
            if not text.strip():
                glyphs.space_uses[gid] += n
        if horizontal:
            # A glyph's first box on the span: zipped backwards, the earliest one is written last.
            for gid, box in dict(zip(reversed(gids), reversed(boxes), strict=True)).items():
                if gid not in glyphs.width:
                    glyphs.width[gid] = (box[2] - box[0]) / size


def _glyph_record(doc: pymupdf.Document, use: _FontUse) -> dict[str, Any]:
    glyphs = use.glyphs
    textless = _textless_glyphs(glyphs)
    conflict, wrong_texts = _mapping_conflict(doc, use.record, glyphs)
    pages = []
    for number, uses in sorted(glyphs.per_page.items()):
        texts = glyphs.page_texts[number]
        drawn = sum(n for text, n in texts.items() if text.strip())
        # wrong_texts None: the whole font's mapping is contradicted
        wrong = drawn if wrong_texts is None else sum(n for text, n in texts.items() if text in wrong_texts)
        pages.append({"page": number, "glyphs": drawn,
                      "textless": sum(n for gid, n in uses.items() if gid in textless) if textless else 0,
                      "wrong": wrong if conflict else 0})
    return {"glyph_pages": pages, "textless_distinct": len(textless), "mapping_conflict": conflict}


def _has_text(glyphs: _Glyphs, gid: int) -> bool:
    return any(text.strip() for text in glyphs.texts.get(gid, ()))


def _textless_glyphs(glyphs: _Glyphs) -> set[int]:
    """Glyph ids drawn visibly whose text is only whitespace, other than the font's space glyph."""
    blank = [gid for gid in glyphs.space_uses if not _has_text(glyphs, gid)]
    if len(blank) <= _MAX_SPACE_GLYPHS:
        return set()
    space = max(blank, key=lambda gid: glyphs.space_uses[gid])
    return set(blank) - {space}


def _mapping_conflict(doc: pymupdf.Document, record: dict[str, Any],
                      glyphs: _Glyphs) -> tuple[str | None, set[str] | None]:
    """Why the font contradicts its Unicode mapping, and which mapped texts are contradicted
    (None: all the font's text). (None, set()) when nothing contradicts it."""
    if not record.get("has_tounicode") or record.get("font_type") == "Type3":
        return None, set()
    if record.get("font_type") != "Type0":
        names = _differences_conflicts(doc, record["xref"])
        if names:
            return names
    if glyphs.ambiguous:
        return None, set()
    cmap = _cmap_conflict(doc, record, glyphs)
    if cmap:
        return cmap
    return _width_conflict(glyphs), None


_MIN_CMAP_GLYPHS = 8  # distinct glyphs the font's cmap and the mapping both name a letter or digit
_MIN_CMAP_COVER = 0.8  # share of the drawn glyphs the font's cmap must cover (else its ids are not the drawn ones)
_MIN_CMAP_CONFLICT_SHARE = 0.3  # share of the compared glyphs contradicted (a right mapping: none)


def _cmap_conflict(doc: pymupdf.Document, record: dict[str, Any], glyphs: _Glyphs) -> tuple[str, set[str]] | None:
    """An embedded TrueType/OpenType program's own cmap, read backwards (glyph id -> characters), against
    the texts the mapping gives the glyphs drawn: glyph 'a' mapped to 'b' is contradicted."""
    if not record.get("embedded") or record.get("font_type") not in ("TrueType", "Type0"):
        return None
    try:
        _, ext, _, buffer = doc.extract_font(record["xref"])
        if ext not in ("ttf", "otf") or not buffer:
            return None
        font = pymupdf.Font(fontbuffer=buffer)
        reverse: dict[int, set[str]] = {}
        for code in font.valid_codepoints():
            gid = font.has_glyph(code)
            if gid and not 0xE000 <= code <= 0xF8FF:
                reverse.setdefault(gid, set()).add(unicodedata.normalize("NFKC", chr(code)))
    except (RuntimeError, ValueError):
        return None
    drawn = [gid for gid in glyphs.texts if _has_text(glyphs, gid)]
    if not drawn or sum(1 for gid in drawn if gid in reverse) < _MIN_CMAP_COVER * len(drawn):
        return None
    compared, bad, right = 0, [], set()
    for gid in drawn:
        names = {r for r in reverse.get(gid, ()) if _alnum(r)}
        texts = [t for t in glyphs.texts[gid] if _alnum(t)]
        if not names or not texts:
            continue
        compared += 1
        wrong = [t for t in texts if not any(unicodedata.normalize("NFKC", t) in r for r in names)]
        if wrong:
            bad.append((gid, "".join(sorted(names)), wrong[0], wrong))
        else:
            right.update(texts)
    if compared < _MIN_CMAP_GLYPHS or len(bad) < _MIN_CONFLICT_CODES or len(bad) < _MIN_CMAP_CONFLICT_SHARE * compared:
        return None
    gid, name, text = bad[0][:3]
    return (f"{len(bad)} of {compared} glyphs map to other letters than the font's own cmap gives them"
            f" (glyph {gid} is {name!r}, mapped to {text!r})", {t for b in bad for t in b[3]} - right)


def _width_conflict(glyphs: _Glyphs) -> str | None:
    by_letter: dict[str, tuple[int, float]] = {}
    for gid, texts in glyphs.texts.items():
        text, uses = texts.most_common(1)[0]
        if (len(text) == 1 and text.isascii() and text.isalpha() and glyphs.width.get(gid, 0) > 0
                and uses > by_letter.get(text, (0, 0.0))[0]):
            by_letter[text] = (uses, glyphs.width[gid])
    if len(by_letter) < _MIN_LETTERS:
        return None
    letters = sorted(by_letter)
    widths = [by_letter[c][1] for c in letters]
    mean = sum(widths) / len(widths)
    spread = (sum((w - mean) ** 2 for w in widths) / len(widths)) ** 0.5 / mean
    if spread < _MIN_WIDTH_SPREAD:
        return None
    rho = _rank_correlation(widths, [_reference_width(c) for c in letters])
    if rho is None or rho >= _MAX_WIDTH_RANK_CORRELATION:
        return None
    return (f"the widths of the glyphs mapped to {len(letters)} letters do not fit those letters"
            f" (rank correlation {rho:.2f}; a right mapping gives 0.6 and more)")


def _reference_width(letter: str) -> float:
    if letter not in _reference:
        _reference[letter] = sum(pymupdf.Font(name).glyph_advance(ord(letter)) for name in _REFERENCE_FONTS)
    return _reference[letter]


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


def _rank_correlation(a: list[float], b: list[float]) -> float | None:
    ra, rb = _ranks(a), _ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va, vb = sum((x - ma) ** 2 for x in ra), sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va and vb else None


# Glyph names (Adobe Glyph List conventions) that name a letter or a digit; other names are not compared.
_DIGITS = dict(zip(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"), "0123456789",
                   strict=True))
_ACCENTS = {"acute": "\u0301", "grave": "\u0300", "circumflex": "\u0302", "dieresis": "\u0308", "tilde": "\u0303",
            "ring": "\u030a", "cedilla": "\u0327", "caron": "\u030c", "macron": "\u0304", "breve": "\u0306",
            "ogonek": "\u0328", "dotaccent": "\u0307", "hungarumlaut": "\u030b"}
_LIGATURES = {"ff": "ff", "fi": "fi", "fl": "fl", "ffi": "ffi", "ffl": "ffl"}
_UNI_NAME = re.compile(r"^uni((?:[0-9A-F]{4})+)$|^u([0-9A-F]{4,6})$")
_ACCENTED = re.compile(r"^([A-Za-z])(" + "|".join(_ACCENTS) + r")$")


def _glyph_name_text(name: str) -> str | None:
    """The text a glyph name stands for, when it is a letter, digit or ligature of them; else None."""
    base = name.split(".")[0]
    if "_" in base:
        parts = [_glyph_name_text(p) for p in base.split("_")]
        return None if None in parts else "".join(p for p in parts if p)
    if len(base) == 1 and base.isascii() and base.isalpha():
        return base
    if base in _DIGITS:
        return _DIGITS[base]
    if base in _LIGATURES:
        return _LIGATURES[base]
    match = _UNI_NAME.match(base)
    if match:
        hexes = match.group(1) or match.group(2)
        step = 4 if match.group(1) else len(hexes)
        try:
            return "".join(chr(int(hexes[i:i + step], 16)) for i in range(0, len(hexes), step))
        except ValueError:
            return None
    match = _ACCENTED.match(base)
    if match:
        return unicodedata.normalize("NFC", match.group(1) + _ACCENTS[match.group(2)])
    return None


def _alnum(text: str) -> bool:
    return bool(text) and all(unicodedata.category(c)[0] in "LN" for c in text)


def _differences_conflicts(doc: pymupdf.Document, xref: int) -> tuple[str, set[str]] | None:
    """Codes whose /Differences glyph name is a letter or digit that ToUnicode maps to another one."""
    names = _differences(doc, xref)
    if not names:
        return None
    mapped = _tounicode_codes(doc, xref)
    bad: list[tuple[int, str, str]] = []
    for code, name in names.items():
        expected, actual = _glyph_name_text(name), mapped.get(code)
        if expected is None or actual is None:
            continue
        expected, actual = unicodedata.normalize("NFKC", expected), unicodedata.normalize("NFKC", actual)
        if expected != actual and _alnum(expected) and _alnum(actual):
            bad.append((code, name, actual))
    if len(bad) < _MIN_CONFLICT_CODES:
        return None
    code, name, actual = bad[0]
    # A contradicted text that a right code also maps to is not counted as wrong.
    right = {mapped[c] for c in names if c in mapped and all(c != b[0] for b in bad)}
    return (f"{len(bad)} codes map to other letters than their glyph names (code {code} is /{name}, "
            f"mapped to {actual!r})", {b[2] for b in bad} - right)


_DIFF_TOKEN = re.compile(r"/([^\s/\[\]()<>]+)|(\d+)")


def _differences(doc: pymupdf.Document, xref: int) -> dict[int, str]:
    kind, value = doc.xref_get_key(xref, "Encoding")
    if kind == "xref":
        kind, value = doc.xref_get_key(int(value.split()[0]), "Differences")
    elif kind == "dict":
        kind, value = doc.xref_get_key(xref, "Encoding/Differences")
    if kind != "array":
        return {}
    names: dict[int, str] = {}
    code = 0
    for name, number in _DIFF_TOKEN.findall(value):
        if number:
            code = int(number)
        else:
            names[code] = name
            code += 1
    return names


_BFCHAR = re.compile(rb"beginbfchar(.*?)endbfchar", re.S)
_BFRANGE = re.compile(rb"beginbfrange(.*?)endbfrange", re.S)
_HEX_PAIR = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>")
_HEX_RANGE = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]*>|\[[^\]]*\])")


def _utf16(hexes: bytes) -> str:
    return bytes.fromhex(hexes.decode()).decode("utf-16-be", errors="replace") if len(hexes) % 4 == 0 else ""


def _tounicode_codes(doc: pymupdf.Document, xref: int) -> dict[int, str]:
    """A simple font's ToUnicode CMap, code -> text (bfchar and bfrange)."""
    kind, value = doc.xref_get_key(xref, "ToUnicode")
    if kind != "xref":
        return {}
    try:
        data = doc.xref_stream(int(value.split()[0])) or b""
    except (RuntimeError, ValueError):
        return {}
    codes: dict[int, str] = {}
    for block in _BFCHAR.findall(data):
        for src, dst in _HEX_PAIR.findall(block):
            codes[int(src, 16)] = _utf16(dst)
    for block in _BFRANGE.findall(data):
        for lo, hi, dst in _HEX_RANGE.findall(block):
            first, last = int(lo, 16), int(hi, 16)
            if last - first > 255:
                continue
            if dst.startswith(b"["):
                for i, item in enumerate(re.findall(rb"<([0-9A-Fa-f]*)>", dst)):
                    codes[first + i] = _utf16(item)
            else:
                start = _utf16(dst[1:-1])
                for i in range(last - first + 1):
                    codes[first + i] = start[:-1] + chr(ord(start[-1]) + i) if start else ""
    return codes
