"""Seeded typst base documents for the synthetic benchmark.

Each base document is a short scholarly-looking paper whose template is drawn from the seed:
one or two columns, body font and size, heading and link colours, running header and footer
(typst writes both as pagination artifacts), one or two tables of different shapes (simple,
two header rows, row spans), one to three figures (bar chart, pipeline diagram, heat map,
aerial photo), bulleted or numbered lists, footnotes, an optional shaded callout, internal
and external links, citations and a reference list. typst writes it as a tagged PDF/UA-1 file:
the ``passed`` variant every mutation starts from.

Content is decided once by :func:`make_base_doc`; :func:`render_source` turns it into typst
source under :class:`RenderOptions`. Variants that need a different document (no figures, no
tables, tiny, crowded or inconsistent type) re-render the same content, so every other word
stays the same.
"""

from __future__ import annotations

import functools
import io
import random
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import pikepdf
import typst

from common.thresholds import BODY_FLOOR_PT
from corpus import doc_blocks as blocks
from corpus import doc_images as images
from corpus.doc_vocab import (
    CALLOUTS,
    FOOTNOTES,
    INSTITUTES,
    LINK_TARGETS,
    LIST_ITEMS,
    SECTION_PLANS,
    STEP_ITEMS,
    TITLE_TEMPLATES,
    TOPICS,
    Topic,
    fill,
    paragraph,
    person,
)

# A fixed compile time: typst stamps it into /Info and XMP; the writer strips both later,
# but a constant keeps even the intermediate bytes reproducible.
_TIMESTAMP = 0
METHODS_LABEL = "sec-methods"  # target of the internal link; typst turns it into a named destination
BODY_FONTS = ("Libertinus Serif", "New Computer Modern")
ALL_FONTS = ("Libertinus Serif", "New Computer Modern", "DejaVu Sans Mono")  # typst's bundled text fonts
# Dark colours: every one has at least 7:1 against white.
HEADING_COLOURS = ("#000000", "#1b365d", "#3b1f5c", "#0f4d3a")
LINK_COLOURS = ("#1a4d8f", "#004f6e", "#6b1d1d")
CALLOUT_FILLS = ("#eef4fb", "#fdf3d0", "#eaf5ea")
MIN_BODY_SIZE = BODY_FLOOR_PT  # the fonts criterion's floor; base documents stay above it everywhere
MAX_PAGES = 3


@dataclass(frozen=True)
class Style:
    """Template choices drawn from the seed."""

    columns: int
    font: str
    size: float
    heading_colour: str
    link_colour: str
    running_header: bool
    justify: bool


@dataclass(frozen=True)
class Block:
    """A piece of body markup; ``kind`` lets a re-render drop or restyle it."""

    kind: str  # heading | para | list | table | figure | callout
    markup: str
    optional: bool = False  # an H2 subsection's heading or text: dropped first when the paper runs long


@dataclass(frozen=True)
class RenderOptions:
    """How to render a base document's content; the defaults give the passing document."""

    figures: bool = True
    tables: bool = True
    body_size: float | None = None  # override the template's size (the tiny-text variant)
    mixed_fonts: bool = False  # each paragraph in another family (the inconsistent-fonts variant)
    tracking_em: float | None = None  # letter spacing; negative values crowd letters together


DEFAULT_RENDER = RenderOptions()


@dataclass(frozen=True)
class BaseDoc:
    """A generated base document: metadata, template, content blocks and the images it embeds."""

    doc_id: str
    title: str
    authors: tuple[str, ...]
    year: int
    field: str
    style: Style
    front: str
    body: tuple[Block, ...]
    back: str
    figures: tuple[images.FigureImage, ...]
    table_kinds: tuple[str, ...]
    internal_label: str
    external_urls: tuple[str, ...]

    @property
    def source(self) -> str:
        return render_source(self)

    @property
    def image_files(self) -> Mapping[str, bytes]:
        return {f.name: f.png for f in self.figures}


