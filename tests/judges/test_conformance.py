"""The PDF/UA-1 syntax layer (judges/conformance.py, extractors/conformance.py): the page validator's rules as
data, the `conformance` table, its failures folded into the criteria a reader meets them in, and the screening
verdict. Twins of our own: typst writes a PDF/UA-1 file the validator passes; pikepdf breaks one rule family.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pikepdf
import pytest
import typst

from corpus.mutations.structure import iter_struct_elements
from judges.base import Issue, PageJudgment
from judges.conformance import (
    CARRIER,
    CONFORMS,
    DOES_NOT_CONFORM,
    NOT_CHECKED,
    checkpoint_view,
    checks,
    conformance_rows,
    evidence_failures,
    verdict,
)
from judges.criteria import SPEC
from judges.evidence import PageBundle, paper_view
from judges.labels import Label
from judges.rules import RulesJudge, apply_catalog
from judges.rules.catalog import catalog
from tests.judges.twins import judge_pdfs_pipeline
from warehouse import catalog as warehouse
from warehouse.tables import ALL_TABLES

SOURCE = """#set document(title: "Case")
#set text(lang: "en", size: 10pt)
#set page(width: 420pt, height: 595pt)
= Introduction
Accessible documents let every reader reach the same content in the same order. A screen reader follows the
structure tree, so the tree has to follow the page. See #link("https://example.org/a")[the example site].
- the first item of the list
- the second item of the list
#figure(table(columns: 2, table.header([Name], [Value]), [alpha], [1], [beta], [2]), caption: [Values])
#figure(rect(width: 120pt, height: 80pt, fill: blue), alt: "A blue rectangle standing for the sample",
  caption: [A blue rectangle standing for the sample])
#math.equation(block: true, alt: "x squared plus y squared equals z squared", $x^2 + y^2 = z^2$)
"""


# Defects only our own document-level rules see: a title H1 alone on page 1, its section H1s on page 2.
TITLE_ON_ITS_OWN_PAGE = """#set document(title: "Case")
#set text(lang: "en", size: 10pt)
#set page(width: 420pt, height: 595pt)
#heading(level: 1)[#text(size: 26pt)[Accessible documents in practice]]
Accessible documents let every reader reach the same content in the same order.
#pagebreak()
= Methods
A screen reader follows the structure tree, so the tree has to follow the page. Each paragraph here is body text.
= Results
Nothing in this text is a heading, a caption or a label; it is running prose written for the test.
"""

# Valid files our own rules used to fail: a subtitle at the headings' size in another face, and a table of
# contents whose leader dots are artifacts.
VALID = {
    "subtitle-face": """#set document(title: "Case")
#set text(lang: "en", size: 10pt)
#set page(width: 420pt, height: 595pt)
#show heading: set text(font: "Libertinus Serif", size: 16pt, weight: "bold")
= Accessible documents
#text(font: "DejaVu Sans Mono", size: 16pt, weight: "bold")[A report on reading order]

Accessible documents let every reader reach the same content in the same order. A screen reader follows the
structure tree, so the tree has to follow the page.
= Methods
Each paragraph here is ordinary body text, long enough to wrap over several lines of the page and more.
""",
    "toc": """#set document(title: "Report")
