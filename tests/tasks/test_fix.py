"""`accessbench fix`: each remedy on the defective twin of a conforming typst file (the one defect put in by
pikepdf). The twins go through the whole pipeline with the rules judge, get repaired (alt text drafted by a
fake model client), and the repaired copies are re-judged as a new run linked to the original: each twin's
finding must be gone, the original untouched, and the repaired file must open in PyMuPDF and pikepdf with
the same pages, text and rendering (a pixel comparison at low dpi) and a tag tree the structure extractor
reads. The `fixes` table answers SQL; page furniture stripped of its artifact marks gets them back.
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
from judges.language import detect_language
from judges.rules.catalog import catalog
from models.client import ModelResponse
from repairs.fix import Finding, FixError, check_output, drafts, fix_files, linked_run, remaining, repair, rule_counts
from repairs.remedies import (
    DRAFT_MARK,
    REMEDIES,
    UNPROMPTED_REMEDIES,
    Context,
    document_lang,
    obvious_role,
    reason_for,
    th_scope,
)
from tests.extractors.conftest import compile_typst, red_png, struct_elements_of
from tests.judges.twins import PREAMBLE, prose, remove_sources
from warehouse import catalog as warehouse
from warehouse.tables import ALL_TABLES

ARTICLE = (PREAMBLE + "= Introduction\n" + prose(3) + "\n\n== Background of the work\n" + prose(3, 1) + "\n\n"
           + "= Methods\n" + prose(3, 2) + "\n\n= Results\n" + prose(2, 3) + "\n")
LISTS = (PREAMBLE + "= Lists\n" + prose(2) + "\n\n- a first point to make\n- a second point to make\n"
         "- a third point to make\n\n" + prose(1, 1) + "\n")
TABLE = (PREAMBLE + "= Data\n" + prose(2) + "\n\n#table(columns: 3, table.header([Name], [Spring], [Autumn]),"
         " [Alice], [12], [14], [Bruno], [9], [11], [Chen], [15], [13])\n\n" + prose(2, 1) + "\n")
# Two figures (missing_alt is raised where the document describes its other figures)
FIGURE = (PREAMBLE + "= Figures\n" + prose(2) + "\n\n#figure(image(\"red.png\", width: 6cm, alt: \"A red "
          "rectangle\"), caption: [Share of tagged files per year])\n\n" + prose(2, 1) + "\n\n#figure(image("
          "\"red.png\", width: 6cm, alt: \"A second red rectangle, the share of untagged files\"), caption: "
          "[Share of untagged files per year])\n\n" + prose(1, 2) + "\n")
# Pages with a running head, page numbers and a decorative rule (typst marks them as artifacts)
FURNITURE = (PREAMBLE + "#set page(numbering: \"1\", header: [Running head of the case])\n= Furniture\n"
             + prose(12) + "\n\n#line(length: 100%)\n\n" + prose(12, 1) + "\n\n" + prose(12, 2) + "\n")
# One H1 at the top, set larger than anything else on page 1: the only kind of heading fix takes a title from
TITLED = (PREAMBLE + "= Tagged tables in practice\n" + prose(3) + "\n\n== Methods of the survey\n" + prose(3, 1)
          + "\n\n== Results of the survey\n" + prose(2, 2) + "\n")
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


def _untitled(pdf: pikepdf.Pdf) -> None:
    """No title anywhere: neither XMP dc:title nor the document information's /Title."""
    with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
        del meta["dc:title"]
    del pdf.docinfo["/Title"]


def _no_alt(pdf: pikepdf.Pdf) -> None:
    """The first figure loses its /Alt; the second keeps one."""
    del _of(pdf, "/Figure")[0]["/Alt"]


