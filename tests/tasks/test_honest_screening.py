"""Issue 31, points 3–5: untagged documents are Not Present for tagging (never Cannot Tell), every screened file
gets an overall verdict (fails / passes / could not be checked, with its reason) in every report format and in
the `screening` table, and counts a user reads are counts of files, not of file × criterion."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pikepdf
import pyarrow as pa
import pymupdf
import pytest
from PIL import Image

from corpus.unreadable import unreadable_reason, without_file_note
from flows.cli.report import build
from flows.report.text import error_files, render_report
from judges.labels import Label, aggregate_labels
from tasks.benchmark.aggregate import untagged_items
from tasks.benchmark.registry import STAGE_LIST
from tasks.benchmark.screening import error_reason
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from tests.extractors.conftest import compile_typst
from warehouse import catalog
from warehouse.tables import ALL_TABLES

pytestmark = pytest.mark.heavy  # whole screening runs (not in make test-fast)

RUN = "screen31"
PROSE = "Accessible documents let everyone read them. " * 12


def _png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (300, 200), (90, 120, 160)).save(buf, format="PNG")
    return buf.getvalue()


def _strip_tags(src: Path, dst: Path) -> Path:
    """`src` without its structure tree: an untagged PDF with the same content."""
    with pikepdf.open(src) as pdf:
        for key in ("/StructTreeRoot", "/MarkInfo"):
            if key in pdf.Root:
                del pdf.Root[key]
        pdf.save(dst)
    return dst


def make_folder(root: Path) -> Path:
    folder = root / "pdfs"
    folder.mkdir(parents=True)
    work = root / "src"
    work.mkdir()
    tagged = compile_typst(f'#set document(title: [Tagged])\n#set text(lang: "en")\n= Tagged\n{PROSE}\n',
                           folder / "tagged.pdf", ua1=True)
    # Untagged, three pages: text, a page that is only an image (no text layer), text.
    mixed = compile_typst(
        f'#set document(title: [Mixed])\n= Mixed\n{PROSE}\n#pagebreak()\n'
        '#image("photo.png", width: 100%)\n#pagebreak()\n' + PROSE + "\n",
        work / "mixed.pdf", {"photo.png": _png()})
    _strip_tags(mixed, folder / "untagged_with_scan.pdf")
    scan = pymupdf.open()  # untagged and scanned throughout: two image-only pages
    for _ in range(2):
        page = scan.new_page()
        page.insert_image(page.rect, stream=_png())
    scan.save(folder / "scanned.pdf")
    (folder / "empty.pdf").write_bytes(b"")
    (folder / "not_a_pdf.pdf").write_text("Dear reader, this is a letter, not a PDF.\n", encoding="utf-8")
    (folder / "truncated.pdf").write_bytes(tagged.read_bytes()[:600])
    with pikepdf.open(tagged) as pdf:
        pdf.save(folder / "encrypted.pdf", encryption=pikepdf.Encryption(user="secret", owner="owner"))
    return folder


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("screen31")
    folder = make_folder(root)
    cfg = RunConfig(home=root / "home", run_id=RUN, source="pdfs", source_path=str(folder), progress=False,
                    doc_timeout_s=120)
    for stage in STAGE_LIST:
        assert execute(cfg, stage).status == "completed", stage.name
    return cfg.home


def _labels(home: Path, file: str) -> dict[str, str]:
    _, rows = catalog.query(home, ALL_TABLES, f"""
        SELECT l.criterion, l.label FROM doc_labels l JOIN documents d USING (run_id, doc_id)
        WHERE l.run_id = '{RUN}' AND d.files[1] = '{file}'""")
    return dict(rows)


# Point 3 -------------------------------------------------------------------------------------------------------

def test_an_untagged_document_with_an_image_only_page_is_not_present_for_the_tag_tree_criteria(home: Path) -> None:
    _, pages = catalog.query(home, ALL_TABLES, f"""
        SELECT j.page, j.label FROM judgments j JOIN documents d USING (run_id, doc_id)
        WHERE j.run_id = '{RUN}' AND d.files[1] = 'untagged_with_scan.pdf' AND j.criterion = 'semantic_tagging'
        ORDER BY j.page""")
    assert len(pages) == 3  # one judged page each, the image-only one among them
    labels = _labels(home, "untagged_with_scan.pdf")
    for criterion in ("semantic_tagging", "table_structure", "alt_text_quality"):
        assert labels[criterion] == Label.NOT_PRESENT, (criterion, labels, pages)


def test_an_untagged_scan_is_not_present_for_tagging_never_cannot_tell(home: Path) -> None:
    assert _labels(home, "scanned.pdf")["semantic_tagging"] == Label.NOT_PRESENT


def test_the_untagged_rule_never_reads_withheld_evidence() -> None:
    """The Cannot Tell protocol withholds the tag tree: an untagged document judged without it stays as judged."""
    structure = pa.table({"doc_id": ["shown", "withheld", "tagged"], "tagged": [False, False, True]})
    inputs = pa.table({"doc_id": ["shown", "withheld", "tagged", "shown"],
                       "criterion": ["semantic_tagging", "semantic_tagging", "semantic_tagging", "color_contrast"],
                       "available": [["page_image", "tag_structure"], ["page_image"],
                                     ["page_image", "tag_structure"], ["page_image", "color_values"]]})
    assert untagged_items(structure, inputs) == {("shown", "semantic_tagging")}
    assert aggregate_labels(["not_present", "cannot_tell"], untagged=True) == Label.NOT_PRESENT
    assert aggregate_labels(["cannot_tell", "cannot_tell"], untagged=True) == Label.NOT_PRESENT
    assert aggregate_labels(["failed", "cannot_tell"], untagged=True) == Label.FAILED
    assert aggregate_labels(["not_present", "cannot_tell"]) == Label.CANNOT_TELL  # a tagged (or unseen) tree


# Point 4 -------------------------------------------------------------------------------------------------------

NOT_CHECKED = {"empty.pdf": "empty file", "encrypted.pdf": "encrypted", "not_a_pdf.pdf": "not a PDF",
               "truncated.pdf": "truncated"}


def test_every_screened_file_has_a_verdict_could_not_be_checked_first_then_fails_then_passes(home: Path) -> None:
    files = json.loads(build(home, [RUN], "json"))["screening"][0]["files"]
    verdicts = [(f["file"], f["verdict"]) for f in files]
    assert [v for _, v in verdicts] == ["could not be checked"] * 4 + ["fails"] * 2 + ["passes"], verdicts
    by_file = {f["file"]: f for f in files}
    for file, reason in NOT_CHECKED.items():
        assert by_file[file]["verdict"] == "could not be checked"
        assert by_file[file]["reason"].startswith(reason), (file, by_file[file]["reason"])
    for untagged in ("untagged_with_scan.pdf", "scanned.pdf"):
        assert by_file[untagged]["verdict"] == "fails" and "untagged" in by_file[untagged]["reason"]
    assert by_file["tagged.pdf"]["verdict"] == "passes" and not by_file["tagged.pdf"]["failed"]


def test_each_error_row_of_a_file_that_could_not_be_checked_names_it(home: Path) -> None:
    _, rows = catalog.query(home, ALL_TABLES, f"SELECT doc_id, message FROM errors WHERE run_id = '{RUN}' "
                                              "AND stage = 'corpus'")
    for file, reason in NOT_CHECKED.items():
        named = [message for _, message in rows if file in message]
        assert named and all(reason in message for message in named), (file, rows)
    assert all(any(file in message for file in NOT_CHECKED) for _, message in rows), rows
    assert any(message.endswith(" (file: not_a_pdf.pdf)") for _, message in rows), rows


def test_the_verdict_shows_in_markdown_html_and_text(home: Path) -> None:
    md = build(home, [RUN], "md")
    assert "| verdict |" in md.replace("| file | verdict |", "| verdict |")
    # verdict, PDF/UA-1, errors, warnings, reason
    assert re.search(r"could not be checked \| not checked \| – \| \d+ \| empty file", md)  # no errors counted
    assert re.search(r"\| fails \| does not conform \| \d+ \| \d+ \| untagged", md)
    assert md.index("empty.pdf") < md.index("untagged\\_with\\_scan.pdf") < md.index("tagged.pdf |")
    page = build(home, [RUN], "html")
    assert "could not be checked" in page and "not a PDF" in page and "passes" in page
    assert page.index("truncated.pdf") < page.index("scanned.pdf") < page.index(">tagged.pdf<")
    text = render_report(home, RUN)
    for file, reason in NOT_CHECKED.items():
        assert file in text and reason in text
    assert text.index("not_a_pdf.pdf") < text.index("scanned.pdf") < text.index("tagged.pdf ")


def test_the_verdicts_are_a_warehouse_table(home: Path) -> None:
    _, rows = catalog.query(home, ALL_TABLES, f"SELECT file, verdict, reason FROM screening "
                                              f"WHERE run_id = '{RUN}'")
    stored = {file: (verdict, reason) for file, verdict, reason in rows}
    assert len(stored) == 7
    assert stored["tagged.pdf"] == ("passes", None)
    assert stored["encrypted.pdf"][0] == "could not be checked" and "encrypted" in stored["encrypted.pdf"][1]
    assert stored["scanned.pdf"][0] == "fails"


def test_unreadable_files_are_told_apart_by_their_bytes() -> None:
    assert unreadable_reason(b"") == "empty file"
    assert unreadable_reason(b"hello").startswith("not a PDF")
    assert unreadable_reason(b"%PDF-1.7\n1 0 obj").startswith("truncated")
    assert unreadable_reason(b"%PDF-1.7\n garbage \n%%EOF\n") == "damaged"


# Point 5 -------------------------------------------------------------------------------------------------------

def test_the_report_counts_files_not_file_times_criterion(home: Path) -> None:
    text = render_report(home, RUN)
    assert "document(s) got no label" not in text
    assert "4 of 7 file(s) could not be checked" in text, text


def test_the_run_summary_counts_files_with_errors(home: Path) -> None:
    _, rows = catalog.query(home, ALL_TABLES, f"SELECT count(*) FROM errors WHERE run_id = '{RUN}'")
    assert rows[0][0] >= 4 * 7  # one error row per file × criterion
    assert error_files(home, RUN) == 4


def test_a_verdict_says_which_criteria_it_could_not_check() -> None:
    from tasks.benchmark.screening import verdict_of

    labels = {"semantic_tagging": ["passed"], "color_contrast": ["unjudged"], "table_structure": []}
    assert verdict_of(labels, []) == ("passes", "not checked: color_contrast, table_structure")
    assert verdict_of({"semantic_tagging": ["not_present"], "fonts_readability": ["failed"]}, []) == (
        "fails", "untagged (no structure tree: PDF/UA-1 7.1); failed: fonts_readability")
    assert verdict_of({"semantic_tagging": ["unjudged"]}, [("corpus", "encrypted.pdf is encrypted")]) == (
        "could not be checked", "encrypted")


def test_the_file_named_at_the_end_of_an_error_row_is_not_part_of_the_verdicts_reason() -> None:
    message = "over a limit: more than 5 pages (file: résumé (draft) 1.pdf)"
    assert without_file_note(message) == "over a limit: more than 5 pages"
    assert error_reason("limit", "limit: more than 5 pages (file: a (b).pdf)") == "over a limit: more than 5 pages"
    assert without_file_note("a reason (with a note)") == "a reason (with a note)"