#set text(lang: "en", size: 11pt)
#outline()
#pagebreak()
= Introduction
Accessible documents let every reader reach the same content in the same order.
== Background
Each paragraph here is ordinary body text, long enough to wrap over several lines of the page and more.
= Methods
Nothing in this text is a heading, a caption or a label; it is running prose written for the test.
= Results
A screen reader follows the structure tree, so the tree has to follow the page.
""",
}


def _first(pdf: pikepdf.Pdf, kind: str) -> pikepdf.Dictionary:
    return next(e for e in iter_struct_elements(pdf) if kind == e.S)


def _kids(node: pikepdf.Dictionary) -> list[Any]:
    k = node.get("/K")
    return list(k) if isinstance(k, pikepdf.Array) else [k] if k is not None else []


def _move_row_out_of_table(pdf: pikepdf.Pdf) -> None:
    """A TR whose parent is the Document, not a Table, THead, TBody or TFoot (09-004)."""
    body = _first(pdf, "/TBody")
    row, *rest = _kids(body)
    body.K = pikepdf.Array(rest)
    document = _first(pdf, "/Document")
    document.K = pikepdf.Array([*_kids(document), row])
    row.P = document


def _lbody_renamed(pdf: pikepdf.Pdf) -> None:
    """A list item holding a P where its LBody belongs (09-005)."""
    _first(pdf, "/LBody").S = pikepdf.Name("/P")


def _note_without_id(pdf: pikepdf.Pdf) -> None:
    """A footnote tagged Note without the /ID PDF/UA-1 7.9 requires (19-003)."""
    _first(pdf, "/P").S = pikepdf.Name("/Note")


def _formula_alt_removed(pdf: pikepdf.Pdf) -> None:
    """A Formula without alternative text (PDF/UA-1 7.7, 17-002)."""
    del _first(pdf, "/Formula")["/Alt"]


def _figure_alt_removed(pdf: pikepdf.Pdf) -> None:
    """The document's one Figure without /Alt or /ActualText (PDF/UA-1 7.3, 13-004)."""
    del _first(pdf, "/Figure")["/Alt"]


def _square_bullets_declared(pdf: pikepdf.Pdf) -> None:
    """A list of round bullets (•) that declares ListNumbering Square (PDF/UA-1 7.6): no validator checks it."""
    for attributes in _first(pdf, "/L").A if isinstance(_first(pdf, "/L").A, pikepdf.Array) else [_first(pdf, "/L").A]:
        if "/ListNumbering" in attributes:
            attributes.ListNumbering = pikepdf.Name("/Square")


def _lang_on_the_root_element(pdf: pikepdf.Pdf) -> None:
    """No catalog /Lang, but the language set on the structure root every element inherits it from (7.2 allows it)."""
    del pdf.Root["/Lang"]
    _first(pdf, "/Document").Lang = pikepdf.String("en")


def _lang_removed(pdf: pikepdf.Pdf) -> None:
    del pdf.Root["/Lang"]


def _identifier_removed(pdf: pikepdf.Pdf) -> None:
    """No PDF/UA identifier in the XMP (PDF/UA-1 5): syntax only, no reader meets it."""
    with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
        del meta["pdfuaid:part"]


Edit = Callable[[pikepdf.Pdf], None]
# name → (edit, criterion, the catalog ids any one of which must fail it)
FAMILIES: dict[str, tuple[Edit, str, set[str]]] = {
    "table-row": (_move_row_out_of_table, "table_structure", {"table_structure.tagging.ua1_tr_parent"}),
    "list-kids": (_lbody_renamed, "semantic_tagging", {"semantic_tagging.list_structure.ua1_li_kids"}),
    "note-id": (_note_without_id, "semantic_tagging", {"semantic_tagging.proper_tag_usage.ua1_note_id"}),
    "formula-alt": (_formula_alt_removed, "alt_text_quality",
                    {"alt_text_quality.descriptiveness.ua1_formula_alternative_text"}),
    "figure-alt": (_figure_alt_removed, "alt_text_quality", {"alt_text_quality.descriptiveness.figure_without_alt"}),
    "list-style": (_square_bullets_declared, "semantic_tagging",
                   {"semantic_tagging.list_structure.numbering_style_mismatch"}),
    "no-lang": (_lang_removed, "semantic_tagging", {"semantic_tagging.structural_hierarchy.ua1_text_language",
                                                    "semantic_tagging.structural_hierarchy.lang_missing"}),
}
CRITERIA = ("alt_text_quality", "semantic_tagging", "table_structure", "functional_hyperlinks", "fonts_readability",
            "logical_reading_order")


