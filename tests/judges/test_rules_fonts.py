"""Decision rules of the rules judge for fonts and readability: a failing and a passing case per rule."""

from __future__ import annotations

from typing import Any

import pytest

from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.fonts import family, judge_fonts


def font(name: str, **kw: Any) -> dict[str, Any]:
    return {"font_name": name, "font_type": "Type0", "embedded": True, "subset": True, "has_tounicode": True,
            "encoding": "Identity-H", "char_count": 2000, "sizes": [10.0], **kw}


def block(number: int, name: str = "Serif-Regular", *, size: float = 10.0, chars: int = 300,
          em: float | None = 0.44) -> dict[str, Any]:
    return {"block": number, "font": name, "size": size, "chars": chars, "em_per_char": em}


def bundle(fonts: list[dict[str, Any]] | None = None, *, sizes: list[tuple[float, int]] | None = None,
           blocks: list[dict[str, Any]] | None = None, unmapped: int = 0,
           checks: list[dict[str, Any]] | None = None) -> PageBundle:
    fonts = fonts if fonts is not None else [font("Serif-Regular"), font("Serif-Bold", char_count=100)]
    sizes = sizes if sizes is not None else [(8.0, 40), (10.0, 2400), (14.0, 60)]
    total = sum(n for _, n in sizes)
    by_font = {f["font_name"]: total // len(fonts) for f in fonts}
    meta = {"fonts": fonts, "chars_by_size": sizes, "chars_by_font": by_font, "body_size": 10.0,
            "page_chars": total, "small_chars": sum(n for s, n in sizes if s < 9), "unmapped_chars": unmapped,
            "blocks": blocks if blocks is not None else [block(i) for i in range(8)]}
    if checks is not None:
        meta |= {"page_glyphs": total, "glyph_checks": checks}
    return PageBundle("fonts_readability", 1, {"font_metadata": meta})


def test_well_set_page_passes_with_a_justification() -> None:
    result = judge_fonts(bundle())
    assert result.label is Label.PASSED and "embedded" in result.summary
    assert result.sub_criteria["typography"] == "not_applicable"


def test_withheld_or_scanned_cannot_tell_and_empty_page_passes() -> None:
    assert judge_fonts(PageBundle("fonts_readability", 1, {})).label is Label.CANNOT_TELL
    scan = PageBundle("fonts_readability", 1, {"font_metadata": {"page_chars": 0, "body_size": 9.0,
                                                                  "document_chars": 0}})
    assert judge_fonts(scan).label is Label.CANNOT_TELL
    blank = PageBundle("fonts_readability", 2, {"font_metadata": {"page_chars": 0, "body_size": 10.0,
                                                                   "document_chars": 5000}})
    assert judge_fonts(blank).label is Label.PASSED


def test_unembedded_font_fails_embedding_with_location_and_fix() -> None:
    result = judge_fonts(bundle([font("Serif-Regular", embedded=False, subset=False)]))
    assert result.label is Label.FAILED and result.sub_criteria["embedding"] == "failed"
    issue = result.issues[0]
    assert "Page 1" in issue.location and "Serif-Regular" in issue.location and "embed" in issue.remediation.lower()


def test_unembedded_leftover_font_object_that_sets_nothing_is_ignored() -> None:
    fonts = [font("Serif-Regular"), font("Leftover", embedded=False, char_count=0)]
    assert judge_fonts(bundle(fonts)).sub_criteria["embedding"] == "passed"


def test_text_without_unicode_mapping_fails() -> None:
    fonts = [font("Serif-Regular", has_tounicode=False)]
    result = judge_fonts(bundle(fonts, unmapped=2000))
    assert result.sub_criteria["unicode_mapping"] == "failed" and "ToUnicode" in result.issues[0].remediation


def test_a_few_unmapped_math_glyphs_are_tolerated() -> None:
    assert judge_fonts(bundle(unmapped=20)).sub_criteria["unicode_mapping"] == "passed"


def test_body_text_below_the_floor_fails_size() -> None:
    result = judge_fonts(bundle(sizes=[(6.5, 2200), (11.0, 80)]))
    assert result.sub_criteria["size"] == "failed" and "9.0 pt" in result.issues[0].problem


@pytest.mark.parametrize("sizes", [[(8.8, 1200), (9.3, 1500)], [(7.0, 250), (9.5, 2500)]])
def test_nominal_nine_point_and_small_notes_pass_size(sizes: list[tuple[float, int]]) -> None:
    assert judge_fonts(bundle(sizes=sizes)).sub_criteria["size"] == "passed"


def test_size_is_not_judged_on_a_page_with_little_text() -> None:
    assert judge_fonts(bundle(sizes=[(6.0, 120)], blocks=[])).sub_criteria["size"] == "not_applicable"


def test_squeezed_letters_fail_legibility() -> None:
    result = judge_fonts(bundle(blocks=[block(i, em=0.30) for i in range(6)]))
    assert result.sub_criteria["legibility"] == "failed" and "letter-spacing" in result.issues[0].remediation


def test_condensed_face_is_not_squeezed_text() -> None:
    blocks = [block(i, "MyriadPro-CondensedRegular", em=0.30) for i in range(6)]
    assert judge_fonts(bundle(blocks=blocks)).sub_criteria["legibility"] == "passed"


def test_paragraphs_rotating_through_three_typefaces_fail_consistency() -> None:
    faces = ["LibertinusSerif-Regular", "NewCM10-Regular", "DejaVuSansMono"]
    result = judge_fonts(bundle(blocks=[block(i, faces[i % 3]) for i in range(9)]))
    assert result.sub_criteria["consistency"] == "failed"
    assert result.sub_criteria["meaningful_font_changes"] == "failed"


def test_styles_of_one_family_and_a_second_face_for_sidebars_pass() -> None:
    blocks = [block(i, name) for i, name in enumerate(
        ["MinionPro-Regular", "MinionPro-It", "MinionPro-Bold", "MinionPro-Regular", "MinionPro-Regular",
         "MinionPro-Regular", "NewsGothicMTOT-Regular", "GlosaMath-Black"])]
    assert judge_fonts(bundle(blocks=blocks)).sub_criteria["consistency"] == "passed"


@pytest.mark.parametrize(("name", "expected"), [("ABCDEF+MinionPro-Regular", "minion"),
                                                 ("TimesNewRomanPS-BoldMT", "timesnew"), ("NewCM10-Bold", "newcm"),
                                                 ("Arial,Bold", "arial")])
def test_family_names_drop_styles_and_foundry_suffixes(name: str, expected: str) -> None:
    assert family(name) == expected


def check(name: str = "Serif-Regular", *, wrong: int = 0, textless: int = 0, glyphs: int = 2000) -> dict[str, Any]:
    return {"font": name, "glyphs": glyphs, "wrong": wrong, "textless": textless,
            "textless_distinct": 20 if textless else 0,
            "conflict": "the widths of the glyphs mapped to 26 letters do not fit those letters" if wrong else None}


def test_glyphs_the_font_contradicts_fail_wrong_mapping() -> None:
    result = judge_fonts(bundle(checks=[check(wrong=1800)]))
    assert result.label is Label.FAILED and result.sub_criteria["unicode_mapping"] == "failed"
    issue = result.issues[0]
    assert issue.rule_id == "fonts_readability.unicode_mapping.wrong_mapping"
    assert "Serif-Regular" in issue.location and "widths" in issue.problem


@pytest.mark.parametrize("checks", [
    [check(wrong=9)],  # under ten glyphs: one contradicted ligature or symbol
    [check(wrong=30)],  # 30 of 2500 glyphs: about 1%
    [check("CMMI10", wrong=400), check("MathSymbols", textless=300)],  # math and symbol fonts are not judged
])
def test_a_few_contradicted_or_symbol_glyphs_are_tolerated(checks: list[dict[str, Any]]) -> None:
    assert judge_fonts(bundle(checks=checks)).label is Label.PASSED


def test_visible_glyphs_mapped_to_spaces_fail_textless() -> None:
    result = judge_fonts(bundle(checks=[check(textless=600)]))
    assert result.sub_criteria["unicode_mapping"] == "failed"
    assert [i.rule_id for i in result.issues] == ["fonts_readability.unicode_mapping.textless_glyphs"]
    assert "600 visible glyphs" in result.issues[0].problem


def test_a_page_whose_every_glyph_maps_to_a_space_is_not_a_blank_page() -> None:
    meta = {"page_chars": 0, "body_size": None, "document_chars": 0, "page_glyphs": 0,
            "glyph_checks": [check(textless=900, glyphs=0)]}
    result = judge_fonts(PageBundle("fonts_readability", 1, {"font_metadata": meta}))
    assert result.label is Label.FAILED and result.sub_criteria["unicode_mapping"] == "failed"
    assert result.issues[0].rule_id == "fonts_readability.unicode_mapping.textless_glyphs"
