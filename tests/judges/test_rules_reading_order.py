"""Decision rules of the rules judge for logical reading order: a failing and a passing case per rule."""

from __future__ import annotations

from typing import Any

from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.reading_order import judge_reading_order

PARAGRAPH = "Body text that runs on long enough to be a sentence of the page."


def unit(visual: int, rank: int | None, text: str = PARAGRAPH, *, role: str = "body", column: int | None = 0,
         type_: str | None = "P", y: float | None = None, x: float = 50.0, width: float = 240.0) -> dict[str, Any]:
    top = 60.0 + 40 * visual if y is None else y
    return {"block_index": visual, "struct_rank": rank, "content_rank": visual, "visual_rank": visual,
            "column": column, "role": role, "marks": [], "bbox": [x, top, x + width, top + 30], "text": text,
            "chars": len(text), "type": type_ if rank is not None else None}


def bundle(units: list[dict[str, Any]], *, tagged: bool = True, **agreement: Any) -> PageBundle:
    payload = {"units": units, "tagged": tagged, "document_units": len(units) or 40,
               "agreement": {"tau_struct_visual": 1.0, "footnotes_in_body": 0, **agreement}}
    return PageBundle("logical_reading_order", 2, {"reading_order": payload})


def in_order(n: int = 8) -> list[dict[str, Any]]:
    return [unit(0, 0, "Results", role="title", type_="H1")] + [unit(i, i) for i in range(1, n)]


def test_page_read_as_printed_passes_with_a_justification() -> None:
    result = judge_reading_order(bundle(in_order()))
    assert result.label is Label.PASSED and "follow the visual order" in result.summary
    assert result.sub_criteria["contextual_logic"] == "not_applicable"


def test_withheld_or_scanned_cannot_tell_and_empty_page_passes() -> None:
    assert judge_reading_order(PageBundle("logical_reading_order", 1, {})).label is Label.CANNOT_TELL
    scan = PageBundle("logical_reading_order", 1, {"reading_order": {"units": [], "tagged": False,
                                                                      "document_units": 0}})
    assert judge_reading_order(scan).label is Label.CANNOT_TELL
    blank = PageBundle("logical_reading_order", 1, {"reading_order": {"units": [], "tagged": True,
                                                                       "document_units": 30}})
    assert judge_reading_order(blank).label is Label.PASSED


def test_body_text_outside_the_structure_tree_fails_hidden_content() -> None:
    units = [unit(0, 0)] + [unit(i, None) for i in range(1, 8)]
    result = judge_reading_order(bundle(units))
    assert result.label is Label.FAILED and result.sub_criteria["hidden_content"] == "failed"
    assert "Page 2" in result.issues[0].location and "tag" in result.issues[0].remediation


def test_a_few_untagged_fragments_are_tolerated() -> None:
    units = in_order() + [unit(8, None, "Author Manuscript watermark band")]
    assert judge_reading_order(bundle(units)).sub_criteria["hidden_content"] == "passed"


def test_shuffled_text_fails_visual_flow() -> None:
    ranks = [0, 5, 2, 7, 1, 6, 3, 4]
    units = [unit(i, r, f"Paragraph number {i} with enough words in it.") for i, r in enumerate(ranks)]
    result = judge_reading_order(bundle(units))
    assert result.sub_criteria["visual_flow"] == "failed"
    assert "out of visual sequence" in result.issues[0].problem


def test_a_pull_quote_read_after_the_text_is_an_acceptable_sequence() -> None:
    units = [unit(i, i if i < 4 else i + 1) for i in range(8)]
    units[4] = unit(4, 9, "A short pull quote set in the column")  # read last, printed mid-column
    assert judge_reading_order(bundle(units)).label is Label.PASSED


def test_heading_read_after_its_paragraph_fails_hierarchy() -> None:
    units = [unit(0, 1, "Introduction", role="title", type_="H1"), unit(1, 0)] + [unit(i, i) for i in range(2, 6)]
    result = judge_reading_order(bundle(units))
    assert result.sub_criteria["hierarchy"] == "failed"
    assert "Introduction" in result.issues[0].location and "read before the heading" in result.issues[0].problem


def test_previous_section_read_under_the_next_heading_fails_hierarchy() -> None:
    units = [unit(0, 0), unit(1, 2), unit(2, 1, "Discussion", role="title", type_="H1"), unit(3, 3)]
    result = judge_reading_order(bundle(units))
    assert result.sub_criteria["hierarchy"] == "failed" and "wrong section" in result.issues[0].problem


