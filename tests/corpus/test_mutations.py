"""Each mutation changes the evidence its label is about, and nothing else a judge could key on.

Every edit in the registry is applied to the first base document it fits; the check for its
effect must fail on the base and pass on the variant. PDF mutations must keep the page count,
the extracted text (except the ToUnicode removal, whose point is the text) and, unless they
are about appearance, the rendered pages pixel for pixel. Re-rendered variants must keep the
words (or drop only the removed element's words).
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from typing import Any

import pikepdf
import pymupdf
import pytest

from corpus.mutations import CRITERION_MUTATIONS, Edit, NotApplicable, Rerender
from corpus.typst_docs import BaseDoc, compile_base_doc, make_base_doc
from tests.corpus import evidence as ev

POOL_SIZE = 8
VISUAL = {"body_text_faint", "headings_faint", "captions_faint", "backgrounds_darkened", "graphics_washed_out",
          "font_unembedded"}
GENERIC_WORDS = 3  # an alt text this short says nothing specific


@pytest.fixture(scope="module")
def pool() -> list[tuple[BaseDoc, bytes]]:
    docs = [make_base_doc(i, seed=0) for i in range(POOL_SIZE)]
    return [(doc, compile_base_doc(doc)) for doc in docs]


def _apply(doc: BaseDoc, base: bytes, edit: Edit, seed: int = 0) -> bytes:
    rng = random.Random(seed)
    if isinstance(edit, Rerender):
        return compile_base_doc(doc, edit.options(doc, rng))
    with pikepdf.open(io.BytesIO(base)) as pdf:
        edit(pdf, rng)
        buf = io.BytesIO()
        pdf.save(buf)
        return buf.getvalue()


def _first_fit(pool: list[tuple[BaseDoc, bytes]], edit: Edit) -> tuple[BaseDoc, bytes, bytes]:
    for doc, base in pool:
        try:
            return doc, base, _apply(doc, base, edit)
        except NotApplicable:
            continue
    raise AssertionError("no pool document fits this edit")


# --------------------------------------------------------------------------- effect checks

Check = Callable[[bytes, bytes], bool]


def _alts(data: bytes) -> list[str | None]:
    with ev.open_pdf(data) as pdf:
        return [str(f.Alt) if "/Alt" in f else None for f in ev.of_type(pdf, "/Figure")]


def _changed_alts(base: bytes, new: bytes) -> list[str | None]:
    return [n for b, n in zip(_alts(base), _alts(new), strict=True) if b != n]


def _per_table(data: bytes, summary: Callable[[pikepdf.Pdf, Any], Any]) -> list[Any]:
    with ev.open_pdf(data) as pdf:
        return [summary(pdf, t) for t in ev.of_type(pdf, "/Table")]


def _th_count(pdf: pikepdf.Pdf, table: Any) -> int:
    return len(ev.of_type(pdf, "/TH", top=table))


def _associations(pdf: pikepdf.Pdf, table: Any) -> tuple[int, int]:
    """(TH with Scope, TD with non-empty Headers)."""
    ths = [c for c in ev.of_type(pdf, "/TH", top=table) if "/Scope" in ev.table_attrs(c)]
    tds = [c for c in ev.of_type(pdf, "/TD", top=table) if len(ev.table_attrs(c).get("/Headers", [])) > 0]
    return len(ths), len(tds)


def _headers(pdf: pikepdf.Pdf, table: Any) -> list[tuple[str, ...]]:
    return [tuple(str(h) for h in ev.table_attrs(c).get("/Headers", [])) for c in ev.of_type(pdf, "/TD", top=table)]


def _span_cells(pdf: pikepdf.Pdf, table: Any) -> int:
    return sum(1 for c in ev.of_type(pdf, "/TH", "/TD", top=table)
               if any(int(ev.table_attrs(c).get(k, 1)) > 1 for k in ("/ColSpan", "/RowSpan")))


def _rows(pdf: pikepdf.Pdf, table: Any) -> int:
    return len(ev.of_type(pdf, "/TR", top=table))


def _lost(summary: Callable[[pikepdf.Pdf, Any], Any], lost: Callable[[Any, Any], bool]) -> Check:
    """Some table's summary went from the base value to a 'lost' one (tables matched by order)."""
    def check(base: bytes, new: bytes) -> bool:
        before, after = _per_table(base, summary), _per_table(new, summary)
        return len(before) == len(after) and any(lost(b, a) for b, a in zip(before, after, strict=True))
    return check


