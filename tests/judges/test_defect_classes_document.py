"""Document-level checks PAC and veraPDF users expect (issue 31, point 7), as pass/fail twins run through the
whole pipeline with the rules judge:

- the accessibility permission (PDF/UA-1 7.16, Matterhorn 26-002): an owner-password file whose permissions
  switch off "content extraction for accessibility" fails semantic tagging; the same file encrypted with the
  permission on, and the unencrypted file, pass;
- title (XMP dc:title, ViewerPreferences /DisplayDocTitle; PDF/UA-1 7.1), natural language (catalog /Lang;
  PDF/UA-1 7.2) and the PDF/UA identifier (XMP pdfuaid:part; PDF/UA-1 5): errors where the document claims
  PDF/UA, warnings (reported, failing nothing) where it does not; an untagged document is Not Present and is
  not reported for lacking the identifier.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pikepdf
import pymupdf
import pytest
import typst

from extractors.structure import struct_summary
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules import RulesJudge
from tests.judges.twins import PREAMBLE, judge_pdfs, prose

CRITERION = "semantic_tagging"
RULE = "semantic_tagging.structural_hierarchy."
SOURCE = PREAMBLE + "= Introduction\n" + prose(3) + "\n\n= Methods\n" + prose(3, 1) + "\n"


def _compile(folder: Path, name: str, *, ua: bool = False, tags: bool = True) -> Path:
    work = folder.parent / "src"
    work.mkdir(parents=True, exist_ok=True)
    (work / "main.typ").write_text(SOURCE, encoding="utf-8")
    options: dict[str, Any] = {"pdf_standards": ["ua-1"]} if ua else {}
    out = folder / name
    out.write_bytes(typst.compile(str(work / "main.typ"), format="pdf", pdf_tags=tags, **options))
    return out


def _edit(src: Path, dst: Path, change: Any, **save: Any) -> Path:
    with pikepdf.open(src) as pdf:
        change(pdf)
        pdf.save(dst, **save)
    return dst


def _drop_lang(pdf: pikepdf.Pdf) -> None:
    del pdf.Root["/Lang"]


def _drop_xmp_title(pdf: pikepdf.Pdf) -> None:
    with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
        del meta["dc:title"]


def _display_title_false(pdf: pikepdf.Pdf) -> None:
    pdf.Root.ViewerPreferences.DisplayDocTitle = False


def _keep(pdf: pikepdf.Pdf) -> None:
    pass


# R3 (RC4, 128-bit): qpdf writes bit 10 (accessibility) as set whatever it is asked for with AES (R4, R6),
# since PDF 2.0 deprecates it; PDF/UA-1 still requires it, and screen readers still honour it.
LOCKED = {"encryption": pikepdf.Encryption(owner="owner-secret", user="", R=3, aes=False, metadata=False,
                                           allow=pikepdf.Permissions(accessibility=False))}
OPEN_OWNER = {"encryption": pikepdf.Encryption(owner="owner-secret", user="", R=6)}


AES_256: int = pymupdf.PDF_ENCRYPT_AES_256  # type: ignore[attr-defined]  # the type stubs lack the constants
PERM_ACCESSIBILITY: int = pymupdf.PDF_PERM_ACCESSIBILITY  # type: ignore[attr-defined]


def _locked_aes256(src: Path, dst: Path) -> Path:
    """The file encrypted with AES-256 (R6) by MuPDF, every permission but accessibility granted."""
    doc = pymupdf.open(src)
    doc.save(dst, encryption=AES_256, owner_pw="owner-secret", user_pw="", permissions=-1 & ~PERM_ACCESSIBILITY)
    doc.close()
    return dst


def _write(folder: Path) -> None:
    folder.mkdir(parents=True)
    ua = _compile(folder, "ua-pass.pdf", ua=True)
    plain = _compile(folder, "plain-pass.pdf")
    _compile(folder, "untagged-pass.pdf", tags=False)
    _edit(ua, folder / "ua-nolang-fail.pdf", _drop_lang)
    _edit(ua, folder / "ua-notitle-fail.pdf", _drop_xmp_title)
    _edit(ua, folder / "ua-nodisplay-fail.pdf", _display_title_false)
    _edit(plain, folder / "plain-nolang-pass.pdf", _drop_lang)
    _edit(ua, folder / "locked-fail.pdf", _keep, **LOCKED)
    _edit(plain, folder / "locked-plain-fail.pdf", _keep, **LOCKED)
    _edit(ua, folder / "owner-pass.pdf", _keep, **OPEN_OWNER)
    _locked_aes256(ua, folder / "locked-aes-fail.pdf")


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("document-twins")
    _write(root / "pdfs")
    results = judge_pdfs(root / "pdfs", root / "home", [CRITERION])
    return {file: value for (file, criterion), value in results.items() if criterion == CRITERION}


def _ids(result: dict[str, Any]) -> list[str]:
    return [i.get("rule_id") for i in result["issues"] if str(i.get("rule_id", "")).startswith(RULE)]


@pytest.mark.slow
@pytest.mark.parametrize(("file", "label", "rules"), [
    ("ua-pass.pdf", "passed", []),
    ("owner-pass.pdf", "passed", []),  # encrypted with an owner password, accessibility permitted
    ("plain-pass.pdf", "passed", [RULE + "display_doc_title_off_advisory", RULE + "pdfua_identifier_missing"]),
    # Screened, a file whose text has no language anywhere fails PDF/UA-1 7.2 (the validator's TEXT-LANGUAGE
    # rule, folded into the criterion), although our own check only warns without a PDF/UA claim.
    ("plain-nolang-pass.pdf", "failed", [RULE + "lang_missing_advisory", RULE + "display_doc_title_off_advisory",
                                         RULE + "pdfua_identifier_missing", RULE + "ua1_text_language"]),
    ("untagged-pass.pdf", "not_present", []),
    ("ua-nolang-fail.pdf", "failed", [RULE + "lang_missing"]),
    ("ua-notitle-fail.pdf", "failed", [RULE + "title_missing"]),
    ("ua-nodisplay-fail.pdf", "failed", [RULE + "display_doc_title_off"]),
    ("locked-fail.pdf", "failed", [RULE + "accessibility_permission_denied"]),
    ("locked-aes-fail.pdf", "failed", [RULE + "accessibility_permission_denied"]),
    ("locked-plain-fail.pdf", "failed", [RULE + "accessibility_permission_denied",
                                         RULE + "display_doc_title_off_advisory", RULE + "pdfua_identifier_missing"]),
])
def test_document_level_checks_through_the_pipeline(judged: dict[str, dict[str, Any]], file: str, label: str,
                                                    rules: list[str]) -> None:
    result = judged[file]
    assert result["label"] == label, (file, result)
    # Reported once per document (on its first page), not once per page.
    assert sorted(_ids(result)) == sorted(rules), (file, result["issues"])


def test_the_summary_reads_the_accessibility_permission_and_the_xmp_title(tmp_path: Path) -> None:
    ua = _compile(tmp_path, "ua.pdf", ua=True)
    facts = struct_summary(ua)
    assert facts["accessibility_permitted"] is True and facts["xmp_title"] is True
    assert facts["lang"] == "en" and facts["display_doc_title"] is True and facts["pdfua_part"] == 1
    locked = struct_summary(_edit(ua, tmp_path / "locked.pdf", _keep, **LOCKED))
    assert locked["accessibility_permitted"] is False and locked["error"] is None and locked["tagged"]
    assert struct_summary(_locked_aes256(ua, tmp_path / "aes.pdf"))["accessibility_permitted"] is False
    assert struct_summary(_edit(ua, tmp_path / "owner.pdf", _keep, **OPEN_OWNER))["accessibility_permitted"] is True
    untitled = struct_summary(_edit(ua, tmp_path / "untitled.pdf", _drop_xmp_title))
    # The Info dictionary keeps its /Title, but PDF/UA-1 7.1 asks for dc:title in the XMP metadata.
    assert untitled["xmp_title"] is False and untitled["has_title"] is True


def _bundle(page: int, document: dict[str, Any] | None) -> PageBundle:
    tags: dict[str, Any] = {"tagged": True, "element_count": 2, "type_counts": {"H1": 1, "P": 1}, "body_size": 10,
                            "heading_styles": [], "elements": [
                                {"id": 0, "parent": None, "type": "H1", "page": page, "text": "Introduction"},
                                {"id": 1, "parent": None, "type": "P", "page": page, "text": prose(2)}]}
    if document is not None:
        tags["document"] = document
    return PageBundle(CRITERION, page, {"tag_structure": tags})


FACTS = {"lang": "en", "xmp_title": True, "display_doc_title": True, "pdfua_part": 1, "accessibility_permitted": True}


@pytest.mark.parametrize(("change", "label", "rule"), [
    ({}, Label.PASSED, None),
    ({"accessibility_permitted": False}, Label.FAILED, "accessibility_permission_denied"),
    ({"lang": None}, Label.FAILED, "lang_missing"),
    ({"lang": None, "pdfua_part": None}, Label.PASSED, "lang_missing_advisory pdfua_identifier_missing"),
    ({"xmp_title": False}, Label.FAILED, "title_missing"),
    ({"xmp_title": False, "pdfua_part": None}, Label.PASSED, "title_missing_advisory pdfua_identifier_missing"),
    ({"display_doc_title": None}, Label.FAILED, "display_doc_title_off"),
    ({"display_doc_title": False, "pdfua_part": None}, Label.PASSED,
     "display_doc_title_off_advisory pdfua_identifier_missing"),
    ({"pdfua_part": None}, Label.PASSED, "pdfua_identifier_missing"),
    # Facts an older extraction did not record (None) are not reported as missing.
    ({"xmp_title": None, "accessibility_permitted": None}, Label.PASSED, None),
])
def test_document_rules_on_a_bundle(change: dict[str, Any], label: Label, rule: str | None) -> None:
    judgment = RulesJudge().judge_page(_bundle(1, FACTS | change), 0)
    assert judgment.label is label, judgment
    assert [i.rule_id for i in judgment.issues] == [RULE + r for r in (rule or "").split()]
    if rule:
        assert judgment.issues[0].sub_criterion == "structural_hierarchy"


def test_document_facts_reach_only_the_first_page_and_only_the_rules() -> None:
    from judges.evidence import DocEvidence, build_bundles, paper_view

    ev = DocEvidence("d", pages=[{"page": 1}, {"page": 2}],
                     struct_elements=[{"elem_id": 0, "type": "P", "page": 1, "text": "x"},
                                      {"elem_id": 1, "type": "P", "page": 2, "text": "y"}],
                     doc_structure=[{"tagged": True, "lang": None, "xmp_title": True, "display_doc_title": True,
                                     "pdfua_part": None, "accessibility_permitted": False,
                                     "has_title": True, "marked": True}])
    (first, _), (second, _) = build_bundles(CRITERION, ev, withhold=False)
    assert first.evidence["tag_structure"]["document"] == {
        "lang": None, "xmp_title": True, "display_doc_title": True, "pdfua_part": None,
        "accessibility_permitted": False, "lang_declared_for_all_text": None,
        "text_lang": None}  # no text spans: no language told
    assert "document" not in second.evidence["tag_structure"]
    assert "document" not in paper_view("tag_structure", first.evidence["tag_structure"])
    # A page without tagged content of its own still reports the document's defects.
    judgment = RulesJudge().judge_page(PageBundle(CRITERION, 1, {"tag_structure": {
        **first.evidence["tag_structure"], "elements": []}}), 0)
    assert judgment.label is Label.FAILED
    assert RULE + "accessibility_permission_denied" in [i.rule_id for i in judgment.issues]
