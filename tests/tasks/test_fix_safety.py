"""`accessbench fix` never makes a document worse: every text it writes has evidence in the file (whole words
of the link's own text or its URL, a title that is the tagged and visually largest heading), it keeps what
the file protects (signatures, encryption and permissions, metadata), it checks the copy after writing and
rolls back a remedy that changed what a reader gets, it honours the run's limits, and it never writes over
an input, an existing file or through a symlink. Every file here is generated (typst, then pikepdf).
"""

from __future__ import annotations

import errno
import hashlib
import zlib
from pathlib import Path

import numpy as np
import pikepdf
import pymupdf
import pytest
from pikepdf import Array, Dictionary, Name

from judges.evidence import text_language
from judges.rules.document import document_checks
from repairs.fix import FileFix, Finding, FixError, RepairJob, check_output, repair, repair_bounded, unique_outputs
from repairs.guards import FixLimits, Refused, active_content, inspect_source, verify_copy
from repairs.remedies import REMEDIES, Context, xmp_title
from tasks.engine.isolation import WorkerPool
from tests.extractors.conftest import compile_typst
from tests.judges.twins import PREAMBLE, prose

LINKS = (PREAMBLE + "= Links\n" + prose(2) + " See #link(\"https://example.org/annual/report\")[the annual report] "
         "and the #link(<methods>)[methods section] below.\n\n== Methods <methods>\n" + prose(2, 1) + "\n")
CONTENTS = "functional_hyperlinks.descriptiveness.contents_missing_advisory"
TITLE = "semantic_tagging.structural_hierarchy.title_missing_advisory"
DISPLAY = "semantic_tagging.structural_hierarchy.display_doc_title_off_advisory"
LANG = "semantic_tagging.structural_hierarchy.lang_missing_advisory"
TABS = "logical_reading_order.inline_elements.tabs_missing"


def _finding(rule_id: str) -> Finding:
    return Finding(rule_id.split(".")[0], rule_id, "page 1", "")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _links(pdf: pikepdf.Pdf) -> list[pikepdf.Object]:
    return [a for page in pdf.pages for a in page.obj.get("/Annots") or [] if a.get("/Subtype") == Name.Link]


def _narrow(pdf: pikepdf.Pdf, keep: tuple[float, float]) -> None:
    """Every link loses its /Contents and keeps only the share `keep` (from, to) of its rectangle's width: the
    rectangle then cuts through words, as a badly made link does."""
    for annot in _links(pdf):
        x0, y0, x1, y1 = (float(v) for v in annot.Rect)
        width = x1 - x0
        annot.Rect = Array([x0 + keep[0] * width, y0, x0 + keep[1] * width, y1])
        del annot["/Contents"]


def _untag(pdf: pikepdf.Pdf) -> None:
    del pdf.Root["/StructTreeRoot"]


def _variant(tmp_path: Path, name: str, *edits: object) -> Path:
    source = compile_typst(LINKS, tmp_path / f"{name}-clean.pdf")
    with pikepdf.open(source) as pdf:
        for edit in edits:
            edit(pdf)  # type: ignore[operator]
        pdf.save(tmp_path / f"{name}.pdf")
    return tmp_path / f"{name}.pdf"


def _page_words(path: Path) -> set[str]:
    with pymupdf.open(path) as doc:
        return {w[4] for page in doc for w in page.get_text("words")}


# ----------------------------------------------------------------- link descriptions: whole words, or the URL

def test_a_tagged_link_gets_its_link_elements_text_however_its_rectangle_cuts(tmp_path: Path) -> None:
    original = _variant(tmp_path, "tagged", lambda pdf: _narrow(pdf, (0.3, 0.7)))
    outcomes = repair(original, tmp_path / "out.pdf", [_finding(CONTENTS)])
    with pikepdf.open(tmp_path / "out.pdf") as pdf:
        assert [str(a.Contents) for a in _links(pdf)] == ["the annual report", "methods section"]
    assert all("from its Link element" in c for c in outcomes["link_contents"][1].changes)