def _order_broken(base: bytes, new: bytes) -> bool:
    with ev.open_pdf(new) as pdf:
        return ev.order_violations(pdf) > 0


def _columns_interleaved(base: bytes, new: bytes) -> bool:
    with ev.open_pdf(base) as before, ev.open_pdf(new) as after:
        return ev.order_violations(after) > 0 and ev.column_switches(after) > ev.column_switches(before) + 1


def _note_parents(data: bytes) -> dict[str, tuple[int, int]]:
    with ev.open_pdf(data) as pdf:
        positions = ev.painted_positions(pdf)
        return {str(n.ID): ev.first_position(n.P, positions)[:2] for n in ev.of_type(pdf, "/Note")}


def _footnote_moved(base: bytes, new: bytes) -> bool:
    before, after = _note_parents(base), _note_parents(new)
    with ev.open_pdf(new) as pdf:
        in_order = ev.order_violations(pdf) == 0
    # The note now hangs in another paragraph, while the blocks themselves keep their order.
    return in_order and any(after[k] != before[k] for k in before)


def _span_ratios(data: bytes, keep: Callable[[dict[str, Any], float], bool]) -> list[float]:
    found = ev.spans(data)
    size = ev.body_size(data)
    return [ev.contrast(s["rgb"]) for s in found if keep(s, size)]


def _is_body(span: dict[str, Any], size: float) -> bool:
    return abs(span["size"] - size) < 0.05 and not span["caption"]


def _is_heading(span: dict[str, Any], size: float) -> bool:
    return span["size"] >= size * 1.15 and span["page"] == 0


def _is_caption(span: dict[str, Any], size: float) -> bool:
    return bool(span["caption"])


def _faint(keep: Callable[[dict[str, Any], float], bool], limit: float) -> Check:
    """At least 90% of the selected characters fall below ``limit`` against white."""
    def check(base: bytes, new: bytes) -> bool:
        size = ev.body_size(new)
        chosen = [s for s in ev.spans(new) if keep(s, size)]
        low = sum(len(s["text"]) for s in chosen if ev.contrast(s["rgb"]) < limit)
        return bool(chosen) and low >= 0.9 * sum(len(s["text"]) for s in chosen)
    return check


def _dark_backgrounds(base: bytes, new: bytes) -> bool:
    return any(r < 4.5 for r in ev.background_pairs(new))


def _washed(base: bytes, new: bytes) -> bool:
    with ev.open_pdf(new) as pdf:
        return all(r < 3 for r in ev.image_max_contrast(pdf))


def _unembedded(base: bytes, new: bytes) -> bool:
    return any(ext == "n/a" for _, ext in ev.font_table(new))


def _no_tounicode(base: bytes, new: bytes) -> bool:
    with ev.open_pdf(new) as pdf:
        missing = any("/ToUnicode" not in f for p in pdf.pages for f in p.Resources.Font.values())
    return missing and len(ev.words(new) & ev.words(base)) < 0.6 * len(ev.words(base))


def _crowded(base: bytes, new: bytes) -> bool:
    def advance(data: bytes) -> float:
        size = ev.body_size(data)
        body = [s for s in ev.spans(data) if _is_body(s, size) and len(s["text"]) > 20]
        return sum((s["bbox"][2] - s["bbox"][0]) / len(s["text"]) for s in body) / len(body)
    return advance(new) < 0.9 * advance(base)


def _families(data: bytes) -> int:
    size = ev.body_size(data)
    return len({s["font"].split("-")[0] for s in ev.spans(data) if _is_body(s, size)})


def _figures_removed(base: bytes, new: bytes) -> bool:
    with ev.open_pdf(new) as pdf, pymupdf.open(stream=new, filetype="pdf") as doc:
        return not ev.of_type(pdf, "/Figure") and not any(page.get_images() for page in doc)


def _tables_removed(base: bytes, new: bytes) -> bool:
    with ev.open_pdf(new) as pdf:
        return not ev.of_type(pdf, "/Table", "/TH", "/TD") and "Table 1" not in "".join(ev.texts(new))


def _tagging(pdf_check: Callable[[pikepdf.Pdf], bool]) -> Check:
    def check(base: bytes, new: bytes) -> bool:
        with ev.open_pdf(new) as pdf:
            return pdf_check(pdf)
    return check


