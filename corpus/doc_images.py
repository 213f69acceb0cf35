"""Figure images for the synthetic papers, each drawn from seeded data with an alt text that says
what the picture actually shows.

Kinds: a bar chart (values from the paper's table), a pipeline diagram (labelled boxes and
arrows), a heat map and an aerial-photo-like texture. Every informative mark is dark enough for
3:1 against white, so the ``passed`` colour-contrast variant holds for graphics too; the
contrast mutations wash images out on purpose.

PNG bytes depend only on the pixels (no metadata, ``optimize=False``), so output is
reproducible across runs.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from corpus.doc_vocab import MONTHS, Topic

# Dark enough for >= 4.5:1 against white (checked by the tests), so bars pass as graphics.
CHART_PALETTE = ((31, 78, 121), (164, 40, 42), (46, 107, 48), (106, 61, 154), (140, 81, 0))
INK = (25, 25, 25)


@dataclass(frozen=True)
class FigureImage:
    """One figure's picture and the texts that go with it."""

    name: str  # file name inside the typst project
    kind: str  # chart | diagram | heatmap | photo
    png: bytes
    alt: str
    caption: str


def _png(img: np.ndarray | Image.Image) -> bytes:
    image = Image.fromarray(img) if isinstance(img, np.ndarray) else img
    buf = io.BytesIO()
    # optimize=False and no metadata: Pillow then writes identical bytes for identical pixels.
    image.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def bar_chart(name: str, topic: Topic, rows: list[tuple[str, int]]) -> FigureImage:
    """Bars for each group; no text in the image, the alt text carries the values."""
    height, width, margin = 240, 400, 20
    img = np.full((height, width, 3), 255, dtype=np.uint8)
    img[height - margin, margin : width - margin] = INK  # x axis
    img[margin : height - margin, margin] = INK  # y axis
    values = [v for _, v in rows]
    slot = (width - 2 * margin) // len(values)
    for i, value in enumerate(values):
        bar_h = int((height - 3 * margin) * value / max(values))
        x0 = margin + i * slot + slot // 5
        img[height - margin - bar_h : height - margin, x0 : x0 + slot * 3 // 5] = CHART_PALETTE[i % 5]
    best = rows[values.index(max(values))][0]
    listing = ", ".join(f"{g} {v}" for g, v in rows)
    alt = (f"Bar chart of {topic.measure} in {topic.unit} for {len(rows)} groups: {listing}. "
           f"{best} has the highest value.")
    return FigureImage(name, "chart", _png(img), alt, f"{topic.measure.capitalize()} by group.")


def pipeline_diagram(name: str, topic: Topic) -> FigureImage:
    """Labelled boxes joined left to right by arrows."""
    steps = topic.steps
    width, height, box_w, box_h = 720, 150, 150, 60
    image = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=19)
    gap = (width - len(steps) * box_w) // (len(steps) + 1)
    top = (height - box_h) // 2
    for i, step in enumerate(steps):
        x0 = gap + i * (box_w + gap)
        draw.rectangle((x0, top, x0 + box_w, top + box_h), outline=INK, width=3, fill=(236, 242, 250))
        draw.text((x0 + box_w / 2, top + box_h / 2), step, fill=INK, font=font, anchor="mm")
        if i + 1 < len(steps):
            ax0, ax1, ay = x0 + box_w + 4, x0 + box_w + gap - 4, height // 2
            draw.line((ax0, ay, ax1, ay), fill=INK, width=3)
            draw.polygon(((ax1, ay), (ax1 - 9, ay - 6), (ax1 - 9, ay + 6)), fill=INK)
    alt = (f"Flow diagram of the analysis: {len(steps)} boxes connected left to right by arrows, "
           f"labelled {', '.join(steps[:-1])} and {steps[-1]}.")
    return FigureImage(name, "diagram", _png(image), alt, f"Processing steps of the {topic.method}.")


def heat_map(name: str, topic: Topic, rng: random.Random) -> FigureImage:
    """Groups by months; darker blue means a higher value (lightest cell still 3:1 on white)."""
    groups, months = list(topic.groups[:4]), list(MONTHS[:6])
    trend = rng.choice((-1, 1))
    # A step of 8 with noise of at most 2 keeps every row strictly monotone, so the alt text's
    # "rise/fall in every group" is true by construction.
    values = np.array([[start + trend * 8 * m + rng.randint(-2, 2) for m in range(len(months))]
                       for start in (rng.randint(50, 70) for _ in groups)])
    low, high = np.array((110, 140, 190)), np.array((12, 30, 90))
    scale = (values - values.min()) / max(1, values.max() - values.min())
    cell = 40
    img = np.full((len(groups) * cell, len(months) * cell, 3), 255, dtype=np.uint8)
    for r in range(len(groups)):
        for c in range(len(months)):
            colour = (low + (high - low) * scale[r, c]).astype(np.uint8)
            img[r * cell + 2 : (r + 1) * cell - 2, c * cell + 2 : (c + 1) * cell - 2] = colour
    top_row, top_col = (int(i) for i in np.unravel_index(int(values.argmax()), values.shape))
    top = "the highest value" if int((values == values.max()).sum()) == 1 else "a joint highest value"
    direction = "rise" if trend > 0 else "fall"
    alt = (f"Heat map of {topic.measure} for {len(groups)} groups (rows: {', '.join(groups)}) over the months "
           f"{months[0]} to {months[-1]} (columns); darker cells are higher. Values {direction} from "
           f"{months[0]} to {months[-1]} in every group, with {top} for {groups[top_row]} in {months[top_col]}.")
    return FigureImage(name, "heatmap", _png(img), alt, f"Monthly {topic.measure} per group.")


def aerial_photo(name: str, topic: Topic, rng: random.Random) -> FigureImage:
    """Photo-like texture: smooth patches of field colours crossed by a river band."""
    height, width = 220, 360
    noise = np.random.default_rng(rng.getrandbits(32))
    coarse = (noise.random((height // 20 + 2, width // 20 + 2)) * 255).astype(np.uint8)
    # Bicubic upscaling turns the coarse grid into soft, field-like patches.
    patches = np.asarray(Image.fromarray(coarse).resize((width, height), Image.Resampling.BICUBIC)) / 255
    grain = noise.normal(0, 0.06, (height, width))
    green, brown = np.array((70, 110, 55)), np.array((125, 95, 60))
    mix = np.clip(patches + grain, 0, 1)[..., None]
    img = (green * mix + brown * (1 - mix)).astype(np.uint8)
    from_left = rng.random() < 0.5
    ys, xs = np.mgrid[0:height, 0:width]
    # The river runs from the left edge (or the top edge) to the opposite side, gently curving.
    if from_left:
        centre = height * 0.35 + height * 0.3 * xs / width + 12 * np.sin(xs / 40)
        img[np.abs(ys - centre) < 9] = (40, 80, 140)
        path = "from the left edge to the right edge"
    else:
        centre = width * 0.3 + width * 0.35 * ys / height + 12 * np.sin(ys / 40)
        img[np.abs(xs - centre) < 9] = (40, 80, 140)
        path = "from the top edge to the bottom edge"
    alt = (f"Aerial photograph of the {topic.site} used as a study site: a patchwork of green and brown "
           f"fields crossed by a blue river that runs {path}.")
    return FigureImage(name, "photo", _png(img), alt, f"Aerial view of the {topic.site}.")