def make_base_doc(index: int, seed: int) -> BaseDoc:
    """Generate base document number ``index`` (0-based) for ``seed``; at most :data:`MAX_PAGES` pages."""
    doc = _plan(index, seed)
    # Rarely a long single-column paper spills onto a fourth page: drop H2 subsections from the
    # end (keeping one, which the heading mutations need) until it fits.
    while _page_count(compile_base_doc(doc)) > MAX_PAGES:
        optional = [i for i, block in enumerate(doc.body) if block.optional]
        if len(optional) <= 2:
            break
        drop = set(optional[-2:])
        doc = replace(doc, body=tuple(b for i, b in enumerate(doc.body) if i not in drop))
    return doc


def _page_count(pdf: bytes) -> int:
    with pikepdf.open(io.BytesIO(pdf)) as opened:
        return len(opened.pages)


def _plan(index: int, seed: int) -> BaseDoc:
    """All content of one paper, decided by the seed before anything is compiled."""
    # A string seed keeps (seed, index) pairs distinct: seed+index would make seed 1's first
    # document equal seed 0's second one.
    rng = random.Random(f"accessbench-synthetic:{seed}:{index}")
    topic = rng.choice(TOPICS)
    title = fill(rng.choice(TITLE_TEMPLATES), topic, rng)
    authors = tuple(dict.fromkeys(person(rng) for _ in range(rng.randint(2, 4))))
    year = rng.randint(2016, 2025)
    style = Style(columns=rng.choice((1, 2)), font=rng.choice(BODY_FONTS), size=rng.choice((10.0, 10.5, 11.0)),
                  heading_colour=rng.choice(HEADING_COLOURS), link_colour=rng.choice(LINK_COLOURS),
                  running_header=rng.random() < 0.7, justify=rng.random() < 0.7)
    slug = f"{topic.field.split()[0].replace('-', '')}-{rng.randint(100, 999)}"
    links = [(text, url.format(slug=slug)) for text, url in rng.sample(LINK_TARGETS, rng.randint(1, 2))]
    groups = rng.sample(topic.groups, 4)
    rows = [(g, rng.randint(20, 95)) for g in groups]
    figures = _figures(topic, rows, rng)
    table_kinds = tuple(rng.sample(blocks.TABLE_KINDS, 1 if rng.random() < 0.7 else 2))
    bib_src, keys = blocks.bibliography(topic, rng, rng.randint(3, 4))
    front = _front_matter(topic, rng, title, authors, keys, style)
    body = _body(topic, rng, keys, links, rows, figures, table_kinds, style)
    return BaseDoc(f"SYN{index + 1:04d}", title, authors, year, topic.field, style, front, body, bib_src, figures,
                   table_kinds, METHODS_LABEL, tuple(url for _, url in links))


def _figures(topic: Topic, rows: list[tuple[str, int]], rng: random.Random) -> tuple[images.FigureImage, ...]:
    """Always the bar chart; zero to two further figures of other kinds."""
    extra = rng.sample(("diagram", "heatmap", "photo"), rng.choice((0, 1, 1, 2)))
    made = [images.bar_chart("fig-chart.png", topic, rows)]
    for kind in extra:
        if kind == "diagram":
            made.append(images.pipeline_diagram("fig-diagram.png", topic))
        elif kind == "heatmap":
            made.append(images.heat_map("fig-heatmap.png", topic, rng))
        else:
            made.append(images.aerial_photo("fig-photo.png", topic, rng))
    return tuple(made)


def _front_matter(topic: Topic, rng: random.Random, title: str, authors: tuple[str, ...], keys: list[str],
                  style: Style) -> str:
    """Title block and abstract; in two columns they span both columns at the top of page 1."""
    content = (f"#title()\n#align(center)[{blocks.markup(', '.join(authors))} \\ "
               f"{blocks.markup(rng.choice(INSTITUTES))}]\n\n"
               f"*Abstract.* {blocks.markup(paragraph(topic, rng, 3))}{blocks.cite(keys, rng)}\n\n")
    if style.columns == 2:
        return f"#place(top, float: true, scope: \"parent\", clearance: 1.2em)[\n{content}]\n"
    return content


