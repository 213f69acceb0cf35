"""Alternative text quality (WCAG 2.2 SC 1.1.1; PDF/UA-1 §7.3): does each figure's alt text stand in for it?

A figure is judged when it is meaningful: not small (icons, inline glyphs under 2% of the page)
and not an artifact, unless a "Figure N" caption shows it carries content; a small image the tag
tree presents as a Figure without any alt text is judged too (size alone exempts nothing). Not Present means no
alternative text to judge: no meaningful figure on the page, or a document that gives none of
its figures an alt text (untagged, or every /Alt removed). Once the document does use alt
text, a meaningful figure left without one fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from common import captions
from judges.base import Issue, PageJudgment
from judges.criteria import SPEC
from judges.evidence import PageBundle, alt_words
from judges.injection import find_instructions
from judges.labels import Label
from judges.rules.catalog import finding
from judges.rules.common import FAILED, NA, PASSED, cannot_tell, verdict
from judges.rules.thresholds import ALT_TEXT, AltThresholds

SUBS = SPEC["alt_text_quality"].sub_names


THRESHOLDS = ALT_TEXT  # see judges/rules/thresholds.py: every line and its source

# WCAG failure F30 (text alternatives that are not alternatives: file names, placeholder text).
GENERIC_WORDS = frozenset({
    "figure", "fig", "image", "img", "picture", "pic", "photo", "photograph", "graphic", "graphics", "chart",
    "graph", "diagram", "illustration", "drawing", "icon", "embedded", "untitled", "placeholder", "alt", "text",
    "description", "insert", "here", "object", "artwork", "visual", "logo", "screenshot", "plot", "table", "panel",
})
FILE_NAME = re.compile(r"\.(png|jpe?g|gif|tiff?|bmp|eps|svg|emf|wmf|webp|heic|pdf|ai|psd)\s*$", re.IGNORECASE)
CAMERA_NAME = re.compile(r"^(img|dsc|dscn|dcim|pict?|scan|screen ?shot)[\s_-]*\d[\w-]*$",
                         re.IGNORECASE)
# Kinds of graphic WAI counts as complex images; a caption or alt naming one signals detail to convey.
COMPLEX_WORDS = frozenset({
    "chart", "charts", "graph", "graphs", "plot", "plots", "diagram", "diagrams", "flowchart", "schematic", "map",
    "maps", "heatmap", "histogram", "histograms", "scatter", "curve", "curves", "axis", "axes", "panel", "panels",
    "skymap", "infographic", "timeline", "contour", "contours",
})
PANEL_MARK = re.compile(r"\(\s*[A-Da-d]\s*\)")
# Words that say how a graphic looks, or when and how much, rather than what it is about: they
# fit any figure, so they say nothing about whether an alt text fits its document.
NON_SUBJECT_WORDS = COMPLEX_WORDS | GENERIC_WORDS | frozenset({
    "line", "lines", "dots", "points", "boxes", "arrows", "arrow", "bars", "cells", "colour", "color", "colours",
    "colors", "dark", "darker", "light", "lighter", "left", "right", "bottom", "middle", "centre", "center",
    "shows", "showing", "shown", "depicting", "depicts", "labelled", "labeled", "connected", "marked", "sloping",
    "upwards", "downwards", "above", "below", "next", "beside", "aerial", "view", "photo", "close", "heat", "bar",
    "with", "that", "this", "from", "into", "over", "each", "which", "their", "there", "these", "those", "between",
    "about", "after", "before", "under", "while", "where", "have", "been", "were", "they", "them", "than", "then",
    "also", "more", "most", "some", "such", "only", "very", "other", "every", "across", "along", "three", "four",
    "five", "highest", "lowest", "value", "values", "green", "blue", "black", "white", "grey", "gray", "yellow",
    "orange", "purple", "brown", "pink", "daily", "weekly", "monthly", "yearly", "annual", "hourly", "months", "years",
    "weeks", "days", "percent", "average", "mean", "total", "number", "group", "groups",
})
STEM = 5  # letters compared, as the evidence builder stems the document's words


@dataclass
class Figure:
    """One figure of the page as the rules see it."""

    position: int  # 1-based, top to bottom on the page
    alt: str | None
    caption: str | None
    caption_words: int
    is_artifact: bool | None
    unknown_words: set[str]
    same_alt_as: list[dict[str, Any]]
    small: bool = False  # an icon-sized image judged because the tag tree presents it as a Figure
    bbox: list[float] | None = None  # where it is drawn (from the figure crops' evidence), when known

    @property
    def where(self) -> str:
        label = f"“{_clip(self.caption, 50)}” caption" if self.caption else "no caption"
        return f"figure {self.position} ({label})"


def _clip(text: str | None, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clean(text: str | None) -> str | None:
    """The alt text as a screen reader speaks it (None stays None: no /Alt at all)."""
    if text is None:
        return None
    return " ".join("".join(c for c in text if c.isprintable()).split())


def conveys_content(raw: dict[str, Any]) -> bool:
    """Whether a figure must be described: any figure that is not small, and a small one (an icon, a
    logo with text, an image in a link) that the author tagged as a Figure rather than an artifact —
    size alone never exempts an image the structure tree presents as content."""
    if not raw.get("small"):
        return True
    return bool(raw.get("tagged_figure")) and not raw.get("is_artifact") \
        and raw.get("alt") is None and raw.get("actual_text") is None


def _figures(alts: dict[str, Any], crops: dict[str, Any] | None = None) -> list[Figure]:
    """The page's figures that convey content; each with its box where the figure crops' evidence has one."""
    boxes = {f.get("figure"): f.get("bbox") for f in (crops or {}).get("figures") or ()}
    figures: list[Figure] = []
    for raw in alts["figures"]:
        if not conveys_content(raw):
            continue  # untagged or artifact icons and glyphs, and small figures already described
        alt = _clean(raw.get("alt"))
        if alt is None:
            alt = _clean(raw.get("actual_text"))
        figures.append(Figure(len(figures) + 1, alt, raw.get("caption"), raw.get("caption_words") or 0,
                              raw.get("is_artifact"), set(raw.get("alt_words_not_in_text") or ()),
                              raw.get("same_alt_as") or [], bool(raw.get("small")), boxes.get(raw.get("figure"))))
    return figures


def caption_title(caption: str | None) -> str:
    """The caption without its "Figure 2." label, up to its first full stop: the figure's title."""
    body = captions.strip_caption_label(caption or "", {"figure"})
    return re.split(r"(?<=[a-z0-9)])\.\s|\.$", body, maxsplit=1)[0]


