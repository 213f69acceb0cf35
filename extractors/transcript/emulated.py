"""The emulated screen reader (backend ``emulated``): what NVDA or JAWS announce for a PDF, in reading order.

A tagged PDF is read by walking its tag tree in logical (structure) order; an untagged one
as plain text blocks in content order (role ``text``), which is all a screen reader gets.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymupdf

from common.progress import page_done
from extractors.errors import ExtractionError, reading
from extractors.links import extract_links
from extractors.source import PdfSource, pdf_source
from extractors.structure.content import STRUCTURE_TEXT_FLAGS
from extractors.structure.records import extract_struct_elements, record_attributes
from extractors.transcript.base import (
    MAX_ANNOUNCEMENT,
    MAX_ENTRIES_PER_PAGE,
    MAX_TEXT,
    TRANSCRIBERS,
    TRUNCATED,
    clean_text,
    cut_text,
)
from extractors.transcript.text import (
    TEXT_BLOCK,
    is_bullet,
    leading,
    speakable,
    struct_blocks,
    trailing,
    without_spaces,
)

# How each standard type is read. Containers are silent and read their kids; text blocks
# start an announcement and merge inline kids and nested text blocks into it; inline kids
# merge into the announcement around them. Headings, lists, tables, links, figures,
# formulas and form fields are announced by role. Unknown types are read as containers.
_CONTAINERS = frozenset({
    "Document", "DocumentFragment", "Part", "Art", "Sect", "Div", "BlockQuote", "TOC", "Index",
    "NonStruct", "Private", "Aside", "THead", "TBody", "TFoot", "TR",
})
_TEXT_BLOCKS = {
    "P": "paragraph", "Caption": "caption", "Note": "note", "FENote": "note", "BibEntry": "paragraph",
    "TOCI": "paragraph", "LI": "list_item", "TD": "cell", "TH": "header_cell",
}
_INLINE = frozenset({
    "Span", "Em", "Strong", "Sub", "Quote", "Code", "Reference", "Lbl", "LBody", "Ruby", "RB", "RT", "RP",
    "Warichu", "WT", "WP", "Annot",
})
# Kids that interrupt the words around them: they are announced (or hold blocks) themselves.
_ANNOUNCED = frozenset({"L", "LI", "Table", "TR", "TH", "TD", "Link", "Figure", "Formula", "Form", "Title"})
_HEADING = re.compile(r"H([1-9][0-9]*)?")
_MIN_PREFIX = 20  # non-space characters; a shorter text can be the prefix of anything


@dataclass
class _Row:
    page: int | None
    announcement: str
    role: str
    element: int | None
    level: int | None = None
    text: str | None = None


@TRANSCRIBERS.register("emulated")
def transcribe(pdf: str | Path | PdfSource, *, doc_id: str, page_offset: int = 0,
               elements: list[dict] | None = None, links: list[dict] | None = None,
               max_entries_per_page: int = MAX_ENTRIES_PER_PAGE) -> list[dict]:
    """What an emulated screen reader announces for ``pdf``, as TRANSCRIPT_SCHEMA records.

    Pass ``elements`` (extract_struct_elements records of this PDF, same ``page_offset``)
    and ``links`` (extract_links records) when already extracted; the PDF is then only
    opened for a quick text pass that orders a paragraph's text around its inline kids.
    Each page gets at most ``max_entries_per_page`` entries, then one ``… truncated``
    entry. Raises ExtractionError for unreadable input.
    """
    with pdf_source(pdf) as source:
        if elements is None:
            elements = extract_struct_elements(source, doc_id=doc_id, page_offset=page_offset)
        rows = _ScreenReader(source, elements, links, doc_id, page_offset).read() if elements else _read_untagged(
            source, page_offset)
    return _records(rows, doc_id, max_entries_per_page)


def _read_untagged(source: PdfSource, page_offset: int) -> list[_Row]:
    """Text blocks in content order: with no tags a reader gets text and nothing else."""
    rows = []
    with reading(source, "page text"):
        for number in range(source.page_count):
            for block in source.text_blocks(number, pymupdf.TEXTFLAGS_BLOCKS):
                text = clean_text(block[4])
                if block[6] == TEXT_BLOCK and speakable(text):
                    rows.append(_Row(number + 1 + page_offset, text, "text", None, text=text))
            page_done()
    return rows


def _records(rows: list[_Row], doc_id: str, max_per_page: int) -> list[dict]:
    records: list[dict] = []
    counts: dict[int | None, int] = defaultdict(int)
    for row in rows:
        counts[row.page] += 1
        if counts[row.page] > max_per_page + 1:
            continue
        if counts[row.page] == max_per_page + 1:  # the page's last entry says the rest was cut
            row = _Row(row.page, TRUNCATED, "truncated", None)
        records.append({
            "doc_id": doc_id,
            "seq": len(records),
            "page": row.page,
            "announcement": cut_text(row.announcement, MAX_ANNOUNCEMENT),
            "role": row.role,
            "element": row.element,
            "level": row.level,
            "text": None if row.text is None else cut_text(row.text, MAX_TEXT),
        })
    return records


@dataclass
class _Speaker:
    """The element whose words are being gathered, and how its first words are introduced."""

    elem: dict
    role: str
    level: int | None = None
    prefix: str | None = None  # "heading level 2", "list item, 1 of 3", "row 2, Year"
    separator: str = ", "
    empty: str | None = None  # said after the prefix when there are no words ("blank" for cells)
    introduced: bool = False


class _ScreenReader:
    """Walks extract_struct_elements records in logical order and says what a reader would."""

    def __init__(self, source: PdfSource, elements: list[dict], links: list[dict] | None, doc_id: str,
                 page_offset: int) -> None:
        self.source, self.links, self.doc_id, self.page_offset = source, links, doc_id, page_offset
        self.elements = elements
        self.kids: dict[int | None, list[dict]] = defaultdict(list)
        for e in elements:
            self.kids[e["parent_id"]].append(e)
        for kids in self.kids.values():
            kids.sort(key=lambda e: e["order"])
        # Reverse preorder settles every kid before its parent.
        self.has_content: dict[int, bool] = {}
        for e in reversed(elements):
            own = bool(e["text"])
            self.has_content[e["elem_id"]] = own or any(self.has_content[k["elem_id"]] for k in self.kids[e["elem_id"]])
        self.rows: list[_Row] = []
        self.words: list[str] = []
        self.speakers: list[_Speaker] = []
        self._orders: dict[int, list[str | dict]] | None = None
        self._link_of: dict[int, dict] | None = None

    def read(self) -> list[_Row]:
        try:
            for root in self.kids[None]:
                self.visit(root)
        except RecursionError:  # the walk recurses per level; real trees are a few dozen deep
            depth = max(e["depth"] for e in self.elements)
            raise ExtractionError("corrupt", f"the tag tree is nested {depth} levels deep, too deep to read aloud",
                                  path=self.source.path) from None
        self.flush(final=True)
        return self.rows

    # -- dispatch

    def visit(self, e: dict) -> None:
        kind = e["type"]
        if kind == "Artifact":
            return
        heading = _HEADING.fullmatch(kind)
        if heading or kind == "Title":
            level = int(heading.group(1)) if heading and heading.group(1) else None
            prefix = f"heading level {level}" if level is not None else "heading"
            self.block(_Speaker(e, "heading", level, prefix))
        elif kind == "L":
            self.read_list(e)
        elif kind == "Table":
            self.read_table(e)
        elif kind == "Link":
            self.say(e, "link", "link", self.link_label(e))
        elif kind in ("Figure", "Formula", "Form"):
            self.read_graphic(e)
        elif kind == "LI":
            self.block(_Speaker(e, "list_item", prefix="list item"))
        elif kind in _TEXT_BLOCKS:
            self.block(_Speaker(e, _TEXT_BLOCKS[kind]))
        elif kind in _INLINE or (kind not in _CONTAINERS and e["text"]):
            # An inline element on its own (a Span under a Div), or an unknown type with text.
            self.block(_Speaker(e, "text"))
        else:
            self.container(e)

    def container(self, e: dict) -> None:
        """Silent: read the element's own text as plain text, and visit its kids in order."""
        for item in self.content(e):
            if isinstance(item, str):
                self.speakers.append(_Speaker(e, "text"))
                self.words.append(item)
                self.flush(final=True)
                self.speakers.pop()
            else:
                self.visit(item)

    def block(self, speaker: _Speaker) -> None:
        """Announce one element's words (inline kids merged), breaking for announced kids."""
        self.flush()
        self.speakers.append(speaker)
        self.gather(speaker.elem)
        self.flush(final=True)
        self.speakers.pop()

    def gather(self, e: dict) -> None:
        if e["actual_text"]:
            self.words.append(e["actual_text"])
            return
        for item in self.content(e):
            if isinstance(item, str):
                self.words.append(item)
            elif item["type"] == "Artifact":
                continue
            elif item["type"] == "Lbl" and is_bullet(self.plain_text(item)):
                continue  # "list item" already says it; readers do not read the bullet glyph
            elif _interrupts(item["type"]):
                self.flush()  # the words so far, then the announced kid, then the rest
                self.visit(item)
            else:  # inline kids, nested paragraphs and unknown types join the words
                self.gather(item)

    # -- saying things

    def flush(self, *, final: bool = False) -> None:
        """Turn the gathered words into one announcement by the current speaker."""
        text = clean_text(" ".join(self.words))
        self.words.clear()
        speaker = self.speakers[-1] if self.speakers else None
        if speaker is None:
            if speakable(text):
                self.rows.append(_Row(None, text, "text", None, text=text))
            return
        page = speaker.elem["page"]
        if speaker.prefix is not None and not speaker.introduced:
            speaker.introduced = True
            if speakable(text):
                announcement = speaker.prefix + speaker.separator + text
            elif final and speaker.empty:
                announcement, text = speaker.prefix + speaker.separator + speaker.empty, ""
            else:
                announcement, text = speaker.prefix, ""
            self.rows.append(_Row(page, announcement, speaker.role, speaker.elem["elem_id"], speaker.level,
                                  text or None))
        elif speakable(text):
            self.rows.append(_Row(page, text, speaker.role, speaker.elem["elem_id"], speaker.level, text))

    def say(self, e: dict, role: str, announcement: str, text: str | None = None) -> None:
        """Announce ``e`` by role ("link, <text>"), after whatever words were gathered before it."""
        self.flush()
        spoken = f"{announcement}, {text}" if text else announcement
        self.rows.append(_Row(e["page"], spoken, role, e["elem_id"], None, text or None))

    def say_text(self, e: dict, text: str) -> None:
        """Plain words found directly in a list or table (not in an item or a cell)."""
        self.flush()
        text = clean_text(text)
        if speakable(text):
            self.rows.append(_Row(e["page"], text, "text", e["elem_id"], None, text))

    def read_graphic(self, e: dict) -> None:
        kind = e["type"]
        # Alt replaces the whole subtree; ActualText is the next best label.
        label = clean_text(e["alt"] or "") or clean_text(e["actual_text"] or "")
        if kind == "Formula":
            self.say(e, "formula", "formula", label or self.plain_text(e))
        elif kind == "Form":
            self.say(e, "form", "form field", label or self.plain_text(e))
        elif label:
            self.say(e, "figure", "graphic", label)
        else:
            self.say(e, "figure", "unlabelled graphic")
            self.container(e)  # text drawn inside an unlabelled figure is still read

    def link_label(self, e: dict) -> str | None:
        """What a reader says for a link: its text, else its alternate text, else where it goes."""
        text = clean_text(e["actual_text"] or "") or self.plain_text(e) or clean_text(e["alt"] or "")
        if text:
            return text
        link = self.link_record(e["elem_id"])
        if link is None:
            return None
        return clean_text(link.get("contents") or "") or link.get("target") or None

    def link_record(self, elem_id: int) -> dict | None:
        if self._link_of is None:
            links = self.links
            if links is None:  # only now: most links have text and never need this
                links = extract_links(self.source, doc_id=self.doc_id, page_offset=self.page_offset)
            self._link_of = {}
            for link in links:
                if link.get("element_id") is not None:
                    self._link_of.setdefault(link["element_id"], link)
        return self._link_of.get(elem_id)

    def plain_text(self, e: dict) -> str:
        """An element's words as a reader would say them inside something else (no roles)."""
        out: list[str] = []
        self._collect(e, out)
        return clean_text(" ".join(out))

    def _collect(self, e: dict, out: list[str]) -> None:
        if e["type"] == "Artifact":
            return
        if e["actual_text"]:
            out.append(e["actual_text"])
        elif e["type"] in ("Figure", "Formula") and clean_text(e["alt"] or ""):
            out.append(e["alt"])
        else:
            for item in self.content(e):
                if isinstance(item, str):
                    out.append(item)
                else:
                    self._collect(item, out)

    # -- lists and tables

    def read_list(self, e: dict) -> None:
        items = [k for k in self.kids[e["elem_id"]] if k["type"] == "LI"]
        self.say(e, "list", f"list, {len(items)} item" + ("" if len(items) == 1 else "s"))
        number = {item["elem_id"]: i for i, item in enumerate(items, 1)}
        for item in self.content(e):
            if isinstance(item, dict) and item["elem_id"] in number:
                prefix = f"list item, {number[item['elem_id']]} of {len(items)}"
                self.block(_Speaker(item, "list_item", prefix=prefix))
            elif isinstance(item, dict):
                self.visit(item)
            else:
                self.say_text(e, item)
        self.say(e, "list", "end of list")

    def read_table(self, e: dict) -> None:
        table = _Table(self, e)
        self.say(e, "table", f"table, {len(table.rows)} rows, {table.width} columns")
        for item in self.content(e):
            if isinstance(item, str):
                self.say_text(e, item)
            elif item["type"] == "TR":
                self.read_row(table, item)
            elif item["type"] in ("THead", "TBody", "TFoot"):
                for part in self.content(item):
                    if isinstance(part, dict) and part["type"] == "TR":
                        self.read_row(table, part)
                    elif isinstance(part, dict):
                        self.visit(part)
            else:
                self.visit(item)  # a Caption, or stray content
        self.say(e, "table", "end of table")

    def read_row(self, table: _Table, row: dict) -> None:
        first = True
        for item in self.content(row):
            if not isinstance(item, dict) or item["type"] not in ("TH", "TD"):
                if isinstance(item, dict):
                    self.visit(item)
                continue
            self.block(table.speaker(item, first))
            first = False

    # -- text order inside an element

    def content(self, e: dict) -> list[str | dict]:
        """The element's own text pieces and element kids, in reading order."""
        kids = self.kids[e["elem_id"]]
        own = e["text"]
        if not own:
            return list(kids)
        if not kids:
            return [own]
        if self._orders is None:
            self._orders = self._mixed_orders()
        return self._orders.get(e["elem_id"]) or [own, *kids]

    def _mixed_orders(self) -> dict[int, list[str | dict]]:
        """Where an element's own text goes between its kids ("see [Link] for details").

        Records keep an element's own text as one string, so the order of its pieces
        and its kids comes from one MuPDF text pass with structure: MuPDF nests each
        element's text blocks and kid elements in content order. Its answer is used
        only when it describes the same element: same page and type, the same
        text-bearing kids, and the same own text, or one that is a long prefix of the
        other (a paragraph that goes on over the page; a running header MuPDF counts
        into the paragraph drawn before it). Otherwise the reader says the element's
        own text first, then its kids.
        """
        wanted: dict[tuple[int, str], list[dict]] = defaultdict(list)
        for e in self.elements:
            kids = self.kids[e["elem_id"]]
            if e["text"] and e["page"] is not None and any(self.has_content[k["elem_id"]] for k in kids):
                wanted[(e["page"] - 1 - self.page_offset, e["raw_type"])].append(e)
        orders: dict[int, list[str | dict]] = {}
        if not wanted:
            return orders
        compact = {e["elem_id"]: without_spaces(e["text"]) for candidates in wanted.values() for e in candidates}
        with reading(self.source, "page text"):
            for page_no in sorted({page for page, _ in wanted}):
                if not 0 <= page_no < self.source.page_count:
                    continue
                # The structure extractor's flags, so MuPDF's texts compare equal to its records.
                blocks = self.source.text_dict(page_no, STRUCTURE_TEXT_FLAGS)["blocks"]
                for raw, pieces, kid_types in struct_blocks(blocks):
                    candidates = wanted.get((page_no, raw))
                    if not candidates:
                        continue
                    own = without_spaces("".join(p for p in pieces if isinstance(p, str)))
                    for e in sorted(candidates, key=lambda e: compact[e["elem_id"]] != own):  # exact first
                        order = self._interleave(e, compact[e["elem_id"]], own, pieces, kid_types)
                        if order is not None:
                            orders[e["elem_id"]] = order
                            candidates.remove(e)
                            break
        return orders

    def _interleave(self, e: dict, key: str, own: str, pieces: list[str | int],
                    kid_types: list[str]) -> list[str | dict] | None:
        if own != key and (min(len(own), len(key)) < _MIN_PREFIX or not (key.startswith(own) or own.startswith(key))):
            return None
        kids = self.kids[e["elem_id"]]
        with_text = [k for k in kids if self.has_content[k["elem_id"]]]
        if [k["raw_type"] for k in with_text[: len(kid_types)]] != kid_types:
            return None
        order: list[str | dict] = []
        pending = list(kids)  # /K order; kids without text keep their place after the one before them
        said = 0  # non-space characters of the element's own text placed so far
        for piece in pieces:
            if isinstance(piece, int):
                target = with_text[piece]
                while pending:
                    kid = pending.pop(0)
                    order.append(kid)
                    if kid is target:
                        break
            elif said < len(key):  # past the end: drawn after the element, not part of it
                chars = len(without_spaces(piece))
                order.append(leading(piece, len(key) - said) if chars > len(key) - said else piece)
                said += min(chars, len(key) - said)
        if said < len(key):  # the element goes on (on the next page): the rest of its text
            order.append(trailing(e["text"], said))
        return order + pending


