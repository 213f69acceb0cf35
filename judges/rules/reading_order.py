"""Logical reading order (WCAG 2.2 SC 1.3.2 Meaningful Sequence; PDF/UA-1 §7.2): is the page read as it is seen?

Assistive technology reads a tagged PDF in structure-tree order and an untagged one in
content-stream order, so the order judged is the structure order when the document is tagged
and the content order when it is not. Each page's text units carry three ranks (structure,
content, visual); the visual rank comes from a geometric reading of the page (running headers,
then each column top to bottom, then footers). Running headers and footers, footnotes, captions
and text inside figures have more than one acceptable reading position, so they are left out of
the order checks (as in the extractor's agreement statistics); footnotes are checked on their own.

Inside one element the unit ranks see nothing, so the order of the element's own marked-content
sequences (its lines) is checked on its own: lines listed last first (visual_flow) or alternating
between two columns (multi_column). Pages with annotations must set /Tabs /S in a tagged document, so
that keyboard focus follows the structure order (PDF/UA-1 7.18.3; inline_elements, as links sit in their
sentence).

Sub-criteria decided here: visual_flow, hierarchy, multi_column, inline_elements, hidden_content.
contextual_logic, element_positioning and no_disruptions need the meaning of the text (does this
caption belong here, is this aside an interruption) and are left to semantic judges (not_applicable).
Every finding names its rule in judges/rules/catalog/logical_reading_order.toml.
"""

from __future__ import annotations

from typing import Any

from common import geometry
from judges.base import Issue, PageJudgment
from judges.criteria import SPEC
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.catalog import finding
from judges.rules.common import FAILED, NA, PASSED, cannot_tell, verdict
from judges.rules.thresholds import READING_ORDER, OrderThresholds

SUBS = SPEC["logical_reading_order"].sub_names
SEMANTIC_SUBS = SPEC["logical_reading_order"].semantic  # left to a reader of meaning (hybrid LLM tier)


THRESHOLDS = READING_ORDER  # see judges/rules/thresholds.py: every line and its source
# Placed apart from the running text, with more than one acceptable reading position.
UNRANKED_ROLES = frozenset({"header", "footer", "footnote", "caption", "figure"})
HEADING_TYPES = frozenset({"H", "H1", "H2", "H3", "H4", "H5", "H6", "Title"})
TABLE_TYPES = frozenset({"TD", "TH", "TR", "Table", "THead", "TBody", "TFoot"})
LIST_AND_NOTE_TYPES = frozenset({"L", "LI", "Lbl", "LBody", "Note", "FENote", "BibEntry"})
# Marked-content order inside one element (extractors/reading_order.py, _sequence_order). One step back up
# the page is enough: a correct element never goes back up its own column. A paragraph continued into the
# next column switches column once (twice over three columns), so three switches mean columns read across.
MIN_MCID_BACK_STEPS = 1
MIN_MCID_COLUMN_SWITCHES = 3
# A block read between two blocks of running text that continue each other down the page (the second
# printed right under the first, at most this many points lower) while it is printed beside them.
MAX_CONTINUATION_GAP = 24.0
# /Tabs values other than S (ISO 32000-1 Table 30; R and C: row and column order, A: annotation array
# order, W: widget order, PDF 2.0).
TAB_ORDERS = {"R": "row order", "C": "column order", "A": "the order of the page's annotation array",
              "W": "widget order"}