def _skipped_heading(pdf: pikepdf.Pdf) -> bool:
    previous = 0
    for stype in ev.types(pdf):
        match = ev.HEADING.match(stype)
        if match:
            if int(match.group(1)) > previous + 1:
                return True
            previous = int(match.group(1))
    return False


def _links(data: bytes) -> list[Any]:
    with ev.open_pdf(data) as pdf:
        return [a for p in pdf.pages for a in p.obj.get("/Annots", []) if a.get("/Subtype") == "/Link"]


def _broken_link(base: bytes, new: bytes) -> bool:
    with ev.open_pdf(new) as pdf:
        names = pdf.Root.get("/Names")
        named = {str(k) for k in pikepdf.NameTree(names.Dests)} if names is not None and "/Dests" in names else set()
        for annot in (a for p in pdf.pages for a in p.obj.get("/Annots", []) if a.get("/Subtype") == "/Link"):
            dest = annot.get("/Dest")
            if isinstance(dest, pikepdf.String) and str(dest) not in named:
                return True
            if isinstance(dest, pikepdf.Array) and isinstance(dest[0], int) and dest[0] >= len(pdf.pages):
                return True
            uri = str(annot.A.URI) if "/A" in annot and annot.A.get("/S") == "/URI" else None
            if uri is not None and (not uri.startswith(("http://", "https://")) or " " in uri):
                return True
    return False


def _detached(pdf: pikepdf.Pdf) -> bool:
    annots = [a for p in pdf.pages for a in p.obj.get("/Annots", []) if a.get("/Subtype") == "/Link"]
    objrs = [k for e in ev.of_type(pdf, "/Link") for k in ev.kids(e)
             if isinstance(k, pikepdf.Dictionary) and k.get("/Type") == "/OBJR"]
    return bool(annots) and not objrs and not any("/StructParent" in a for a in annots)


EFFECTS: dict[str, Check] = {
    # alt_text_quality
    "alt_generic": lambda b, n: any(a is not None and len(a.split()) <= GENERIC_WORDS for a in _changed_alts(b, n)),
    "alt_file_name": lambda b, n: any(a is not None and a.rsplit(".", 1)[-1].lower() in {"png", "jpg", "eps"}
                                      for a in _changed_alts(b, n)),
    "alt_missing": lambda b, n: None in _changed_alts(b, n),
    "alt_empty": lambda b, n: "" in _changed_alts(b, n),
    "alt_mismatched": lambda b, n: any(a is not None and len(a.split()) > 8 for a in _changed_alts(b, n)),
    "figures_removed": _figures_removed,
    # semantic_tagging
    "heading_level_skip": _tagging(_skipped_heading),
    "first_heading_demoted": _tagging(_skipped_heading),
    "paragraphs_as_spans": _tagging(lambda pdf: "/P" not in ev.types(pdf)),
    "list_items_unwrapped": _tagging(lambda pdf: any(e.S == "/LI" and p.S != "/L" for e, p in ev.walk(pdf))),
    "list_as_paragraph": _tagging(lambda pdf: any(e.S == "/LI" and p.S == "/P" for e, p in ev.walk(pdf))),
    "headings_as_paragraphs": _tagging(lambda pdf: not any(ev.HEADING.match(t) for t in ev.types(pdf))),
    "untagged": _tagging(lambda pdf: "/StructTreeRoot" not in pdf.Root and "/MarkInfo" not in pdf.Root
                         and not any(b"/MCID" in p.obj.Contents.read_bytes() for p in pdf.pages)),
    # logical_reading_order
    "section_moved": _order_broken,
    "heading_after_body": _order_broken,
    "footnote_misplaced": _footnote_moved,
    "columns_interleaved": _columns_interleaved,
    # table_structure
    "th_demoted": _lost(_th_count, lambda b, a: b > 0 and a == 0),
    "header_associations_removed": _lost(_associations, lambda b, a: min(b) > 0 and a == (0, 0)),
    "headers_misassigned": _lost(_headers, lambda b, a: len(b) == len(a)
                                 and sum(x != y for x, y in zip(b, a, strict=True)) > len(b) / 2),
    "rows_flattened": _lost(_rows, lambda b, a: b > 0 and a == 0),
    "table_as_text": lambda b, n: len(_per_table(n, _rows)) < len(_per_table(b, _rows)),
    "spans_dropped": _lost(_span_cells, lambda b, a: b > 0 and a == 0),
    "tables_removed": _tables_removed,
    # functional_hyperlinks
    "links_detached": _tagging(_detached),
    "internal_dest_missing": _broken_link,
    "internal_dest_out_of_range": _broken_link,
    "uri_scheme_typo": _broken_link,
    "uri_missing_colon": _broken_link,
    "uri_embedded_space": _broken_link,
    "links_removed": lambda b, n: not _links(n) and not ev.of_type(ev.open_pdf(n), "/Link"),
    # color_contrast
    "body_text_faint": _faint(_is_body, 4.5),
    "headings_faint": _faint(_is_heading, 3.0),
    "captions_faint": _faint(_is_caption, 4.5),
    "backgrounds_darkened": _dark_backgrounds,
    "graphics_washed_out": _washed,
    # fonts_readability
    "font_unembedded": _unembedded,
    "tounicode_removed": _no_tounicode,
    "letters_crowded": _crowded,
    "body_text_tiny": lambda b, n: ev.body_size(n) < 9,
    "inconsistent_fonts": lambda b, n: _families(n) >= 3,
}