def _body(topic: Topic, rng: random.Random, keys: list[str], links: list[tuple[str, str]],
          rows: list[tuple[str, int]], figures: tuple[images.FigureImage, ...], table_kinds: tuple[str, ...],
          style: Style) -> tuple[Block, ...]:
    """Numbered H1 sections with some H2s; lists, tables, figures, footnotes and a callout placed in them."""
    # Introduction, Methods and Results always; Discussion and Conclusion vary.
    plan = list(SECTION_PLANS[:3]) + rng.sample(SECTION_PLANS[3:], rng.randint(0, 2))
    with_subsections = set(rng.sample(range(len(plan)), rng.randint(1, 2)))
    footnote_sections = set(rng.sample(range(len(plan)), rng.randint(1, 2)))
    callout = rng.random() < 0.6
    width = "100%" if style.columns == 2 else rng.choice(("60%", "70%"))
    out: list[Block] = []
    for s_idx, (h1, h2s) in enumerate(plan):
        label = f" <{METHODS_LABEL}>" if s_idx == 1 else ""
        out.append(Block("heading", f"= {blocks.markup(h1)}{label}\n"))
        note = blocks.footnote(fill(rng.choice(FOOTNOTES), topic, rng)) if s_idx in footnote_sections else ""
        out.append(Block("para", f"{blocks.markup(paragraph(topic, rng, rng.randint(2, 4)))}{note}"
                                 f"{blocks.cite(keys, rng)}\n\n"))
        out.extend(_section_extras(s_idx, topic, rng, links, rows, figures, table_kinds, callout, width))
        if s_idx in with_subsections:
            for h2 in h2s[: rng.randint(1, len(h2s))] if h2s else ():
                out.append(Block("heading", f"== {blocks.markup(h2)}\n", optional=True))
                out.append(Block("para", f"{blocks.markup(paragraph(topic, rng, rng.randint(2, 3)))}\n\n",
                                 optional=True))
    if not any(b.markup.startswith("== ") for b in out):
        # Guarantee an H2 so heading mutations always have something to misnest.
        out.append(Block("heading", "== Outlook\n"))
        out.append(Block("para", f"{blocks.markup(paragraph(topic, rng, 2))}\n\n"))
    return tuple(out)


def _section_extras(s_idx: int, topic: Topic, rng: random.Random, links: list[tuple[str, str]],
                    rows: list[tuple[str, int]], figures: tuple[images.FigureImage, ...],
                    table_kinds: tuple[str, ...], callout: bool, width: str) -> list[Block]:
    """What follows a section's first paragraph: links and list (intro), steps, callout and diagram
    (methods), tables and the remaining figures (results)."""
    extras: list[Block] = []
    if s_idx == 0:
        extras.append(Block("para", blocks.link_paragraph(topic.data, links, METHODS_LABEL)))
        items = [fill(item, topic, rng) for item in rng.sample(LIST_ITEMS, rng.randint(3, 4))]
        extras.append(Block("list", "We contribute:\n" + blocks.bullet_list(items)))
    elif s_idx == 1:
        if rng.random() < 0.5:
            steps = [fill(item, topic, rng) for item in rng.sample(STEP_ITEMS, 3)]
            extras.append(Block("list", "The analysis has three steps:\n" + blocks.numbered_list(steps)))
        if callout:
            title, text = rng.choice(CALLOUTS)
            extras.append(Block("callout", blocks.callout(title, fill(text, topic, rng), rng.choice(CALLOUT_FILLS))))
        extras.extend(Block("figure", blocks.figure(f, width)) for f in figures if f.kind == "diagram")
    elif s_idx == 2:
        for kind in table_kinds:
            extras.append(Block("table", blocks.TABLE_BUILDERS[kind](topic, rows, rng)))
        extras.extend(Block("figure", blocks.figure(f, width)) for f in figures if f.kind != "diagram")
        extras.append(Block("para", f"{blocks.markup(paragraph(topic, rng, 2))}\n\n"))
    return extras