def test_an_untagged_link_gets_only_the_whole_words_inside_it(tmp_path: Path) -> None:
    original = _variant(tmp_path, "untagged", _untag, lambda pdf: _narrow(pdf, (0.25, 1.0)))
    with pymupdf.open(original) as doc, pikepdf.open(original) as pdf:  # what the old remedy copied: a clip
        cut = [doc[0].get_textbox(pymupdf.Rect(*(float(v) for v in a["/Rect"])) * doc[0].transformation_matrix)
               for a in _links(pdf)]
    assert any(c.strip() and c.split()[0] not in ("the", "annual", "report", "methods", "section") for c in cut), cut
    repair(original, tmp_path / "out.pdf", [_finding(CONTENTS)])
    words = _page_words(original)
    with pikepdf.open(tmp_path / "out.pdf") as pdf:
        contents = [str(a.Contents) for a in _links(pdf)]
    assert contents == ["report", "section"], contents  # "annual" and "methods" are cut: left out whole
    assert all(word in words for text in contents for word in text.split())


def test_a_link_with_no_whole_word_inside_falls_back_on_its_url_or_stays_a_finding(tmp_path: Path) -> None:
    original = _variant(tmp_path, "sliver", _untag, lambda pdf: _narrow(pdf, (0.45, 0.55)))
    outcomes = repair(original, tmp_path / "out.pdf", [_finding(CONTENTS)])
    with pikepdf.open(tmp_path / "out.pdf") as pdf:
        external, internal = _links(pdf)
        assert str(external.Contents) == "example.org/annual/report"
        assert "/Contents" not in internal  # an internal link's words only a person (or --model) can write
    outcome = outcomes["link_contents"][1]
    assert outcome.left and outcome.left.startswith("needs a model") and "1 link(s)" in outcome.left
    assert any("(from its URL)" in c for c in outcome.changes)


def test_a_citation_whose_digits_the_rectangle_covers_is_copied_whole(tmp_path: Path) -> None:
    source = compile_typst(PREAMBLE + "= Links\n" + prose(2) + " As shown before #link(<refs>)[\\[16\\]] and in "
                           "later work.\n\n== References <refs>\n" + prose(1, 1) + "\n", tmp_path / "clean.pdf")
    with pikepdf.open(source) as pdf:
        _untag(pdf)
        _narrow(pdf, (0.22, 0.78))  # the digits only: the brackets stick out
        pdf.save(tmp_path / "citation.pdf")
    repair(tmp_path / "citation.pdf", tmp_path / "out.pdf", [_finding(CONTENTS)])
    with pikepdf.open(tmp_path / "out.pdf") as pdf:
        assert [str(a.Contents) for a in _links(pdf)] == ["[16]"]


def test_half_words_of_a_hyphenated_line_break_are_never_link_text(tmp_path: Path) -> None:
    """Two links over a word hyphenated across lines (“Horten-” / “sius et al.”), in an untagged file."""
    pdf = pikepdf.new()
    font = pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=Name.Helvetica))
    page = pdf.add_blank_page()
    page.obj.Resources = Dictionary(Font=Dictionary(F1=font))
    page.obj.Contents = pdf.make_stream(b"BT /F1 12 Tf 72 720 Td (as shown by Horten-) Tj 0 -14 Td "
                                        b"(sius et al. in their study) Tj ET")
    pdf.save(tmp_path / "plain.pdf")
    with pymupdf.open(tmp_path / "plain.pdf") as doc:
        boxes = {w[4]: pymupdf.Rect(w[:4]) for w in doc[0].get_text("words")}
        height = doc[0].rect.height
    first = boxes["Horten-"]
    second = boxes["sius"] | boxes["et"] | boxes["al."]
    with pikepdf.open(tmp_path / "plain.pdf", allow_overwriting_input=True) as pdf:
        pdf.pages[0].obj.Annots = Array([pdf.make_indirect(Dictionary(
            Type=Name.Annot, Subtype=Name.Link, Rect=Array([r.x0, height - r.y1, r.x1, height - r.y0]),
            Dest=Array([pdf.pages[0].obj, Name.Fit]))) for r in (first, second)])
        pdf.save(tmp_path / "hyphenated.pdf")
    outcomes = repair(tmp_path / "hyphenated.pdf", tmp_path / "out.pdf", [_finding(CONTENTS)])
    with pikepdf.open(tmp_path / "out.pdf") as pdf:
        assert [str(a.get("/Contents", "")) for a in _links(pdf)] == ["", "et al."]
    assert "1 link(s)" in (outcomes["link_contents"][1].left or "")


# ----------------------------------------------------------------- titles: the tagged, visually largest heading

