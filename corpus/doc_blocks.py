"""typst markup for the building blocks of a synthetic paper: tables, figures, lists, callouts,
footnotes, links and the reference list.

Every function returns markup text; nothing here draws from the seed except through the
``rng`` it is given, so the caller decides what a seed determines.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from corpus.doc_images import FigureImage
from corpus.doc_vocab import FIRST_NAMES, JOURNALS, LAST_NAMES, REF_TITLES, Topic, fill

_MARKUP_SPECIALS = set("\\#$*_`<>@[]~/=+-\"'")
HEADER_FILL = "luma(232)"  # light enough that black header text keeps a contrast above 14:1
TABLE_KINDS = ("simple", "two_level", "spans")


def markup(text: str) -> str:
    """Escape text for typst markup mode so it renders literally."""
    return "".join("\\" + ch if ch in _MARKUP_SPECIALS else ch for ch in text)


def string(text: str) -> str:
    """Quote text as a typst string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _cells(values: Sequence[object]) -> str:
    return ", ".join(f"[{markup(str(v))}]" for v in values)


def _table_figure(columns: int, header_rows: int, header: str, body: str, caption: str) -> str:
    # The shaded header is a layout artifact; the table.header makes the TH cells with Scope.
    fill_rule = f"fill: (_, y) => if y < {header_rows} {{ {HEADER_FILL} }}"
    align = "(left," + " right," * (columns - 1) + ")"
    return (f"#figure(table(columns: {columns}, align: {align}, {fill_rule},\n"
            f"  table.header({header}),\n  {body}),\n  caption: [{markup(caption)}])\n\n")


def simple_table(topic: Topic, rows: list[tuple[str, int]], rng: random.Random) -> str:
    """One header row: group, measure, units observed."""
    header = f"[*Group*], [*{markup(topic.measure.capitalize())}*], [*Units observed*]"
    body = ", ".join(_cells((g, v, rng.randint(8, 60))) for g, v in rows)
    return _table_figure(3, 1, header, body, f"{topic.measure.capitalize()} and sample size per group.")


def two_level_table(topic: Topic, rows: list[tuple[str, int]], rng: random.Random) -> str:
    """Two header rows: a spanning group header over baseline/follow-up and sites/weeks."""
    header = (f"table.cell(rowspan: 2)[*Group*], table.cell(colspan: 2)[*{markup(topic.measure.capitalize())}*], "
              "table.cell(colspan: 2)[*Coverage*], [*Baseline*], [*Follow-up*], [*Sites*], [*Weeks*]")
    body = ", ".join(_cells((g, max(1, v - rng.randint(3, 15)), v, rng.randint(2, 9), rng.randint(10, 52)))
                     for g, v in rows)
    return _table_figure(5, 2, header, body, f"{topic.measure.capitalize()} before and after, with coverage.")


def span_table(topic: Topic, rows: list[tuple[str, int]], rng: random.Random) -> str:
    """Groups nested in two regions; each region cell spans its groups' rows."""
    header = f"[*Region*], [*Group*], [*{markup(topic.measure.capitalize())}*]"
    cells = []
    for i, (g, v) in enumerate(rows):
        if i % 2 == 0:
            cells.append(f"table.cell(rowspan: 2)[{'North' if i == 0 else 'South'}]")
        cells.append(_cells((g, v)))
    return _table_figure(3, 1, header, ", ".join(cells), f"{topic.measure.capitalize()} by region and group.")


TABLE_BUILDERS = {"simple": simple_table, "two_level": two_level_table, "spans": span_table}


def figure(image: FigureImage, width: str) -> str:
    return (f"#figure(image({string(image.name)}, width: {width}),"
            f" caption: [{markup(image.caption)}], alt: {string(image.alt)})\n\n")


def callout(title: str, text: str, fill_colour: str) -> str:
    """A shaded box (background is an artifact, text stays black: contrast above 15:1)."""
    return (f"#block(fill: rgb({string(fill_colour)}), stroke: 0.6pt + rgb(\"#33415c\"), inset: 8pt, "
            f"radius: 3pt, width: 100%)[#par[*{markup(title)}.* {markup(text)}]]\n\n")


def bullet_list(items: Sequence[str]) -> str:
    return "".join(f"- {markup(item)}\n" for item in items) + "\n"


def numbered_list(items: Sequence[str]) -> str:
    return "".join(f"+ {markup(item)}\n" for item in items) + "\n"


def footnote(text: str) -> str:
    return f"#footnote[{markup(text)}]"


def link_paragraph(data: str, links: Sequence[tuple[str, str]], internal_label: str) -> str:
    """The internal link and the external links, with descriptive text and no raw URLs, so
    removing the annotations leaves no visible URL behind."""
    external = " and ".join(f"#link({string(url)})[{markup(text)}]" for text, url in links)
    return (f"Section #link(<{internal_label}>)[Data and methods] describes how the {markup(data)} "
            f"were prepared. Material for this study is available from {external}.\n\n")


def bibliography(topic: Topic, rng: random.Random, count: int) -> tuple[str, list[str]]:
    """Hayagriva entries as JSON (a YAML subset) so typst needs no file on disk.

    No URLs: a printed URL would stay visible as text when the link mutations remove the
    annotations, which would make the "no links" variant ambiguous.
    """
    entries: dict[str, dict[str, object]] = {}
    for i, template in enumerate(rng.sample(REF_TITLES, count), start=1):
        entries[f"ref{i}"] = {
            "type": "article",
            "title": fill(template, topic, rng).capitalize(),
            "author": [f"{rng.choice(LAST_NAMES)}, {rng.choice(FIRST_NAMES)}" for _ in range(rng.randint(1, 3))],
            "date": rng.randint(2004, 2022),
            "parent": {"type": "periodical", "title": rng.choice(JOURNALS), "volume": rng.randint(3, 40)},
        }
    data = json.dumps(entries, sort_keys=True)
    return f"#bibliography(bytes({string(data)}), title: [References], style: \"ieee\")\n", list(entries)


def cite(keys: list[str], rng: random.Random) -> str:
    return "".join(f" @{k}" for k in sorted(rng.sample(keys, rng.randint(1, 2))))
