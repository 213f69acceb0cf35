"""Seeded typst sources for the synthetic benchmark's base documents.

Each base document is a short, scholarly-looking paper (title, authors, abstract, nested
H1/H2 sections, paragraphs, a bulleted list, a table with a tagged header row, a bar-chart
figure with alt text, one internal link, one or two external links and an IEEE-style
reference list). typst writes it as a tagged PDF/UA-1 file, which is the ``passed`` variant
every mutation starts from.

All text comes from small word pools combined by a seeded :class:`random.Random`, so a seed
fully determines a document. The pools contain no typst markup characters; ``_markup``
escapes anyway so that edits to the pools cannot break compilation.
"""

from __future__ import annotations

import io
import json
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import typst
from PIL import Image

# A fixed compile time: typst stamps it into /Info and XMP; the writer strips both later,
# but a constant keeps even the intermediate bytes reproducible.
_TIMESTAMP = 0
_CHART_FILE = "chart.png"


@dataclass(frozen=True)
class Topic:
    """Vocabulary for one research area; sentences are assembled from these slots."""

    field: str
    subject: str
    data: str
    measure: str
    unit: str
    groups: tuple[str, ...]
    method: str


@dataclass(frozen=True)
class BaseDoc:
    """A generated base document: its metadata, typst source and the chart image it embeds."""

    doc_id: str
    title: str
    authors: tuple[str, ...]
    year: int
    source: str
    chart_png: bytes
    alt_text: str
    internal_label: str
    external_urls: tuple[str, ...]


TOPICS: tuple[Topic, ...] = (
    Topic("urban mobility", "protected cycle lanes", "municipal traffic counts", "weekly cyclist volume",
          "counts per week", ("Harbour", "Old Town", "Riverside", "Northgate", "Station"),
          "interrupted time series"),
    Topic("hydrology", "small upland catchments", "stream gauge records", "peak discharge",
          "cubic metres per second", ("Alder Beck", "Fell Burn", "Moss Gill", "Stony Rill"),
          "regional regression"),
    Topic("education research", "peer tutoring schemes", "anonymised course records", "pass rate",
          "percent", ("Algebra", "Statistics", "Chemistry", "Programming", "Writing"),
          "matched cohort comparison"),
    Topic("energy systems", "rooftop solar arrays", "inverter telemetry", "daily yield",
          "kilowatt hours", ("Array A", "Array B", "Array C", "Array D"), "clear-sky normalisation"),
    Topic("public health", "community vaccination clinics", "clinic appointment logs", "attendance",
          "visits per day", ("Eastfield", "Brookside", "Millbank", "Southport"), "difference in differences"),
    Topic("software engineering", "code review practices", "pull request histories", "defect density",
          "defects per thousand lines", ("Parser", "Scheduler", "Storage", "Web client"),
          "mixed effects modelling"),
    Topic("ecology", "hedgerow restoration", "pollinator transect surveys", "visit frequency",
          "visits per hour", ("Site 1", "Site 2", "Site 3", "Site 4", "Site 5"),
          "generalised additive modelling"),
    Topic("human-computer interaction", "voice-driven form filling", "usability session recordings",
          "task completion time", "seconds", ("Form A", "Form B", "Form C", "Form D"),
          "within-subject study"),
)

_TITLE_TEMPLATES = (
    "Measuring the Effect of {Subject} with {Data}",
    "{Subject} Revisited: Evidence from {Data}",
    "What {Data} Reveal about {Subject}",
    "Applying {Method} to {Subject}",
    "Towards Reliable Estimates of {Measure} for {Subject}",
)

_FIRST_NAMES = ("Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Farah", "Goran", "Hana", "Ines", "Jonas",
                "Kwame", "Lena", "Mateo", "Noor", "Olga", "Priya", "Rafael", "Saoirse", "Tomasz", "Yuki")
_LAST_NAMES = ("Abbott", "Berger", "Castillo", "Demir", "Eriksen", "Fontaine", "Gallo", "Haddad", "Ivanova",
               "Jansen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quinn", "Rossi")
