"""Real-world cases the rules judge must decide right, each on a small PDF the test generates and
runs through the whole pipeline (screening mode, rules judge): valid files that must not fail, and
defects a screen-reader user meets that must not pass."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from tests.extractors.conftest import compile_typst, red_png, struct_elements_of
from warehouse import catalog
from warehouse.tables import ALL_TABLES

pytestmark = pytest.mark.slow

PREAMBLE = '#set document(title: "Case")\n#set text(lang: "en", size: 10pt)\n#set page(width: 420pt, height: 595pt)\n'
PROSE = ("Accessible documents let every reader reach the same content. This paragraph is ordinary body "
         "text, long enough to be read as running prose rather than a heading or a label. ")


def _cmap_to_feff(cmap: str) -> str:
    """The same ToUnicode CMap with every source code mapped to U+FEFF (a BOM: nothing to speak)."""
    codes: list[str] = []
    for block in re.findall(r"beginbfchar(.*?)endbfchar", cmap, flags=re.S):
        codes += re.findall(r"<([0-9A-Fa-f]+)>\s*<[0-9A-Fa-f]+>", block)
    for block in re.findall(r"beginbfrange(.*?)endbfrange", cmap, flags=re.S):
        for lo, hi in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(?:<[0-9A-Fa-f]+>|\[[^\]]*\])", block):
            width = len(lo)
            codes += [f"{n:0{width}X}" for n in range(int(lo, 16), int(hi, 16) + 1)]
    head = cmap[: cmap.index("endcodespacerange") + len("endcodespacerange")]
    chunks = [codes[i:i + 100] for i in range(0, len(codes), 100)]
    body = "".join(f"\n{len(chunk)} beginbfchar\n" + "\n".join(f"<{c}> <FEFF>" for c in chunk) + "\nendbfchar"
                   for chunk in chunks)
    return head + body + "\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"


def _make(folder: Path) -> None:
    folder.mkdir(parents=True)
    png = {"red.png": red_png()}
    # 1. No heading tags anywhere, and a table whose header cells are bold: TH text is not a heading.
    compile_typst(PREAMBLE + "#show table.cell.where(y: 0): strong\n" + PROSE * 3 + "\n\n"
                  "#table(columns: 3, table.header([Region], [Cases], [Deaths]), [North], [12], [1], [South], [30], "
                  "[4])\n\n" + PROSE, folder / "bold_th.pdf")
    # 2. A page whose only text is one large line: there is nothing for a heading to head.
    compile_typst(PREAMBLE + '#text(size: 28pt)[Annual Report]\n#pagebreak()\n' + PROSE * 4, folder / "lone_line.pdf")
    # 3. A paragraph type the RoleMap does not map to a standard type.
    source = compile_typst(PREAMBLE + "= Title\n" + PROSE + "\n\n" + PROSE, folder / "src-private.pdf")
    with pikepdf.open(source) as pdf:
        next(e for e in struct_elements_of(pdf) if e.get("/S") == "/P")["/S"] = pikepdf.Name("/Blurb")
        pdf.save(folder / "private_type.pdf")
    source.unlink()
    # 4. A link over an image, with no /Contents and no text: a screen reader has nothing to announce.
    compile_typst(PREAMBLE + "= Links\n" + PROSE + "\n\n#link(\"https://example.org/report\")"
                  "[#image(\"red.png\", width: 1cm, alt: \"x\")]\n", folder / "src-link.pdf", png)
    with pikepdf.open(folder / "src-link.pdf") as pdf:
        for element in struct_elements_of(pdf):
            for key in ("/Alt", "/ActualText"):
                if key in element:
                    del element[key]
        for page in pdf.pages:
            for annot in page.get("/Annots") or []:
                if "/Contents" in annot:
                    del annot["/Contents"]
        pdf.save(folder / "link_without_text.pdf")
    (folder / "src-link.pdf").unlink()
    # 5. A header cell that lost its RowSpan: the second header row shifts one column left.
    compile_typst(PREAMBLE + "= Data\n" + PROSE + "\n\n#table(columns: 3, table.header(table.cell(rowspan: 2)"
                  "[Model], table.cell(colspan: 2)[Accuracy], [dev], [test]), [A], [0.8], [0.7], [B], [0.9], "
                  "[0.6])\n", folder / "src-span.pdf")
    with pikepdf.open(folder / "src-span.pdf") as pdf:
        for element in struct_elements_of(pdf):
            attrs = element.get("/A")
            for attr in (attrs if isinstance(attrs, pikepdf.Array) else [attrs]):
                if isinstance(attr, pikepdf.Dictionary) and "/RowSpan" in attr:
                    del attr["/RowSpan"]
        pdf.save(folder / "rowspan_lost.pdf")
    (folder / "src-span.pdf").unlink()
    # 6. Glyphs mapped to U+FEFF by ToUnicode: extractable in name only, nothing to speak.
    compile_typst(PREAMBLE + "= Fonts\n" + PROSE, folder / "src-font.pdf")
    with pikepdf.open(folder / "src-font.pdf") as pdf:
        for page in pdf.pages:
            for font in (page.Resources.get("/Font") or {}).values():
                cmap = font.get("/ToUnicode")
                if isinstance(cmap, pikepdf.Stream):
                    cmap.write(_cmap_to_feff(cmap.read_bytes().decode("latin-1")).encode("latin-1"))
        pdf.save(folder / "feff_mapping.pdf")
    (folder / "src-font.pdf").unlink()
    # 7. A small icon tagged as a Figure, without alt text, beside a described figure.
    compile_typst(PREAMBLE + "= Figures\n" + PROSE + "\n\n#figure(image(\"red.png\", width: 6cm, alt: \"A red "
                  "rectangle that stands for the sample\"), caption: [The sample])\n\n" + PROSE +
                  "#box(image(\"red.png\", width: 0.4cm, alt: \"icon\"))\n", folder / "src-icon.pdf", png)
    with pikepdf.open(folder / "src-icon.pdf") as pdf:
        figures = [e for e in struct_elements_of(pdf) if e.get("/S") == "/Figure"]
        del figures[-1]["/Alt"]
        pdf.save(folder / "small_figure_no_alt.pdf")
    (folder / "src-icon.pdf").unlink()
    for leftover in folder.glob("*-src"):
        for child in leftover.iterdir():
            child.unlink()
        leftover.rmdir()


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    root = tmp_path_factory.mktemp("realworld")
    _make(root / "pdfs")
    home = root / "home"
    cfg = RunConfig(home=home, run_id="rw", source="pdfs", source_path=str(root / "pdfs"), progress=False,
                    workers=1)
    for stage in STAGE_LIST:
        execute(cfg, stage)
    columns, rows = catalog.query(home, ALL_TABLES, """
        select json_extract_string(d.metadata, '$.path') as file, l.criterion, l.label,
               (select string_agg(j.issues, ' ') from judgments j where j.run_id = l.run_id
                and j.doc_id = l.doc_id and j.criterion = l.criterion) as issues
        from doc_labels l join documents d using (run_id, doc_id) where l.run_id = 'rw'""")
    return {(r[0], r[1]): dict(zip(columns, r, strict=True)) for r in rows}


def test_bold_table_headers_are_not_visual_headings(labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    assert labels[("bold_th.pdf", "semantic_tagging")]["label"] == "passed"


def test_a_lone_large_line_has_nothing_to_head(labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    assert labels[("lone_line.pdf", "semantic_tagging")]["label"] == "passed"


def test_a_type_the_rolemap_leaves_nonstandard_fails(labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    result = labels[("private_type.pdf", "semantic_tagging")]
    assert result["label"] == "failed" and "Blurb" in result["issues"] and "RoleMap" in result["issues"]


def test_a_link_with_nothing_to_announce_fails(labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    result = labels[("link_without_text.pdf", "functional_hyperlinks")]
    assert result["label"] == "failed" and "descriptiveness" in result["issues"]


def test_a_lost_rowspan_is_reported_not_silently_realigned(labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    result = labels[("rowspan_lost.pdf", "table_structure")]
    assert result["label"] == "failed" and "RowSpan" in result["issues"]


def test_glyphs_mapped_to_nothing_speakable_fail_unicode_mapping(
        labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    result = labels[("feff_mapping.pdf", "fonts_readability")]
    assert result["label"] == "failed" and "unicode_mapping" in result["issues"]


def test_a_small_figure_without_alt_is_not_exempt(labels: dict[tuple[str, str], dict[str, Any]]) -> None:
    result = labels[("small_figure_no_alt.pdf", "alt_text_quality")]
    assert result["label"] == "failed"