def two_columns(read_across: bool) -> list[dict[str, Any]]:
    left = [unit(i, None, y=60 + 60 * i, x=50) for i in range(6)]
    right = [unit(6 + i, None, column=1, y=60 + 60 * i, x=320) for i in range(6)]
    order = [u for pair in zip(left, right, strict=True) for u in pair] if read_across else left + right
    for rank, u in enumerate(order):
        u["struct_rank"], u["type"] = rank, "P"
    return left + right


def test_columns_read_across_the_gutter_fail_multi_column() -> None:
    result = judge_reading_order(bundle(two_columns(read_across=True)))
    assert result.sub_criteria["multi_column"] == "failed"


def test_columns_read_one_after_the_other_pass() -> None:
    assert judge_reading_order(bundle(two_columns(read_across=False))).sub_criteria["multi_column"] == "passed"


def test_footnote_read_inside_body_text_fails_inline_elements() -> None:
    units = in_order(5) + [unit(5, 3, "1 Counts were rounded before the analysis.", role="footnote", type_="Note")]
    units[3]["struct_rank"], units[4]["struct_rank"] = 4, 5
    result = judge_reading_order(bundle(units, footnotes_in_body=1))
    assert result.sub_criteria["inline_elements"] == "failed" and "Note" in result.issues[0].remediation


def test_notes_followed_only_by_list_items_are_a_reference_list() -> None:
    units = in_order(4) + [unit(4, 4, "1. Smith J. A reference tagged as a note.", role="footnote", type_="Note"),
                           unit(5, 5, "2. Jones K. The next reference, a list item.", type_="LI")]
    assert judge_reading_order(bundle(units, footnotes_in_body=1)).sub_criteria["inline_elements"] == "passed"


def test_untagged_page_is_judged_in_content_order() -> None:
    units = [unit(i, None) for i in range(6)]
    for u, content in zip(units, [0, 4, 1, 5, 2, 3], strict=True):
        u["content_rank"] = content
    result = judge_reading_order(bundle(units, tagged=False))
    assert result.sub_criteria["hidden_content"] == "not_applicable"
    assert result.sub_criteria["visual_flow"] == "failed" and "content stream" in result.issues[0].remediation


def test_text_read_inside_another_section_fails_hierarchy() -> None:
    intro = unit(0, 0, "1 Introduction", role="title", type_="H1", y=60, x=50)
    results = unit(3, 1, "3 Results", role="title", type_="H1", column=1, y=60, x=320)
    left = [unit(1, 2, y=100, x=50), unit(2, 4, y=140, x=50)]
    right = [unit(4, 3, column=1, y=100, x=320)]
    result = judge_reading_order(bundle([intro, *left, results, *right]))
    assert result.sub_criteria["hierarchy"] == "failed" and "wrong section" in result.issues[0].problem


# --------------------------------------------------------------------------- lines inside one element, tab order

def with_lines(u: dict[str, Any], sequences: int, back: int = 0, switches: int = 0) -> dict[str, Any]:
    return u | {"mcid_sequences": sequences, "mcid_back_steps": back, "mcid_column_switches": switches}


def rule_ids(result: Any) -> set[str]:
    return {i.rule_id for i in result.issues}


def test_an_element_whose_lines_are_listed_out_of_order_fails_visual_flow() -> None:
    units = in_order()
    units[3] = with_lines(units[3], 6, back=5)
    result = judge_reading_order(bundle(units))
    assert result.label is Label.FAILED and result.sub_criteria["visual_flow"] == "failed"
    assert rule_ids(result) == {"logical_reading_order.visual_flow.mcid_order"}
    assert "5 time(s)" in result.issues[0].problem and "MCID" in result.issues[0].remediation


def test_lines_in_order_and_a_chart_label_going_up_pass() -> None:
    units = in_order()
    units[3] = with_lines(units[3], 6)
    units[4] = with_lines(unit(4, 4, "axis label"), 3, back=1)  # too short to carry a sentence
    units[5] = with_lines(unit(5, 5, role="figure"), 4, back=2)  # text inside a figure
    assert judge_reading_order(bundle(units)).label is Label.PASSED


def test_an_element_read_across_two_columns_fails_multi_column() -> None:
    units = in_order()
    units[2] = with_lines(units[2], 20, switches=9)
    result = judge_reading_order(bundle(units))
    assert result.sub_criteria["multi_column"] == "failed"
    assert rule_ids(result) == {"logical_reading_order.multi_column.mcid_columns_across"}


def test_a_paragraph_continued_into_the_next_column_passes() -> None:
    units = in_order()
    units[2] = with_lines(units[2], 12, switches=1)
    assert judge_reading_order(bundle(units)).label is Label.PASSED


def tabs_bundle(tabs: str | None, annotations: int, *, tagged: bool = True,
                units: list[dict[str, Any]] | None = None) -> PageBundle:
    page = bundle(in_order() if units is None else units, tagged=tagged)
    page.evidence["reading_order"] |= {"tabs": tabs, "annotation_count": annotations}
    return page


