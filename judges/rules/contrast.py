"""Colour contrast (WCAG 2.2 SC 1.4.3 Contrast (Minimum), SC 1.4.11 Non-text Contrast).

Text: every visible span carries its WCAG contrast ratio against the background it is drawn on
(measured on a rendering of the page without text) and its threshold: 3:1 for large text (at
least 18 pt, or 14 pt bold), 4.5:1 otherwise. Invisible text (render mode 3, transparent,
covered) is excluded by the extractor: nobody sees it, so it has no contrast to meet.

Graphics: a figure meets SC 1.4.11 when its marks (bars, lines, labels) reach 3:1 against the
lightest tone around them; it is measured on the page image inside the figure's box. Figures
marked as artifacts are decorative and exempt; icon-sized ones are skipped.

Sub-criteria decided here: small_text, large_text, graphics, decorative_exempt (artifact figures
are skipped: passed when the page has any, else not applicable). text_in_images needs OCR of the
image and is left to visual judges (not applicable).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from common import geometry
from common.colour import luminance_array
from judges.base import Issue, PageJudgment
from judges.criteria import SPEC
from judges.evidence import PageBundle
from judges.rules.catalog import finding
from judges.rules.common import CT, FAILED, NA, PASSED, cannot_tell, verdict
from judges.rules.thresholds import CONTRAST, ContrastThresholds

SUBS = SPEC["color_contrast"].sub_names


THRESHOLDS = CONTRAST  # see judges/rules/thresholds.py: every line and its source


def judge_contrast(bundle: PageBundle, limits: ContrastThresholds = THRESHOLDS) -> PageJudgment:
    values = bundle.evidence.get("color_values")
    if values is None:
        return cannot_tell(bundle, "colour values", SUBS)
    if not values.get("document_visible_chars") and not values.get("visible_chars"):
        return cannot_tell(bundle, "text layer", SUBS)  # a scan: no text colours to measure
    where = f"Page {bundle.page}"
    subs = {s: PASSED for s in SUBS} | {"text_in_images": NA}
    issues = _text_issues(values, where, limits)
    graphic_issues, measured = _graphic_issues(bundle, values, where, limits)
    issues += graphic_issues
    figures = values.get("figures") or []
    if not measured:
        subs["graphics"] = CT if _informative(figures) else NA
    if not any(f.get("is_artifact") for f in figures):
        subs["decorative_exempt"] = NA
    if not values.get("visible_chars"):
        subs["small_text"] = subs["large_text"] = NA
    for issue in issues:
        subs[issue.sub_criterion] = FAILED
    specks = _chars(values.get("failing") or [])
    ratio = values.get("min_ratio")
    if specks:
        lowest = (f"only {specks} characters in isolated labels fall short (lowest {ratio:.1f}:1), too few to hide "
                  "any content")
    else:
        lowest = f"lowest {ratio:.1f}:1" if ratio is not None else "no text on this page"
    summary = (f"{values.get('visible_chars', 0)} visible characters meet {limits.normal_ratio}:1 "
               f"({limits.large_ratio}:1 for large text); {lowest}"
               + (f"; {measured} figure(s) reach {limits.graphic_ratio}:1." if measured else "."))
    return verdict(bundle, subs, issues, summary)


def _runs(failing: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    grouped: dict[int, list[dict[str, Any]]] = {}
    for span in failing:
        grouped.setdefault(int(span.get("run") or 0), []).append(span)
    return list(grouped.values())


def _chars(spans: list[dict[str, Any]]) -> int:
    """Visible characters, spaces left out (letter-spaced labels "E N G I N E" are not longer text)."""
    return sum(int(s["glyphs"] if s.get("glyphs") is not None else s.get("char_count") or 0) for s in spans)


def _text_issues(values: dict[str, Any], where: str, limits: ContrastThresholds) -> list[Issue]:
    """Failing runs of large text (≥ a word) and of small text (≥ a phrase), then the specks' total."""
    issues: list[Issue] = []
    specks = 0
    for run in _runs(values.get("failing") or []):
        large = [s for s in run if s.get("large_text")]
        small = [s for s in run if not s.get("large_text")]
        if _chars(large) >= limits.min_large_run_chars:
            issues.append(_run_issue("large_text", large, where, limits.large_ratio))
        if _chars(small) >= limits.min_run_chars:
            issues.append(_run_issue("small_text", small, where, limits.normal_ratio))
        elif _chars(large) < limits.min_large_run_chars:
            specks += _chars(run)
    visible = int(values.get("visible_chars") or 0)
    if not issues and visible and specks > limits.max_speck_share * visible:
        fragments = [s for s in values.get("failing") or [] if not s.get("large_text")]
        issues.append(_run_issue("small_text", fragments, where, limits.normal_ratio,
                                 fragments=specks, share=f"{specks / visible:.0%}"))
    return issues[:6]  # in page order; a handful is enough to locate the problem