_INSTITUTES = ("Institute for Applied Data Studies", "Department of Environmental Science",
               "School of Computing and Design", "Centre for Policy Evaluation", "Faculty of Engineering")

_SENTENCES = (
    "Earlier work on {subject} relied mostly on short observation windows.",
    "We draw on {data} collected over {n} months.",
    "The main outcome is {measure}, reported in {unit}.",
    "Our {method} separates the effect of {subject} from seasonal variation.",
    "Practitioners in {field} have long asked whether {subject} deliver lasting change.",
    "Missing records were rare and were handled by listwise deletion.",
    "Estimates changed little when the analysis window was shortened by a quarter.",
    "The pattern held across all sites, although its size varied.",
    "We report uncertainty as intervals rather than single thresholds.",
    "Differences of this size matter for planning decisions in {field}.",
    "The largest gain appeared where the baseline was weakest.",
    "Two sites showed no measurable change, which we discuss below.",
    "Our sample covers {n} units, larger than most previous studies.",
    "All processing scripts are released alongside the data.",
    "These results suggest that {subject} deserve wider evaluation.",
    "A sensitivity check with an alternative specification gave the same ranking.",
)

_LIST_ITEMS = (
    "a cleaned and documented version of the {data}",
    "a reproducible {method} pipeline",
    "site-level estimates of {measure}",
    "a checklist for future evaluations of {subject}",
    "an open description of every exclusion rule",
    "guidance on interpreting {measure} for decision makers",
)

_SECTION_PLANS = (
    # (H1 title, H2 subsection titles)
    ("Introduction", ("Background", "Research questions")),
    ("Data and methods", ("Study sites", "Analysis")),
    ("Results", ("Main estimates",)),
    ("Discussion", ("Limitations",)),
    ("Conclusion", ()),
)

_LINK_TARGETS = (
    ("the project data archive", "https://data.example.org/{slug}/archive"),
    ("the public code repository", "https://code.example.net/{slug}"),
    ("the study preregistration", "https://registry.example.com/studies/{slug}"),
    ("the supplementary tables", "https://supplement.example.org/{slug}/tables"),
)

_JOURNALS = ("Journal of Applied Evidence", "Methods in Field Research", "Review of Open Data",
             "Transactions on Measurement")
_REF_TITLES = (
    "Long-term monitoring of {subject}", "Pitfalls in analysing {data}", "A practical guide to {method}",
    "Variation in {measure} across regions", "Designing fair evaluations in {field}",
)

_MARKUP_SPECIALS = set("\\#$*_`<>@[]~/=+-\"'")


def _markup(text: str) -> str:
    """Escape text for typst markup mode so it renders literally."""
    return "".join("\\" + ch if ch in _MARKUP_SPECIALS else ch for ch in text)


