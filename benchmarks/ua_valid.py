"""Valid PDF/UA-1 files, one feature each, screened: how many does AccessBench fail that it should pass?

The public PDF/UA-1 suites' valid files are small files, hand-made or tool-made, each exercising one feature.
This writes a set of our own like them: typst PDF/UA-1 files (tables with headers and spans, lists in every
numbering, links, figures and formulas with alt, notes, a table of contents with leader dots, running headers
and footers, several languages, columns, headings of every level, tiny and large type, a dark page), pikepdf
edits of them that stay valid (a role map, /Lang on the elements or on the marked content only, a text
annotation with /Contents, optional content, an embedded file) and hand-made files (tests/judges/handmade.py:
a Type3 font, tags written by hand, artifact leader dots, a form field with /TU, a Span in French). Each is
checked with the `page` validator first (a file that does not conform is reported, and left out of the
count), then all are screened with `accessbench run --pdfs` in a temporary home. Prints per file the verdict
and every failed criterion with its rules, then: valid files passed / valid files.

    python -m benchmarks.ua_valid [--keep DIR]

Prints numbers; asserts nothing. (Known: typst declares ListNumbering Decimal for roman and alphabetic
numbering, which `numbering_style_mismatch` rightly reports; those two files are typst's, not ours.)
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pikepdf
from PIL import Image

from corpus.mutations.structure import iter_struct_elements
from tests.extractors.conftest import compile_typst
from tests.judges.handmade import language_on_span, text_field, write_handmade
from tests.judges.twins import remove_sources

PRE = '#set document(title: "Test file")\n#set text(lang: "en")\n'
FEATURES = {
    "one-word": "Hello\n",
    "one-sentence": "This document exercises a single feature.\n",
    "heading-para": "= Title\nThis is a test paragraph.\n",
    "headings": "= One\nText.\n== Two\nText.\n=== Three\nText.\n==== Four\nText.\n",
    "heading-only": "= Heading alone\n",
    "h1-h2-pages": "= Title\n#pagebreak()\n== Section\nText of the section.\n",
    "table-header": "#table(columns: 3, table.header([Name], [Age], [City]), [Ann], [31], [Oslo], [Bob], [42], "
                    "[Rome])\n",
    "table-rowspan": "#table(columns: 3, table.header([Region], [Q1], [Q2]), table.cell(rowspan: 2)[North], [1], [2], "
                     "[3], [4])\n",
    "table-colspan": "#table(columns: 3, table.header(table.cell(colspan: 3)[Sales]), [Region], [Q1], [Q2], [North], "
                     "[1], [2])\n",
    "table-caption": "#figure(table(columns: 2, table.header([A], [B]), [1], [2]), caption: [A small table])\n",
    "list": "- apples\n- pears\n- plums\n",
    "enum": "+ first\n+ second\n+ third\n",
    "list-roman": '#set enum(numbering: "i.")\n+ one\n+ two\n+ three\n',
    "list-alpha": '#set enum(numbering: "a)")\n+ one\n+ two\n',
    "list-dash": "#set list(marker: [--])\n- one\n- two\n",
    "nested-list": "- one\n  - one a\n  - one b\n- two\n",
    "terms": "/ Term: its description\n/ Other: another one\n",
    "link": 'Visit #link("https://example.org")[the example website] for more.\n',
    "link-bare": '#link("https://example.org")\n',
    "figure": '#figure(rect(width: 80pt, height: 40pt, fill: green), alt: "A green rectangle")\n',
    "figure-caption": '#figure(rect(width: 80pt, height: 40pt, fill: green), alt: "A green rectangle", '
                      "caption: [A rectangle])\n",
    "figure-short-alt": '#figure(rect(width: 40pt, height: 40pt, fill: blue), alt: "Logo")\n',
    "image": '#figure(image("img.png", width: 200pt), alt: "A red block on a white page")\n',
    "formula": '#math.equation(block: true, alt: "a plus b", $a + b$)\n',
    "formula-inline": 'The sum #math.equation(alt: "a plus b", $a + b$) is small.\n',
    "footnotes": "One.#footnote[First note.] Two.#footnote[Second note.]\n",
    "toc": "#outline()\n= Chapter one\nText.\n= Chapter two\nMore text.\n",
    "toc-pages": "#outline()\n#pagebreak()\n= Chapter one\nText.\n#pagebreak()\n= Chapter two\nMore text.\n",
    "header-footer": "#set page(header: [Running header], footer: context [Page #counter(page).display()])\n"
                     "Body text on the page.\n#pagebreak()\nMore body text.\n",
    "languages": 'English text. #text(lang: "de")[Deutscher Text.] #text(lang: "fr")[Texte français.]\n',
    "big-text": '#text(size: 30pt)[Big]\n',
    "big-line-over-text": '#text(size: 24pt, weight: "bold")[Quarterly figures] \\\nThe numbers for the quarter.\n',
    "small-text": "#text(size: 6pt)[Small print in this document.]\n",
    "grey-text": '#text(fill: rgb("#595959"))[Grey text that is readable.]\n',
    "dark-page": '#set page(fill: rgb("#1a1a1a"))\n#set text(fill: white)\nWhite text on a dark page.\n',
    "strong-emph": "Some *strong* and _emphasised_ words.\n",
    "quote": "#quote(block: true)[A quote from somebody.]\n",
    "code": "```\nlet x = 1;\n```\n",
    "columns": "#set page(columns: 2)\n" + "Text in columns. " * 60 + "\n",
    "stamp": '#place(top + right, dx: -10pt, text(size: 36pt, weight: "bold", fill: red)[PASS])\n#v(8pt)\n'
             "The values below are measured once per sample.\n#table(columns: 2, table.header([Name], [Value]), "
             "[alpha], [1])\n",
}


def _role_map(pdf: pikepdf.Pdf) -> None:
    """P renamed /Para, mapped back to P in the RoleMap (PDF/UA-1 7.1)."""
    pdf.Root.StructTreeRoot.RoleMap = pikepdf.Dictionary(Para=pikepdf.Name.P)
    for element in list(iter_struct_elements(pdf)):
        if element.S == "/P":
            element.S = pikepdf.Name("/Para")


def _lang_on_elements(pdf: pikepdf.Pdf) -> None:
    del pdf.Root["/Lang"]
    if "/Outlines" in pdf.Root:  # bookmarks are outside the structure: they would need the catalog's /Lang
        del pdf.Root["/Outlines"]
    for element in list(iter_struct_elements(pdf)):
        element.Lang = pikepdf.String("en-US")


def _lang_on_marked_content(pdf: pikepdf.Pdf) -> None:
    del pdf.Root["/Lang"]
    for page in pdf.pages:
        ops = []
        for instruction in pikepdf.parse_content_stream(page):
            operands = list(getattr(instruction, "operands", []))
            if str(instruction.operator) == "BDC" and isinstance(operands[1], pikepdf.Dictionary):
                operands[1].Lang = pikepdf.String("en")
            ops.append(instruction)
        page.Contents = pdf.make_stream(pikepdf.unparse_content_stream(ops))


def _text_annotation(pdf: pikepdf.Pdf) -> None:
    """A Text annotation with /Contents, tagged Annot through an OBJR (PDF/UA-1 7.18.1)."""
    page, tree = pdf.pages[0], pdf.Root.StructTreeRoot
    nums = tree.ParentTree.Nums
    key = max(int(nums[i]) for i in range(0, len(nums), 2)) + 1
    annot = pdf.make_indirect(pikepdf.Dictionary(
        Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Text, Rect=[300, 700, 320, 720], F=4, P=page.obj,
        Contents=pikepdf.String("A reviewer's comment"), StructParent=key))
    page.Annots = pikepdf.Array([*page.obj.get("/Annots", []), annot])
    document = list(iter_struct_elements(pdf))[0]
    element = pdf.make_indirect(pikepdf.Dictionary(
        Type=pikepdf.Name.StructElem, S=pikepdf.Name.Annot, P=document, Pg=page.obj,
        K=pikepdf.Dictionary(Type=pikepdf.Name.OBJR, Obj=annot, Pg=page.obj)))
    kids = document.K
    document.K = pikepdf.Array([*(kids if isinstance(kids, pikepdf.Array) else [kids]), element])
    tree.ParentTree.Nums = pikepdf.Array([*nums, key, element])
    tree.ParentTreeNextKey = key + 1
    page.Tabs = pikepdf.Name.S


def _optional_content(pdf: pikepdf.Pdf) -> None:
    group = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.OCG, Name=pikepdf.String("Layer 1")))
    pdf.Root.OCProperties = pikepdf.Dictionary(OCGs=[group], D=pikepdf.Dictionary(
        Name=pikepdf.String("Default"), Order=[group], ON=[group]))


def _embedded_file(pdf: pikepdf.Pdf) -> None:
    pdf.attachments["note.txt"] = pikepdf.AttachedFileSpec(pdf, b"hello\n", filename="note.txt",
                                                           description="A plain text note")


EDITS: dict[str, tuple[str, Callable[[pikepdf.Pdf], None]]] = {
    "role-map": ("heading-para", _role_map), "lang-on-elements": ("heading-para", _lang_on_elements),
    "lang-on-marked-content": ("one-sentence", _lang_on_marked_content),
    "text-annotation": ("one-sentence", _text_annotation), "optional-content": ("one-sentence", _optional_content),
    "embedded-file": ("one-sentence", _embedded_file),
}
HANDMADE: dict[str, tuple[list[Any], Any]] = {
    "type3": ([("H1", 24, 40, 520, "Type three"),
               ("P", 11, 40, 490, "this paragraph is set in a Type3 font with a ToUnicode map.")], None),
    "leaders": ([("H1", 20, 40, 540, "Contents"), ("P", 11, 40, 510, "Introduction"),
                 (None, 11, 120, 510, ". . . . . . . . . . . ."), ("P", 11, 300, 510, "1"), (None, 9, 200, 30, "3")],
                None),
    "mostly-artifact": ([(None, 9, 40, 570, "Quarterly report of the accessibility working group"),
                         ("P", 11, 40, 500, "Hello"), (None, 9, 40, 30, "Printed for internal review, page 1 of 1")],
                        None),
    "tiny-type": ([("P", 4, 40, 520, "Fine print of four points.")], None),
    "form": ([("H1", 20, 40, 520, "A form"), ("P", 11, 40, 490, "please write your name in the field below.")],
             text_field),
    "span-language": ([("P", 12, 40, 520, "Hello there, this is English text."),
                       ("Span", 12, 40, 500, "Bonjour tout le monde.")], language_on_span),
}


def write_valid(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    png = io.BytesIO()
    Image.new("RGB", (200, 100), (200, 30, 30)).save(png, format="PNG")
    written = [compile_typst(PRE + source, folder / f"{name}.pdf", {"img.png": png.getvalue()}, ua1=True)
               for name, source in FEATURES.items()]
    for name, (base, edit) in EDITS.items():
        with pikepdf.open(folder / f"{base}.pdf") as pdf:
            edit(pdf)
            pdf.save(folder / f"{name}.pdf")
        written.append(folder / f"{name}.pdf")
    for name, (blocks, extra) in HANDMADE.items():
        written.append(write_handmade(folder / f"hand-{name}.pdf", f"Hand made {name}", blocks, extra))
    remove_sources(folder)
    return written


def _conforms(path: Path) -> list[str]:
    import page

    return [str(f.rule_id) for f in page.validate_pdf(str(path), profile="ua1").failures]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="write the files and the data home here and keep them")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="ua-valid-"))
    try:
        files = write_valid(root / "pdfs")
        broken = {p.name: _conforms(p) for p in files}
        for name, rules in sorted(broken.items()):
            if rules:
                print(f"{name}: does not conform to the validator ({', '.join(sorted(set(rules)))}): left out")
        home = root / "home"
        command = [sys.executable, "-m", "flows.cli.app", "--home", str(home), "run", "--pdfs", str(root / "pdfs"),
                   "--run-id", "ua-valid", "--fail-on", "never"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
        if done.returncode != 0:
            raise SystemExit(f"accessbench run failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        from warehouse import catalog
        from warehouse.tables import ALL_TABLES

        _, rows = catalog.query(home, ALL_TABLES, "select file, verdict, conformance, reason from screening "
                                                  "where run_id = 'ua-valid' order by file")
        _, found = catalog.query(home, ALL_TABLES, """
            select json_extract_string(d.metadata, '$.path'), f.criterion, list(distinct f.rule_id)
            from findings f join documents d using (run_id, doc_id)
            where f.run_id = 'ua-valid' and f.severity = 'error' group by all""")
        failing = {(Path(p).name, c): r for p, c, r in found}
        counted = passed = 0
        for file, verdict, conformance, reason in rows:
            name = Path(file).name
            print(f"{name:32} {verdict:6} {conformance:18} {reason or ''}")
            for (other, criterion), ids in sorted(failing.items()):
                if other == name:
                    print(f"    {criterion}: {', '.join(sorted(ids))}")
            if not broken.get(name):
                counted += 1
                passed += verdict == "passes"
        print(f"\nvalid files passed by screening: {passed}/{counted}")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
