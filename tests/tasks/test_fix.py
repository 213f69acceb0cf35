"""`accessbench fix`: each remedy on the defective twin of a conforming typst file (the one defect put in by
pikepdf). The twins go through the whole pipeline with the rules judge, get repaired, and the repaired
copies are re-judged as a new run linked to the original: each twin's finding must be gone, the original
untouched, and the repaired file must open in PyMuPDF and pikepdf with the same pages, text and rendering
(a pixel comparison at low dpi) and a tag tree the structure extractor reads.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import pikepdf
import pymupdf
import pytest

from extractors.structure import extract_struct_elements
from judges.rules.catalog import catalog
from tasks.fix import FixError, check_output, fix_files, linked_run, remaining, rule_counts
from tasks.remedies import REMEDIES, Context, obvious_role, reason_for, th_scope
from tests.extractors.conftest import compile_typst, struct_elements_of
from tests.judges.twins import PREAMBLE, prose, remove_sources

ARTICLE = (PREAMBLE + "= Introduction\n" + prose(3) + "\n\n== Background of the work\n" + prose(3, 1) + "\n\n"
           + "= Methods\n" + prose(3, 2) + "\n\n= Results\n" + prose(2, 3) + "\n")
LISTS = (PREAMBLE + "= Lists\n" + prose(2) + "\n\n- a first point to make\n- a second point to make\n"
         "- a third point to make\n\n" + prose(1, 1) + "\n")
TABLE = (PREAMBLE + "= Data\n" + prose(2) + "\n\n#table(columns: 3, table.header([Name], [Spring], [Autumn]),"
         " [Alice], [12], [14], [Bruno], [9], [11], [Chen], [15], [13])\n\n" + prose(2, 1) + "\n")
LINKS = (PREAMBLE + "= Links\n" + prose(3) + " See #link(\"https://example.org/report\")[the full report] and "
         "#link(\"https://example.org/data\")[the data set] for the figures.\n\n" + prose(2, 1) + "\n")


def _of(pdf: pikepdf.Pdf, kind: str) -> list[pikepdf.Dictionary]:
    return [e for e in struct_elements_of(pdf) if e.get("/S") == kind]


def _no_scope(pdf: pikepdf.Pdf) -> None:
    """Header cells lose Scope and data cells the Headers that typst writes instead."""
    for cell in _of(pdf, "/TH") + _of(pdf, "/TD"):
        for key in ("/A", "/ID"):
            if key in cell:
                del cell[key]


def _no_tabs(pdf: pikepdf.Pdf) -> None:
    for page in pdf.pages:
        if "/Annots" in page.obj and "/Tabs" in page.obj:
            del page.obj["/Tabs"]


def _no_contents(pdf: pikepdf.Pdf) -> None:
    for page in pdf.pages:
        for annot in page.obj.get("/Annots") or []:
            if annot.get("/Subtype") == "/Link" and "/Contents" in annot:
                del annot["/Contents"]


def _numbered_bullets(pdf: pikepdf.Pdf) -> None:
    bullets = _of(pdf, "/L")[0]
    for attr in bullets.A if isinstance(bullets.A, pikepdf.Array) else [bullets.A]:
        if "/ListNumbering" in attr:
            attr.ListNumbering = pikepdf.Name.Decimal


def _no_lang(pdf: pikepdf.Pdf) -> None:
    del pdf.Root["/Lang"]


def _display_title_false(pdf: pikepdf.Pdf) -> None:
    pdf.Root.ViewerPreferences.DisplayDocTitle = False


def _no_xmp_title(pdf: pikepdf.Pdf) -> None:
    with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
        del meta["dc:title"]


def _first_h3(pdf: pikepdf.Pdf) -> None:
    _of(pdf, "/H1")[0].S = pikepdf.Name.H3


def _skip_to_h4(pdf: pikepdf.Pdf) -> None:
    _of(pdf, "/H2")[0].S = pikepdf.Name.H4


def _private_para(pdf: pikepdf.Pdf) -> None:
    for p in _of(pdf, "/P"):
        p.S = pikepdf.Name("/Para")


# name → (typst source, edit, the rule the defect raises)
CASES: dict[str, tuple[str, Any, str]] = {
    "th_scope": (TABLE, _no_scope, "table_structure.header_semantics.th_without_scope"),
    "tabs": (LINKS, _no_tabs, "logical_reading_order.inline_elements.tabs_missing"),
    "link_contents": (LINKS, _no_contents, "functional_hyperlinks.descriptiveness.contents_missing_advisory"),
    "list_numbering": (LISTS, _numbered_bullets, "semantic_tagging.list_structure.numbering_mismatch"),
    "lang": (ARTICLE, _no_lang, "semantic_tagging.structural_hierarchy.lang_missing_advisory"),
    "display_title": (ARTICLE, _display_title_false,
                      "semantic_tagging.structural_hierarchy.display_doc_title_off_advisory"),
    "xmp_title": (ARTICLE, _no_xmp_title, "semantic_tagging.structural_hierarchy.title_missing_advisory"),
    "first_not_h1": (ARTICLE, _first_h3, "semantic_tagging.heading_nesting.first_not_h1"),
    "level_skip": (ARTICLE, _skip_to_h4, "semantic_tagging.heading_nesting.level_skip"),
    "role_map": (ARTICLE, _private_para, "semantic_tagging.proper_tag_usage.nonstandard_type"),
}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("fix")
    originals = root / "originals"
    originals.mkdir()
    for name, (source, edit, _) in CASES.items():
        clean = compile_typst(source, originals / f"{name}-clean.pdf")
        with pikepdf.open(clean) as pdf:
            edit(pdf)
            pdf.save(originals / f"{name}.pdf")
        clean.unlink()
    remove_sources(originals)
    pairs = [(originals / f"{name}.pdf", root / "out" / f"{name}.pdf") for name in CASES]
    hashes = {p: _sha(p) for p, _ in pairs}
    original_run, rejudge, results = fix_files(root / "home", pairs, lang="en")
    return {"root": root, "pairs": pairs, "hashes": hashes, "original_run": original_run, "rejudge": rejudge,
            "results": {r.original.stem: r for r in results}}



@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_the_remedy_turns_the_finding_into_a_pass(name: str, fixed: dict[str, Any]) -> None:
    rule_id = CASES[name][2]
    result = fixed["results"][name]
    assert rule_id in {f.rule_id for f in result.findings}, f"the defective twin should raise {rule_id}"
    assert catalog()[rule_id].remedy in result.outcomes, result.outcomes
    _, outcome = result.outcomes[catalog()[rule_id].remedy]
    assert outcome.changes, outcome
    assert rule_id not in {f.rule_id for f in result.after}, [f for f in result.after if f.rule_id == rule_id]
    criterion = rule_id.split(".")[0]
    if catalog()[rule_id].severity == "error":
        assert result.labels[criterion] == "failed" and result.labels_after[criterion] == "passed", (
            result.labels, result.labels_after)


@pytest.mark.slow
def test_originals_untouched_and_outputs_only_under_out(fixed: dict[str, Any]) -> None:
    for original, out in fixed["pairs"]:
        assert _sha(original) == fixed["hashes"][original]
        assert out.exists()
    assert sorted(p.name for p in (fixed["root"] / "out").iterdir()) == sorted(f"{n}.pdf" for n in CASES)
    assert sorted(p.name for p in (fixed["root"] / "originals").iterdir()) == sorted(f"{n}.pdf" for n in CASES)


@pytest.mark.slow
def test_the_rejudge_run_is_linked_to_the_original(fixed: dict[str, Any]) -> None:
    assert linked_run(fixed["root"] / "home", fixed["rejudge"]) == fixed["original_run"]
    assert linked_run(fixed["root"] / "home", fixed["original_run"]) is None
    counts = rule_counts(list(fixed["results"].values()))
    for _, _, rule_id in CASES.values():
        assert counts[rule_id][0] >= 1 and counts[rule_id][1] == 0, (rule_id, counts[rule_id])
    for left in remaining(list(fixed["results"].values())):
        assert left.reason and left.rule_id in catalog()


def _renders(path: Path) -> list[np.ndarray]:
    with pymupdf.open(path) as doc:
        return [np.frombuffer(page.get_pixmap(dpi=36).samples, dtype=np.uint8).astype(np.int16) for page in doc]


def _text(path: Path) -> list[str]:
    with pymupdf.open(path) as doc:
        return [page.get_text() for page in doc]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_the_fixed_file_is_safe(name: str, fixed: dict[str, Any]) -> None:
    original, out = next((o, f) for o, f in fixed["pairs"] if o.stem == name)
    with pikepdf.open(out) as pdf, pikepdf.open(original) as before:
        assert len(pdf.pages) == len(before.pages)
    assert _text(out) == _text(original)
    for a, b in zip(_renders(original), _renders(out), strict=True):
        assert a.shape == b.shape
        assert np.abs(a - b).max() <= 8, f"page rendering changed on {name}"
    records = extract_struct_elements(out, doc_id=name)  # raises on an unreadable tag tree
    assert len(records) == len(extract_struct_elements(original, doc_id=name))


# ----------------------------------------------------------------- fast: the declarations and single remedies


def test_every_declared_remedy_exists_and_every_remedy_answers_a_rule() -> None:
    declared = {r.remedy for r in catalog().values() if r.remedy}
    assert declared - set(REMEDIES) == set(), "a catalog rule names a remedy tasks/remedies.py does not register"
    assert set(REMEDIES) - declared == set(), "a registered remedy answers no catalog rule"


def test_remaining_findings_get_a_reason() -> None:
    assert reason_for("alt_text_quality.descriptiveness.missing_alt") == "needs a model"
    assert reason_for("semantic_tagging.proper_tag_usage.paragraph_as_heading") == "needs meaning"
    assert reason_for("fonts_readability.embedding.not_embedded") == "not mechanically fixable"


def test_obvious_roles() -> None:
    assert obvious_role("Heading1") == "H1"
    assert obvious_role("heading_3") == "H3"
    assert obvious_role("Para") == "P"
    assert obvious_role("Picture") == "Figure"
    assert obvious_role("Sidebar42") is None


def test_the_original_is_never_the_output(tmp_path: Path) -> None:
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"%PDF-1.7\n")
    with pytest.raises(FixError, match="never overwritten"):
        check_output(pdf, tmp_path / "." / "a.pdf")


def test_th_scope_follows_the_geometry(tmp_path: Path) -> None:
    """A header row gets Scope Column; the header cell leading a row of data cells gets Scope Row."""
    source = compile_typst(TABLE, tmp_path / "table.pdf")
    with pikepdf.open(source) as pdf:
        _no_scope(pdf)
        for row in _of(pdf, "/TR")[1:]:
            first = next(k for k in row.K if isinstance(k, pikepdf.Dictionary))
            first.S = pikepdf.Name.TH
        pdf.save(tmp_path / "defective.pdf")
    with pikepdf.open(tmp_path / "defective.pdf") as pdf:
        outcome = th_scope(Context(pdf=pdf, source=tmp_path / "defective.pdf"))
        scopes = [(str(c.A.Scope), int(i > 0)) for i, row in enumerate(_of(pdf, "/TR"))
                  for c in row.K if isinstance(c, pikepdf.Dictionary) and c.get("/S") == "/TH"]
    assert outcome.changes
    assert {s for s, body in scopes if not body} == {"/Column"}
    assert {s for s, body in scopes if body} == {"/Row"}
