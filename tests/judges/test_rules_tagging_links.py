"""Decision rules of the rules judge for semantic tagging and hyperlinks, one case per rule."""

from __future__ import annotations

from typing import Any

import pytest

from judges.base import PageJudgment
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules import apply_catalog
from judges.rules.links import judge_links, uri_problem
from judges.rules.tagging import judge_tagging, looks_like_heading


def tags(elements: list[dict[str, Any]], **extra: Any) -> PageBundle:
    counts: dict[str, int] = {}
    for e in elements:
        counts[e["type"]] = counts.get(e["type"], 0) + 1
    evidence = {"tag_structure": {"tagged": True, "element_count": len(elements), "elements": elements,
                                  "type_counts": counts, "body_size": 10.0, "prior_heading_level": None, **extra}}
    return PageBundle("semantic_tagging", 1, evidence)


def el(id_: int, type_: str, parent: int | None = 0, text: str | None = None, **kw: Any) -> dict[str, Any]:
    return {"id": id_, "type": type_, "parent": parent, "page": 1, "text": text, **kw}


GOOD = [el(0, "Document", None), el(1, "H1", text="Title", size=20), el(2, "P", text="Body text here."),
        el(3, "H2", text="Methods", size=14), el(4, "L"), el(5, "LI", 4), el(6, "Lbl", 5, "•"),
        el(7, "LBody", 5, "first item")]


def test_well_formed_page_passes_with_a_justification() -> None:
    result = judge_tagging(tags(GOOD))
    assert result.label is Label.PASSED and "headings" in result.summary


def test_withheld_tags_cannot_tell_and_untagged_not_present() -> None:
    assert judge_tagging(PageBundle("semantic_tagging", 1, {})).label is Label.CANNOT_TELL
    untagged = PageBundle("semantic_tagging", 1, {"tag_structure": {"tagged": False, "element_count": 0}})
    assert judge_tagging(untagged).label is Label.NOT_PRESENT


def test_heading_level_skip_fails_with_location_and_fix() -> None:
    result = judge_tagging(tags([el(0, "Document", None), el(1, "H1", text="Title"), el(2, "H3", text="Deep")]))
    assert result.label is Label.FAILED
    issue = result.issues[0]
    assert issue.sub_criterion == "heading_nesting" and "Page 1" in issue.location and "H2" in issue.remediation


def test_heading_skip_across_pages_uses_the_prior_level() -> None:
    result = judge_tagging(tags([el(0, "Document", None), el(1, "H4", text="Sub")], prior_heading_level=2))
    assert result.label is Label.FAILED


def test_list_item_outside_list_fails() -> None:
    result = judge_tagging(tags([el(0, "Document", None), el(1, "LI", 0), el(2, "LBody", 1, "item")]))
    assert result.label is Label.FAILED and result.sub_criteria["list_structure"] == "failed"


def test_paragraphs_as_bare_spans_fail() -> None:
    spans = [el(i, "Span", 0, f"A full paragraph of body text number {i}.") for i in range(1, 5)]
    result = judge_tagging(tags([el(0, "Document", None), *spans]))
    assert result.label is Label.FAILED and result.sub_criteria["proper_tag_usage"] == "failed"


def test_visual_headings_without_any_heading_tags_fail() -> None:
    page = [el(0, "Document", None),
            el(1, "P", text="Darwin's finches join genome club", size=30, bold=1.0, bbox=[40, 100, 380, 132]),
            el(2, "P", text="Body text of the article goes on.", size=10, bbox=[40, 140, 380, 180])]
    assert judge_tagging(tags(page)).label is Label.FAILED
    page[1]["type"] = "H1"
    assert judge_tagging(tags(page)).label is Label.PASSED


@pytest.mark.parametrize("where", ["beside", "after", "inline", "no boxes"])
def test_a_big_word_is_a_heading_only_where_it_heads_text(where: str) -> None:
    """A stamp beside the text, a last line with nothing after it, a bold word inside a paragraph, or a block
    whose place is unknown: large or bold, but not set where a heading is, so no untagged heading."""
    stamp = el(1, "P", text="FAIL", size=36, bold=1.0, bbox=[300, 40, 380, 76])
    body = el(2, "P", text="The values below are measured once per sample.", size=10, bbox=[40, 50, 290, 90])
    page = [el(0, "Document", None), stamp, body]
    if where == "after":
        stamp["id"], body["id"], stamp["bbox"] = 3, 2, [40, 100, 120, 136]
    elif where == "inline":
        stamp["parent"], stamp["type"], stamp["bbox"] = 2, "Span", [40, 20, 120, 56]
    elif where == "no boxes":
        del stamp["bbox"], body["bbox"]
    result = judge_tagging(tags(page))
    assert "semantic_tagging.structural_hierarchy.untagged_headings" not in {i.rule_id for i in result.issues}
    stamp.update(id=1, parent=0, type="P", bbox=[40, 10, 120, 46])  # above the text it heads: a heading
    body.update(id=2, bbox=[40, 50, 290, 90])
    page.sort(key=lambda e: e["id"])
    result = judge_tagging(tags(page))
    assert "semantic_tagging.structural_hierarchy.untagged_headings" in {i.rule_id for i in result.issues}