def test_a_page_with_links_and_no_tabs_fails_inline_elements() -> None:
    result = judge_reading_order(tabs_bundle(None, 2))
    assert result.label is Label.FAILED and result.sub_criteria["inline_elements"] == "failed"
    assert rule_ids(result) == {"logical_reading_order.inline_elements.tabs_missing"}
    assert "/Tabs /S" in result.issues[0].remediation


def test_a_page_with_links_in_row_order_fails_inline_elements() -> None:
    result = judge_reading_order(tabs_bundle("R", 3))
    assert rule_ids(result) == {"logical_reading_order.inline_elements.tabs_not_structure"}
    assert "row order" in result.issues[0].problem


def test_tab_order_in_structure_order_or_without_annotations_or_untagged_passes() -> None:
    assert judge_reading_order(tabs_bundle("S", 3)).label is Label.PASSED
    assert judge_reading_order(tabs_bundle(None, 0)).label is Label.PASSED
    untagged = [unit(0, None, "Results", role="title")] + [unit(i, None) for i in range(1, 8)]
    assert judge_reading_order(tabs_bundle(None, 2, tagged=False, units=untagged)).label is Label.PASSED


def test_a_textless_page_with_links_and_no_tabs_still_fails() -> None:
    result = judge_reading_order(tabs_bundle(None, 1, units=[]))
    assert result.label is Label.FAILED
    assert rule_ids(result) == {"logical_reading_order.inline_elements.tabs_missing"}


def test_leader_dots_outside_the_tree_are_not_hidden_text() -> None:
    """A table of contents whose leader dots and page numbers are artifacts: nothing worth reading is skipped."""
    entries = [unit(i, i, f"Section {i} on the methods of the study") for i in range(8)]
    leaders = [unit(8 + i, None, ". . . . . . . . . . . . . . . . . . . . . . . . . . . 1" + str(i), x=300)
               for i in range(8)]
    assert judge_reading_order(bundle(entries + leaders)).sub_criteria["hidden_content"] == "passed"


def test_every_finding_carries_its_rule_id() -> None:
    units = [unit(0, 0)] + [unit(i, None) for i in range(1, 8)]
    units[0] = with_lines(units[0], 5, back=3)
    result = judge_reading_order(tabs_bundle(None, 2, units=units))
    assert result.issues and all(i.rule_id and i.rule_id.startswith("logical_reading_order.") for i in result.issues)


# --------------------------------------------------------------------------- asides read inside the text (candidate)

CANDIDATE = "logical_reading_order.no_disruptions.text_interrupted_candidate"


def judged(units: list[dict[str, Any]]) -> Any:
    from judges.rules import apply_catalog
    return apply_catalog(judge_reading_order(bundle(units)))


def test_a_sidebar_read_between_two_paragraphs_that_follow_each_other_is_a_candidate() -> None:
    first = unit(1, 1, y=60, width=180)
    box = unit(2, 2, "Box 1. A sidebar printed beside the article.", x=260, width=100, y=70)
    second = unit(3, 3, y=95, width=180)
    result = judged([unit(0, 0, "Article", role="title", type_="H1", y=30), first, box, second])
    issue = next(i for i in result.issues if i.rule_id == CANDIDATE)
    assert issue.sub_criterion == "no_disruptions" and issue.context and "sidebar" in issue.context["question"]
    assert result.label is Label.PASSED  # a candidate fails nothing alone: the hybrid judge asks its LLM


def test_the_sidebar_read_after_the_article_is_no_candidate() -> None:
    units = [unit(1, 1, y=60, width=180), unit(3, 2, y=95, width=180),
             unit(2, 3, "Box 1. A sidebar printed beside the article.", x=260, width=100, y=70)]
    assert CANDIDATE not in rule_ids(judged(units))


def test_a_second_column_then_text_spanning_both_columns_is_no_candidate() -> None:
    left = unit(1, 1, x=50, width=200, y=60)
    right = unit(2, 2, x=270, width=200, y=60)
    wide = unit(3, 3, x=50, width=420, y=100)  # under both columns, spanning the gutter
    assert CANDIDATE not in rule_ids(judged([left, right, wide]))


def test_a_paragraph_going_on_at_the_head_of_the_next_column_is_no_candidate() -> None:
    foot = unit(1, 1, x=50, width=200, y=600)
    head = unit(2, 2, x=270, width=200, y=60)  # the paragraph goes on at the top of the next column
    note = unit(3, 3, "Conflict of interest: none declared by the authors.", x=50, width=200, y=640)
    assert CANDIDATE not in rule_ids(judged([foot, head, note]))