def judge_reading_order(bundle: PageBundle, limits: OrderThresholds = THRESHOLDS) -> PageJudgment:
    order = bundle.evidence.get("reading_order")
    if order is None:
        return cannot_tell(bundle, "reading order", SUBS)
    units: list[dict[str, Any]] = order.get("units") or []
    where = f"Page {bundle.page}"
    tagged = bool(order.get("tagged"))
    tabs = _tab_order(order, where) if tagged else []
    if not units:
        if not order.get("document_units"):  # no text layer anywhere: a scan, nothing to order
            return cannot_tell(bundle, "text layer", SUBS)
        if tabs:
            return verdict(bundle, {s: NA for s in SUBS} | {"inline_elements": FAILED}, tabs, "")
        return PageJudgment(Label.PASSED, {s: NA for s in SUBS}, [],
                            f"{where}: no text on this page to read out of order.")
    key = "struct_rank" if tagged else "content_rank"
    subs = {s: PASSED for s in SUBS} | {s: NA for s in SEMANTIC_SUBS}
    issues: list[Issue] = []
    ranked = sorted((u for u in units if u["role"] not in UNRANKED_ROLES and u.get(key) is not None
                     and not _vertical(u)), key=lambda u: u[key])

    if tagged:
        issues += _hidden_content(units, where, limits)
    else:
        subs["hidden_content"] = NA  # untagged: everything is read, in content order
    issues += _out_of_sequence(ranked, where, tagged, limits)
    if tagged:
        issues += _lines_out_of_order(units, where, limits)
    # One hierarchy finding per page is enough: the neighbour check names the heading, the section
    # check catches text read inside another section where the neighbours happen to be in order.
    headings = _misplaced_headings(ranked, where, tagged, limits)
    issues += headings or _text_under_wrong_heading(ranked, where, tagged, limits)
    issues += _interleaved_columns(ranked, where, limits)
    issues += _interruptions(ranked, where, limits)
    if tagged:
        issues += _footnotes_in_body(order, units, where, limits)
        issues += tabs
    else:
        subs["inline_elements"] = NA  # notes are only placed by the structure tree
    for issue in issues:
        subs[issue.sub_criterion] = FAILED
    agreement = order.get("agreement") or {}
    tau = agreement.get("tau_struct_visual") if tagged else agreement.get("tau_content_visual")
    source = "structure" if tagged else "content-stream"
    summary = (f"{len(ranked)} text units read in {source} order follow the visual order"
               + (f" (Kendall tau {tau:.2f})" if tau is not None else "")
               + "; headings precede their text, columns are read in turn and notes are placed apart.")
    return verdict(bundle, subs, issues, summary)


def _quote(unit: dict[str, Any], limit: int = 40) -> str:
    text = " ".join((unit.get("text") or "").split())
    return f"“{text[:limit]}{'…' if len(text) > limit else ''}”"


def _hidden_content(units: list[dict[str, Any]], where: str, limits: OrderThresholds) -> list[Issue]:
    """Running text outside the structure tree is skipped by assistive technology (PDF/UA-1 §7.1).
    Short fragments (chart labels, stamps) are left out: they are often legitimate artifacts."""
    running = [u for u in units if u["role"] not in ("header", "footer") and _running_text(u, limits)
               and _has_words(u)]
    total = sum(u.get("chars") or len(u.get("text") or "") for u in running)
    hidden = [u for u in running if u.get("struct_rank") is None]
    reachable = total - sum(u.get("chars") or len(u.get("text") or "") for u in hidden)
    if total < limits.min_text_chars or reachable >= limits.min_coverage * total:
        return []
    names = ", ".join(_quote(u) for u in hidden[:3])
    return [finding("logical_reading_order.hidden_content.untagged_text", f"{where}, {names}",
                    reachable=f"{reachable / total:.0%}", hidden=len(hidden))]


def _column_major(units: list[dict[str, Any]]) -> dict[int, int]:
    """A second plausible visual order: each column top to bottom, left to right; full-width text above
    the columns first, full-width text between or below them (floats, captions) after the columns."""
    in_columns = [u for u in units if u.get("column") is not None]
    top = min((u["bbox"][1] for u in in_columns if u.get("bbox")), default=0.0)

    def key(u: dict[str, Any]) -> tuple[float, float]:
        y = (u.get("bbox") or [0, 0, 0, 0])[1]
        if u.get("column") is None:
            return (-1.0 if y <= top else float("inf"), y)
        return (float(u["column"]), y)

    return {id(u): rank for rank, u in enumerate(sorted(units, key=key))}


def _in_sequence(ranks: list[int], weights: list[int]) -> list[int]:
    """Indices of the heaviest subsequence whose ranks increase: the text already in visual order."""
    best = [0] * len(ranks)
    back = [-1] * len(ranks)
    for i, rank in enumerate(ranks):
        best[i] = weights[i]
        for j in range(i):
            if ranks[j] < rank and best[j] + weights[i] > best[i]:
                best[i], back[i] = best[j] + weights[i], j
    i = max(range(len(ranks)), key=lambda k: best[k], default=-1)
    kept = []
    while i >= 0:
        kept.append(i)
        i = back[i]
    return kept[::-1]


def _kept_in_sequence(ranked: list[dict[str, Any]], limits: OrderThresholds) -> list[int]:
    """Indices into ``ranked`` of the running text read in visual sequence, against whichever of the
    two plausible visual orders the reading order follows best."""
    running = [i for i, u in enumerate(ranked) if _running_text(u, limits)]
    weights = [ranked[i].get("chars") or len(ranked[i].get("text") or "") for i in running]
    best: tuple[int, list[int]] = (-1, [])
    for ranks in ({id(u): u["visual_rank"] for u in ranked}, _column_major(ranked)):
        kept = _in_sequence([ranks[id(ranked[i])] for i in running], weights)
        best = max(best, (sum(weights[k] for k in kept), [running[k] for k in kept]), key=lambda b: b[0])
    return best[1]