def _ids(result: dict[str, Any]) -> set[str]:
    return {str(i.get("rule_id")) for i in result["issues"]}


@pytest.fixture(scope="module")
def screened(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[tuple[str, str], dict[str, Any]], Path]:
    root = tmp_path_factory.mktemp("conformance-twins")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    (root / "main.typ").write_text(SOURCE, encoding="utf-8")
    base = pdfs / "valid.pdf"
    base.write_bytes(typst.compile(str(root / "main.typ"), format="pdf", pdf_standards="ua-1"))
    for name, source in VALID.items():
        (root / f"{name}.typ").write_text(source, encoding="utf-8")
        (pdfs / f"valid-{name}.pdf").write_bytes(typst.compile(str(root / f"{name}.typ"), format="pdf",
                                                               pdf_standards="ua-1"))
    (root / "title.typ").write_text(TITLE_ON_ITS_OWN_PAGE, encoding="utf-8")
    (pdfs / "title-h1.pdf").write_bytes(typst.compile(str(root / "title.typ"), format="pdf", pdf_standards="ua-1"))
    extra: dict[str, Edit] = {"lang-per-element": _lang_on_the_root_element, "no-identifier": _identifier_removed}
    for name, edit in {**{n: f[0] for n, f in FAMILIES.items()}, **extra}.items():
        with pikepdf.open(base) as pdf:
            edit(pdf)
            pdf.save(pdfs / f"{name}.pdf")
    return judge_pdfs_pipeline(pdfs, root / "home", CRITERIA), root / "home"


def _screening(home: Path) -> dict[str, dict[str, Any]]:
    _, rows = warehouse.query(home, ALL_TABLES, "select file, verdict, reason, conformance, conformance_failed "
                                          "from screening where run_id = 'twins'")
    return {Path(r[0]).name: {"verdict": r[1], "reason": r[2], "conformance": r[3], "failed": list(r[4] or [])}
            for r in rows}


@pytest.mark.slow
@pytest.mark.parametrize("file", ["valid.pdf", *(f"valid-{name}.pdf" for name in VALID)])
def test_valid_files_conform_and_pass_every_criterion(screened: Any, file: str) -> None:
    labels, home = screened
    for criterion in CRITERIA:
        result = labels[(file, criterion)]
        assert result["label"] in ("passed", "not_present"), (criterion, result["issues"])
    row = _screening(home)[file]
    assert (row["verdict"], row["conformance"]) == ("passes", CONFORMS), row


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_rule_family_fails_its_criterion_for_the_right_rule(screened: Any, family: str) -> None:
    labels, home = screened
    _, criterion, rules = FAMILIES[family]
    result = labels[(f"{family}.pdf", criterion)]
    assert result["label"] == "failed", result["issues"]
    assert _ids(result) & rules, result["issues"]
    assert _screening(home)[f"{family}.pdf"]["verdict"] == "fails"


@pytest.mark.slow
def test_a_title_h1_on_its_own_page_outranking_the_section_h1s_fails(screened: Any) -> None:
    labels, _ = screened
    result = labels[("title-h1.pdf", "semantic_tagging")]
    assert result["label"] == "failed", result["issues"]
    assert "semantic_tagging.heading_nesting.title_and_section_h1" in _ids(result), result["issues"]


@pytest.mark.slow
def test_language_set_on_the_structure_counts(screened: Any) -> None:
    labels, home = screened
    result = labels[("lang-per-element.pdf", "semantic_tagging")]
    assert result["label"] == "passed", result["issues"]
    assert not any("lang" in i for i in _ids(result)), result["issues"]
    # Text inherits the language from the structure; bookmarks and link /Contents, outside the structure tree,
    # still need the catalog's: the validator says so, and those are syntax-only rules (no criterion fails).
    failed = {rule.split()[0] for rule in _screening(home)["lang-per-element.pdf"]["failed"]}
    assert "PDFUA1-TEXT-LANGUAGE-001" not in failed
    assert failed <= {"PDFUA1-OUTLINE-LANGUAGE-001", "PDFUA1-ANNOTATION-CONTENTS-LANGUAGE-001"}, failed


