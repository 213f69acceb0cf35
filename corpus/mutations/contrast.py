"""color_contrast mutations: colours pushed below the WCAG thresholds by editing the page content.

Only fill-colour operators inside the chosen marked content (or the fills of shaded
backgrounds, or the pixels of figure images) change; text, tags, layout and page count stay
identical to the passing base. Every colour used here is checked against its threshold when
the module loads, so a wrong constant cannot silently produce a mislabelled file.

* body text (paragraphs, lists, footnotes, table cells) in a light grey or tint (below 4.5:1);
* headings and the title below 3:1 (they are large text, whose threshold is 3:1);
* captions below 4.5:1;
* shaded backgrounds (table header rows, callout boxes) darkened under black text;
* figure images washed out towards white, so their marks fall below 3:1 (graphics threshold).
"""

from __future__ import annotations

import random
import zlib
from typing import Any, cast

import numpy as np
import pikepdf
from pikepdf import Dictionary, Name

from common.colour import luminance
from corpus.mutations.content import block_role, instruction, recolour_fill, within
from corpus.mutations.structure import HEADING_TYPES, NotApplicable, PdfObject

RGB = tuple[float, float, float]

FAINT_TEXT: tuple[RGB, ...] = ((0.6, 0.6, 0.6), (0.7, 0.7, 0.7), (0.75, 0.75, 0.75), (0.55, 0.65, 0.8),
                               (0.85, 0.6, 0.45))
FAINT_LARGE: tuple[RGB, ...] = ((0.72, 0.72, 0.72), (0.6, 0.75, 0.9), (0.95, 0.7, 0.4))
DARK_BACKGROUNDS: tuple[RGB, ...] = ((0.15, 0.2, 0.3), (0.25, 0.18, 0.15), (0.2, 0.2, 0.2))
WASH = 0.72  # share of white mixed into every image pixel
_BODY_ROLES = {"/P", "/LI", "/LBody", "/Note", "/TD", "/TH"}


def relative_luminance(rgb: RGB) -> float:
    """WCAG 2.x relative luminance of an sRGB colour with components in 0..1 (common.colour)."""
    return luminance(rgb)


def contrast_ratio(a: RGB, b: RGB) -> float:
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


WHITE: RGB = (1.0, 1.0, 1.0)
BLACK: RGB = (0.0, 0.0, 0.0)
assert all(contrast_ratio(c, WHITE) < 4.0 for c in FAINT_TEXT)
assert all(contrast_ratio(c, WHITE) < 2.8 for c in FAINT_LARGE)
assert all(contrast_ratio(c, BLACK) < 2.5 for c in DARK_BACKGROUNDS)


def _recolour(pdf: pikepdf.Pdf, rng: random.Random, palette: tuple[RGB, ...], select: object, what: str) -> None:
    if recolour_fill(pdf, select, rng.choice(palette)) == 0:  # type: ignore[arg-type]
        raise NotApplicable(f"no {what} found")


def body_text_faint(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Paragraph, list, footnote and table text in a light colour (about 1.6:1 to 3.9:1 on white)."""
    _recolour(pdf, rng, FAINT_TEXT, lambda owner: block_role(owner) in _BODY_ROLES, "body text")


def headings_faint(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Headings and the title in a pale colour, under the 3:1 that large text needs."""
    _recolour(pdf, rng, FAINT_LARGE, lambda owner: within(owner, {*HEADING_TYPES, "/Title"}), "headings")


def captions_faint(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Figure and table captions in a light colour (below 4.5:1)."""
    _recolour(pdf, rng, FAINT_TEXT, lambda owner: within(owner, {"/Caption"}), "captions")


def _light_fill(operands: list[object]) -> bool:
    try:
        values = [float(v) for v in operands]  # type: ignore[arg-type]
    except (TypeError, ValueError):  # a pattern name: not a plain colour
        return False
    if len(values) == 1:
        values *= 3
    if len(values) != 3:
        return False
    return relative_luminance((values[0], values[1], values[2])) > 0.6 and min(values) < 0.995


def backgrounds_darkened(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Light background fills (table header rows, callouts) become dark under the black text.

    typst paints these shapes as artifacts: a fill colour followed by a rectangle and ``f``.
    Only light, non-white fills followed by a fill operator change.
    """
    dark = rng.choice(DARK_BACKGROUNDS)
    changed = 0
    for page in pdf.pages:
        ops = list(pikepdf.parse_content_stream(page))
        for i, op in enumerate(ops):
            if str(op.operator) in {"sc", "scn", "rg", "g"} and _light_fill(list(op.operands)) \
                    and _fills_next(ops, i):
                ops[i] = instruction(list(dark), "rg")
                changed += 1
        page.obj.Contents = pdf.make_stream(pikepdf.unparse_content_stream(ops))
    if not changed:
        raise NotApplicable("no shaded backgrounds")


def _fills_next(ops: list[Any], start: int) -> bool:
    """Whether the colour set at ``start`` is used by a path fill before text or another colour."""
    for op in ops[start + 1 :]:
        name = str(op.operator)
        if name in {"f", "F", "f*", "B", "B*", "b", "b*"}:
            return True
        if name in {"BT", "Q", "sc", "scn", "rg", "g", "k", "Do"}:
            return False
    return False


def _figure_images(pdf: pikepdf.Pdf) -> list[PdfObject]:
    found: dict[tuple[int, int], PdfObject] = {}
    for page in pdf.pages:
        for xobj in page.obj.get("/Resources", Dictionary()).get("/XObject", Dictionary()).values():
            if xobj.get("/Subtype") == Name.Image and int(xobj.get("/BitsPerComponent", 0)) == 8:
                found[xobj.objgen] = xobj
    return list(found.values())


def graphics_washed_out(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Every figure image blended towards white: bars, lines and labels drop below 3:1."""
    images = _figure_images(pdf)
    if not images:
        raise NotApplicable("no images")
    for xobj in images:
        original = pikepdf.PdfImage(cast(pikepdf.Stream, xobj)).as_pil_image()
        pixels = np.asarray(original.convert("RGB"), dtype=np.float32)
        washed = (pixels * (1 - WASH) + 255 * WASH).round().astype(np.uint8)
        xobj.write(zlib.compress(washed.tobytes()), filter=Name.FlateDecode)
        for key in ("/DecodeParms", "/Decode"):
            if key in xobj:
                del xobj[key]
        if original.mode != "RGB":  # the samples are RGB now; an RGB ICC profile stays valid
            xobj.ColorSpace = Name.DeviceRGB