def _out_of_sequence(ranked: list[dict[str, Any]], where: str, tagged: bool, limits: OrderThresholds) -> list[Issue]:
    """How much running text must move for the reading order to follow the page (a weighted
    longest-increasing-subsequence distance, against the better of the two visual orders)."""
    kept = set(_kept_in_sequence(ranked, limits))
    running = [i for i, u in enumerate(ranked) if _running_text(u, limits)]
    total = sum(ranked[i].get("chars") or 0 for i in running)
    moved = [i for i in running if i not in kept]
    share = sum(ranked[i].get("chars") or 0 for i in moved) / total if total else 0.0
    if total < limits.min_text_chars or share <= limits.max_out_of_sequence:
        return []
    first = moved[0]
    after = ranked[first - 1] if first > 0 else None
    order = "structure tree" if tagged else "content stream"
    context = f" right after {_quote(after)}" if after is not None else " first"
    how = (": move the misplaced elements among the Document's kids" if tagged else
           ": re-export the PDF from a tool that writes content in reading order, or tag it")
    return [finding("logical_reading_order.visual_flow.out_of_sequence", f"{where}, {_quote(ranked[first])}",
                    bbox=ranked[first].get("bbox"),
                    share=f"{share:.0%}", blocks=len(moved), context=context, order=order, how=how)]


def _vertical(unit: dict[str, Any]) -> bool:
    """Text set up the margin (arXiv stamps, photo credits, "Author Manuscript" bands) has no place
    in the flow of the page: any reading position is acceptable."""
    box = unit.get("bbox")
    if not box:
        return False
    return (box[3] - box[1]) > 2 * (box[2] - box[0]) and len(unit.get("text") or "") > 3


def _has_words(unit: dict[str, Any]) -> bool:
    """Leader dots, rules and page numbers (a table of contents' artifacts) carry no words to skip."""
    return sum(c.isalpha() for c in unit.get("text") or "") >= 3


def _running_text(unit: dict[str, Any], limits: OrderThresholds) -> bool:
    """A unit long enough to carry a sentence: chart labels and table cells have no flow to break."""
    return (unit.get("chars") or len(unit.get("text") or "")) >= limits.min_unit_chars


def _is_heading(unit: dict[str, Any], tagged: bool) -> bool:
    """Tagged: what assistive technology announces as a heading. Untagged: large type with words
    in it (not a drop cap, a figure number or a table cell)."""
    if tagged:
        return unit.get("type") in HEADING_TYPES
    letters = sum(c.isalpha() for c in unit.get("text") or "")
    return unit["role"] == "title" and letters >= 3


def _neighbour(heading: dict[str, Any], candidates: list[dict[str, Any]], below: bool) -> dict[str, Any] | None:
    """The running text printed right below (or right above) a heading, in the columns it spans."""
    _, y0, _, y1 = heading["bbox"]
    near = [u for u in candidates if u is not heading and u.get("bbox")
            and geometry.x_overlap(heading["bbox"], u["bbox"]) > 0
            and (u["bbox"][1] >= y1 - 1 if below else u["bbox"][3] <= y0 + 1)]
    if not near:
        return None
    return min(near, key=lambda u: u["bbox"][1]) if below else max(near, key=lambda u: u["bbox"][3])


def _misplaced_headings(ranked: list[dict[str, Any]], where: str, tagged: bool,
                        limits: OrderThresholds) -> list[Issue]:
    """A heading is read after the text printed just above it and before the text printed just below
    it. Otherwise its section's first paragraph is heard before the heading (a heading placed after
    its paragraph) or the previous section's end is heard under it (a section moved). Only the
    geometric neighbours count: which of several stories or columns a page reads first is free."""
    running = [u for u in ranked if _running_text(u, limits) and u.get("type") not in TABLE_TYPES]
    position = {id(u): i for i, u in enumerate(ranked)}
    issues = []
    for heading in (u for u in ranked if _is_heading(u, tagged) and u.get("bbox")):
        after = _neighbour(heading, running, below=True)
        before = _neighbour(heading, running, below=False)
        if after is not None and position[id(after)] < position[id(heading)]:
            problem = f"the text printed under it, {_quote(after)}, is read before the heading"
        elif before is not None and position[id(before)] > position[id(heading)]:
            problem = f"the text printed above it, {_quote(before)}, is read after the heading, under the wrong section"
        else:
            continue
        issues.append(finding("logical_reading_order.hierarchy.heading_misplaced",
                              f"{where}, heading {_quote(heading)}", bbox=heading["bbox"], problem=problem))
    return issues[:3]