def render_source(doc: BaseDoc, options: RenderOptions = DEFAULT_RENDER) -> str:
    """typst source for ``doc`` under ``options``."""
    body = []
    for n, block in enumerate(doc.body):
        if (block.kind == "figure" and not options.figures) or (block.kind == "table" and not options.tables):
            continue
        text = block.markup
        if options.mixed_fonts and block.kind == "para":
            # Rotating families paragraph by paragraph: the font changes carry no meaning.
            font = ALL_FONTS[n % len(ALL_FONTS)]
            text = f"#text(font: {blocks.string(font)})[{text.rstrip()}]\n\n"
        body.append(text)
    return _preamble(doc, options) + doc.front + "".join(body) + doc.back


def _preamble(doc: BaseDoc, options: RenderOptions) -> str:
    style = doc.style
    size = options.body_size or style.size
    # Footnote entries are smaller than body text but never below the 9 pt floor in a passing document.
    note_size = max(MIN_BODY_SIZE, round(size * 0.9, 1)) if options.body_size is None else round(size * 0.9, 1)
    short = doc.title if len(doc.title) < 60 else doc.title[:57] + "..."
    header = (f"context {{ if counter(page).get().first() > 1 {{ set text(size: 9pt); "
              f"{blocks.string(short)}; h(1fr); {blocks.string(doc.authors[0].split()[-1] + ' et al.')} }} }}"
              if style.running_header else "none")
    authors = ", ".join(blocks.string(a) for a in doc.authors)
    tracking = f"#set text(tracking: {options.tracking_em}em)\n" if options.tracking_em is not None else ""
    return tracking + (
        f"#set document(title: {blocks.string(doc.title)}, author: ({authors},))\n"
        f"#set text(lang: \"en\", size: {size}pt, font: {blocks.string(style.font)})\n"
        f"#set page(paper: \"a4\", margin: (x: 2cm, y: 2.2cm), columns: {style.columns}, header: {header},\n"
        f"  footer: context align(center, text(size: 9pt, counter(page).display())))\n"
        "#set heading(numbering: \"1.1\")\n"
        f"#show heading: set text(fill: rgb({blocks.string(style.heading_colour)}))\n"
        f"#show link: set text(fill: rgb({blocks.string(style.link_colour)}))\n"
        f"#set par(justify: {'true' if style.justify else 'false'})\n"
        f"#show footnote.entry: set text(size: {note_size}pt)\n"
        # No hyphenation or justification in cells: narrow columns would split words oddly.
        "#show table: set par(justify: false)\n#show table: set text(hyphenate: false)\n"
    )


def compile_base_doc(doc: BaseDoc, options: RenderOptions = DEFAULT_RENDER) -> bytes:
    """Compile a base document (under ``options``) to tagged PDF/UA-1 bytes."""
    return _compile(render_source(doc, options), tuple(sorted(doc.image_files.items())))


@functools.lru_cache(maxsize=16)
def _compile(source: str, image_files: tuple[tuple[str, bytes], ...]) -> bytes:
    # Cached because make_base_doc compiles once to check the page count and the generator
    # compiles the same source again right after.
    with tempfile.TemporaryDirectory(prefix="accessbench-typst-") as tmp:
        root = Path(tmp)
        (root / "main.typ").write_text(source, encoding="utf-8")
        for name, png in image_files:
            (root / name).write_bytes(png)
        # Bundled fonts only: system fonts differ between machines and would change the bytes.
        return typst.compile(str(root / "main.typ"), root=str(root), format="pdf", pdf_standards="ua-1",
                             timestamp=_TIMESTAMP, ignore_system_fonts=True)
