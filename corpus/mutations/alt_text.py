"""alt_text_quality mutations: one figure's ``/Alt`` stops describing its image.

The Figure element, its caption and the image stay; only the alternative text changes:

* generic words ("Figure", "image") that say nothing about the content;
* a file name, as authoring tools fill in when nobody writes an alt text;
* no ``/Alt`` at all, or an empty one;
* a specific description of something else (another figure's alt text, or an unrelated scene).

Not present is a re-rendered document without figures (see the registry).
"""

from __future__ import annotations

import random

import pikepdf
from pikepdf import String

from corpus.mutations.structure import NotApplicable, PdfObject, elements_of

GENERIC = ("Figure", "Image", "image", "Chart", "graphic", "Picture 1", "figure")
FILE_NAMES = ("image1.png", "fig2.png", "IMG_0042.JPG", "chart_final_v2.png", "Screenshot 2021-03-04.png",
              "figure-1.eps")
# Specific, plausible descriptions that match none of the generated images.
UNRELATED = (
    "Photograph of three researchers in lab coats standing beside a fume cupboard.",
    "Line graph of monthly rainfall in millimetres from 1990 to 2020, peaking every winter.",
    "Map of Europe with capital cities marked by red dots.",
    "Scatter plot of income against age with a fitted straight line sloping upwards.",
)


def _figures(pdf: pikepdf.Pdf) -> list[PdfObject]:
    figures = elements_of(pdf, "/Figure")
    if not figures:
        raise NotApplicable("no Figure elements")
    return figures


def _set_alt(figure: PdfObject, text: str | None) -> None:
    for key in ("/Alt", "/ActualText"):
        if key in figure:
            del figure[key]
    if text is not None:
        figure.Alt = String(text)


def alt_generic(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """One figure's alt text becomes a generic word."""
    _set_alt(rng.choice(_figures(pdf)), rng.choice(GENERIC))


def alt_file_name(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """One figure's alt text becomes an image file name."""
    _set_alt(rng.choice(_figures(pdf)), rng.choice(FILE_NAMES))


def alt_missing(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """One figure loses its alt text entirely, while others keep theirs.

    With a single figure the document would have no alt text at all, which the benchmark's
    experts label Not Present rather than Failed; so the mutation needs two figures.
    """
    figures = _figures(pdf)
    if len(figures) < 2:
        raise NotApplicable("alt_missing needs a second figure that keeps its alt text")
    _set_alt(rng.choice(figures), None)


def alt_empty(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """One informative figure gets an empty alt text (as if it were decorative, but still tagged)."""
    _set_alt(rng.choice(_figures(pdf)), "")


def alt_mismatched(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """One figure's alt text describes something else: another figure, or an unrelated scene."""
    figures = _figures(pdf)
    target = rng.choice(figures)
    own = str(target.get("/Alt", ""))
    others = [str(f.Alt) for f in figures if "/Alt" in f and str(f.Alt) != own]
    _set_alt(target, rng.choice(others) if others else rng.choice(UNRELATED))