def is_generic(alt: str) -> bool:
    """Only placeholder words and numbers ("Figure 3", "image", "Picture 1", "Embedded Image")."""
    words = re.findall(r"[a-z]+", alt.lower())
    return not words or all(w in GENERIC_WORDS for w in words)


def is_file_name(alt: str) -> bool:
    return bool(FILE_NAME.search(alt) or CAMERA_NAME.match(alt.strip()))


def is_complex(figure: Figure, thresholds: AltThresholds = THRESHOLDS) -> bool:
    """Charts, diagrams, maps and multi-panel figures: what the caption or alt says the figure is."""
    text = f"{figure.caption or ''} {figure.alt or ''}"
    words = set(re.findall(r"[a-z]+", text.lower()))
    return (figure.caption_words >= thresholds.complex_caption_words or bool(words & COMPLEX_WORDS)
            or len(PANEL_MARK.findall(figure.caption or "")) >= 1)


def restates_title(figure: Figure) -> bool:
    """The alt text says nothing the caption's title does not already say."""
    title = {w[:STEM] for w in alt_words(caption_title(figure.caption))}
    words = {w[:STEM] for w in alt_words(figure.alt or "")}
    caption_says_more = figure.caption_words > len(caption_title(figure.caption).split()) + 3
    return bool(title) and bool(words) and words <= title and caption_says_more


