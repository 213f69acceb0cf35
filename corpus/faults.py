"""A fault corpus: hundreds of damaged or hostile variants of generated papers, deterministic per seed.

Each variant starts from a typst-made tagged paper and breaks it one way a real-world file can be
broken: flipped bytes, truncation, a broken or deleted cross-reference table, odd strings in names,
alt text and URIs (NULs, invalid UTF-16, 100 kB), huge arrays, deeply nested structure, a page tree
that loops. The pipeline must end every one of them as labels or error rows without a failed stage
(`benchmarks/faults.py` prints the table; `tests/tasks/test_faults.py` runs it).
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable
from pathlib import Path

import pikepdf

from corpus.typst_docs import compile_base_doc, make_base_doc

Mutation = Callable[[bytes, random.Random], bytes]


def _flip(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice((1, 4, 32, 256))):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: max(16, int(len(data) * rng.choice((0.1, 0.3, 0.5, 0.7, 0.9, 0.99))))]


def _break_xref(data: bytes, rng: random.Random) -> bytes:
    choice = rng.randrange(3)
    if choice == 0:
        return re.sub(rb"startxref\s+\d+", b"startxref\n" + str(rng.randrange(10**7)).encode(), data)
    if choice == 1:
        return re.sub(rb"startxref\s+\d+\s*%%EOF\s*$", b"", data)  # no trailer pointer at all
    return data.replace(b"/Type /XRef", b"/Type /Junk", 1).replace(b"xref\n", b"xxxx\n", 1)


def _with_pdf(change: Callable[[pikepdf.Pdf, random.Random], None]) -> Mutation:
    def mutate(data: bytes, rng: random.Random) -> bytes:
        with pikepdf.open(io.BytesIO(data)) as pdf:
            change(pdf, rng)
            out = io.BytesIO()
            pdf.save(out)
            return out.getvalue()
    return mutate


ODD = (b"\x00nul\x00", b"\xfe\xff\xd8\x00", b"\xff\xfe\x00\xd8", b"\xfe\xff" + b"\xdc\x00" * 8, b"x" * 100_000,
       "caf\u00e9 \u202e\u200b".encode("utf-16"), b"\x1b[31mred\x1b[0m", b"[/bold] [x]")


def _elements(pdf: pikepdf.Pdf) -> list[pikepdf.Dictionary]:
    root = pdf.Root.get("/StructTreeRoot")
    found: list[pikepdf.Dictionary] = []
    stack = [root.get("/K")] if root is not None else []
    while stack and len(found) < 5000:
        item = stack.pop()
        if isinstance(item, pikepdf.Array):
            stack.extend(item)
        elif isinstance(item, pikepdf.Dictionary) and "/S" in item:
            found.append(item)
            stack.append(item.get("/K"))
    return found


def _odd_strings(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    odd = pikepdf.String(rng.choice(ODD))
    target = rng.randrange(4)
    elements = _elements(pdf)
    if target == 0 and elements:
        for element in rng.sample(elements, min(5, len(elements))):
            element["/Alt"] = odd
    elif target == 1:
        for page in pdf.pages:
            for annot in page.get("/Annots") or []:
                action = annot.get("/A")
                if isinstance(action, pikepdf.Dictionary):
                    action["/URI"] = odd
                annot["/Contents"] = odd
    elif target == 2:
        for page in pdf.pages:
            for font in (page.Resources.get("/Font") or {}).values():
                font["/BaseFont"] = pikepdf.Name("/" + "".join(rng.choice("AZ#09_") for _ in range(40)))
    else:
        pdf.docinfo["/Title"] = odd
        pdf.docinfo["/Producer"] = odd


def _huge_array(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    page = pdf.pages[0]
    if rng.random() < 0.5:
        page.obj["/Annots"] = pikepdf.Array([pikepdf.Dictionary()] * 20_000)
    else:
        elements = _elements(pdf)
        if elements:
            elements[0]["/K"] = pikepdf.Array(list(range(50_000)))


def _deep_nesting(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    root = pdf.Root.get("/StructTreeRoot")
    if root is None:
        return
    node = pikepdf.Dictionary(S=pikepdf.Name("/P"), K=pikepdf.Array())
    top = node
    for _ in range(rng.choice((500, 3000))):
        child = pikepdf.Dictionary(S=pikepdf.Name("/Div"), K=pikepdf.Array())
        node.K.append(pdf.make_indirect(child))
        node = child
    kids = root.get("/K")
    if isinstance(kids, pikepdf.Array):
        kids.append(pdf.make_indirect(top))


def _page_loop(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    pages = pdf.Root.Pages
    pages.Kids.append(pages)  # a Pages node that contains itself
    pages.Count = int(pages.Count) + 1


MUTATIONS: dict[str, Mutation] = {
    "byte_flips": _flip,
    "truncated": _truncate,
    "broken_xref": _break_xref,
    "odd_strings": _with_pdf(_odd_strings),
    "huge_array": _with_pdf(_huge_array),
    "deep_nesting": _with_pdf(_deep_nesting),
    "page_tree_loop": _with_pdf(_page_loop),
}


def build_fault_corpus(folder: Path, count: int = 210, seed: int = 0, bases: int = 3) -> dict[str, str]:
    """Write `count` variants (round robin over MUTATIONS) under `folder`; returns file name → mutation."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    papers = [compile_base_doc(make_base_doc(i, seed)) for i in range(bases)]
    made: dict[str, str] = {}
    names = list(MUTATIONS)
    for number in range(count):
        kind = names[number % len(names)]
        data = MUTATIONS[kind](papers[number % len(papers)], rng)
        name = f"fault-{number:04d}-{kind}.pdf"
        (folder / name).write_bytes(data)
        made[name] = kind
    return made
