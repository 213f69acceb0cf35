"""Small generated PDFs for the extractor tests.

``tagged_pdf`` is a real tagged document compiled with typst (headings, a list, a
table with a header row, a figure with alt text, an external and an internal
link, a running footer). The other fixtures derive broken or stripped variants
from it with pikepdf, so each test states exactly what it changed.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pikepdf
import pyarrow as pa
import pytest
import typst
from PIL import Image

from warehouse.schema import conform

TYPST_SOURCE = """#set document(title: "Extractor fixture")
#set text(lang: "en", size: 11pt)
#set page(width: 420pt, height: 595pt, footer: [Running footer text])
= Introduction
Body with a #link("https://example.org/page")[link to example] and *strong words* and
_emphasis here_ and #text(fill: rgb("#336699"))[blue words]. See #link(<later>)[the later section].

- first item
- second item

#table(columns: 2, table.header([Name], [Value]), [alpha], [1], [beta], [2])

#figure(image("red.png", width: 2cm, alt: "A red rectangle"), caption: [A red figure])
#pagebreak()
== Later section <later>
Second page text.
"""


def compile_typst(source: str, out: Path, files: dict[str, bytes] | None = None, *, ua1: bool = False) -> Path:
    """Compile typst ``source`` (with ``files`` beside it) to the tagged PDF ``out`` (``ua1``: checked by typst
    against PDF/UA-1 and identified as such, so the page validator passes it)."""
    work = out.parent / (out.stem + "-src")
    work.mkdir(parents=True, exist_ok=True)
    for name, data in (files or {}).items():
        (work / name).write_bytes(data)
    main = work / "main.typ"
    main.write_text(source, encoding="utf-8")
    out.write_bytes(typst.compile(str(main), format="pdf", **({"pdf_standards": "ua-1"} if ua1 else {})))
    return out


def red_png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (20, 10), (200, 30, 30)).save(buf, format="PNG")
    return buf.getvalue()


def mutate(src: Path, dst: Path, change: Callable[[pikepdf.Pdf], Any], **save: Any) -> Path:
    """Copy ``src`` to ``dst`` after applying ``change`` to it with pikepdf."""
    with pikepdf.open(src) as pdf:
        change(pdf)
        pdf.save(dst, **save)
    return dst


def assert_fits(records: list[dict], schema: pa.Schema) -> pa.Table:
    """Records carry exactly the schema's fields and the warehouse accepts them."""
    for record in records:
        assert set(record) == set(schema.names), set(record) ^ set(schema.names)
    pa.Table.from_pylist(records, schema=schema)
    return conform(records, schema, "under_test")


def struct_elements_of(pdf: pikepdf.Pdf) -> list[pikepdf.Dictionary]:
    """Every indirect structure element reachable from the StructTreeRoot, in preorder."""
    found: list[pikepdf.Dictionary] = []
    stack: list[Any] = [pdf.Root.StructTreeRoot.K]
    seen: set[tuple[int, int]] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, pikepdf.Array):
            stack.extend(reversed(list(item)))
        elif isinstance(item, pikepdf.Dictionary) and "/S" in item and item.objgen not in seen:
            seen.add(item.objgen)
            found.append(item)
            stack.append(item.get("/K"))
    return found


def first_element(pdf: pikepdf.Pdf, tag: str) -> pikepdf.Dictionary:
    return next(e for e in struct_elements_of(pdf) if e.get("/S") == tag)


@pytest.fixture(scope="session")
def fixture_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("extractor-pdfs")


@pytest.fixture(scope="session")
def tagged_pdf(fixture_dir: Path) -> Path:
    return compile_typst(TYPST_SOURCE, fixture_dir / "tagged.pdf", {"red.png": red_png()})


@pytest.fixture(scope="session")
def untagged_pdf(tagged_pdf: Path, fixture_dir: Path) -> Path:
    def strip(pdf: pikepdf.Pdf) -> None:
        del pdf.Root["/StructTreeRoot"]
        del pdf.Root["/MarkInfo"]

    return mutate(tagged_pdf, fixture_dir / "untagged.pdf", strip)


@pytest.fixture(scope="session")
def encrypted_pdf(tagged_pdf: Path, fixture_dir: Path) -> Path:
    return mutate(tagged_pdf, fixture_dir / "encrypted.pdf", lambda pdf: None,
                  encryption=pikepdf.Encryption(user="secret", owner="owner"))


@pytest.fixture(scope="session")
def owner_only_pdf(tagged_pdf: Path, fixture_dir: Path) -> Path:
    """Encrypted with an empty user password: readable without one."""
    return mutate(tagged_pdf, fixture_dir / "owner-only.pdf", lambda pdf: None,
                  encryption=pikepdf.Encryption(user="", owner="owner"))


@pytest.fixture(scope="session")
def zero_page_pdf(fixture_dir: Path) -> Path:
    path = fixture_dir / "zero-pages.pdf"
    pikepdf.new().save(path)
    return path


@pytest.fixture(scope="session")
def corrupt_pdf(fixture_dir: Path) -> Path:
    path = fixture_dir / "corrupt.pdf"
    path.write_bytes(b"%PDF-1.7\nthis is not a PDF body at all\n")
    return path


@pytest.fixture(scope="session")
def truncated_pdf(tagged_pdf: Path, fixture_dir: Path) -> Path:
    data = tagged_pdf.read_bytes()
    path = fixture_dir / "truncated.pdf"
    path.write_bytes(data[: len(data) // 3])
    return path


def first_mutated(papers: list[Path], mutation: Callable[[pikepdf.Pdf, random.Random], Any], out: Path) -> Path:
    """The first paper the (corpus) mutation applies to, mutated and saved as ``out``; skip if none."""
    from corpus.mutations import NotApplicable

    for paper in papers:
        with pikepdf.open(paper) as pdf:
            try:
                mutation(pdf, random.Random(0))
            except NotApplicable:
                continue
            pdf.save(out)
            return out
    pytest.skip(f"{mutation.__name__} applies to none of the synthetic papers")
