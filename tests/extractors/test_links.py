"""Link records: kinds, destinations, URI form, anchor text and structure association."""

from __future__ import annotations

from pathlib import Path

import pikepdf
import pytest

from extractors.links import extract_links, extract_orphan_link_elements, uri_well_formed
from extractors.structure.records import extract_struct_elements
from tests.extractors.conftest import assert_fits, mutate, struct_elements_of
from warehouse.tables import LINKS_SCHEMA, ORPHAN_LINK_ELEMENTS_SCHEMA


def _link_annots(pdf: pikepdf.Pdf) -> list[pikepdf.Object]:
    return [a for a in pdf.pages[0].Annots if a.get("/Subtype") == "/Link"]


@pytest.fixture(scope="module")
def links(tagged_pdf: Path) -> list[dict]:
    return extract_links(tagged_pdf, doc_id="doc-1", page_offset=4)


def test_records_fit_the_schema(links: list[dict], tagged_pdf: Path) -> None:
    assert_fits(links, LINKS_SCHEMA)
    assert_fits(extract_orphan_link_elements(tagged_pdf, doc_id="d"), ORPHAN_LINK_ELEMENTS_SCHEMA)


def test_external_link(links: list[dict]) -> None:
    uri = links[0]
    assert (uri["kind"], uri["target"], uri["page"], uri["annot_index"]) == ("uri", "https://example.org/page", 5, 0)
    assert uri["uri_well_formed"] is True and uri["dest_valid"] is None
    assert uri["anchor_text"] == "link to example"
    x0, y0, x1, y1 = uri["rect"]
    assert x0 < x1 and y0 < y1 < 150  # near the top: top-left origin


def test_internal_link_resolves_to_its_page(links: list[dict]) -> None:
    internal = links[1]
    assert (internal["kind"], internal["target"], internal["target_page"]) == ("goto", "later", 6)
    assert internal["dest_valid"] is True and internal["uri_well_formed"] is None
    assert internal["anchor_text"].startswith("the later section")


def test_links_are_tied_to_link_elements(links: list[dict], tagged_pdf: Path) -> None:
    elements = extract_struct_elements(tagged_pdf, doc_id="doc-1")
    link_ids = [e["elem_id"] for e in elements if e["type"] == "Link"]
    assert [(lk["has_link_element"], lk["element_type"]) for lk in links] == [(True, "Link"), (True, "Link")]
    assert [lk["element_id"] for lk in links] == link_ids
    assert [lk["struct_parent"] for lk in links] == [0, 1]
    assert extract_orphan_link_elements(tagged_pdf, doc_id="d") == []


def test_stripping_objr_and_struct_parent_unties_links(tagged_pdf: Path, tmp_path: Path) -> None:
    def untie(pdf: pikepdf.Pdf) -> None:
        for element in struct_elements_of(pdf):
            kids = element.get("/K")
            if isinstance(kids, pikepdf.Array):
                element.K = pikepdf.Array(
                    [k for k in kids if not (isinstance(k, pikepdf.Dictionary) and k.get("/Type") == "/OBJR")]
                )
        for annot in _link_annots(pdf):
            del annot["/StructParent"]

    path = mutate(tagged_pdf, tmp_path / "untied.pdf", untie)
    assert [lk["has_link_element"] for lk in extract_links(path, doc_id="d")] == [False, False]
    orphans = extract_orphan_link_elements(path, doc_id="d", page_offset=2)
    assert [(o["reason"], o["page"]) for o in orphans] == [("no_annotation", 3), ("no_annotation", 3)]


def test_struct_parent_alone_still_ties_a_link(tagged_pdf: Path, tmp_path: Path) -> None:
    def drop_objrs(pdf: pikepdf.Pdf) -> None:
        for element in struct_elements_of(pdf):
            if element.S == "/Link":
                element.K = pikepdf.Array([k for k in element.K if isinstance(k, int)])

    path = mutate(tagged_pdf, tmp_path / "no-objr.pdf", drop_objrs)
    assert [lk["has_link_element"] for lk in extract_links(path, doc_id="d")] == [True, True]