BIG_UNTAGGED = (PREAMBLE + "#text(size: 24pt)[Back to growth]\n\n= Introduction\n" + prose(3) + "\n\n= Outlook\n"
                + prose(2, 1) + "\n")


def _no_title(pdf: pikepdf.Pdf) -> None:
    with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
        del meta["dc:title"]
    del pdf.docinfo["/Title"]
    pdf.Root.ViewerPreferences.DisplayDocTitle = False
    pdf.docinfo["/Producer"] = pikepdf.String("Typst, then a test")
    pdf.docinfo["/ModDate"] = pikepdf.String("D:20200101000000+00'00'")


def test_no_title_is_made_up_when_the_largest_text_is_not_the_tagged_heading(tmp_path: Path) -> None:
    source = compile_typst(BIG_UNTAGGED, tmp_path / "clean.pdf")
    with pikepdf.open(source) as pdf:
        _no_title(pdf)
        pdf.save(tmp_path / "untitled.pdf")
    outcomes = repair(tmp_path / "untitled.pdf", tmp_path / "out.pdf", [_finding(TITLE), _finding(DISPLAY)])
    with pikepdf.open(tmp_path / "out.pdf") as pdf:
        assert "/Title" not in pdf.docinfo
        assert not pdf.open_metadata().get("dc:title")
        assert pdf.Root.ViewerPreferences.DisplayDocTitle is False
    assert "not the largest text on page 1" in (outcomes["xmp_title"][1].left or "")
    assert "no title of its own" in (outcomes["display_doc_title"][1].left or "")


def test_section_headings_of_one_size_are_no_title(tmp_path: Path) -> None:
    source = compile_typst(PREAMBLE + "= Introduction\n" + prose(2) + "\n\n= Methods\n" + prose(2, 1) + "\n",
                           tmp_path / "sections.pdf")
    with pikepdf.open(source) as pdf:
        _no_title(pdf)
        outcome = xmp_title(Context(pdf=pdf, source=source))
    assert not outcome.changes and outcome.left


def test_a_title_and_display_setting_keep_producer_and_update_the_modification_date(tmp_path: Path) -> None:
    source = compile_typst(PREAMBLE + "#set document(title: \"Tagged tables in practice\")\n= Tagged tables in "
                           "practice\n" + prose(3) + "\n\n== Methods\n" + prose(2, 1) + "\n", tmp_path / "clean.pdf")
    with pikepdf.open(source) as pdf:
        pdf.Root.ViewerPreferences.DisplayDocTitle = False
        pdf.docinfo["/Producer"] = pikepdf.String("Typst, then a test")
        pdf.docinfo["/ModDate"] = pikepdf.String("D:20200101000000+00'00'")
        with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
            del meta["dc:title"]
        pdf.save(tmp_path / "titled.pdf")
    outcomes = repair(tmp_path / "titled.pdf", tmp_path / "out.pdf", [_finding(TITLE), _finding(DISPLAY)])
    assert outcomes["display_doc_title"][1].changes and outcomes["xmp_title"][1].changes
    assert not outcomes["xmp_title"][1].drafts  # the document's own /Title, not a draft
    with pikepdf.open(tmp_path / "out.pdf") as pdf:
        assert pdf.open_metadata()["dc:title"] == "Tagged tables in practice"
        assert pdf.Root.ViewerPreferences.DisplayDocTitle is True
        assert str(pdf.docinfo["/Producer"]) == "Typst, then a test"
        assert str(pdf.docinfo["/ModDate"]) > "D:2020"
        assert str(pdf.docinfo["/ModDate"]).startswith("D:20") and str(pdf.docinfo["/ModDate"]) != \
            "D:20200101000000+00'00'"
        assert str(pdf.docinfo["/CreationDate"])


# ----------------------------------------------------------------- a declared language the text contradicts

ENGLISH = ("The structure tree of a tagged document tells assistive technology which text is a heading and which is "
           "a paragraph, and in which order the parts of the page are to be read by those who cannot see it.")