def _unmark_artifacts(pdf: pikepdf.Pdf) -> None:
    """Every Artifact marked-content sequence unwrapped: running head, page numbers and rule left untagged."""
    for page in pdf.pages:
        out, open_marks = [], []
        for ins in pikepdf.parse_content_stream(page):
            name = str(ins.operator)
            if name in ("BDC", "BMC"):
                artifact = ins.operands[0] == pikepdf.Name.Artifact
                open_marks.append(artifact)
                if artifact:
                    continue
            elif name == "EMC" and open_marks and open_marks.pop():
                continue
            out.append(ins)
        page.obj.Contents = pdf.make_stream(pikepdf.unparse_content_stream(out))


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
    "title_drawn": (TITLED, _untitled, "semantic_tagging.structural_hierarchy.title_missing_advisory"),
    "alt_drafted": (FIGURE, _no_alt, "alt_text_quality.descriptiveness.missing_alt"),
}
# Twins whose defect no rule reports: the unprompted remedies repair them
UNPROMPTED: dict[str, tuple[str, Any]] = {"furniture": (FURNITURE, _unmark_artifacts)}
FILES = {"alt_drafted": {"red.png": red_png()}}
DRAFTED_ALT = "A red rectangle standing for the share of tagged files"


class FakeModel:
    """A model client (models.client.ModelClient's `complete`) that answers from a script and records
    each prompt; no network, no litellm."""

    model = "fake/model"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.prompts: list[list[dict[str, Any]]] = []

    def complete(self, messages: list[dict[str, Any]], params: dict[str, Any] | None = None, repeat: int = 0,
                 context: dict[str, Any] | None = None) -> ModelResponse:
        self.prompts.append(messages)
        return ModelResponse(text=self.reply, tokens_in=10, tokens_out=5, cost_usd=None, latency_s=0.0, cached=False,
                             params_sent=dict(params or {}))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("fix")
    originals = root / "originals"
    originals.mkdir()
    for name, (source, edit) in {**{n: c[:2] for n, c in CASES.items()}, **UNPROMPTED}.items():
        clean = compile_typst(source, originals / f"{name}-clean.pdf", FILES.get(name))
        with pikepdf.open(clean) as pdf:
            edit(pdf)
            pdf.save(originals / f"{name}.pdf")
        clean.unlink()
    remove_sources(originals)
    pairs = [(originals / f"{name}.pdf", root / "out" / f"{name}.pdf") for name in [*CASES, *UNPROMPTED]]
    hashes = {p: _sha(p) for p, _ in pairs}
    model = FakeModel(DRAFTED_ALT)
    original_run, rejudge, results = fix_files(root / "home", pairs, lang="en", model=model)
    return {"root": root, "pairs": pairs, "hashes": hashes, "original_run": original_run, "rejudge": rejudge,
            "results": {r.original.stem: r for r in results}, "model": model}



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
    names = sorted(f"{n}.pdf" for n in [*CASES, *UNPROMPTED])
    assert sorted(p.name for p in (fixed["root"] / "out").iterdir()) == names
    assert sorted(p.name for p in (fixed["root"] / "originals").iterdir()) == names


@pytest.mark.slow
def test_the_rejudge_run_is_linked_to_the_original(fixed: dict[str, Any]) -> None:
    assert linked_run(fixed["root"] / "home", fixed["rejudge"]) == fixed["original_run"]
    assert linked_run(fixed["root"] / "home", fixed["original_run"]) is None
    # the untitled twin's title is a draft, so /DisplayDocTitle waits for a person there
    counts = rule_counts([r for name, r in fixed["results"].items() if name != "title_drawn"])
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
def test_the_fixes_table_answers_sql(fixed: dict[str, Any]) -> None:
    home = fixed["root"] / "home"
    _, rows = warehouse.query(home, ALL_TABLES, f"select original_run_id, remedy, fixed_file, drafts from fixes "
                                                f"where run_id = '{fixed['rejudge']}'")
    assert {r[0] for r in rows} == {fixed["original_run"]}
    remedies = {r[1] for r in rows}
    assert {catalog()[rule].remedy for _, _, rule in CASES.values()} <= remedies and "artifacts" in remedies
    assert (home / "artifacts" / "fix" / f"run={fixed['rejudge']}" / "fixes.parquet").is_file()
    assert any(d for r in rows for d in (r[3] or []) if DRAFTED_ALT in d)


@pytest.mark.slow
def test_a_title_drawn_from_the_first_heading_is_a_draft(fixed: dict[str, Any]) -> None:
    result = fixed["results"]["title_drawn"]
    with pikepdf.open(result.fixed) as pdf:
        with pdf.open_metadata() as meta:
            assert meta["dc:title"] == "Tagged tables in practice"
        assert str(pdf.docinfo["/Title"]) == "Tagged tables in practice"
    (draft,) = [d for f, name, d in drafts([result]) if name == "xmp_title"]
    assert "Tagged tables in practice" in draft and "first H1 element, the largest text on page 1" in draft


