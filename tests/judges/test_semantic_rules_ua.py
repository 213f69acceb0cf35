"""Our own PDF/UA-1 rules where no validator can see, and valid files they must not fail.

- prose inside /Artifact marked content (7.1, Matterhorn 01-002): the evidence names the artifacted text; running
  headers, footers, page numbers and leader dots stay artifacts without a finding;
- a paragraph of prose tagged H2 (7.4): a heading tag on body text;
- a visual heading tagged P is a heading only where it sits like one (its own block, the text it heads just
  below it): a big "FAIL" stamp over a table, or a bold word inside a sentence, is not.

Valid twins are typst PDF/UA-1 files and hand-made ones (tests/judges/handmade.py: a Type3 font, tags written
by hand, artifact leader dots, a form field with /TU, a Span in another language): each must conform to the
validator and pass every criterion when screened.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pikepdf
import pytest
import typst

from corpus.mutations.structure import elements_of
from extractors.reading_order import extract_reading_order
from judges.conformance import CONFORMS
from tests.judges.handmade import language_on_span, text_field, write_handmade
from tests.judges.twins import judge_pdfs_pipeline, prose
from warehouse import catalog as warehouse
from warehouse.tables import ALL_TABLES

PREAMBLE = ('#set document(title: "Case")\n#set text(lang: "en", size: 10pt)\n'
            "#set page(width: 420pt, height: 595pt)\n")
BASE = PREAMBLE + f"= Introduction\n{prose(2)}\n\n{prose(4, 1)}\n\n= Methods\n{prose(2, 2)}\n"
TYPST_VALID = {
    "base": BASE,
    # A big red stamp laid over the top of the page, a table below: no heading tags, and no heading either.
    "stamp": PREAMBLE + '#place(top + right, dx: -10pt, text(size: 36pt, weight: "bold", fill: red)[FAIL])\n'
    "#v(8pt)\nThe values below are measured once per sample, in the same units, on the same day.\n"
    "#table(columns: 2, table.header([Name], [Value]), [alpha], [1], [beta], [2])\n",
    "bold-word": PREAMBLE + "Some *strong* and _emphasised_ words in one sentence of the page.\n",
    "running-header": PREAMBLE + "#set page(header: [Accessible documents, a report], "
    "footer: context [Page #counter(page).display()])\n"
    f"= Introduction\n{prose(3)}\n#pagebreak()\n{prose(3, 1)}\n",
}
HANDMADE_VALID: dict[str, tuple[list[Any], Callable[..., None] | None]] = {
    "type3": ([("H1", 24, 40, 520, "Type three"),
               ("P", 11, 40, 490, "this paragraph is set in a Type3 font with a ToUnicode map."),
               ("P", 11, 40, 470, "it has two short paragraphs of plain text.")], None),
    "leaders": ([("H1", 20, 40, 540, "Contents"), ("P", 11, 40, 510, "Introduction"),
                 (None, 11, 120, 510, ". . . . . . . . . . . ."), ("P", 11, 300, 510, "1"),
                 ("P", 11, 40, 490, "Methods"), (None, 11, 120, 490, ". . . . . . . . . . . ."),
                 ("P", 11, 300, 490, "2"), (None, 9, 200, 30, "3")], None),
    "one-word": ([("P", 12, 40, 520, "Hello")], None),
    "form": ([("H1", 20, 40, 520, "A form"), ("P", 11, 40, 490, "please write your name in the field below.")],
             text_field),
    "span-language": ([("P", 12, 40, 520, "Hello there, this is English text."),
                       ("Span", 12, 40, 500, "Bonjour tout le monde.")], language_on_span),
}


def _mcids(element: pikepdf.Dictionary) -> set[int]:
    kids = element.get("/K")
    out: set[int] = set()
    for kid in kids if isinstance(kids, pikepdf.Array) else [kids]:
        if isinstance(kid, int):
            out.add(int(kid))
        elif isinstance(kid, pikepdf.Dictionary) and "/S" in kid:
            out |= _mcids(kid)
        elif isinstance(kid, pikepdf.Dictionary) and "/MCID" in kid:
            out.add(int(kid.MCID))
    return out


def _prose_as_artifact(pdf: pikepdf.Pdf) -> None:
    """The second paragraph (four sentences) drawn inside /Artifact instead of its marked content, and gone from
    the structure tree: a screen reader never reads it."""
    target = elements_of(pdf, "/P")[1]
    ids = _mcids(target)
    for page in pdf.pages:
        ops: list[Any] = []
        for instruction in pikepdf.parse_content_stream(page):
            operands = list(getattr(instruction, "operands", []))
            if str(instruction.operator) == "BDC" and isinstance(operands[1], pikepdf.Dictionary) and \
                    int(operands[1].get("/MCID", -1)) in ids:
                ops.append(pikepdf.ContentStreamInstruction([pikepdf.Name("/Artifact")], pikepdf.Operator("BMC")))
            else:
                ops.append(instruction)
        page.Contents = pdf.make_stream(pikepdf.unparse_content_stream(ops))
    parent = target.P
    parent.K = pikepdf.Array([k for k in parent.K if not (isinstance(k, pikepdf.Dictionary)
                                                        and k.objgen == target.objgen)])


def _paragraph_as_h2(pdf: pikepdf.Pdf) -> None:
    elements_of(pdf, "/P")[1].S = pikepdf.Name("/H2")


# name → (edit of the base file, or the typst source of a file that has the defect; the rule it must fail for)
FAMILIES: dict[str, tuple[Callable[[pikepdf.Pdf], None] | str, str]] = {
    "prose-artifact": (_prose_as_artifact, "semantic_tagging.artifacts.prose_artifact"),
    "paragraph-h2": (_paragraph_as_h2, "semantic_tagging.proper_tag_usage.paragraph_as_heading"),
    "untagged-heading": (PREAMBLE + f'#text(size: 18pt, weight: "bold")[Introduction]\n\n{prose(3)}\n',
                         "semantic_tagging.structural_hierarchy.untagged_headings"),
}
CRITERIA = ("alt_text_quality", "semantic_tagging", "table_structure", "functional_hyperlinks", "fonts_readability",
            "logical_reading_order", "color_contrast")


def _typst(root: Path, name: str, source: str, out: Path) -> Path:
    (root / f"{name}.typ").write_text(source, encoding="utf-8")
    out.write_bytes(typst.compile(str(root / f"{name}.typ"), format="pdf", pdf_standards="ua-1"))
    return out


@pytest.fixture(scope="module")
def screened(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[tuple[str, str], dict[str, Any]], Path, Path]:
    root = tmp_path_factory.mktemp("semantic-ua")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    for name, source in TYPST_VALID.items():
        _typst(root, name, source, pdfs / f"valid-{name}.pdf")
    for name, (blocks, extra) in HANDMADE_VALID.items():
        write_handmade(pdfs / f"valid-hand-{name}.pdf", f"Hand made {name}", blocks, extra)
    for name, (edit, _) in FAMILIES.items():
        if isinstance(edit, str):
            _typst(root, name, edit, pdfs / f"{name}.pdf")
            continue
        with pikepdf.open(pdfs / "valid-base.pdf") as pdf:
            edit(pdf)
            pdf.save(pdfs / f"{name}.pdf")
    return judge_pdfs_pipeline(pdfs, root / "home", CRITERIA), root / "home", pdfs


def _verdicts(home: Path) -> dict[str, tuple[str, str]]:
    _, rows = warehouse.query(home, ALL_TABLES, "select file, verdict, conformance from screening "
                                                "where run_id = 'twins'")
    return {Path(r[0]).name: (r[1], r[2]) for r in rows}


VALID_FILES = [*(f"valid-{n}.pdf" for n in TYPST_VALID), *(f"valid-hand-{n}.pdf" for n in HANDMADE_VALID)]


@pytest.mark.slow
@pytest.mark.parametrize("file", VALID_FILES)
def test_valid_files_conform_and_pass_every_criterion(screened: Any, file: str) -> None:
    labels, home, _ = screened
    for criterion in CRITERIA:
        result = labels[(file, criterion)]
        assert result["label"] in ("passed", "not_present"), (criterion, result["issues"])
    assert _verdicts(home)[file] == ("passes", CONFORMS)


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_defect_fails_semantic_tagging_for_its_rule(screened: Any, family: str) -> None:
    labels, home, _ = screened
    result = labels[(f"{family}.pdf", "semantic_tagging")]
    assert result["label"] == "failed", result["issues"]
    assert FAMILIES[family][1] in {i.get("rule_id") for i in result["issues"]}, result["issues"]
    assert _verdicts(home)[f"{family}.pdf"][0] == "fails"


@pytest.mark.slow
def test_the_prose_finding_names_the_artifacted_text_and_the_validator_does_not_see_it(screened: Any) -> None:
    labels, home, _ = screened
    found = [i for i in labels[("prose-artifact.pdf", "semantic_tagging")]["issues"]
             if i.get("rule_id") == "semantic_tagging.artifacts.prose_artifact"]
    assert found and prose(1, 1)[:30] in found[0]["problem"], found
    assert _verdicts(home)["prose-artifact.pdf"][1] == CONFORMS  # page has no rule for it: only ours sees it


@pytest.mark.slow
def test_reading_order_says_which_untagged_text_is_artifact(screened: Any) -> None:
    _, _, pdfs = screened
    rows = extract_reading_order(pdfs / "valid-running-header.pdf", doc_id="d")
    by_role = {(r["role"], r["artifact"]) for r in rows}
    assert ("header", True) in by_role and ("footer", True) in by_role
    assert all(r["artifact"] is None for r in rows if r["elem_id"] is not None)
    hidden = extract_reading_order(pdfs / "prose-artifact.pdf", doc_id="d")
    assert any(r["artifact"] and r["role"] == "body" and len(r["text"].split()) > 20 for r in hidden)
