"""Tag tree records from a typst-tagged PDF and pikepdf-mutated variants of it."""

from __future__ import annotations

import json
from pathlib import Path

import pikepdf
import pytest

from extractors.structure.records import extract_struct_elements
from extractors.structure.summary import struct_summary
from extractors.structure.tree import read_struct_tree, resolve_role
from tests.extractors.conftest import assert_fits, first_element, mutate
from warehouse.tables import STRUCT_ELEMENTS_SCHEMA, STRUCT_SUMMARY_SCHEMA


@pytest.fixture(scope="module")
def elements(tagged_pdf: Path) -> list[dict]:
    return extract_struct_elements(tagged_pdf, doc_id="doc-1", page_offset=10)


def _by_type(elements: list[dict], type_: str) -> list[dict]:
    return [e for e in elements if e["type"] == type_]


def test_records_fit_the_schema(elements: list[dict]) -> None:
    table = assert_fits(elements, STRUCT_ELEMENTS_SCHEMA)
    assert table.num_rows == len(elements) > 20


def test_preorder_ids_parents_depth_and_sibling_order(elements: list[dict]) -> None:
    assert [e["elem_id"] for e in elements] == list(range(len(elements)))
    by_id = {e["elem_id"]: e for e in elements}
    siblings: dict[int | None, list[int]] = {}
    for e in elements:
        parent = e["parent_id"]
        if parent is None:
            assert e["depth"] == 0
        else:
            assert parent < e["elem_id"] and e["depth"] == by_id[parent]["depth"] + 1
        siblings.setdefault(parent, []).append(e["order"])
    assert all(orders == list(range(len(orders))) for orders in siblings.values())


def test_headings_with_text_page_and_box(elements: list[dict]) -> None:
    (h1,) = _by_type(elements, "H1")
    (h2,) = _by_type(elements, "H2")
    assert (h1["text"], h1["page"], h1["title"]) == ("Introduction", 11, "Introduction")
    assert (h2["text"], h2["page"]) == ("Later section", 12)
    x0, y0, x1, y1 = h1["bbox"]
    assert 0 < x0 < x1 < 420 and 0 < y0 < y1 < 120  # top of the page, top-left origin


def test_list_structure(elements: list[dict]) -> None:
    (lst,) = _by_type(elements, "L")
    items = [e for e in elements if e["parent_id"] == lst["elem_id"]]
    assert [e["type"] for e in items] == ["LI", "LI"]
    bodies = [e["text"] for e in _by_type(elements, "LBody")]
    assert bodies == ["first item", "second item"]
    assert json.loads(lst["attributes"])["ListNumbering"] == "Circle"


def test_table_headers_have_scope_and_cells_point_at_them(elements: list[dict]) -> None:
    headers = _by_type(elements, "TH")
    assert [(h["text"], h["scope"]) for h in headers] == [("Name", "Column"), ("Value", "Column")]
    keys = [h["elem_key"] for h in headers]
    cells = _by_type(elements, "TD")
    assert [c["text"] for c in cells] == ["alpha", "1", "beta", "2"]
    assert json.loads(cells[0]["attributes"])["Headers"] == [keys[0]]
    (table,) = _by_type(elements, "Table")
    assert table["page"] == 11 and table["bbox"] is None and table["subtree_bbox"] is not None


def test_figure_alt_and_image_box(elements: list[dict]) -> None:
    (figure,) = _by_type(elements, "Figure")
    assert figure["alt"] == "A red rectangle"
    assert figure["bbox"] is not None and figure["mcid_count"] == 1
    (caption,) = _by_type(elements, "Caption")
    assert caption["parent_id"] == figure["parent_id"]