def _string(text: str) -> str:
    """Quote text as a typst string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _fill(template: str, topic: Topic, rng: random.Random) -> str:
    return template.format(
        subject=topic.subject, data=topic.data, measure=topic.measure, unit=topic.unit,
        method=topic.method, field=topic.field, n=rng.randint(12, 48),
        Subject=topic.subject.title(), Data=topic.data.title(), Measure=topic.measure.title(),
        Method=topic.method.title(),
    )


def _paragraph(topic: Topic, rng: random.Random, sentences: int) -> str:
    return " ".join(_fill(s, topic, rng) for s in rng.sample(_SENTENCES, sentences))


def _person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST_NAMES)} {rng.choice(_LAST_NAMES)}"


def render_chart_png(values: list[int]) -> bytes:
    """Draw a plain bar chart as PNG bytes (no text in the image: the alt text carries it)."""
    height, width, margin = 240, 400, 20
    img = np.full((height, width, 3), 255, dtype=np.uint8)
    img[height - margin, margin : width - margin] = 0  # x axis
    img[margin : height - margin, margin] = 0  # y axis
    slot = (width - 2 * margin) // len(values)
    top = max(values)
    palette = ((31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189), (255, 127, 14))
    for i, value in enumerate(values):
        bar_h = int((height - 3 * margin) * value / top)
        x0 = margin + i * slot + slot // 5
        img[height - margin - bar_h : height - margin, x0 : x0 + slot * 3 // 5] = palette[i % len(palette)]
    buf = io.BytesIO()
    # optimize=False and no metadata: Pillow then writes identical bytes for identical pixels.
    Image.fromarray(img).save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def _chart(topic: Topic, rng: random.Random) -> tuple[bytes, str, str, list[tuple[str, int]]]:
    """Return chart PNG, its alt text, its caption and the underlying rows (reused by the table)."""
    groups = tuple(rng.sample(topic.groups, 4))
    values = [rng.randint(20, 95) for _ in groups]
    best = groups[values.index(max(values))]
    listing = ", ".join(f"{g} {v}" for g, v in zip(groups, values, strict=True))
    alt = (f"Bar chart of {topic.measure} in {topic.unit} for four groups: {listing}. "
           f"{best} has the highest value.")
    caption = f"{topic.measure.capitalize()} by group."
    return render_chart_png(values), alt, caption, list(zip(groups, values, strict=True))


def _table(topic: Topic, rows: list[tuple[str, int]], rng: random.Random) -> str:
    header = f"table.header([*Group*], [*{_markup(topic.measure.capitalize())}*], [*Units observed*])"
    body = ", ".join(f"[{_markup(g)}], [{v}], [{rng.randint(8, 60)}]" for g, v in rows)
    return (f"#figure(table(columns: 3, align: (left, right, right), {header}, {body}),\n"
            f"  caption: [{_markup(topic.measure.capitalize())} and sample size per group.])\n")


def _bibliography(topic: Topic, rng: random.Random, count: int) -> tuple[str, list[str]]:
    """Hayagriva entries as JSON (a YAML subset) so typst needs no file on disk."""
    entries: dict[str, dict[str, object]] = {}
    for i, template in enumerate(rng.sample(_REF_TITLES, count), start=1):
        entry: dict[str, object] = {
            "type": "article",
            "title": _fill(template, topic, rng).capitalize(),
            "author": [f"{rng.choice(_LAST_NAMES)}, {rng.choice(_FIRST_NAMES)}"
                       for _ in range(rng.randint(1, 3))],
            "date": rng.randint(2004, 2022),
            "parent": {"type": "periodical", "title": rng.choice(_JOURNALS), "volume": rng.randint(3, 40)},
        }
        entries[f"ref{i}"] = entry
    data = json.dumps(entries, sort_keys=True)
    return f"#bibliography(bytes({_string(data)}), title: [References], style: \"ieee\")\n", list(entries)


def _cite(keys: list[str], rng: random.Random) -> str:
    return "".join(f" @{k}" for k in sorted(rng.sample(keys, rng.randint(1, 2))))


def make_base_doc(index: int, seed: int) -> BaseDoc:
    """Generate base document number ``index`` (0-based) for ``seed``."""
    # A string seed keeps (seed, index) pairs distinct: seed+index would make seed 1's first
    # document equal seed 0's second one.
    rng = random.Random(f"accessbench-synthetic:{seed}:{index}")
    topic = rng.choice(TOPICS)
    doc_id = f"SYN{index + 1:04d}"
    title = _fill(rng.choice(_TITLE_TEMPLATES), topic, rng)
    authors = tuple(dict.fromkeys(_person(rng) for _ in range(rng.randint(2, 4))))
    year = rng.randint(2016, 2025)
    slug = f"{topic.field.split()[0].replace('-', '')}-{rng.randint(100, 999)}"
    chart_png, alt_text, chart_caption, rows = _chart(topic, rng)
    bib_src, keys = _bibliography(topic, rng, rng.randint(3, 4))
    links = rng.sample(_LINK_TARGETS, rng.randint(1, 2))
    external_urls = tuple(url.format(slug=slug) for _, url in links)

    # Pick the sections: always Introduction, Methods and Results; Discussion and Conclusion
    # vary. Only some sections get their H2s so the hierarchy differs between documents.
    plan = list(_SECTION_PLANS[:3]) + rng.sample(_SECTION_PLANS[3:], rng.randint(0, 2))
    with_subsections = set(rng.sample(range(len(plan)), rng.randint(1, 2)))
    methods_label = "sec-methods"
    list_section = rng.choice((0, 1))

    parts = [
        f"#set document(title: {_string(title)}, author: ({', '.join(_string(a) for a in authors)},))\n",
        "#set text(lang: \"en\", size: 10.5pt)\n#set page(paper: \"a4\", margin: 2.2cm)\n",
        "#set heading(numbering: \"1.1\")\n#set par(justify: true)\n",
        "#title()\n",
        f"#align(center)[{_markup(', '.join(authors))} \\ {_markup(rng.choice(_INSTITUTES))}]\n\n",
        f"*Abstract.* {_markup(_paragraph(topic, rng, 3))}{_cite(keys, rng)}\n\n",
    ]
    for s_idx, (h1, h2s) in enumerate(plan):
        label = f" <{methods_label}>" if s_idx == 1 else ""
        parts.append(f"= {_markup(h1)}{label}\n{_markup(_paragraph(topic, rng, rng.randint(2, 4)))}")
        parts.append(_cite(keys, rng) + "\n\n")
        if s_idx == 0:
            parts.append(_link_paragraph(topic, rng, links, external_urls, methods_label))
        if s_idx == list_section:
            items = rng.sample(_LIST_ITEMS, rng.randint(3, 4))
            bullets = "".join(f"- {_markup(_fill(item, topic, rng))}\n" for item in items)
            parts.append(f"We contribute:\n{bullets}\n")
        if s_idx == 2:
            parts.append(_table(topic, rows, rng) + "\n")
            parts.append(f"#figure(image({_string(_CHART_FILE)}, width: 7cm),"
                         f" caption: [{_markup(chart_caption)}], alt: {_string(alt_text)})\n\n")
        if s_idx in with_subsections:
            for h2 in h2s[: rng.randint(1, len(h2s))] if h2s else ():
                parts.append(f"== {_markup(h2)}\n{_markup(_paragraph(topic, rng, rng.randint(2, 3)))}\n\n")
    parts.append(bib_src)
    source = "".join(parts)
    if "\n== " not in source:
        # Guarantee an H2 so heading mutations always have something to misnest.
        source = source.replace("\n#bibliography", f"\n== Outlook\n{_markup(_paragraph(topic, rng, 2))}\n\n"
                                "#bibliography", 1)
    return BaseDoc(doc_id, title, authors, year, source, chart_png, alt_text, methods_label, external_urls)


def _link_paragraph(topic: Topic, rng: random.Random, links: list[tuple[str, str]],
                    urls: tuple[str, ...], internal_label: str) -> str:
    """A paragraph holding the internal link and the external links (descriptive text, no raw URLs,
    so removing the annotations leaves no visible URL behind)."""
    external = " and ".join(f"#link({_string(url)})[{_markup(text)}]"
                            for (text, _), url in zip(links, urls, strict=True))
    return (f"Section #link(<{internal_label}>)[Data and methods] describes how the {_markup(topic.data)} "
            f"were prepared. Material for this study is available from {external}.\n\n")


def compile_base_doc(doc: BaseDoc) -> bytes:
    """Compile a base document to tagged PDF/UA-1 bytes."""
    with tempfile.TemporaryDirectory(prefix="accessbench-typst-") as tmp:
        root = Path(tmp)
        (root / "main.typ").write_text(doc.source, encoding="utf-8")
        (root / _CHART_FILE).write_bytes(doc.chart_png)
        # Bundled fonts only: system fonts differ between machines and would change the bytes.
        return typst.compile(str(root / "main.typ"), root=str(root), format="pdf", pdf_standards="ua-1",
                             timestamp=_TIMESTAMP, ignore_system_fonts=True)
