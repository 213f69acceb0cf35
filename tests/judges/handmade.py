"""PDF/UA-1 files written by hand with pikepdf, no typesetter: a Type3 font with a ToUnicode map (its glyphs
are boxes), tags written element by element, artifacts where we say, and a form field with /TU. The public
suites' valid files are made like this (one feature each, little text), so our rules must pass them too."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pikepdf
from pikepdf import Array, Dictionary, Name, String

# (structure type, or None for an /Artifact sequence; type size; x; y from the bottom; text)
Block = tuple[str | None, float, float, float, str]
Extra = Callable[[pikepdf.Pdf, pikepdf.Page, pikepdf.Dictionary, pikepdf.Dictionary], None]
_CMAP = b"""/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <00> <FF> endcodespacerange
1 beginbfrange <20> <7E> <0020> endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end"""


def _type3(pdf: pikepdf.Pdf) -> pikepdf.Dictionary:
    """A Type3 font for the printable ASCII range: each glyph a filled box (taller for capitals), the space
    empty, every code mapped to its Unicode value."""
    procs, widths = Dictionary(), []
    for code in range(32, 127):
        char = chr(code)
        if char == " ":
            procs[f"/g{code}"] = pdf.make_stream(b"250 0 d0")
            widths.append(250)
            continue
        top = 500 if char.isupper() or char.isdigit() else 450 if char.isalpha() else 100
        procs[f"/g{code}"] = pdf.make_stream(b"500 0 0 0 450 700 d1 50 0 350 %d re f" % top)
        widths.append(500)
    encoding = Dictionary(Type=Name.Encoding, Differences=Array([32, *(Name(f"/g{c}") for c in range(32, 127))]))
    return pdf.make_indirect(Dictionary(
        Type=Name.Font, Subtype=Name.Type3, FontBBox=[0, 0, 500, 700], FontMatrix=[0.001, 0, 0, 0.001, 0, 0],
        CharProcs=procs, Encoding=encoding, FirstChar=32, LastChar=126, Widths=Array(widths),
        Resources=Dictionary(), ToUnicode=pdf.make_stream(_CMAP)))


def write_handmade(out: Path, title: str, blocks: Sequence[Block], extra: Extra | None = None) -> Path:
    """One page of ``blocks`` under a Document element: a PDF/UA-1 file (Lang, title shown, MarkInfo, XMP
    identifier, parent tree, /Tabs /S). ``extra`` adds to it (pdf, page, Document element, tree root)."""
    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(420, 595))
    page.Resources = Dictionary(Font=Dictionary(T3=_type3(pdf)))
    document = pdf.make_indirect(Dictionary(Type=Name.StructElem, S=Name.Document))
    root = pdf.make_indirect(Dictionary(Type=Name.StructTreeRoot, K=Array([document])))
    document.P = root
    content: list[str] = []
    kids: list[pikepdf.Dictionary] = []
    for kind, size, x, y, text in blocks:
        show = f"BT /T3 {size} Tf {x} {y} Td ({text}) Tj ET"
        if kind is None:
            content.append(f"/Artifact BMC {show} EMC")
            continue
        kids.append(pdf.make_indirect(Dictionary(Type=Name.StructElem, S=Name("/" + kind), P=document,
                                                 K=len(kids), Pg=page.obj)))
        content.append(f"/{kind} <</MCID {len(kids) - 1}>> BDC {show} EMC")
    document.K = Array(kids)
    page.Contents = pdf.make_stream("\n".join(content).encode())
    page.StructParents = 0
    page.Tabs = Name.S
    root.ParentTree = pdf.make_indirect(Dictionary(Nums=Array([0, pdf.make_indirect(Array(kids))])))
    root.ParentTreeNextKey = 1
    pdf.Root.StructTreeRoot = root
    pdf.Root.MarkInfo = Dictionary(Marked=True)
    pdf.Root.Lang = String("en")
    pdf.Root.ViewerPreferences = Dictionary(DisplayDocTitle=True)
    pdf.docinfo.Title = String(title)
    with pdf.open_metadata(set_pikepdf_as_editor=False) as meta:
        meta["dc:title"] = title
        meta["pdfuaid:part"] = "1"
    if extra is not None:
        extra(pdf, page, document, root)
    pdf.save(out)
    return out


def text_field(pdf: pikepdf.Pdf, page: pikepdf.Page, document: pikepdf.Dictionary, root: pikepdf.Dictionary) -> None:
    """A text field (a Widget with /TU, tagged Form through an OBJR; PDF/UA-1 7.18.4)."""
    widget = pdf.make_indirect(Dictionary(
        Type=Name.Annot, Subtype=Name.Widget, FT=Name.Tx, T=String("name"), TU=String("Your full name"),
        Rect=[40, 440, 240, 460], F=4, P=page.obj, StructParent=1, DA=String("/T3 11 Tf 0 g"),
        AP=Dictionary(N=pdf.make_stream(b"", Type=Name.XObject, Subtype=Name.Form, BBox=[0, 0, 200, 20]))))
    page.Annots = Array([widget])
    form = pdf.make_indirect(Dictionary(Type=Name.StructElem, S=Name.Form, P=document, Pg=page.obj,
                                        K=Dictionary(Type=Name.OBJR, Obj=widget, Pg=page.obj)))
    document.K = Array([*document.K, form])
    root.ParentTree.Nums = Array([*root.ParentTree.Nums, 1, form])
    root.ParentTreeNextKey = 2
    pdf.Root.AcroForm = Dictionary(Fields=Array([widget]), DA=String("/T3 11 Tf 0 g"),
                                   DR=Dictionary(Font=Dictionary(T3=page.Resources.Font.T3)))


def language_on_span(pdf: pikepdf.Pdf, page: pikepdf.Page, document: pikepdf.Dictionary,
                     root: pikepdf.Dictionary) -> None:
    """The French Span declares its own language (PDF/UA-1 7.2)."""
    for element in document.K:
        if element.S == "/Span":
            element.Lang = String("fr")