def test_alt_that_is_not_valid_text_keeps_the_content_and_prints_nothing(
        tagged_pdf: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """An Alt holding a lone UTF-16 surrogate (a damaged or hostile string) reaches the content device
    as text C cannot take back; the tag tree is still read whole, with nothing on stderr (it used to
    fail as "corrupt: cannot read the tag tree", after a traceback)."""
    def odd_alt(pdf: pikepdf.Pdf) -> None:
        first_element(pdf, "/H1").Alt = pikepdf.String(b"\xfe\xff\xd8\x00")

    clean = extract_struct_elements(tagged_pdf, doc_id="d")
    capfd.readouterr()
    odd = extract_struct_elements(mutate(tagged_pdf, tmp_path / "odd-alt.pdf", odd_alt), doc_id="d")
    assert "Director" not in capfd.readouterr().err
    (h1,) = _by_type(odd, "H1")
    assert h1["text"] == "Introduction"
    assert [(e["type"], e["text"], e["bbox"]) for e in odd] == [(e["type"], e["text"], e["bbox"]) for e in clean]


def test_links_reference_their_annotations(elements: list[dict]) -> None:
    links = _by_type(elements, "Link")
    assert [(e["text"], e["objr_count"], e["objr_annots"]) for e in links] == [
        ("link to example", 1, [0]),
        ("the later section", 1, [1]),
    ]


def test_rolemap_types_are_resolved(elements: list[dict]) -> None:
    strong = next(e for e in elements if e["raw_type"] == "Strong")
    assert strong["type"] == "Span" and strong["text"] == "strong words"  # typst maps Strong -> Span


def test_artifacts_are_not_element_text(elements: list[dict]) -> None:
    texts = " ".join(e["text"] or "" for e in elements)
    assert "Running footer text" not in texts
    (second_item,) = [e for e in elements if e["text"] == "second item"]
    (table,) = _by_type(elements, "Table")
    # The table's rules are artifacts drawn right after the list: not part of the item.
    assert second_item["bbox"][3] < table["subtree_bbox"][1]


def test_custom_roles_chains_and_cycles(tagged_pdf: Path, tmp_path: Path) -> None:
    def rename(pdf: pikepdf.Pdf) -> None:
        root = pdf.Root.StructTreeRoot
        root.RoleMap.MyHeading = pikepdf.Name.Intermediate
        root.RoleMap.Intermediate = pikepdf.Name.H1
        root.RoleMap.LoopA = pikepdf.Name.LoopB
        root.RoleMap.LoopB = pikepdf.Name.LoopA
        first_element(pdf, "/H1").S = pikepdf.Name.MyHeading
        first_element(pdf, "/H2").S = pikepdf.Name.LoopA

    records = extract_struct_elements(mutate(tagged_pdf, tmp_path / "roles.pdf", rename), doc_id="d")
    heading = next(e for e in records if e["raw_type"] == "MyHeading")
    assert heading["type"] == "H1" and heading["text"] == "Introduction"
    looped = next(e for e in records if e["raw_type"] == "LoopA")
    assert looped["type"] == "LoopA"  # a cycle resolves to nothing standard: keep the raw name


def test_resolve_role_rules() -> None:
    assert resolve_role("P", {"P": "H1"}) == "P"  # standard 1.7 types are never remapped
    assert resolve_role("Title", {"Title": "P"}) == "P"  # PDF 2.0 names follow the map
    assert resolve_role("Title", {}) == "Title"
    assert resolve_role("H7", {}) == "H7"
    assert resolve_role("Fancy", {"Fancy": "Unknown"}) == "Fancy"


def test_classmap_attributes_merge_under_a(tagged_pdf: Path, tmp_path: Path) -> None:
    def add_class(pdf: pikepdf.Pdf) -> None:
        pdf.Root.StructTreeRoot.ClassMap = pikepdf.Dictionary(
            Centered=pikepdf.Dictionary(O=pikepdf.Name.Layout, TextAlign=pikepdf.Name.Center, SpaceAfter=3)
        )
        paragraph = first_element(pdf, "/P")
        paragraph.C = pikepdf.Name.Centered
        paragraph.A = pikepdf.Dictionary(O=pikepdf.Name.Layout, SpaceAfter=9)

    records = extract_struct_elements(mutate(tagged_pdf, tmp_path / "class.pdf", add_class), doc_id="d")
    paragraph = next(e for e in records if e["type"] == "P")
    assert json.loads(paragraph["attributes"]) == {"TextAlign": "Center", "SpaceAfter": 9}


def test_cyclic_tree_terminates_and_is_reported(tagged_pdf: Path, tmp_path: Path) -> None:
    def loop(pdf: pikepdf.Pdf) -> None:
        document = first_element(pdf, "/Document")
        first_element(pdf, "/LBody").K.append(document)  # a descendant lists its ancestor
        first_element(pdf, "/P").K.append(first_element(pdf, "/P"))  # and itself

    path = mutate(tagged_pdf, tmp_path / "cycle.pdf", loop)
    records = extract_struct_elements(path, doc_id="d")
    assert len(records) == len(extract_struct_elements(tagged_pdf, doc_id="d"))
    summary = struct_summary(path)
    assert summary["repeated_refs"] == 2 and summary["error"] is None


def test_deep_tree_needs_no_recursion_and_is_capped(tagged_pdf: Path, tmp_path: Path) -> None:
    depth = 5000

    def deepen(pdf: pikepdf.Pdf) -> None:
        parent = first_element(pdf, "/Document")
        for _ in range(depth):
            child = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.Div, P=parent))
            parent.K.append(child)
            child.K = pikepdf.Array()
            parent = child

    path = mutate(tagged_pdf, tmp_path / "deep.pdf", deepen)
    records = extract_struct_elements(path, doc_id="d")
    assert max(r["depth"] for r in records) == depth
    with pikepdf.open(path) as pdf:
        tree = read_struct_tree(pdf, limit=100)
    assert len(tree.nodes) == 100 and tree.truncated


def test_untagged_pdf_has_no_elements(untagged_pdf: Path) -> None:
    assert extract_struct_elements(untagged_pdf, doc_id="d") == []
    summary = struct_summary(untagged_pdf)
    assert summary["tagged"] is False and summary["element_count"] == 0 and summary["orphan_mcids"] is None


def test_summary_of_a_tagged_pdf(tagged_pdf: Path) -> None:
    summary = struct_summary(tagged_pdf)
    assert_fits([summary], STRUCT_SUMMARY_SCHEMA)
    assert summary == {
        "tagged": True, "marked": True, "has_rolemap": True, "element_count": 32, "truncated": False,
        "repeated_refs": 0, "orphan_mcids": 0, "lang": "en", "has_title": True, "display_doc_title": None,
        "pages": 2, "pdfua_part": None, "xmp_title": True, "accessibility_permitted": True, "error": None,
    }


def test_orphan_mcids_are_counted(tagged_pdf: Path, tmp_path: Path) -> None:
    def forget(pdf: pikepdf.Pdf) -> None:
        first_element(pdf, "/H2").K = pikepdf.Array()  # its MCID stays in the content

    assert struct_summary(mutate(tagged_pdf, tmp_path / "orphan.pdf", forget))["orphan_mcids"] == 1


def test_a_structure_type_name_that_is_not_utf8_is_read_in_its_escaped_form() -> None:
    import pikepdf

    from extractors.structure.tree import pdf_name

    assert pdf_name(pikepdf.Object.parse(b"/A\xb8B")) == "A#b8B"
    assert pdf_name(pikepdf.Name("/Figure")) == "Figure"