def _heading_above(unit: dict[str, Any], headings: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The nearest heading printed above a unit in its own column (full-width headings are left out:
    text at the top of the next column continues whatever section the previous column ended in)."""
    y0 = unit["bbox"][1]
    above = [h for h in headings if h.get("column") is not None and h["column"] == unit.get("column")
             and h["bbox"][3] <= y0 + 1 and geometry.x_overlap(unit["bbox"], h["bbox"]) > 0]
    return max(above, key=lambda h: h["bbox"][3]) if above else None


def _text_under_wrong_heading(ranked: list[dict[str, Any]], where: str, tagged: bool,
                              limits: OrderThresholds) -> list[Issue]:
    """Running text must be heard under the heading printed above it in its column: the last heading
    read before it. Catches text of one section read inside another (columns read across, sections
    interleaved) that the neighbour check misses."""
    headings = [u for u in ranked if _is_heading(u, tagged) and u.get("bbox")]
    last: dict[str, Any] | None = None
    wrong = []
    for unit in ranked:
        if _is_heading(unit, tagged):
            last = unit
            continue
        if not unit.get("bbox") or not _running_text(unit, limits) or unit.get("type") in TABLE_TYPES:
            continue
        printed = _heading_above(unit, headings)
        if printed is not None and printed is not last:
            wrong.append((unit, printed, last))
    if not wrong:
        return []
    unit, printed, heard = wrong[0]
    under = f"after {_quote(heard)}" if heard is not None else "before any heading"
    return [finding("logical_reading_order.hierarchy.text_under_wrong_heading", f"{where}, {_quote(unit)}",
                    bbox=unit["bbox"],
                    count=len(wrong), printed=_quote(printed), under=under)]


def _interleaved_columns(ranked: list[dict[str, Any]], where: str, limits: OrderThresholds) -> list[Issue]:
    """Reading across the gutter line by line instead of down one column, then the next. Only running
    text counts: a table straddling the gutter is read row by row, as it should be."""
    running = [u for u in ranked if _running_text(u, limits) and u.get("type") not in TABLE_TYPES]

    def switches(seq: list[dict[str, Any]]) -> int:
        columns = [u["column"] for u in seq if u.get("column") is not None]
        return sum(1 for a, b in zip(columns, columns[1:], strict=False) if a != b)

    read = switches(running)
    seen = switches(sorted(running, key=lambda u: u["visual_rank"]))
    if read - seen <= limits.max_column_switches:
        return []
    columns = len({u["column"] for u in running if u.get("column") is not None})
    return [finding("logical_reading_order.multi_column.columns_interleaved", f"{where}, the {columns} text columns",
                    read=read, seen=seen)]


def _footnotes_in_body(order: dict[str, Any], units: list[dict[str, Any]], where: str,
                       limits: OrderThresholds) -> list[Issue]:
    """A note read in the middle of unrelated running text interrupts it. The extractor counts such
    notes against the whole document's structure order (a note moved into a paragraph on another
    page is found too). Notes followed on their page only by list items and other notes are a
    reference list partly tagged as notes: they interrupt nothing and are not held against the page."""
    misplaced = (order.get("agreement") or {}).get("footnotes_in_body") or 0
    if not misplaced:
        return []
    tagged = sorted((u for u in units if u.get("struct_rank") is not None), key=lambda u: u["struct_rank"])
    notes = [i for i, u in enumerate(tagged) if u["role"] == "footnote"]
    interrupting = []
    for i in notes:
        following = [u for u in tagged[i + 1:] if u["role"] != "footnote" and _running_text(u, limits)]
        if not following or any(u.get("type") not in LIST_AND_NOTE_TYPES for u in following):
            interrupting.append(tagged[i])
    if notes and not interrupting:
        return []
    named = ", ".join(_quote(u) for u in interrupting[:2]) or "a footnote"
    return [finding("logical_reading_order.inline_elements.footnote_in_body", f"{where}, footnote {named}",
                    bbox=interrupting[0].get("bbox") if interrupting else None,
                    count=misplaced)]


def _lines_out_of_order(units: list[dict[str, Any]], where: str, limits: OrderThresholds) -> list[Issue]:
    """The marked-content sequences of one element, walked in its /K order, against where they are
    printed: going back up its column (lines listed out of order), or switching column line by line
    (two columns read across inside one element). Text inside figures, and labels too short to carry a
    sentence (a chart's axis text tagged as a paragraph), have no order of their own."""
    issues: list[Issue] = []
    for unit in units:
        if (unit["role"] in ("figure", "header", "footer") or not unit.get("mcid_sequences")
                or not _running_text(unit, limits)):
            continue
        values = {"type": unit.get("type") or "tagged", "sequences": unit["mcid_sequences"]}
        location = f"{where}, {_quote(unit)}"
        if (unit.get("mcid_column_switches") or 0) >= MIN_MCID_COLUMN_SWITCHES:
            issues.append(finding("logical_reading_order.multi_column.mcid_columns_across", location,
                                  bbox=unit.get("bbox"), switches=unit["mcid_column_switches"], **values))
        elif (unit.get("mcid_back_steps") or 0) >= MIN_MCID_BACK_STEPS:
            issues.append(finding("logical_reading_order.visual_flow.mcid_order", location, bbox=unit.get("bbox"),
                                  back=unit["mcid_back_steps"], **values))
    return issues[:3]


def _interruptions(ranked: list[dict[str, Any]], where: str, limits: OrderThresholds) -> list[Issue]:
    """Text printed beside the running text (a sidebar, a boxed aside, a pull quote) read between two of
    its blocks that continue each other: the second printed right under the first, in the same column.
    The inserted blocks lie beside both (not under either); whether they interrupt the text or are an aside
    read at a natural break is a question of meaning, so this is a candidate (fails nothing alone; the
    hybrid judge asks its LLM)."""
    def flowing(u: dict[str, Any]) -> bool:
        return (bool(u.get("bbox")) and _running_text(u, limits) and u["role"] == "body"
                and u.get("type") not in TABLE_TYPES and u.get("type") not in HEADING_TYPES)

    issues: list[Issue] = []
    for i, before in enumerate(ranked):
        if not flowing(before):
            continue
        inserted: list[dict[str, Any]] = []
        for unit in ranked[i + 1:]:
            if not unit.get("bbox") or geometry.x_overlap(unit["bbox"], before["bbox"]) > 0:
                break
            inserted.append(unit)
        if not inserted or i + 1 + len(inserted) >= len(ranked):
            continue
        after = ranked[i + 1 + len(inserted)]
        if (not flowing(after) or not any(_running_text(u, limits) for u in inserted)
                or not _continues(before, after)
                # Beside both: text below two columns that spans them both (a wide block under a
                # two-column section) is read after the second column, as it should be.
                or any(geometry.x_overlap(u["bbox"], after["bbox"]) > 0 for u in inserted)
                # Beside them, level with them: the head of the next column (where a paragraph at the
                # foot of this one goes on) is not.
                or not all(_level(u["bbox"], before["bbox"][1], after["bbox"][3]) for u in inserted)):
            continue
        text = " ".join(" ".join((u.get("text") or "").split()) for u in inserted)
        facts = {"before": _quote(before, 120), "inserted": _quote({"text": text}, 200),
                 "after": _quote(after, 120), "before_box": before["bbox"], "after_box": after["bbox"],
                 "inserted_boxes": [u["bbox"] for u in inserted]}
        issues.append(finding("logical_reading_order.no_disruptions.text_interrupted_candidate",
                              f"{where}, {_quote(inserted[0])}", facts=facts,
                              bbox=geometry.union_all(u["bbox"] for u in inserted), inserted=_quote(inserted[0], 60),
                              before=_quote(before), after=_quote(after), blocks=len(inserted)))
    return issues[:2]


def _level(box: list[float], top: float, bottom: float) -> bool:
    return min(box[3], bottom) - max(box[1], top) > 0


def _continues(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Is ``after`` printed right under ``before``, in the same column (the running text goes on there)?"""
    a, b = before["bbox"], after["bbox"]
    narrower = min(a[2] - a[0], b[2] - b[0])
    return (-1.0 <= b[1] - a[3] <= MAX_CONTINUATION_GAP and narrower > 0
            and geometry.x_overlap(a, b) >= 0.5 * narrower)


def _tab_order(order: dict[str, Any], where: str) -> list[Issue]:
    """PDF/UA-1 7.18.3: a page with annotations sets /Tabs /S, so that keyboard focus moves through its
    links and fields in structure order (the order the text around them is read in)."""
    annotations = order.get("annotation_count") or 0
    if not annotations:
        return []
    tabs = order.get("tabs")
    if tabs is None:
        return [finding("logical_reading_order.inline_elements.tabs_missing", f"{where}, page dictionary",
                        annotations=annotations)]
    if tabs != "S":
        return [finding("logical_reading_order.inline_elements.tabs_not_structure", f"{where}, page dictionary",
                        annotations=annotations, tabs=tabs, meaning=TAB_ORDERS.get(tabs, "an order of its own"))]
    return []