@pytest.mark.slow
def test_alt_text_drafted_by_the_model_is_marked_as_a_draft(fixed: dict[str, Any]) -> None:
    result = fixed["results"]["alt_drafted"]
    with pikepdf.open(result.fixed) as pdf:
        first, second = _of(pdf, "/Figure")
        assert str(first.Alt) == DRAFTED_ALT and str(second.Alt).startswith("A second red rectangle")
        assert "drafted by fake/model" in str(pdf.docinfo[DRAFT_MARK])
    assert any(DRAFTED_ALT in d and "fake/model" in d for _, _, d in drafts([result]))
    prompt = next(m for m in fixed["model"].prompts if "Share of tagged files per year" in m[1]["content"])
    assert prompt[0]["role"] == "system" and "alternative text" in prompt[0]["content"]
    assert result.labels["alt_text_quality"] == "failed" and result.labels_after["alt_text_quality"] == "passed"


def _artifact_text(path: Path) -> list[str]:
    """The text objects (their shown strings) inside Artifact marked content, page by page."""
    out = []
    with pikepdf.open(path) as pdf:
        for page in pdf.pages:
            marks: list[bool] = []
            for ins in pikepdf.parse_content_stream(page):
                name = str(ins.operator)
                if name in ("BDC", "BMC"):
                    marks.append(ins.operands[0] == pikepdf.Name.Artifact)
                elif name == "EMC" and marks:
                    marks.pop()
                elif name in ("Tj", "TJ") and any(marks):
                    out.append(name)
    return out


@pytest.mark.slow
def test_page_furniture_is_marked_as_artifacts_again(fixed: dict[str, Any]) -> None:
    result = fixed["results"]["furniture"]
    original, out = result.original, result.fixed
    assert _artifact_text(original) == [], "the twin should have no artifact left"
    _, outcome = result.outcomes["artifacts"]
    assert outcome.changes, outcome
    with pymupdf.open(original) as doc:
        pages = len(doc)
    assert pages >= 2  # repetition across pages is what tells furniture from content
    # a running head and a page number on every page, and the rule
    assert len(_artifact_text(out)) >= 2 * pages
    assert any("decorative path" in c and not c.endswith(" 0 decorative path(s) marked as artifacts")
               for c in outcome.changes)
    assert [r["type"] for r in extract_struct_elements(out, doc_id="f")] == \
        [r["type"] for r in extract_struct_elements(original, doc_id="f")]


@pytest.mark.slow
@pytest.mark.parametrize("name", [*CASES, *UNPROMPTED])
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
    assert declared - set(REMEDIES) == set(), "a catalog rule names a remedy repairs/remedies.py does not register"
    assert set(REMEDIES) - declared == set(UNPROMPTED_REMEDIES), "a registered remedy answers no catalog rule"
    assert declared & set(UNPROMPTED_REMEDIES) == set()


SAMPLES = {
    "en": "The structure tree of a tagged document tells assistive technology which text is a heading and which "
          "is a paragraph, and in which order the parts of the page are to be read by those who cannot see it on "
          "the screen.",
    "de": "Der Strukturbaum eines getaggten Dokuments sagt der assistiven Technik, welcher Text eine Überschrift "
          "ist und welcher ein Absatz, und in welcher Reihenfolge die Teile der Seite für die gelesen werden, "
          "die sie nicht sehen können, auch wenn sie auf dem Bildschirm nicht zu sehen sind.",
    "fr": "L'arbre de structure d'un document balisé indique aux technologies d'assistance quel texte est un titre "
          "et lequel est un paragraphe, et dans quel ordre les parties de la page sont lues par ceux qui ne la "
          "voient pas, comme le prévoit la norme pour les documents accessibles.",
    "es": "El árbol de estructura de un documento etiquetado indica a la tecnología de asistencia qué texto es un "
          "título y cuál es un párrafo, y en qué orden se leen las partes de la página para quienes no la ven, "
          "como lo pide la norma para los documentos accesibles.",
}