def out_of_context(figure: Figure, thresholds: AltThresholds = THRESHOLDS) -> bool:
    """The alt text's subject matches neither its caption nor what the document talks about."""
    subject = {w for w in alt_words(figure.alt or "") if w not in NON_SUBJECT_WORDS}
    if len(subject) < thresholds.mismatch_min_subject_words:
        return False
    if _shares_words(figure.alt or "", figure.caption):
        return False
    known = [w for w in subject if w not in figure.unknown_words]
    return len(known) / len(subject) < thresholds.mismatch_max_known_share


def _shares_words(alt: str, caption: str | None) -> bool:
    subject = {w[:STEM] for w in alt_words(alt) if w not in NON_SUBJECT_WORDS}
    return bool(subject & {w[:STEM] for w in alt_words(caption or "")})


def duplicated_elsewhere(figure: Figure) -> dict[str, Any] | None:
    """Another captioned figure, with a different caption, carries this very alt text.

    When the alt text fits this figure's caption and not the other one, it is this figure's own
    and the other figure is the one that borrowed it; otherwise both are reported.
    """
    if not figure.caption or not figure.alt:
        return None
    mine = caption_title(figure.caption).casefold()
    for other in figure.same_alt_as:
        theirs = other.get("caption")
        if not theirs or caption_title(theirs).casefold() == mine:
            continue
        if _shares_words(figure.alt, figure.caption) and not _shares_words(figure.alt, theirs):
            continue
        return other
    return None


def _check(figure: Figure, where: str, subs: dict[str, str], issues: list[Issue], thresholds: AltThresholds,
           described: set[str]) -> None:
    """Apply every sub-criterion to one meaningful figure, recording failures.

    ``described``: captions of the page's figures that have an alt text. A picture without one
    whose caption is among them is a piece of a figure described as a whole (panels, a raster
    plot under vector axes, a Figure tag holding the alt apart from its image).
    """
    at = f"{where}, {figure.where}"

    def fail(rule_id: str, **values: Any) -> None:
        issue = finding(rule_id, at, bbox=figure.bbox, **values)
        subs[issue.sub_criterion] = FAILED
        issues.append(issue)

    if figure.alt is None:
        if figure.caption in described and not figure.small:
            return  # a panel of a figure described as a whole (an icon only borrows a nearby caption)
        if figure.is_artifact:
            if figure.caption:  # a numbered figure is content, not decoration
                fail("alt_text_quality.decorative_treatment.captioned_artifact")
            return
        # PDF/UA-1 §7.3 and Matterhorn 13-004: a Figure needs /Alt (WCAG technique PDF1).
        fail("alt_text_quality.descriptiveness.missing_alt")
        return
    if not figure.alt:
        # An empty /Alt hides a Figure; decorative content belongs in an Artifact (WCAG technique PDF4).
        fail("alt_text_quality.decorative_treatment.empty_alt")
        return
    quoted = f"alt text “{_clip(figure.alt, 60)}”"
    if is_file_name(figure.alt):
        fail("alt_text_quality.clarity.file_name", quoted=quoted)
        return
    instructions = find_instructions(figure.alt, "alt text")
    if instructions:
        # Words addressed to a machine describe nothing, whatever else matches (a caption or body
        # text that repeats them is the same injection, not context).
        fail("alt_text_quality.clarity.instructions", quoted=quoted, kind=instructions[0].kind.replace("_", " "))
        return
    if is_generic(figure.alt):
        fail("alt_text_quality.descriptiveness.generic_placeholder", quoted=quoted)
        return
    words = len(figure.alt.split())
    complex_figure = is_complex(figure, thresholds)
    if words < thresholds.min_words:
        fail("alt_text_quality.descriptiveness.too_terse", quoted=quoted, words=words,
             unit="word" if words == 1 else "words")
    elif complex_figure and words < thresholds.complex_min_words:
        fail("alt_text_quality.complexity_handling.complex_too_short", quoted=quoted)
    elif complex_figure and restates_title(figure):
        fail("alt_text_quality.complexity_handling.restates_title", quoted=quoted)
    other = duplicated_elsewhere(figure)
    if other is not None:
        fail("alt_text_quality.contextual_appropriateness.duplicate_alt", quoted=quoted,
             other_caption=_clip(other.get("caption"), 40), other_page=other.get("page"))
    elif out_of_context(figure, thresholds):
        fail("alt_text_quality.contextual_appropriateness.out_of_context", quoted=quoted)