@pytest.mark.slow
def test_a_syntax_only_failure_fails_conformance_not_a_criterion(screened: Any) -> None:
    labels, home = screened
    for criterion in CRITERIA:
        assert not any(".ua1_" in i for i in _ids(labels[("no-identifier.pdf", criterion)])), criterion
    row = _screening(home)["no-identifier.pdf"]
    assert row["conformance"] == DOES_NOT_CONFORM and row["verdict"] == "fails", row
    assert any(rule.startswith("PDFUA1-ID-") for rule in row["failed"]), row
    assert "does not conform to PDF/UA-1" in row["reason"]


@pytest.mark.slow
def test_the_conformance_table_lists_every_declared_rule_per_file(screened: Any) -> None:
    _, home = screened
    _, rows = warehouse.query(home, ALL_TABLES, "select d.metadata, c.rule_id, c.status, c.clause from conformance c "
                                          "join documents d using (run_id, doc_id) where c.run_id = 'twins' "
                                          "and d.criterion = 'table_structure'")
    by_file: dict[str, dict[str, str]] = {}
    for metadata, rule_id, status, _clause in rows:
        by_file.setdefault(str(metadata), {})[rule_id] = status
    assert by_file and all(set(statuses) >= set(checks()) for statuses in by_file.values())
    statuses = next(s for m, s in by_file.items() if "table-row.pdf" in m)
    assert statuses["PDFUA1-TR-PARENT-001"] == "failed"
    assert statuses["PDFUA1-NOTE-ID-001"] == "not_applicable"  # no Note in that file
    assert statuses["PDFUA1-TABLE-KIDS-001"] == "passed"


# ---- the declaration and the judge, without the pipeline ------------------------------------------------------

def test_every_folded_check_is_a_catalog_rule_under_a_criterion_with_a_carrier() -> None:
    rules = catalog()
    folded = [c for c in checks().values() if c.fold]
    assert len(checks()) >= 104 and len(folded) >= 40
    for check in folded:
        rule = rules[check.rule_id]
        assert rule.conformance == check.page and rule.pdfua == check.clause
        assert check.criterion in CARRIER and CARRIER[check.criterion] in SPEC[check.criterion].starred


def test_rows_statuses_and_verdicts() -> None:
    failure = {"rule_id": "PDFUA1-TR-PARENT-001", "message": "a TR is a kid of Document", "object_id": "7 0",
               "page": None}
    rows = conformance_rows("d", 0, [failure], None, {"Table", "TR"})
    status = {r["rule_id"]: r["status"] for r in rows}
    assert status["PDFUA1-TR-PARENT-001"] == "failed" and status["PDFUA1-TABLE-KIDS-001"] == "passed"
    assert status["PDFUA1-NOTE-ID-001"] == "not_applicable"
    assert verdict(rows) == DOES_NOT_CONFORM
    assert verdict(conformance_rows("d", 0, [], None, set())) == CONFORMS
    assert verdict(conformance_rows("d", 0, [], "unreadable by the PDF/UA-1 validator", set())) == NOT_CHECKED
    view = {c["checkpoint"]: c["status"] for c in checkpoint_view(rows)}
    assert view["09-004"] == "failed" and view["19-003"] == "not applicable" and view["09-001"] == "needs a person"


def _bundle(rule_id: str, screening: bool, label_of_rules: Label = Label.PASSED) -> tuple[PageBundle, PageJudgment]:
    rows = conformance_rows("d", 0, [{"rule_id": rule_id, "message": "m", "object_id": None, "page": None}], None,
                            {"*"})
    check = checks()[rule_id]
    failures = evidence_failures(rows, check.criterion, 1, 1)
    bundle = PageBundle(check.criterion, 1, {CARRIER[check.criterion]: {"screening": screening, "tagged": True,
                                                                         "conformance": failures}})
    return bundle, PageJudgment(label_of_rules, {s: "passed" for s in SPEC[check.criterion].sub_names})