def test_numbered_paragraphs_outside_a_list_fail() -> None:
    page = [el(0, "Document", None), el(1, "H1", text="References"), el(2, "P", text="1. Daniels, R. J. Proc."),
            el(3, "P", text="2. Jones, B. F. Rev.")]
    result = judge_tagging(tags(page))
    assert result.label is Label.FAILED and result.sub_criteria["list_structure"] == "failed"


@pytest.mark.parametrize(("text", "size", "bold", "expected"), [
    ("Results", 10, 1.0, True), ("A long sentence that ends with a period.", 14.5, 0.0, False),
    ("Introduction", 16, 0.0, True), ("R", 40, 0.0, False), ("e-mail: x@y.org", 10, 1.0, False),
    ("plain body words", 10, 0.0, False),
])
def test_what_reads_as_a_heading(text: str, size: float, bold: float, expected: bool) -> None:
    assert looks_like_heading({"text": text, "size": size, "bold": bold}, 10.0) is expected


def links(items: list[dict[str, Any]], link_elements: list[dict[str, Any]] | None = None) -> PageBundle:
    return PageBundle("functional_hyperlinks", 2, {"link_metadata": {"links": items, "link_elements": link_elements
                                                                       or [], "tagged": True}})


def link(**kw: Any) -> dict[str, Any]:
    return {"kind": "uri", "target": "https://example.org/a", "anchor_text": "the archive",
            "has_link_element": True, **kw}


def judged_links(bundle: PageBundle) -> PageJudgment:
    """The links rule as the rules judge applies it (warnings set aside by the catalog)."""
    return apply_catalog(judge_links(bundle))


def test_links_pass_fail_not_present_cannot_tell() -> None:
    assert judged_links(links([link()])).label is Label.PASSED
    assert judged_links(PageBundle("functional_hyperlinks", 2, {})).label is Label.CANNOT_TELL
    # Link tags left without annotations are no links to follow: not present, not failed.
    assert judged_links(links([], [{"id": 3, "objr_count": 0}])).label is Label.NOT_PRESENT
    untagged = judged_links(links([link(has_link_element=False)]))
    assert untagged.label is Label.FAILED and "OBJR" in untagged.issues[0].remediation
    assert "Page 2" in untagged.issues[0].location
    broken = judged_links(links([link(kind="goto", target="sec:missing", dest_valid=False)]))
    assert broken.label is Label.FAILED and broken.sub_criteria["functionality"] == "failed"


def test_every_link_finding_carries_its_rule_id() -> None:
    judged = judged_links(links([link(has_link_element=False, element_type="Reference"), link(has_link_element=False),
                                 link(kind="goto", target="sec:missing", dest_valid=False),
                                 link(target="htps://example.org"), link(kind="javascript", anchor_text=""),
                                 link(anchor_text="", target=None, kind="none")]))
    assert judged.issues and all(i.rule_id for i in judged.issues)
    assert {i.rule_id.split(".")[1] for i in judged.issues} == {
        "link_tagging", "structure_association", "functionality", "descriptiveness"}
    assert "Reference element" in judged.issues[0].problem


def test_links_without_contents_fail_only_where_the_document_claims_pdfua() -> None:
    claimed = PageBundle("functional_hyperlinks", 2, {"link_metadata": {
        "links": [link(), link(target="https://example.org/b")], "link_elements": [], "tagged": True,
        "pdfua_part": 1}})
    failed = judged_links(claimed)
    assert failed.label is Label.FAILED and failed.sub_criteria["descriptiveness"] == "failed"
    assert [i.rule_id for i in failed.issues] == ["functional_hyperlinks.descriptiveness.contents_missing"]
    assert "pdfuaid:part 1" in failed.issues[0].problem and "2 link annotation(s)" in failed.issues[0].problem
    # No claim: a warning, the page passes and keeps it.
    advisory = judged_links(links([link()]))
    assert advisory.label is Label.PASSED and advisory.sub_criteria["descriptiveness"] == "passed"
    assert [i.rule_id for i in advisory.issues] == ["functional_hyperlinks.descriptiveness.contents_missing_advisory"]
    # /Contents present: nothing to say, claim or no claim.
    with_contents = [link(contents="The archive of the data")]
    assert judged_links(links(with_contents)).issues == []
    claimed.evidence["link_metadata"]["links"] = with_contents
    assert judged_links(claimed).label is Label.PASSED


@pytest.mark.parametrize(("uri", "ok"), [
    ("https://example.org/x", True), ("http://dx.doi.org/ 10.1103/PhysRevLett.1", True),
    ("mailto:Correspondence to: a.b@fau.de, and c@irb.hr", True), ("htps://example.org", False),
    ("https//example.org", False), ("https://exa mple.org/", False), ("mailto:nobody", False), ("", False),
])
def test_uri_functionality(uri: str, ok: bool) -> None:
    assert (uri_problem(uri) is None) is ok