def test_a_declared_language_that_the_text_contradicts_is_a_finding() -> None:
    spans = [{"page": 1, "block": 0, "line": i, "text": sentence} for i, sentence in enumerate([ENGLISH] * 2)]
    told = text_language(spans)
    assert told is not None and told["lang"] == "en"
    issues = document_checks({"document": {"lang": "fi", "text_lang": told, "xmp_title": True,
                                            "display_doc_title": True, "pdfua_part": 1}}, "page 1")
    (mismatch,) = [i for i in issues if i.rule_id == "semantic_tagging.structural_hierarchy.lang_mismatch"]
    assert "/Lang fi" in mismatch.problem and "reads as en" in mismatch.problem
    for declared in ("en", "en-GB", "EN_us"):  # the same language, other spellings: no finding
        facts = {"document": {"lang": declared, "text_lang": told, "xmp_title": True, "display_doc_title": True,
                              "pdfua_part": 1}}
        assert not [i for i in document_checks(facts, "page 1") if i.rule_id.endswith("lang_mismatch")]
    assert text_language([{"page": 1, "block": 0, "line": 0, "text": "Table 3. Results"}]) is None


# ----------------------------------------------------------------- what the file protects

def _article(tmp_path: Path, name: str = "article") -> Path:
    return compile_typst(PREAMBLE + "= Results\n" + prose(3) + "\n", tmp_path / f"{name}.pdf")


def _signed(pdf: pikepdf.Pdf) -> None:
    """A signature field with a value (a detached PKCS#7 placeholder over a byte range), as a signing tool
    leaves it."""
    value = pdf.make_indirect(Dictionary(Type=Name.Sig, Filter=Name("/Adobe.PPKLite"),
                                         SubFilter=Name("/adbe.pkcs7.detached"), ByteRange=Array([0, 840, 960, 4000]),
                                         Contents=pikepdf.String(b"\x30\x82" + b"\x00" * 60)))
    widget = pdf.make_indirect(Dictionary(Type=Name.Annot, Subtype=Name.Widget, FT=Name.Sig,
                                          T=pikepdf.String("Approval"), V=value, Rect=Array([0, 0, 0, 0]), F=132,
                                          P=pdf.pages[0].obj))
    pdf.pages[0].obj.Annots = Array([widget])
    pdf.Root.AcroForm = Dictionary(Fields=Array([widget]), SigFlags=3)


def _reader_extended(pdf: pikepdf.Pdf) -> None:
    pdf.Root.Perms = Dictionary(UR3=pdf.make_indirect(Dictionary(
        Type=Name.Sig, Filter=Name("/Adobe.PPKLite"), SubFilter=Name("/adbe.pkcs7.sha1"),
        Reference=Array([Dictionary(TransformMethod=Name.UR3)]), Contents=pikepdf.String(b"\x00" * 32))))


@pytest.mark.parametrize("edit, what", [(_signed, "signature field “Approval”"), (_reader_extended, "/Perms /UR3")])
def test_a_signed_or_reader_extended_file_is_refused_unless_allowed(tmp_path: Path, edit: object, what: str) -> None:
    with pikepdf.open(_article(tmp_path)) as pdf:
        edit(pdf)  # type: ignore[operator]
        del pdf.Root["/Lang"]
        pdf.save(tmp_path / "signed.pdf")
    digest = _sha(tmp_path / "signed.pdf")
    with pytest.raises(Refused) as refused:
        repair(tmp_path / "signed.pdf", tmp_path / "out.pdf", [_finding(LANG)])
    assert refused.value.kind == "signed" and what in refused.value.message
    assert "--allow-invalidating-signatures" in refused.value.message
    assert not (tmp_path / "out.pdf").exists() and list(tmp_path.glob(".out.pdf*")) == []
    outcomes = repair(tmp_path / "signed.pdf", tmp_path / "out.pdf", [_finding(LANG)],
                      allow_invalidating_signatures=True)
    assert outcomes["document_lang"][1].changes
    with pikepdf.open(tmp_path / "out.pdf") as pdf:
        assert "/Perms" not in pdf.Root  # usage rights whose signature no longer holds would make Reader complain
    assert _sha(tmp_path / "signed.pdf") == digest


def _encrypt(source: Path, target: Path, **allow: bool) -> None:
    with pikepdf.open(source) as pdf:
        del pdf.Root["/Lang"]
        pdf.save(target, encryption=pikepdf.Encryption(owner="owner-secret", user="",
                                                       allow=pikepdf.Permissions(**allow)))


def test_an_owner_password_file_forbidding_changes_is_refused(tmp_path: Path) -> None:
    _encrypt(_article(tmp_path), tmp_path / "locked.pdf", modify_other=False, modify_annotation=False)
    with pytest.raises(Refused) as refused:
        repair(tmp_path / "locked.pdf", tmp_path / "out.pdf", [_finding(LANG)])
    assert refused.value.kind == "protected" and "forbid changes" in refused.value.message
    assert not (tmp_path / "out.pdf").exists()


