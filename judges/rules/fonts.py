"""Fonts and readability (PDF/UA-1 §7.21 fonts; WCAG 2.2 SC 1.4.4/1.4.12 and the benchmark's 9 pt floor).

The evidence is the page's font dictionaries (type, embedding, ToUnicode, encoding), its text by
size and by font, the count of characters without a Unicode mapping, and per text block the
dominant font, size and how wide its characters are set.

Sub-criteria decided here: embedding, unicode_mapping, size, legibility (letters squeezed
together), consistency and meaningful_font_changes (running text rotating between typefaces).
typography (hierarchy, emphasis, alignment) needs the rendered page and is left to visual
judges (not applicable).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from judges.base import Issue, PageJudgment
from judges.criteria import SPEC
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.catalog import finding
from judges.rules.common import FAILED, NA, PASSED, cannot_tell, verdict
from judges.rules.thresholds import FONTS, FontThresholds

SUBS = SPEC["fonts_readability"].sub_names


THRESHOLDS = FONTS  # see judges/rules/thresholds.py: every line and its source
CONDENSED = re.compile(r"condens|narrow|compress|cond\b|cn\b", re.IGNORECASE)
SYMBOL_FONTS = re.compile(r"math|symbol|dingbat|wingding|^cm(sy|mi|ex)|^msb|^msa", re.IGNORECASE)
STYLE_SUFFIX = re.compile(
    r"(bold|italic|oblique|regular|roman|medium|light|semibold|demi|black|heavy|book|it|bd|psmt|mt|ps|std|pro|lt|"
    r"\d+)+$", re.IGNORECASE)


def judge_fonts(bundle: PageBundle, limits: FontThresholds = THRESHOLDS) -> PageJudgment:
    meta = bundle.evidence.get("font_metadata")
    if meta is None:
        return cannot_tell(bundle, "font metadata", SUBS)
    where = f"Page {bundle.page}"
    textless = _textless(meta, where)
    if not meta.get("page_chars"):
        if textless:  # glyphs are drawn but none of them carries text
            return verdict(bundle, {s: NA for s in SUBS} | {"unicode_mapping": FAILED}, textless, "")
        if not meta.get("document_chars", meta.get("body_size")):  # no visible text in the document: a scan
            return cannot_tell(bundle, "text layer", SUBS)
        return PageJudgment(Label.PASSED, {s: NA for s in SUBS}, [], f"{where}: no text on this page.")
    subs = {s: PASSED for s in SUBS} | {"typography": NA}
    issues = (_embedding(meta, where) + _unicode(meta, where, limits) + _wrong_mapping(meta, where) + textless
              + _size(meta, where, limits) + _crowding(meta, where, limits) + _font_rotation(meta, where, limits))
    for issue in issues:
        subs[issue.sub_criterion] = FAILED
        if issue.sub_criterion == "consistency":
            subs["meaningful_font_changes"] = FAILED
    if meta["page_chars"] < limits.min_page_chars:
        subs["size"] = subs["consistency"] = subs["meaningful_font_changes"] = NA
    fonts = meta.get("fonts") or []
    body = _page_body_size(meta)
    summary = (f"{len(fonts)} fonts, all embedded with Unicode mappings; text at {body} pt"
               f" (floor {limits.body_floor_pt} pt), evenly spaced, in a consistent face.")
    return verdict(bundle, subs, issues, summary)


def _used(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """Fonts that set visible text on this page (a second font object of the same name that set
    nothing is a leftover resource, not a font anyone sees)."""
    chars = meta.get("chars_by_font") or {}
    return [f for f in meta.get("fonts") or [] if chars.get(f["font_name"]) and f.get("char_count")]


def _embedding(meta: dict[str, Any], where: str) -> list[Issue]:
    missing = [f for f in _used(meta) if not f.get("embedded")]
    if not missing:
        return []
    chars = meta.get("chars_by_font") or {}
    names = ", ".join(f"{f['font_name']} ({f.get('font_type')}, {chars.get(f['font_name'], 0)} characters)"
                      for f in missing[:3])
    return [finding("fonts_readability.embedding.not_embedded", f"{where}, font {names}")]


def _unicode(meta: dict[str, Any], where: str, limits: FontThresholds) -> list[Issue]:
    unmapped, total = int(meta.get("unmapped_chars") or 0), int(meta.get("page_chars") or 0)
    if not total or unmapped <= limits.max_unmapped_share * total:
        return []
    suspects = [f["font_name"] for f in _used(meta) if not f.get("has_tounicode")
                and (f.get("font_type") in ("Type0", "Type3") or not f.get("encoding"))]
    fonts = ", ".join(suspects[:3]) or "the page's fonts"
    return [finding("fonts_readability.unicode_mapping.unmapped", f"{where}, text set in {fonts}",
                    unmapped=unmapped, total=total, share=f"{unmapped / total:.0%}", fonts=fonts)]


# A page fails on glyph mappings only when they garble a real share of its text: at least this many
# glyphs and this share of the glyphs drawn on the page, so that one contradicted ligature or a few
# symbols of a formula do not fail a paper (PDF/UA-1 7.21.7 asks for every glyph; the benchmark's
# experts pass papers whose math fonts map a handful of glyphs oddly).
MIN_BAD_GLYPHS = 10
MIN_BAD_SHARE = 0.02


def _glyph_failures(meta: dict[str, Any], key: str) -> list[dict[str, Any]]:
    checks = [c for c in meta.get("glyph_checks") or [] if c.get(key) and not SYMBOL_FONTS.search(c["font"])]
    bad = sum(int(c[key]) for c in checks)
    drawn = int(meta.get("page_glyphs") or 0) + (bad if key == "textless" else 0)
    if bad < MIN_BAD_GLYPHS or bad < MIN_BAD_SHARE * max(drawn, 1):
        return []
    return sorted(checks, key=lambda c: -int(c[key]))


def _wrong_mapping(meta: dict[str, Any], where: str) -> list[Issue]:
    """Glyphs whose ToUnicode mapping the font itself contradicts (its glyph names or its widths)."""
    return [finding("fonts_readability.unicode_mapping.wrong_mapping",
                    f"{where}, {c['wrong']} of {c['glyphs']} glyphs set in {c['font']}",
                    font=c["font"], evidence=c.get("conflict") or "the font contradicts its mapping")
            for c in _glyph_failures(meta, "wrong")[:3]]


def _textless(meta: dict[str, Any], where: str) -> list[Issue]:
    """Visible glyphs whose mapped text is only whitespace (textless glyphs)."""
    return [finding("fonts_readability.unicode_mapping.textless_glyphs",
                    f"{where}, {c['textless']} glyphs set in {c['font']}",
                    glyphs=c["textless"], font=c["font"], distinct=c.get("textless_distinct") or "several")
            for c in _glyph_failures(meta, "textless")[:3]]


def _page_body_size(meta: dict[str, Any]) -> float | None:
    sizes = meta.get("chars_by_size") or []
    return max(sizes, key=lambda kv: kv[1])[0] if sizes else None


def _size(meta: dict[str, Any], where: str, limits: FontThresholds) -> list[Issue]:
    total = int(meta.get("page_chars") or 0)
    if total < limits.min_page_chars:
        return []
    floor = limits.body_floor_pt - limits.size_tolerance_pt
    small = {size: n for size, n in meta.get("chars_by_size") or [] if size < floor}
    share = sum(small.values()) / total
    if share <= limits.max_small_share:
        return []
    common = max(small, key=lambda k: small[k])
    body = _page_body_size(meta)
    return [finding("fonts_readability.size.below_floor",
                    f"{where}, text set at {common} pt ({small[common]} characters)",
                    share=f"{share:.0%}", floor=limits.body_floor_pt, common=common, body=body)]


def _crowding(meta: dict[str, Any], where: str, limits: FontThresholds) -> list[Issue]:
    """Letters squeezed together (negative tracking): the advance per character of body-size text."""
    body = _page_body_size(meta)
    blocks = [b for b in meta.get("blocks") or [] if b.get("em_per_char") and body
              and abs(b["size"] - body) <= 0.5 and not CONDENSED.search(b["font"])]
    measured = sum(b["chars"] for b in blocks)
    if measured < limits.min_measured_chars:
        return []
    ordered = sorted(blocks, key=lambda b: b["em_per_char"])
    half, seen, median = measured / 2, 0, ordered[-1]["em_per_char"]
    for block in ordered:  # character-weighted median
        seen += block["chars"]
        if seen >= half:
            median = block["em_per_char"]
            break
    if median >= limits.min_em_per_char:
        return []
    font = Counter(b["font"] for b in blocks).most_common(1)[0][0]
    return [finding("fonts_readability.legibility.crowded_letters", f"{where}, body text in {font} at {body} pt",
                    advance=f"{median:.2f}")]


def family(font_name: str) -> str:
    """The typeface family of a font name: subset tag, style and foundry suffixes removed, lower case."""
    name = font_name.split("+")[-1]
    name = re.split(r"[-,_ ]", name)[0]
    stripped = STYLE_SUFFIX.sub("", name)
    return (stripped or name).lower()


def _family_roots(names: list[str]) -> dict[str, str]:
    """Each family name mapped to its root: a family whose name extends another's (Minion, MinionMM;
    Klavika, KlavikaBasic) is the same typeface."""
    roots: dict[str, str] = {}
    for name in sorted(set(names), key=len):
        roots[name] = next((root for root in roots.values() if name.startswith(root)), name)
    return roots


def _font_rotation(meta: dict[str, Any], where: str, limits: FontThresholds) -> list[Issue]:
    """Body paragraphs spread over three or more typefaces, each setting a real share of them."""
    if int(meta.get("page_chars") or 0) < limits.min_page_chars:
        return []
    body = _page_body_size(meta)
    paragraphs = [b for b in meta.get("blocks") or []
                  if body and abs(b["size"] - body) <= 0.5 and not SYMBOL_FONTS.search(b["font"])]
    roots = _family_roots([family(b["font"]) for b in paragraphs])
    sequence = [roots[family(b["font"])] for b in paragraphs]
    by_family: Counter[str] = Counter()
    for root, b in zip(sequence, paragraphs, strict=True):
        by_family[root] += b["chars"]
    total = sum(by_family.values())
    major = [(name, n) for name, n in by_family.most_common() if total and n >= limits.min_family_share * total]
    if len(major) < limits.min_families:
        return []
    switches = sum(1 for a, b in zip(sequence, sequence[1:], strict=False) if a != b)
    faces = ", ".join(f"{name} ({n / total:.0%})" for name, n in major)
    return [finding("fonts_readability.consistency.typeface_rotation", f"{where}, body paragraphs set in {faces}",
                    switches=switches, families=len(major), main=major[0][0])]
