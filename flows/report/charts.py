"""Charts as standalone SVG (no plotting library): confusion heatmaps, bar charts; and outlined page images.

Every chart is a string of SVG whose text is XML-escaped (labels can come from a PDF or a model)
plus the sentence a screen reader hears in its place (`Chart.alt`), which states what it shows.
Colours are chosen for contrast: text reaches 4.5:1 on its background, bars 3:1 on white.
`save` writes a chart as SVG and PNG (rendered by MuPDF) for papers.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from common.colour import luminance_of_hex

INK = "#1a1a1a"
MUTED = "#595959"  # 7:1 on white
# Bars: each at least 3:1 against white (WCAG 1.4.11), distinguishable from one another.
SERIES = ("#1f5fa8", "#b34700", "#2e7d32", "#7b3fa0", "#a3123a", "#00707a", "#6b5b00")
OUTLINE = "#d40000"  # failing regions on page images: 5.3:1 on white
# One outline colour per criterion, from the Okabe–Ito palette (told apart with any colour vision deficiency),
# the darker members only, each at least 3:1 on white; the legend names each colour's criterion.
CRITERION_OUTLINES = ("#0072B2", "#D55E00", "#CC79A7", "#009E73", "#A86F00", "#000000", "#5B3A99")


@dataclass(frozen=True)
class Chart:
    name: str  # file stem when saved
    svg: str
    alt: str  # what the chart shows, in words

    def data_uri(self) -> str:
        return "data:image/svg+xml;base64," + base64.b64encode(self.svg.encode("utf-8")).decode("ascii")


def _luminance(hex_colour: str) -> float:
    return luminance_of_hex(hex_colour)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _shade(share: float) -> str:
    """White (0) to dark blue (1)."""
    low, high = (255, 255, 255), (8, 48, 107)
    rgb = [round(lo + (hi - lo) * max(0.0, min(1.0, share))) for lo, hi in zip(low, high, strict=True)]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _text_on(background: str) -> str:
    return INK if contrast(INK, background) >= contrast("#ffffff", background) else "#ffffff"


def _svg(width: float, height: float, body: list[str], title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">'
            f'<title>{escape(title)}</title><rect width="100%" height="100%" fill="#ffffff"/>'
            + "".join(body) + "</svg>")


def _text(x: float, y: float, text: str, anchor: str = "start", fill: str = INK, size: int = 12,
          weight: str = "normal") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" fill="{fill}" font-size="{size}" '
            f'font-weight="{weight}">{escape(text)}</text>')


def heatmap(name: str, title: str, rows: list[str], cols: list[str], counts: dict[tuple[str, str], int]) -> Chart:
    """Confusion matrix: expected labels down, judged labels across; shade = share of the row."""
    cell, left, top = 64, 130, 64
    width, height = left + cell * len(cols) + 20, top + cell * len(rows) + 40
    body = [_text(8, 20, title, size=14, weight="bold"), _text(left + cell * len(cols) / 2, 38, "judged label",
                                                               "middle", MUTED)]
    for j, col in enumerate(cols):
        body.append(_text(left + cell * j + cell / 2, top - 4, col.replace("_", " "), "middle", size=11))
    described = []
    for i, row in enumerate(rows):
        total = sum(counts.get((row, c), 0) for c in cols)
        body.append(_text(left - 6, top + cell * i + cell / 2 + 4, row.replace("_", " "), "end", size=11))
        for j, col in enumerate(cols):
            n = counts.get((row, col), 0)
            fill = _shade(n / total if total else 0)
            body.append(f'<rect x="{left + cell * j}" y="{top + cell * i}" width="{cell}" height="{cell}" '
                        f'fill="{fill}" stroke="#767676"/>')
            body.append(_text(left + cell * j + cell / 2, top + cell * i + cell / 2 + 5, str(n), "middle",
                              _text_on(fill), 14))
        described.append(f"expected {row.replace('_', ' ')}: " + ", ".join(
            f"{counts.get((row, c), 0)} judged {c.replace('_', ' ')}" for c in cols))
    body.append(_text(8, top + cell * len(rows) + 24, "rows: expected label; shade: share of the row", fill=MUTED,
                      size=11))
    alt = f"{title}. Confusion matrix, " + "; ".join(described) + "."
    return Chart(name, _svg(width, height, body, title), alt)


def value_heatmap(name: str, title: str, rows: list[str], cols: list[str], values: dict[tuple[str, str], float],
                  what: str) -> Chart:
    """Shares 0..1 (e.g. DLCS per model × category): shade and printed value per cell; `what` names the value."""
    cell_w, cell_h, left, top = 78, 34, 320, 58
    width, height = left + cell_w * len(cols) + 20, top + cell_h * len(rows) + 40
    body = [_text(8, 20, title, size=14, weight="bold")]
    for j, col in enumerate(cols):
        body.append(_text(left + cell_w * j + cell_w / 2, top - 6, col[:14], "middle", size=10))
    described = []
    for i, row in enumerate(rows):
        body.append(_text(left - 6, top + cell_h * i + cell_h / 2 + 4, row[:50], "end", size=11))
        for j, col in enumerate(cols):
            value = values.get((row, col))
            fill = _shade(value) if value is not None else "#ffffff"
            body.append(f'<rect x="{left + cell_w * j}" y="{top + cell_h * i}" width="{cell_w}" height="{cell_h}" '
                        f'fill="{fill}" stroke="#767676"/>')
            body.append(_text(left + cell_w * j + cell_w / 2, top + cell_h * i + cell_h / 2 + 5,
                              "–" if value is None else f"{value:.2f}", "middle", _text_on(fill), 12))
        described.append(f"{row}: " + ", ".join(
            f"{c} {values[(row, c)]:.2f}" for c in cols if values.get((row, c)) is not None))
    body.append(_text(8, top + cell_h * len(rows) + 24, f"shade: {what}, 0 (white) to 1 (dark)", fill=MUTED,
                      size=11))
    alt = f"{title}. Heatmap of {what}; " + "; ".join(described) + "."
    return Chart(name, _svg(width, height, body, title), alt)


def bars(name: str, title: str, categories: list[str], series: dict[str, list[float | None]],
         errors: dict[str, list[float | None]] | None = None, maximum: float = 1.0) -> Chart:
    """Grouped horizontal bars: one group per category, one bar per series (e.g. judge), value 0..maximum."""
    bar, gap, left, plot = 16, 12, 190, 420
    names = list(series)
    legend_h = 20 * len(names)
    top = 40 + legend_h
    height = top + len(categories) * (bar * len(names) + gap) + 40
    width = left + plot + 90
    body = [_text(8, 20, title, size=14, weight="bold")]
    for k, label in enumerate(names):
        colour = SERIES[k % len(SERIES)]
        body.append(f'<rect x="{left}" y="{30 + 20 * k}" width="12" height="12" fill="{colour}"/>')
        body.append(_text(left + 18, 41 + 20 * k, label))
    described = []
    for i, category in enumerate(categories):
        y0 = top + i * (bar * len(names) + gap)
        body.append(_text(left - 6, y0 + bar * len(names) / 2 + 4, category.replace("_", " "), "end", size=11))
        parts = []
        for k, label in enumerate(names):
            value = series[label][i]
            y = y0 + k * bar
            if value is None:
                body.append(_text(left + 4, y + bar - 4, "no value", fill=MUTED, size=10))
                parts.append(f"{label} no value")
                continue
            w = plot * max(0.0, min(value, maximum)) / maximum
            colour = SERIES[k % len(SERIES)]
            body.append(f'<rect x="{left}" y="{y + 1}" width="{w:.1f}" height="{bar - 2}" fill="{colour}"/>')
            sd = (errors or {}).get(label, [None] * len(categories))[i]
            end = left + w
            if sd:
                x1, x2 = left + plot * max(0.0, value - sd) / maximum, left + plot * min(maximum, value + sd) / maximum
                body.append(f'<line x1="{x1:.1f}" x2="{x2:.1f}" y1="{y + bar / 2}" y2="{y + bar / 2}" stroke="{INK}"/>')
                end = max(end, x2)
            body.append(_text(end + 6, y + bar - 4, f"{value:.2f}" + (f" ± {sd:.2f}" if sd else ""), size=10))
            parts.append(f"{label} {value:.2f}" + (f" (SD {sd:.2f})" if sd else ""))
        described.append(f"{category.replace('_', ' ')}: " + ", ".join(parts))
    axis_y = height - 28
    body.append(f'<line x1="{left}" x2="{left + plot}" y1="{axis_y}" y2="{axis_y}" stroke="{MUTED}"/>')
    for tick in range(6):
        x = left + plot * tick / 5
        body.append(_text(x, axis_y + 16, f"{maximum * tick / 5:.1f}", "middle", MUTED, 10))
    alt = f"{title}. Bar chart; " + "; ".join(described) + "."
    return Chart(name, _svg(width, height, body, title), alt)


def save(chart: Chart, folder: Path) -> list[Path]:
    """Write `<name>.svg` and `<name>.png` (rendered by MuPDF at 2x) under `folder`."""
    import pymupdf

    from common.text import write_atomic

    folder.mkdir(parents=True, exist_ok=True)
    svg_path, png_path = folder / f"{chart.name}.svg", folder / f"{chart.name}.png"
    write_atomic(svg_path, chart.svg)
    with pymupdf.open(stream=chart.svg.encode("utf-8"), filetype="svg") as doc:
        doc[0].get_pixmap(matrix=pymupdf.Matrix(2, 2)).save(str(png_path))
    return [svg_path, png_path]


REPORT_DPI = 144  # page images in reports: 9 pt text stays legible, a text page is some 20 kB (WebP)
WEBP_QUALITY = 60


def outline_colour(criterion: str) -> str:
    from judges.criteria import CRITERIA

    return CRITERION_OUTLINES[CRITERIA.index(criterion) % len(CRITERION_OUTLINES)] if criterion in CRITERIA \
        else OUTLINE


REPORT_MAX_PIXELS = 4_000_000  # a report's page image: an A4 page at 144 dpi is 2.8 million pixels


def outlined_page_image(image_path: Path, source_pdf: str | None, page_no: int, width_pt: float,
                        regions: Sequence[tuple[Any, ...]], dpi: int = REPORT_DPI) -> tuple[bytes, int, int]:
    """A page as WebP with each region (its boxes in PDF points, top-left origin; a label) outlined in red and
    numbered once per region. Rendered from the source PDF at `dpi` when it is still there, else the stored
    page image is used. Returns (WebP bytes, width px, height px)."""
    from PIL import Image, ImageDraw, ImageFont

    image = None
    if source_pdf and Path(source_pdf).is_file():
        import pymupdf

        with pymupdf.open(source_pdf) as doc:
            if 0 < page_no <= doc.page_count:
                from extractors.source import capped_zoom

                # The report renders in the command's own process: a hostile page size (a 200-inch page) is drawn
                # at a lower resolution, not at gigabytes.
                page = doc[page_no - 1]
                zoom = capped_zoom(page.rect, dpi, REPORT_MAX_PIXELS)
                pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
                image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
        # MuPDF's store keeps a closed file's decoded images and fonts (up to 256 MB a process): the report,
        # rendering page after page of file after file in the command, grew by ~130 MB on 40 files.
        pymupdf.TOOLS.store_shrink(100)
    if image is None:
        with Image.open(image_path) as stored:
            image = stored.convert("RGB")
    scale = image.width / width_pt if width_pt else 1.0
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=max(12, round(image.width / 60)))
    line = max(2, round(image.width / 400))
    for k, region in enumerate(regions, start=1):
        boxes: list[list[float]] = region[0]
        colour: str = region[2] if len(region) > 2 else OUTLINE  # (boxes, label[, colour])
        red = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        for box in boxes:
            x0, y0, x1, y1 = (v * scale for v in box[:4])
            draw.rectangle((x0, y0, max(x1, x0 + 2), max(y1, y0 + 2)), outline=red, width=line)
        x0, y0 = boxes[0][0] * scale, boxes[0][1] * scale
        left, top, right, bottom = draw.textbbox((0, 0), str(k), font=font)
        tag_y = y0 - (bottom + 4) if y0 > bottom + 4 else y0
        draw.rectangle((x0, tag_y, x0 + right + 8, tag_y + bottom + 4), fill=red)
        draw.text((x0 + 4, tag_y + 2 - top / 2), str(k), fill=(255, 255, 255), font=font)
    return encode_webp(image), image.width, image.height


LOSSLESS_COLOURS = 10_000  # a page of more colours than this (photos, scans) is only encoded lossy


def encode_webp(image: Any) -> bytes:
    """The smaller of lossless WebP (far smaller for text and line art, glyph edges kept sharp) and lossy. A page
    of more than LOSSLESS_COLOURS colours is only encoded lossy: there lossless is several times larger and the
    slower of the two (on 112 renderings of the first two pages of 16 development PDFs at 60–144 dpi, lossy was
    the smaller every time such a page had that many colours)."""
    options: list[dict[str, Any]] = [{"quality": WEBP_QUALITY, "method": 4}]
    if image.getcolors(LOSSLESS_COLOURS) is not None:
        options.insert(0, {"lossless": True, "method": 4})
    encoded = []
    for option in options:
        out = io.BytesIO()
        image.save(out, format="WEBP", **option)
        encoded.append(out.getvalue())
    return min(encoded, key=len)