class _Table:
    """Rows, columns and header cells of one Table element, as a reader works them out."""

    def __init__(self, reader: _ScreenReader, table: dict) -> None:
        self.reader = reader
        self.rows: list[list[dict]] = []
        for item in reader.kids[table["elem_id"]]:
            if item["type"] == "TR":
                self.rows.append(self._cells(item))
            elif item["type"] in ("THead", "TBody", "TFoot"):
                self.rows += [self._cells(tr) for tr in reader.kids[item["elem_id"]] if tr["type"] == "TR"]
        self.attributes = {c["elem_id"]: record_attributes(c) for row in self.rows for c in row}
        self.position: dict[int, tuple[int, int]] = {}  # cell -> (row, column), 0-based
        self.width = self._place()
        self.by_key = {c["elem_key"]: c for row in self.rows for c in row if c["elem_key"]}
        self.header_row = {i for i, row in enumerate(self.rows) if row and all(c["type"] == "TH" for c in row)}
        in_head = {tr["elem_id"] for part in reader.kids[table["elem_id"]] if part["type"] == "THead"
                   for tr in reader.kids[part["elem_id"]]}
        self.header_row |= {i for i, row in enumerate(self.rows) if row and row[0]["parent_id"] in in_head}
        # Column header cells by column, top to bottom: looked up once per cell, so big tables stay linear.
        self.heads: dict[int, list[tuple[int, dict]]] = defaultdict(list)
        for row in self.rows:
            for c in row:
                if c["type"] == "TH" and self.header_kind(c) == "column":
                    r, column = self.position[c["elem_id"]]
                    self.heads[column].append((r, c))

    def _cells(self, tr: dict) -> list[dict]:
        return [c for c in self.reader.kids[tr["elem_id"]] if c["type"] in ("TH", "TD")]

    def _place(self) -> int:
        """Grid positions with row and column spans; returns the number of columns."""
        taken: set[tuple[int, int]] = set()
        for r, row in enumerate(self.rows):
            column = 0
            for cell in row:
                while (r, column) in taken:
                    column += 1
                attributes = self.attributes[cell["elem_id"]]
                rows, columns = _span(attributes.get("RowSpan")), _span(attributes.get("ColSpan"))
                taken |= {(r + dr, column + dc) for dr in range(rows) for dc in range(columns)}
                self.position[cell["elem_id"]] = (r, column)
                column += columns
        return max((c + 1 for r, c in taken if r < len(self.rows)), default=0)

    def column_headers(self, cell: dict) -> list[dict]:
        """Column headers of ``cell``: from its Headers IDs when given, else the TH above it.

        Row headers are left out: the reader has just said the row header cell itself.
        """
        ids = self.attributes[cell["elem_id"]].get("Headers")
        if isinstance(ids, list) and ids:
            named = [self.by_key[i] for i in ids if isinstance(i, str) and i in self.by_key]
            return [h for h in named if h is not cell and self.header_kind(h) == "column"]
        row, column = self.position[cell["elem_id"]]
        return [h for r, h in self.heads[column] if r < row]

    def header_kind(self, cell: dict) -> str:
        scope = cell["scope"]
        if scope in ("Column", "Both"):
            return "column"
        if scope == "Row":
            return "row"
        row, column = self.position[cell["elem_id"]]
        return "column" if row in self.header_row or row == 0 else "row"

    def speaker(self, cell: dict, first: bool) -> _Speaker:
        row, column = self.position[cell["elem_id"]]
        parts = [f"row {row + 1}"] if first and row not in self.header_row else []
        kind = self.header_kind(cell) if cell["type"] == "TH" else None
        if kind is not None:
            parts.append(f"{kind} header")
        headers = self.column_headers(cell) if kind != "column" else []
        words = clean_text(" ".join(self.reader.plain_text(h) for h in headers))
        if words:
            parts.append(words)
        elif cell["type"] == "TD":
            parts.append(f"column {column + 1}")
        return _Speaker(cell, "header_cell" if cell["type"] == "TH" else "cell", prefix=", ".join(parts),
                        separator=" " if words else ", ", empty="blank")



def _interrupts(kind: str) -> bool:
    return kind in _ANNOUNCED or kind in _CONTAINERS or _HEADING.fullmatch(kind) is not None


def _span(value: Any) -> int:
    # RowSpan/ColSpan: a positive integer; a nonsense value reads as 1, a huge one is capped.
    return min(int(value), 100) if isinstance(value, (int, float)) and value >= 1 else 1

