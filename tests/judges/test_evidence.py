"""Evidence bundles: the Cannot Tell protocol and what a judge must never see."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from extractors import order_agreement
from judges import conformance, evidence
from judges.criteria import CRITERIA
from judges.evidence import EVIDENCE, UNREAD_COLUMNS, DocEvidence, build_bundles
from warehouse.tables import ALL_TABLES


def doc() -> DocEvidence:
    return DocEvidence(
        "d1",
        pages=[{"page": 1, "image_path": "/home/x/artifacts/render/images/abc-72dpi/page-0001.png",
                "has_text": True, "width_pt": 612, "height_pt": 792}],
        struct_elements=[{"elem_id": 0, "parent_id": None, "type": "Document", "page": None},
                         {"elem_id": 1, "parent_id": 0, "type": "H1", "page": 1, "text": "Title", "bbox": None}],
        doc_structure=[{"tagged": True, "marked": True}],
        links=[{"page": 1, "kind": "uri", "target": "https://example.org", "has_link_element": True}],
        fonts=[{"font_name": "F", "embedded": True, "pages": [1], "sizes": [10.0]}],
        text_spans=[{"page": 1, "font_name": "F", "size": 10.0, "char_count": 40, "contrast_ratio": 12.0,
                     "passes": True, "invisible": False, "text": "hello", "bbox": [0, 0, 10, 10]}],
    )


@pytest.mark.parametrize("criterion", CRITERIA)
def test_cannot_tell_items_lose_exactly_the_starred_evidence(criterion: str) -> None:
    (full, withheld_none), = build_bundles(criterion, doc(), withhold=False)
    (held, withheld), = build_bundles(criterion, doc(), withhold=True)
    starred = {name for name, star in EVIDENCE[criterion] if star}
    assert withheld_none == [] and set(withheld) == starred
    assert not starred & set(held.evidence)
    assert "page_image" in held.evidence and held.image_path  # the page itself is always shown


def test_bundles_carry_no_paths_labels_or_pdf_metadata() -> None:
    for criterion in CRITERIA:
        for bundle, _ in build_bundles(criterion, doc(), withhold=False):
            text = json.dumps(bundle.evidence)
            for leak in ("/home/x", "passed", "failed", "not_present", "cannot_tell", "Producer", "CreationDate",
                         "doc_id", "run_id"):
                assert leak not in text, (criterion, leak)


def rich(doc_id: str, shift: int = 0) -> DocEvidence:
    """Two pages with headings, paragraphs, a link, a table, figures with alt text, fonts and glyph counts: enough
    rows for every builder's document-level values (`shift` makes a second document's values differ)."""
    def span(page: int, index: int, text: str, size: float, box: list[float],
             **more: Any) -> dict[str, Any]:
        return {"page": page, "span_index": index, "block": index // 2, "line": index,
                "font_name": f"ABCDEF+Font{shift}-Bold", "size": size, "bold": index == 0, "text": text,
                "char_count": len(text), "bbox": box,
                "contrast_ratio": 3.0 + index + shift, "passes": index % 3 != 0, "invisible": False, **more}

    elements = [
        {"elem_id": 0, "parent_id": None, "type": "Document", "page": None, "order": 0},
        {"elem_id": 1, "parent_id": 0, "type": "H1", "page": 1, "order": 0, "text": f"Title {shift}",
         "bbox": [10, 10, 200, 40]},
        {"elem_id": 2, "parent_id": 0, "type": "P", "page": 1, "order": 1,
         "text": "the first paragraph runs on and on", "bbox": [10, 50, 300, 60]},
        {"elem_id": 3, "parent_id": 0, "type": "P", "page": 1, "order": 2, "text": "continues here in lower case.",
         "bbox": [10, 61, 300, 71]},
        {"elem_id": 4, "parent_id": 0, "type": "H2" if shift else "H3", "page": 2, "order": 3, "text": "Section",
         "bbox": [10, 10, 100, 30]},
        {"elem_id": 5, "parent_id": 0, "type": "H1", "page": 2, "order": 4, "text": "Another",
         "bbox": [10, 40, 100, 60]},
        {"elem_id": 6, "parent_id": 0, "type": "Link", "page": 2, "order": 5, "text": "a link", "objr_count": 1},
        {"elem_id": 7, "parent_id": 0, "type": "Table", "page": 2, "order": 6},
        {"elem_id": 8, "parent_id": 7, "type": "TH", "page": 2, "order": 0, "text": "Head",
         "bbox": [10, 100, 50, 110]},
        {"elem_id": 9, "parent_id": 7, "type": "TD", "page": 2, "order": 1, "text": "Cell",
         "bbox": [10, 111, 50, 121]},
        {"elem_id": 10, "parent_id": 0, "type": "L", "page": 2, "order": 7,
         "attributes": '{"ListNumbering": "Decimal"}'},
    ]
    spans = [span(1, 0, f"Title {shift}", 20.0, [12, 12, 150, 38]),
             span(1, 1, "the first paragraph runs on and on", 10.0, [10, 50, 300, 60]),
             span(1, 2, "continues here in lower case.", 10.0, [10, 61, 300, 71]),
             span(2, 3, "Section", 14.0 + shift, [10, 10, 100, 30]),
             span(2, 4, "Another heading of the section", 20.0, [10, 40, 100, 60], render_invisible=bool(shift)),
             span(2, 5, "Head", 9.0, [10, 100, 50, 110]), span(2, 6, "Cell", 9.0, [10, 111, 50, 121])]
    return DocEvidence(
        doc_id,
        pages=[{"page": p, "image_path": f"p{p}.png", "has_text": True, "width_pt": 612, "height_pt": 792}
               for p in (1, 2)],
        struct_elements=elements,
        doc_structure=[{"tagged": True, "marked": True, "lang": "en", "pdfua_part": 1 if shift else None}],
        links=[{"page": 2, "kind": "uri", "uri": f"https://example.org/{shift}", "element_id": 6}],
        fonts=[{"font_name": f"ABCDEF+Font{shift}-Bold", "embedded": True, "pages": [1, 2, 2],
                "sizes": [10.0, 9.0, 20.0],
                "glyph_pages": [{"page": 2, "glyphs": 30, "wrong": 1 + shift, "textless": 0},
                                {"page": 2, "glyphs": 99, "wrong": 9, "textless": 9}]},
               {"font_name": "Other", "pages": [1], "sizes": [12.0]}],
        text_spans=spans,
        reading_order=[{"page": p, "block_index": i, "text": s["text"], "role": "body", "artifact": i == 6}
                       for i, (p, s) in enumerate((s["page"], s) for s in spans)],
        tables=[{"table_id": 1, "page": 2, "bbox": [10, 100, 50, 121], "rows": 2, "cols": 1, "tagged": False}],
        table_cells=[{"table_id": 1, "row": 0, "col": 0, "kind": "header", "text": "Head"},
                     {"table_id": 2, "row": 0, "col": 0, "kind": "data", "text": "elsewhere"},
                     {"table_id": 1, "row": 1, "col": 0, "kind": "data", "text": f"Cell {shift}"}],
        figures=[{"figure_index": i, "page": 1 + i % 2, "kind": "image", "alt": alt, "small": i == 3}
                 for i, alt in enumerate(["A chart of growth", "a chart of  GROWTH", f"photo{shift}.png", None])],
    )


def _all_bundles(ev: DocEvidence) -> list[tuple[str, int, str, list[str]]]:
    return [(criterion, bundle.page, json.dumps(bundle.evidence, sort_keys=True, default=str), withheld)
            for criterion in CRITERIA for withhold in (False, True)
            for bundle, withheld in build_bundles(criterion, ev, withhold=withhold, built={})]


def test_what_a_documents_evidence_keeps_once_built_never_reaches_another_document() -> None:
    # Each alone, then one after the other in both orders (the values found once per document, the page and span
    # indexes and the font family cache live across documents in one process): the same bundles.
    alone = {doc: _all_bundles(rich(doc, shift)) for doc, shift in (("a", 0), ("b", 1))}
    first, second = rich("a", 0), rich("b", 1)
    assert _all_bundles(first) == alone["a"] and _all_bundles(second) == alone["b"]
    assert _all_bundles(first) == alone["a"]  # built again from its memo
    assert alone["a"] != alone["b"]


def test_document_level_values_found_once_are_those_of_the_page_asked_for() -> None:
    ev = rich("a", 1)
    one, two = (build_bundles("semantic_tagging", ev, withhold=False)[i][0].evidence["tag_structure"] for i in (0, 1))
    assert (one["prior_heading_level"], one["h1_before"]) == (None, 0)
    assert (two["prior_heading_level"], two["h1_before"]) == (1, 1)
    assert one["root_types"] == two["root_types"] == ["Document"]
    assert one["heading_styles"] == two["heading_styles"] and one["heading_styles"] is not two["heading_styles"]
    assert [e["id"] for e in two["elements"]] == [0, 4, 5, 6, 7, 8, 9, 10]  # the page's elements and their parents
    assert two["elements"][-1]["list_numbering"] == "Decimal"
    assert one["elements"][-1].get("continues_previous") is True
    fonts = build_bundles("fonts_readability", ev, withhold=False)[1][0].evidence["font_metadata"]
    assert [f["font_name"] for f in fonts["fonts"]] == ["ABCDEF+Font1-Bold"]  # listed once though `pages` says 2 twice
    assert fonts["glyph_checks"] == [{"font": "ABCDEF+Font1-Bold", "glyphs": 30, "wrong": 2, "textless": 0,
                                      "textless_distinct": 0, "conflict": None}]  # the page's first counts
    tables = build_bundles("table_structure", ev, withhold=False)[1][0].evidence["table_tags"]["tables"]
    assert [c["text"] for c in tables[0]["cells"]] == ["Head", "Cell 1"]
    alt = build_bundles("alt_text_quality", ev, withhold=False)[0][0].evidence["alt_texts"]
    assert alt["document_figures"] == 3 and alt["document_figures_with_alt"] == 3
    assert [f["same_alt_as"] for f in alt["figures"]] == [[{"figure": 1, "page": 2, "caption": None}], []]


def test_the_columns_the_inputs_stage_leaves_out_are_read_by_no_builder() -> None:
    # The stage drops UNREAD_COLUMNS before building evidence (and the reading-order agreement): a builder that
    # read one would see None there.
    sources = "\n".join([*(Path(module.__file__).read_text() for module in (evidence, conformance)),  # type: ignore[arg-type]
                         *(inspect.getsource(getattr(order_agreement, name)) for name in (
                             "order_agreement", "_tau_terms", "_tau", "_same_line", "column_switches",
                             "_footnote_in_body"))])
    definition = sources[sources.index("UNREAD_COLUMNS: dict"):sources.index("T = TypeVar")]
    schemas = {spec.name: spec.schema.names for spec in ALL_TABLES}
    assert "links" not in UNREAD_COLUMNS  # a link's whole row is evidence
    for table, columns in UNREAD_COLUMNS.items():
        for column in columns:
            assert column in schemas[table], (table, column)
            assert sources.replace(definition, "").count(f'"{column}"') == 0, column
            assert sources.replace(definition, "").count(f"'{column}'") == 0, column
    # And with values in those columns, the bundles are those of rows without them.
    full = rich("a")
    for table, columns in UNREAD_COLUMNS.items():
        for row in getattr(full, table):
            row.update({column: [1, 2] if column in ("mcids", "objr_annots", "subtree_bbox") else 7
                        for column in columns})
    assert _all_bundles(full) == _all_bundles(rich("a"))