# (sub-criterion, counted over the page's short fragments) → the rule a failing run of text breaks
RUN_RULES = {("small_text", False): "color_contrast.small_text.low_contrast",
             ("small_text", True): "color_contrast.small_text.low_contrast_fragments",
             ("large_text", False): "color_contrast.large_text.low_contrast"}


def _run_issue(sub: str, spans: list[dict[str, Any]], where: str, required: float, **fragments: Any) -> Issue:
    """A failing run of text (``fragments``: the page's short fragments counted together, when they are the cause)."""
    worst = min(spans, key=lambda s: s.get("contrast_ratio") or 21.0)
    text = " ".join(" ".join(str(s.get("text") or "") for s in spans).split())
    quoted = f"“{text[:50]}{'…' if len(text) > 50 else ''}”"
    kind = "large text" if sub == "large_text" else "text"
    colour, background = worst.get("color"), worst.get("background_color")
    rule_id = RUN_RULES[(sub, bool(fragments))]
    # A run is read in one stretch: its box holds it. Fragments counted over the page have no one place.
    boxes = [s["bbox"] for s in spans if s.get("bbox") and len(s["bbox"]) >= 4] if not fragments else []
    return finding(rule_id, f"{where}, {kind} {quoted}", bbox=geometry.union_all(boxes) if boxes else None,
                   kind=kind, colour=colour, background=background,
                   ratio=worst.get("contrast_ratio"), chars=_chars(spans), required=required,
                   suggested=_suggest(background), **fragments)


def _suggest(background: str | None) -> str:
    """A text colour that meets 4.5:1 on this background: black on light, white on dark."""
    if not background or not background.startswith("#") or len(background) != 7:
        return "#000000"
    rgb = np.array([int(background[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)
    return "#000000" if _luminance(rgb[None, :])[0] > 0.18 else "#ffffff"


def _luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG 2.2 relative luminance of sRGB colours (0..255 in the last axis; common.colour)."""
    return luminance_array(rgb)


def _informative(figures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in figures if f.get("bbox") and not f.get("small") and not f.get("is_artifact")]


def _graphic_issues(bundle: PageBundle, values: dict[str, Any], where: str,
                    limits: ContrastThresholds) -> tuple[list[Issue], int]:
    """Figures whose marks do not reach 3:1 on the page image; also how many figures were measured."""
    figures = _informative(values.get("figures") or [])
    page = bundle.evidence.get("page_image") or {}
    if not figures or not bundle.image_path or not Path(bundle.image_path).is_file() or not page.get("width_pt"):
        return [], 0
    from PIL import Image  # a base dependency; imported here because only pages with figures need it

    with Image.open(bundle.image_path) as image:
        pixels = np.asarray(image.convert("RGB"))  # 8-bit: each figure's box is measured, not the page
    scale = pixels.shape[1] / float(page["width_pt"])
    issues, measured = [], 0
    for figure in figures:
        share = _mark_share(pixels, figure["bbox"], scale, limits)
        if share is None:
            continue
        measured += 1
        if share < limits.min_mark_share:
            caption = figure.get("caption") or f"figure {figure.get('figure', '')}".strip()
            issues.append(finding("color_contrast.graphics.faint_marks", f"{where}, {caption[:60]}",
                                  bbox=figure["bbox"], share=f"{share:.1%}", required=limits.graphic_ratio))
    return issues, measured


def _mark_share(pixels: np.ndarray, bbox: list[float], scale: float, limits: ContrastThresholds) -> float | None:
    """Share of the figure box's pixels with at least the graphic ratio against its lightest tone."""
    pad = limits.figure_pad_pt
    x0, y0, x1, y1 = (int(round(v * scale)) for v in (bbox[0] - pad, bbox[1] - pad, bbox[2] + pad, bbox[3] + pad))
    region = pixels[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)].reshape(-1, 3)
    if len(region) < 100:  # off the page or a sliver: nothing to judge
        return None
    luminance = _luminance(region)
    lightest = float(np.percentile(luminance, 99))
    ratios = (lightest + 0.05) / (luminance + 0.05)
    return float((ratios >= limits.graphic_ratio).mean())