def test_an_encrypted_file_that_permits_changes_keeps_its_encryption_and_permissions(tmp_path: Path) -> None:
    _encrypt(_article(tmp_path), tmp_path / "enc.pdf", modify_other=True, extract=False, print_highres=False)
    outcomes = repair(tmp_path / "enc.pdf", tmp_path / "out.pdf", [_finding(LANG)])
    assert outcomes["document_lang"][1].changes
    with pikepdf.open(tmp_path / "enc.pdf") as before, pikepdf.open(tmp_path / "out.pdf") as after:
        assert after.is_encrypted and after.allow == before.allow
        assert not after.allow.extract and str(after.Root.Lang) == "en"
    with pikepdf.open(tmp_path / "out.pdf", password="owner-secret") as owner:
        assert owner.owner_password_matched


def test_a_user_password_empty_damaged_or_non_pdf_file_is_one_refusal(tmp_path: Path) -> None:
    with pikepdf.open(_article(tmp_path)) as pdf:
        pdf.save(tmp_path / "password.pdf", encryption=pikepdf.Encryption(owner="o", user="u"))
    (tmp_path / "empty.pdf").write_bytes(b"")
    (tmp_path / "text.pdf").write_text("not a PDF at all\n")
    (tmp_path / "damaged.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    kinds = {}
    for name in ("password", "empty", "text", "damaged"):
        with pytest.raises(Refused) as refused:
            repair(tmp_path / f"{name}.pdf", tmp_path / f"{name}-out.pdf", [])
        kinds[name] = refused.value.kind
        assert "\n" not in str(refused.value)
        assert not (tmp_path / f"{name}-out.pdf").exists()
    assert kinds == {"password": "encrypted", "empty": "empty", "text": "not_pdf", "damaged": "damaged"}


def test_active_content_is_kept_never_added(tmp_path: Path) -> None:
    with pikepdf.open(_article(tmp_path)) as pdf:
        pdf.Root.OpenAction = Dictionary(S=Name.JavaScript, JS=pikepdf.String("app.alert('hello')"))
        del pdf.Root["/Lang"]
        pdf.save(tmp_path / "script.pdf")
    repair(tmp_path / "script.pdf", tmp_path / "out.pdf", [_finding(LANG)])
    with pikepdf.open(tmp_path / "script.pdf") as before, pikepdf.open(tmp_path / "out.pdf") as after:
        assert active_content(after) == active_content(before) == {"JavaScript": 1}
    facts = inspect_source(tmp_path / "script.pdf", FixLimits())
    with pikepdf.open(tmp_path / "out.pdf") as pdf:  # a copy with a launch action more is worse: refused
        pdf.pages[0].obj.AA = Dictionary(O=Dictionary(S=Name.Launch, F=pikepdf.String("calc.exe")))
        pdf.save(tmp_path / "worse.pdf")
    problem = verify_copy(tmp_path / "script.pdf", tmp_path / "worse.pdf", facts)
    assert problem and "adds active content" in problem and "launch action" in problem


# ----------------------------------------------------------------- checked after writing

def test_a_remedy_that_changes_the_text_is_rolled_back_and_the_others_kept(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    original = _variant(tmp_path, "links", lambda pdf: pdf.Root.__delitem__("/Lang"),
                        lambda pdf: [p.obj.__delitem__("/Tabs") for p in pdf.pages if "/Tabs" in p.obj])

    def tab_order_gone_wrong(ctx: Context) -> object:
        from repairs.remedies import Outcome

        page = ctx.pdf.pages[0]
        page.obj.Contents = ctx.pdf.make_stream(b"")  # a bug that blanks the page
        page.obj.Tabs = Name.S
        return Outcome(changes=["page 1: /Tabs /S"])

    monkeypatch.setitem(REMEDIES, "tab_order", tab_order_gone_wrong)
    outcomes = repair(original, tmp_path / "out.pdf", [_finding(TABS), _finding(LANG)])
    rolled = outcomes["tab_order"][1]
    assert not rolled.changes and rolled.left and "rolled back" in rolled.left and "page 1" in rolled.left
    assert outcomes["document_lang"][1].changes
    with pymupdf.open(original) as a, pymupdf.open(tmp_path / "out.pdf") as b:
        assert [p.get_text() for p in a] == [p.get_text() for p in b]
    with pikepdf.open(tmp_path / "out.pdf") as pdf:
        assert str(pdf.Root.Lang) == "en" and "/Tabs" not in pdf.pages[0].obj


def test_a_copy_that_would_balloon_is_a_limit_and_nothing_is_written(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    original = _article(tmp_path)
    with pikepdf.open(original) as pdf:
        del pdf.Root["/Lang"]
        pdf.save(tmp_path / "small.pdf")

    def document_lang_gone_wrong(ctx: Context) -> object:
        from repairs.remedies import Outcome

        ctx.pdf.Root.Lang = pikepdf.String("en")
        ctx.pdf.Root.Ballast = ctx.pdf.make_stream(np.random.default_rng(0).bytes(4 * 2**20))  # incompressible
        return Outcome(changes=["document /Lang en"])

    monkeypatch.setitem(REMEDIES, "document_lang", document_lang_gone_wrong)
    with pytest.raises(Refused) as refused:
        repair(tmp_path / "small.pdf", tmp_path / "out.pdf", [_finding(LANG)])
    assert refused.value.kind == "limit" and "over 4 x the original" in refused.value.message
    assert not list(tmp_path.glob("out*")) and not list(tmp_path.glob(".out*"))


def test_fixed_means_the_rule_no_longer_fires_on_the_copy() -> None:
    result = FileFix(Path("a.pdf"), Path("b.pdf"), [_finding(LANG), _finding(TABS)], {})
    result.after = [_finding(TABS), _finding(TABS), _finding(CONTENTS)]
    assert result.fixed_rules == [LANG] and result.worse_rules == [CONTENTS, TABS]  # new, and one more
    result.refused = Refused("limit", "over")
    assert result.fixed_rules == [] and result.worse_rules == []


# ----------------------------------------------------------------- limits

def _with_stream(source: Path, target: Path, decoded: bytes) -> None:
    with pikepdf.open(source) as pdf:
        stream = pikepdf.Stream(pdf, b"")
        stream.write(zlib.compress(decoded, 9), filter=Name.FlateDecode)
        pdf.Root.Bomb = pdf.make_indirect(stream)
        pdf.save(target)


def test_a_decompression_bomb_is_a_limit_and_never_decoded(tmp_path: Path) -> None:
    _with_stream(_article(tmp_path), tmp_path / "bomb.pdf", b"\0" * (3 * 2**20))
    assert (tmp_path / "bomb.pdf").stat().st_size < 2**20 // 4
    with pytest.raises(Refused) as refused:
        repair(tmp_path / "bomb.pdf", tmp_path / "out.pdf", [_finding(LANG)], limits=FixLimits(max_stream_mb=1))
    assert refused.value.kind == "limit" and "stream limit" in refused.value.message
    assert not (tmp_path / "out.pdf").exists()


def _shared_pages(target: Path, pages: int) -> None:
    """`pages` pages drawing one shared content stream (text and a rule), in a tagged file."""
    pdf = pikepdf.new()
    font = pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=Name.Helvetica))
    content = pdf.make_stream(b"BT /F1 12 Tf 72 720 Td (Running text on a page) Tj ET 72 700 m 500 700 l S")
    for _ in range(pages):
        page = pdf.add_blank_page()
        page.obj.Contents = content
        page.obj.Resources = Dictionary(Font=Dictionary(F1=font))
    pdf.Root.StructTreeRoot = pdf.make_indirect(Dictionary(Type=Name.StructTreeRoot, K=Array([])))
    pdf.save(target)


def test_pages_sharing_one_content_stream_do_not_amplify_the_file(tmp_path: Path) -> None:
    _shared_pages(tmp_path / "shared.pdf", 60)
    outcomes = repair(tmp_path / "shared.pdf", tmp_path / "out.pdf", [])
    assert (tmp_path / "out.pdf").stat().st_size <= 2 * (tmp_path / "shared.pdf").stat().st_size
    assert "60 page(s) share their content stream" in (outcomes["artifacts"][1].left or "")
    with pytest.raises(Refused) as refused:
        repair(tmp_path / "shared.pdf", tmp_path / "out2.pdf", [], limits=FixLimits(max_pages=50))
    assert refused.value.kind == "limit" and "--max-pages 50" in refused.value.message


def test_the_repair_runs_in_a_bounded_worker(tmp_path: Path) -> None:
    original = _variant(tmp_path, "links", lambda pdf: pdf.Root.__delitem__("/Lang"))
    pool = WorkerPool(1, memory_mb=1536)
    try:
        job = RepairJob(original, tmp_path / "out.pdf", [_finding(LANG)])
        outcomes = repair_bounded(job, pool)
        assert outcomes["document_lang"][1].changes and (tmp_path / "out.pdf").is_file()
        slow = RepairJob(original, tmp_path / "slow.pdf", [_finding(LANG)], limits=FixLimits(doc_timeout_s=0.01))
        with pytest.raises(Refused) as refused:
            repair_bounded(slow, pool)
        assert refused.value.kind == "timeout"
    finally:
        pool.reset()
    assert not (tmp_path / "slow.pdf").exists()


def test_a_full_disk_is_one_refusal_and_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    original = _article(tmp_path)

    def full(self: pikepdf.Pdf, *args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pikepdf.Pdf, "save", full)
    out = tmp_path / "out"
    with pytest.raises(Refused) as refused:
        repair(original, out / "fixed.pdf", [_finding(LANG)])
    assert refused.value.kind == "disk_full" and "no space left" in refused.value.message
    assert list(out.iterdir()) == []


# ----------------------------------------------------------------- output paths

def test_output_names_are_unique_deterministic_and_never_an_input(tmp_path: Path) -> None:
    files = [tmp_path / "a" / "x.pdf", tmp_path / "b" / "x.pdf", tmp_path / "b" / "X.PDF", tmp_path / "a__x.pdf"]
    for f in files:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"%PDF-1.7\n")
    inputs_folder = tmp_path  # --out inside the screened folder: a derived name may be an input's
    pairs = unique_outputs(files, inputs_folder, files)
    outputs = [fixed for _, fixed in pairs]
    assert [p for p, _ in pairs] == files  # in the caller's order, none dropped
    assert len({o.name.lower() for o in outputs}) == len(files)
    assert not {o.resolve() for o in outputs} & {f.resolve() for f in files}
    top = tmp_path.name
    assert [o.name for o in outputs] == [f"{top}__a__x.pdf", f"{top}__b__x-2.pdf", f"{top}__b__X.PDF", "a__x-2.pdf"]
    assert unique_outputs(list(reversed(files)), inputs_folder, files) == list(reversed(pairs))