def _scanned(bundle: PageBundle) -> bool:
    image = bundle.evidence.get("page_image") or {}
    return image.get("has_text") is False


def judge_alt_text(bundle: PageBundle, thresholds: AltThresholds = THRESHOLDS) -> PageJudgment:
    """Label one page: Cannot Tell without alt texts where figures are, Not Present without
    figures or without any alt text in the document, else Failed on any sub-criterion."""
    crops = bundle.evidence.get("figure_crops")
    alts = bundle.evidence.get("alt_texts")
    where = f"Page {bundle.page}"
    seen = (alts or crops or {}).get("figures")
    if seen is None:
        return cannot_tell(bundle, "figure evidence", SUBS)
    if not any(conveys_content(f) if alts else not f.get("small") for f in seen):
        return PageJudgment(Label.NOT_PRESENT, {s: NA for s in SUBS},
                            summary=f"{where}: no figures that need alternative text.")
    if alts is None:
        return cannot_tell(bundle, "alt texts", SUBS)
    if not alts.get("tagged") and _scanned(bundle):
        return cannot_tell(bundle, "text layer (the page is a scanned image)", SUBS)
    if alts.get("tagged") and not alts.get("document_figures_with_alt") and alts.get("screening"):
        # Screening a user's file: a Figure with neither /Alt nor /ActualText fails PDF/UA-1 7.3 whatever the
        # other figures do (the benchmark's Not Present for "no alt text to judge" is its labelling protocol).
        bare = [f for f in _figures(alts, crops) if f.alt is None and not f.is_artifact and not f.small]
        if bare:
            bare_issues = [finding("alt_text_quality.descriptiveness.figure_without_alt", f"{where}, {f.where}",
                                   bbox=f.bbox)
                           for f in bare]
            return PageJudgment(Label.FAILED, {s: (FAILED if s == "descriptiveness" else NA) for s in SUBS},
                                bare_issues, summary=f"{where}: {len(bare)} figure(s) without alternative text.")
    if not alts.get("tagged") or not alts.get("document_figures_with_alt"):
        return PageJudgment(Label.NOT_PRESENT, {s: NA for s in SUBS},
                            summary=f"{where}: the document gives none of its figures an alternative text "
                                    "(alt text is absent, so its quality cannot be assessed).")
    figures = _figures(alts, crops)
    subs = {s: PASSED for s in SUBS}
    # Length is not held against an alt text: complex figures need long descriptions and
    # nothing in WCAG or PDF/UA caps them, so conciseness is left to visual judges.
    subs["conciseness"] = NA
    issues: list[Issue] = []
    described = {f.caption for f in figures if f.alt and f.caption}
    for figure in figures:
        _check(figure, where, subs, issues, thresholds, described)
    with_alt = sum(1 for f in figures if f.alt)
    decorative = sum(1 for f in figures if f.alt is None and f.is_artifact)
    return verdict(bundle, subs, issues,
                   f"{with_alt} figure(s) have specific alt texts that fit their captions"
                   + (f"; {decorative} decorative image(s) are artifacts." if decorative else "."))