def test_missing_annotation_is_an_orphan(tagged_pdf: Path, tmp_path: Path) -> None:
    def drop_annots(pdf: pikepdf.Pdf) -> None:
        del pdf.pages[0].obj["/Annots"]

    path = mutate(tagged_pdf, tmp_path / "no-annots.pdf", drop_annots)
    assert extract_links(path, doc_id="d") == []
    assert {o["reason"] for o in extract_orphan_link_elements(path, doc_id="d")} == {"annotation_missing"}


def test_broken_destinations_and_malformed_uri(tagged_pdf: Path, tmp_path: Path) -> None:
    def break_targets(pdf: pikepdf.Pdf) -> None:
        uri, internal = _link_annots(pdf)
        uri.A.URI = pikepdf.String("http://exa mple.org/page")
        internal.Dest = pikepdf.String("nowhere")

    records = extract_links(mutate(tagged_pdf, tmp_path / "broken.pdf", break_targets), doc_id="d")
    assert records[0]["uri_well_formed"] is False
    assert (records[1]["target"], records[1]["dest_valid"], records[1]["target_page"]) == ("nowhere", False, None)


def test_explicit_destination_and_other_actions(tagged_pdf: Path, tmp_path: Path) -> None:
    def retarget(pdf: pikepdf.Pdf) -> None:
        uri, internal = _link_annots(pdf)
        internal.Dest = pikepdf.Array([pdf.pages[1].obj, pikepdf.Name.Fit])
        del uri["/A"]
        for action in (
            pikepdf.Dictionary(S=pikepdf.Name.Named, N=pikepdf.Name.NextPage),
            pikepdf.Dictionary(S=pikepdf.Name.JavaScript, JS=pikepdf.String("app.alert(1)")),
            pikepdf.Dictionary(S=pikepdf.Name.Launch, F=pikepdf.String("other.exe")),
            pikepdf.Dictionary(S=pikepdf.Name.GoToR, F=pikepdf.String("other.pdf"), D=pikepdf.String("intro")),
        ):
            link = pdf.make_indirect(pikepdf.Dictionary(
                Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Link, Rect=[10, 10, 20, 20], A=action))
            pdf.pages[0].Annots.append(link)

    records = extract_links(mutate(tagged_pdf, tmp_path / "actions.pdf", retarget), doc_id="d")
    summary = [(r["kind"], r["target"], r["dest_valid"]) for r in records]
    assert summary == [
        ("none", None, None),
        ("goto", "page 2", True),
        ("named", "NextPage", True),
        ("javascript", "app.alert(1)", None),
        ("launch", "other.exe", None),
        ("gotor", "other.pdf#intro", None),
    ]
    assert [r["annot_index"] for r in records] == [0, 1, 2, 3, 4, 5]


def test_rotated_page_keeps_anchor_text(tagged_pdf: Path, tmp_path: Path) -> None:
    def rotate(pdf: pikepdf.Pdf) -> None:
        pdf.pages[0].obj.Rotate = 90

    records = extract_links(mutate(tagged_pdf, tmp_path / "rotated.pdf", rotate), doc_id="d")
    assert records[0]["anchor_text"] == "link to example"


@pytest.mark.parametrize(
    ("uri", "ok"),
    [
        ("https://example.org/a?b=c#d", True),
        ("http://localhost:8080/x", True),
        ("http://192.168.1.4/", True),
        ("ftp://ftp.example.org/file.txt", True),
        ("mailto:someone@example.org", True),
        ("doi:10.1000/182", True),
        ("https://bücher.example/", True),
        ("http://exa mple.org", False),
        ("https://", False),
        ("http://nodot", False),
        ("http://example.org:99999/", False),
        ("www.example.org", False),
        ("file:///C:/paper.pdf", False),
        ("mailto:nobody", False),
        ("", False),
        (None, False),
    ],
)
def test_uri_well_formed(uri: str | None, ok: bool) -> None:
    assert uri_well_formed(uri) is ok