EDITS: dict[str, Edit] = {
    name: edit for spec in CRITERION_MUTATIONS.values()
    for name, edit in [*spec.failed.items(), *([spec.not_present] if spec.not_present else [])]
}


def test_every_edit_has_an_effect_check() -> None:
    assert set(EDITS) == set(EFFECTS)


def _render(data: bytes) -> list[bytes]:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return [page.get_pixmap(dpi=30).samples for page in doc]


@pytest.mark.parametrize("name", sorted(EDITS))
def test_edit_changes_its_evidence_and_nothing_else(name: str, pool: list[tuple[BaseDoc, bytes]]) -> None:
    doc, base, mutated = _first_fit(pool, EDITS[name])
    assert not EFFECTS[name](base, base), "the base must not show the defect already"
    assert EFFECTS[name](base, mutated)
    if isinstance(EDITS[name], Rerender):
        if name in {"figures_removed", "tables_removed"}:
            assert ev.words(mutated) < ev.words(base)
        else:
            assert ev.words(mutated) == ev.words(base)
        return
    assert ev.page_count(mutated) == ev.page_count(base)
    if name != "tounicode_removed":
        assert ev.texts(mutated) == ev.texts(base)
    if name not in VISUAL:
        assert _render(mutated) == _render(base), "a structure-only edit must not change the pages"
    with ev.open_pdf(mutated) as pdf:
        if "/StructTreeRoot" in pdf.Root:
            assert _parents_consistent(pdf)


def _parents_consistent(pdf: pikepdf.Pdf) -> bool:
    """Every element's /P is the element that lists it, and the ParentTree agrees with /K."""
    tree = pikepdf.NumberTree(pdf.Root.StructTreeRoot.ParentTree)
    for elem, parent in ev.walk(pdf):
        if elem.P.objgen != parent.objgen:
            return False
        for kid in ev.kids(elem):
            if isinstance(kid, int) and "/Pg" in elem \
                    and tree[int(elem.Pg.StructParents)][kid].objgen != elem.objgen:
                return False
            is_objr = isinstance(kid, pikepdf.Dictionary) and kid.get("/Type") == "/OBJR"
            if is_objr and tree[int(kid.Obj.StructParent)].objgen != elem.objgen:
                return False
    return True


def test_contrast_edits_use_the_wcag_thresholds(pool: list[tuple[BaseDoc, bytes]]) -> None:
    """The body colour after the edit, read from the page, is below 4.5:1 on white (WCAG formula)."""
    doc, base, mutated = _first_fit(pool, EDITS["body_text_faint"])
    assert min(_span_ratios(base, _is_body)) >= 4.5
    weights: dict[tuple[float, float, float], int] = {}
    size = ev.body_size(mutated)
    for span in ev.spans(mutated):
        if _is_body(span, size):
            weights[span["rgb"]] = weights.get(span["rgb"], 0) + len(span["text"])
    body_colour = max(weights, key=lambda rgb: weights[rgb])
    assert ev.contrast(body_colour, (1.0, 1.0, 1.0)) < 4.5