@pytest.mark.parametrize(("rule_id", "screening", "label"), [
    ("PDFUA1-TR-PARENT-001", True, Label.FAILED),
    ("PDFUA1-TR-PARENT-001", False, Label.FAILED),  # benchmark severity error: a broken table on any item
    ("PDFUA1-LINK-CONTENTS-001", True, Label.FAILED),
    ("PDFUA1-LINK-CONTENTS-001", False, Label.PASSED),  # a warning on benchmark items: the experts pass it
    ("PDFUA1-FIGURE-ALTERNATIVE-TEXT-001", False, Label.PASSED),  # off on benchmark items
])
def test_severity_depends_on_screening_or_benchmark(rule_id: str, screening: bool, label: Label) -> None:
    from judges.rules import with_conformance

    bundle, judgment = _bundle(rule_id, screening)
    judged = apply_catalog(with_conformance(judgment, bundle, screening), screening=screening)
    assert judged.label is label, judged.issues
    shown = [i.rule_id for i in judged.issues]
    assert (checks()[rule_id].rule_id in shown) == (screening or checks()[rule_id].benchmark != "off")


def test_disable_rule_switches_a_conformance_rule_off_and_paper_mode_hides_them() -> None:
    from judges.rules import RULES

    bundle, _ = _bundle("PDFUA1-TR-PARENT-001", True)
    judge = RulesJudge(("table_structure.tagging.ua1_tr_parent",))
    original = RULES["table_structure"]
    RULES["table_structure"] = lambda b: PageJudgment(Label.PASSED, {s: "passed" for s in
                                                                     SPEC["table_structure"].sub_names})
    try:
        assert judge.judge_page(bundle, 0).label is Label.PASSED
        assert RulesJudge().judge_page(bundle, 0).label is Label.FAILED
    finally:
        RULES["table_structure"] = original
    carried = bundle.evidence[CARRIER["table_structure"]]
    assert "conformance" not in paper_view(CARRIER["table_structure"], carried)
    assert "screening" not in paper_view(CARRIER["table_structure"], carried)


def test_our_own_finding_of_the_same_checkpoint_is_not_repeated() -> None:
    from judges.rules import with_conformance
    from judges.rules.catalog import finding

    bundle, judgment = _bundle("PDFUA1-FIGURE-ALTERNATIVE-TEXT-001", True)
    own: Issue = finding("alt_text_quality.descriptiveness.figure_without_alt", "Page 1")
    judgment.label, judgment.issues = Label.FAILED, [own]
    judged = with_conformance(judgment, bundle, True)
    assert [i.rule_id for i in judged.issues] == [own.rule_id]


def test_a_file_over_the_validators_limits_is_not_checked_not_a_crash(tmp_path: Path) -> None:
    from extractors.conformance import validate

    (tmp_path / "main.typ").write_text(SOURCE, encoding="utf-8")
    pdf = tmp_path / "doc.pdf"
    pdf.write_bytes(typst.compile(str(tmp_path / "main.typ"), format="pdf", pdf_standards="ua-1"))
    failures, error = validate(str(pdf), max_file_mb=0.001, max_stream_mb=256)  # 1 KiB: the file is larger
    assert failures == [] and error is not None and error.startswith("limit:"), error
    failures, error = validate(str(pdf), max_file_mb=512, max_stream_mb=256)
    assert error is None and failures == []
    garbage = tmp_path / "garbage.pdf"
    garbage.write_bytes(b"%PDF-1.7\n this is not a PDF body\n")
    _, error = validate(str(garbage), max_file_mb=512, max_stream_mb=256)
    assert error is not None and "validator" in error
    assert verdict(conformance_rows("d", 0, [], error, set())) == NOT_CHECKED