@pytest.mark.parametrize("lang", list(SAMPLES))
def test_the_language_detector_tells_running_text(lang: str) -> None:
    guess = detect_language(SAMPLES[lang])
    assert guess.lang == lang, guess


def test_the_language_detector_declines_short_or_mixed_text() -> None:
    assert detect_language("Table 3. Results").lang is None
    assert detect_language("12 34 56 78 " * 20).lang is None
    mixed = detect_language(SAMPLES["en"] + " " + SAMPLES["de"])
    assert mixed.lang is None and mixed.runner_up in ("en", "de"), mixed


def test_a_language_not_told_stays_a_finding_with_the_reason(tmp_path: Path) -> None:
    source = compile_typst(PREAMBLE + "= Data\nTable 3. Results 12 34\n", tmp_path / "short.pdf")
    with pikepdf.open(source) as pdf:
        del pdf.Root["/Lang"]
        for element in struct_elements_of(pdf):
            if "/Lang" in element:
                del element["/Lang"]
        outcome = document_lang(Context(pdf=pdf, source=source))
        assert "/Lang" not in pdf.Root
    assert outcome.left and outcome.left.startswith("needs meaning") and "--lang" in outcome.left


def test_without_a_model_alt_text_and_link_descriptions_stay_findings(tmp_path: Path) -> None:
    source = compile_typst(FIGURE.replace("[Share of tagged files per year])", "[Share of tagged files per year])"
                                          "\n\n#link(\"https://example.org/x\")[#box(width: 20pt, height: 8pt, "
                                          "fill: blue)]"),
                           tmp_path / "figure.pdf", FILES["alt_drafted"])
    with pikepdf.open(source) as pdf:
        _no_alt(pdf)
        _no_contents(pdf)
        pdf.save(tmp_path / "defective.pdf")
    findings = [Finding("alt_text_quality", "alt_text_quality.descriptiveness.missing_alt", "", ""),
                Finding("functional_hyperlinks", "functional_hyperlinks.descriptiveness.nothing_to_announce", "", "")]
    outcomes = repair(tmp_path / "defective.pdf", tmp_path / "plain.pdf", findings)
    for name in ("alt_text_draft", "link_description_draft"):
        left = outcomes[name][1].left
        assert left and left.startswith("needs a model") and "--model" in left, outcomes[name]
    with pikepdf.open(tmp_path / "plain.pdf") as pdf:
        assert "/Alt" not in _of(pdf, "/Figure")[0] and DRAFT_MARK not in pdf.docinfo
    model = FakeModel("the example.org page about x")
    outcomes = repair(tmp_path / "defective.pdf", tmp_path / "drafted.pdf", findings, model=model)
    (link_draft,) = outcomes["link_description_draft"][1].drafts
    assert "https://example.org/x" in link_draft and "fake/model" in link_draft
    with pikepdf.open(tmp_path / "drafted.pdf") as pdf:
        links = [a for p in pdf.pages for a in p.obj.get("/Annots") or [] if a.get("/Subtype") == "/Link"]
        assert [str(a.Contents) for a in links] == ["the example.org page about x"]
        assert "link description" in str(pdf.docinfo[DRAFT_MARK])
    assert any("https://example.org/x" in m[1]["content"] for m in model.prompts)


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


def test_a_rule_of_a_criterion_not_judged_before_counts_as_not_judged_not_as_damage(tmp_path: Path) -> None:
    from repairs.fix import FileFix

    link = Finding("functional_hyperlinks", "functional_hyperlinks.functionality.dest_missing", "p1", "dead link")
    lang = Finding("semantic_tagging", "semantic_tagging.structural_hierarchy.lang_missing", "doc", "no /Lang")
    result = FileFix(tmp_path / "a.pdf", tmp_path / "b.pdf", findings=[lang],
                     labels={"semantic_tagging": "failed"}, after=[link], labels_after={
                         "semantic_tagging": "passed", "functional_hyperlinks": "failed"})
    counts = rule_counts([result])
    assert counts[lang.rule_id] == (1, 0)  # repaired
    assert counts[link.rule_id] == (None, 1)  # links were not judged before: not "0 → 1"