def test_out_refuses_an_existing_file_without_force_and_a_symlink_always(tmp_path: Path) -> None:
    original = tmp_path / "in.pdf"
    original.write_bytes(b"%PDF-1.7\n")
    existing = tmp_path / "existing.pdf"
    existing.write_bytes(b"keep me")
    with pytest.raises(FixError, match="exists.*--force"):
        check_output(original, existing)
    check_output(original, existing, force=True)
    elsewhere = tmp_path / "other" / "target.pdf"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(b"not yours")
    link = tmp_path / "link.pdf"
    link.symlink_to(elsewhere)
    for force in (False, True):
        with pytest.raises(FixError, match="symlink"):
            check_output(original, link, force=force)
    with pytest.raises(FixError, match="input of the run"):
        check_output(original, tmp_path / "sibling.pdf", inputs=(tmp_path / "sibling.pdf",))
    (tmp_path / "hard.pdf").hardlink_to(original)  # another name of the original: replacing it is refused too
    with pytest.raises(FixError, match="is the original"):
        check_output(original, tmp_path / "hard.pdf", force=True)
    assert existing.read_bytes() == b"keep me" and elsewhere.read_bytes() == b"not yours"


def test_force_replaces_an_existing_output_and_the_original_stays_byte_identical(tmp_path: Path) -> None:
    original = _variant(tmp_path, "links", lambda pdf: pdf.Root.__delitem__("/Lang"))
    digest = _sha(original)
    out = tmp_path / "out.pdf"
    out.write_bytes(b"an older copy")
    with pytest.raises(FixError):
        repair(original, out, [_finding(LANG)])
    assert out.read_bytes() == b"an older copy"
    repair(original, out, [_finding(LANG)], force=True)
    with pikepdf.open(out) as pdf:
        assert str(pdf.Root.Lang) == "en"
    assert _sha(original) == digest