@pytest.mark.slow
def test_every_finding_is_a_row_of_the_findings_table(screened: Any) -> None:
    _, home = screened
    _, rows = warehouse.query(home, ALL_TABLES, "select f.rule_id, f.severity, d.metadata from findings f join "
                                                "documents d using (run_id, doc_id) where f.run_id = 'twins'")
    table_row = {(rule, severity) for rule, severity, metadata in rows if "table-row.pdf" in str(metadata)}
    assert ("table_structure.tagging.ua1_tr_parent", "error") in table_row, table_row


def test_a_findings_row_weighs_its_rule_as_judged_there() -> None:
    import json

    from tasks.benchmark.judge import findings_rows

    issue = {"sub_criterion": "descriptiveness", "location": "Page 1", "problem": "p", "remediation": "r",
             "rule_id": "alt_text_quality.descriptiveness.too_terse"}
    row = {"run_id": "r", "judge": "rules", "model": None, "repeat": 0, "criterion": "alt_text_quality", "page": 1,
           "issues": json.dumps([issue, {**issue, "rule_id": ""}])}
    screened = findings_rows([{**row, "doc_id": "mine"}], {"mine"})
    benchmark = findings_rows([{**row, "doc_id": "item"}], {"mine"})
    assert [r["severity"] for r in screened] == ["warning", "error"]  # a model's finding (no rule) fails
    assert [r["severity"] for r in benchmark] == ["error", "error"]
    assert screened[1]["rule_id"] is None and screened[0]["problem"] == "p"


def test_a_findings_row_keeps_the_rules_box_and_its_place_and_drops_what_is_not_a_box() -> None:
    import json

    from judges.labels import Label
    from judges.rules.catalog import finding
    from tasks.benchmark.judge import findings_rows

    boxed = finding("alt_text_quality.descriptiveness.missing_alt", "Page 1, figure 1", bbox=(10.04, 20, 110.96, 80))
    assert boxed.bbox == [10.0, 20.0, 111.0, 80.0]
    assert finding("alt_text_quality.descriptiveness.missing_alt", "Page 1", bbox=[1, 2, 3]).bbox is None
    stored = json.loads(PageJudgment(Label.FAILED, issues=[boxed]).issues_json())
    stored.append({"sub_criterion": "x", "location": "Page 1", "problem": "p", "remediation": "r", "bbox": "top left"})
    row = {"run_id": "r", "judge": "rules", "model": None, "repeat": 0, "doc_id": "d", "criterion": "alt_text_quality",
           "page": 1, "issues": json.dumps(stored)}
    first, second = findings_rows([row], {"d"})
    assert (first["seq"], first["bbox"], first["rule_id"]) == (0, [10.0, 20.0, 111.0, 80.0], boxed.rule_id)
    assert (second["seq"], second["bbox"]) == (1, None)


def test_a_validation_run_earlier_gives_the_same_rows_as_one_run_then(tmp_path: Path) -> None:
    """The extract stage validates a file before its extractors fill the page caches and hands the result on."""
    from extractors.conformance import extract_conformance, validate

    (tmp_path / "main.typ").write_text(SOURCE, encoding="utf-8")
    pdf = tmp_path / "doc.pdf"
    pdf.write_bytes(typst.compile(str(tmp_path / "main.typ"), format="pdf", pdf_standards="ua-1"))
    with pikepdf.open(pdf) as qpdf:  # a failing variant: its structure tree is gone
        del qpdf.Root["/StructTreeRoot"]
        qpdf.save(tmp_path / "untagged.pdf")
    for path in (pdf, tmp_path / "untagged.pdf"):
        earlier = validate(str(path), max_file_mb=512, max_stream_mb=256)
        with pikepdf.open(path) as qpdf:
            now = extract_conformance(str(path), qpdf, max_file_mb=512, max_stream_mb=256, page_offset=3)
            handed = extract_conformance(str(path), qpdf, max_file_mb=512, max_stream_mb=256, page_offset=3,
                                         validated=earlier)
        assert handed == now
    assert now[0], "the untagged variant fails some rule"
