"""Mechanical repairs for rules findings, used by `accessbench fix` (tasks/fix.py).

A remedy is declared next to the rules it answers: the rule's entry in judges/rules/catalog/*.toml names
it (`remedy = "th_scope"`), and the function of that name is registered here with `@remedy`. A remedy
edits an open pikepdf copy of the document (never the original file) and returns what it changed, or why
it changed nothing (`left`): a remedy only does what the file itself implies (the table's geometry, the
labels a reader sees, the text under a link), never what needs the content's meaning.

Findings of rules without a remedy stay for a person, each with a reason (`reason_for`): *needs a model*
(alt text, link descriptions: words only a reader of the picture or the target can write), *needs meaning*
(which text is a heading, which order is right) or *not mechanically fixable* (fonts, colours, targets
the file does not hold).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pikepdf
import pymupdf
from pikepdf import Array, Dictionary, Name

from corpus.mutations.structure import kids, stype
from extractors.structure import StructTree, extract_struct_elements, is_standard_type, read_struct_tree
from judges.rules.catalog import Rule, catalog

NEEDS_MODEL = "needs a model"
NEEDS_MEANING = "needs meaning"
NOT_MECHANICAL = "not mechanically fixable"

# Rules whose repair is words about the content: a model (or a person) has to write them.
_MODEL_RULES = ("alt_text_quality", "functional_hyperlinks.descriptiveness.nothing_to_announce",
                "semantic_tagging.proper_tag_usage.figure_as_text")
# Rules whose repair needs something the file does not hold: a font program, a colour choice, a target.
_NOT_MECHANICAL_RULES = ("fonts_readability", "color_contrast", "functional_hyperlinks.functionality",
                         "semantic_tagging.structural_hierarchy.accessibility_permission_denied",
                         "semantic_tagging.structural_hierarchy.pdfua_identifier_missing")


@dataclass
class Outcome:
    """What one remedy did to one document: the changes made, or why it made none (`left`)."""

    changes: list[str] = field(default_factory=list)
    left: str | None = None  # "<reason>: <why>" when the finding stays for a person


@dataclass
class Context:
    """The document being repaired: the open copy, its tag tree and the extracted text of its elements."""

    pdf: pikepdf.Pdf
    source: Path  # the original file (read only)
    lang: str | None = None  # --lang: the document language when no detector can tell
    _tree: StructTree | None = None
    _records: list[dict[str, Any]] | None = None

    @property
    def tree(self) -> StructTree:
        if self._tree is None:
            self._tree = read_struct_tree(self.pdf)
        return self._tree

    def refresh_tree(self) -> None:
        self._tree = None

    @property
    def records(self) -> list[dict[str, Any]]:
        """struct_elements records of the original, in the same preorder as `tree.nodes`."""
        if self._records is None:
            self._records = extract_struct_elements(self.source, doc_id="fix")
        return self._records


Remedy = Callable[[Context], Outcome]
REMEDIES: dict[str, Remedy] = {}


def remedy(name: str) -> Callable[[Remedy], Remedy]:
    def register(function: Remedy) -> Remedy:
        if name in REMEDIES:
            raise ValueError(f"remedy {name!r} is registered twice")
        REMEDIES[name] = function
        return function
    return register


def remedy_for(rule_id: str) -> str | None:
    rule: Rule | None = catalog().get(rule_id)
    return rule.remedy or None if rule else None


def reason_for(rule_id: str) -> str:
    """Why a finding of a rule without a (successful) remedy stays for a person."""
    rule = catalog().get(rule_id)
    if any(rule_id == p or rule_id.startswith(p + ".") for p in _MODEL_RULES):
        return NEEDS_MODEL
    if any(rule_id == p or rule_id.startswith(p + ".") for p in _NOT_MECHANICAL_RULES):
        return NOT_MECHANICAL
    if rule is not None and rule.remedy:
        return NOT_MECHANICAL  # it has a remedy, and the remedy could not clear it
    return NEEDS_MEANING


# Remedies run in this order: the role map first (types resolve before headings are renumbered).
ORDER = ("role_map", "heading_levels", "list_numbering", "th_scope", "tab_order", "link_contents",
         "document_lang", "display_doc_title", "xmp_title")


def _attribute_owner(element: pikepdf.Object, owner: str) -> pikepdf.Dictionary:
    """The element's /A attribute dictionary of `owner` (/Table, /List), created when missing."""
    existing = element.get("/A")
    if isinstance(existing, Dictionary) and existing.get("/O") == Name(owner):
        return existing
    if isinstance(existing, Array):
        for item in existing:
            if isinstance(item, Dictionary) and item.get("/O") == Name(owner):
                return item
    new = Dictionary(O=Name(owner))
    if existing is None:
        element.A = new
    elif isinstance(existing, Array):
        existing.append(new)
    else:
        element.A = Array([existing, new])
    return new


def _scope_of(element: pikepdf.Object) -> str | None:
    attrs = element.get("/A")
    for item in (attrs if isinstance(attrs, Array) else [attrs]):
        if isinstance(item, Dictionary) and "/Scope" in item:
            return str(item.Scope)
    return None


def _table_rows(table: pikepdf.Object) -> list[list[pikepdf.Object]]:
    """The table's rows (TR inside THead/TBody/TFoot or directly), each its TH/TD cells in order."""
    rows: list[list[pikepdf.Object]] = []
    for kid in kids(table):
        if not isinstance(kid, Dictionary):
            continue
        kind = stype(kid)
        if kind in ("/THead", "/TBody", "/TFoot"):
            rows += _table_rows(kid)
        elif kind == "/TR":
            rows.append([c for c in kids(kid) if isinstance(c, Dictionary) and stype(c) in ("/TH", "/TD")])
    return rows


@remedy("th_scope")
def th_scope(ctx: Context) -> Outcome:
    """TH cells without Scope get the Scope the table's geometry implies: a row of header cells only is a
    header row (Column); a header cell that leads a row of data cells heads that row (Row)."""
    out = Outcome()
    for node in ctx.tree.nodes:
        if ctx.tree.type_of(node.raw_type) != "Table":
            continue
        rows = _table_rows(node.obj)
        fixed = {"Column": 0, "Row": 0}
        for r, row in enumerate(rows):
            all_headers = bool(row) and all(stype(c) == "/TH" for c in row)
            for c, cell in enumerate(row):
                if stype(cell) != "/TH" or _scope_of(cell) is not None:
                    continue
                scope = "Column" if all_headers or (r == 0 and c > 0) else "Row" if c == 0 else "Column"
                _attribute_owner(cell, "/Table").Scope = Name("/" + scope)
                fixed[scope] += 1
        if any(fixed.values()):
            out.changes.append(f"table on page {(node.page or 0) + 1}: Scope Column on {fixed['Column']} and "
                               f"Scope Row on {fixed['Row']} header cell(s)")
    if not out.changes:
        out.left = f"{NEEDS_MEANING}: no header cell without Scope in a table of TR rows"
    return out


@remedy("tab_order")
def tab_order(ctx: Context) -> Outcome:
    """Every page with annotations gets /Tabs /S (tab order follows the structure order)."""
    out = Outcome()
    for number, page in enumerate(ctx.pdf.pages, start=1):
        annots = page.obj.get("/Annots")
        if isinstance(annots, Array) and len(annots) and page.obj.get("/Tabs") != Name.S:
            page.obj.Tabs = Name.S
            out.changes.append(f"page {number}: /Tabs /S")
    return out


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@remedy("link_contents")
def link_contents(ctx: Context) -> Outcome:
    """Link annotations without /Contents get the text drawn under them (else their URI)."""
    out = Outcome()
    missing = 0
    with pymupdf.open(ctx.source) as doc:
        for number, page in enumerate(ctx.pdf.pages):
            annots = page.obj.get("/Annots")
            if not isinstance(annots, Array):
                continue
            shown = doc[number]
            for annot in annots:
                if not isinstance(annot, Dictionary) or annot.get("/Subtype") != Name.Link:
                    continue
                if _clean(str(annot.get("/Contents", ""))):
                    continue
                rect = pymupdf.Rect([float(v) for v in annot.get("/Rect", [0, 0, 0, 0])])
                rect = pymupdf.Rect(min(rect.x0, rect.x1), min(rect.y0, rect.y1), max(rect.x0, rect.x1),
                                    max(rect.y0, rect.y1)) * shown.transformation_matrix
                text = _clean(shown.get_textbox(rect))
                action = annot.get("/A")
                uri = str(action.get("/URI", "")) if isinstance(action, Dictionary) else ""
                contents = text or (f"link to {uri}" if uri else "")
                if not contents:
                    missing += 1
                    continue
                annot.Contents = pikepdf.String(contents[:200])
                out.changes.append(f"page {number + 1}: link /Contents “{contents[:60]}”")
    if missing:
        out.left = f"{NEEDS_MODEL}: {missing} link(s) with no text under them and no URI to describe"
    return out


BULLET = re.compile(r"^[\u2022\u2023\u25e6\u2043\u2219\u25aa\u25cf\u25cb\u25a0\u25a1\u2013\u2014*\-\u00b7]$")
_NUMBER_STYLES = ((re.compile(r"^\d+[.)]?$"), "Decimal"), (re.compile(r"^[ivxlc]+[.)]$"), "LowerRoman"),
                  (re.compile(r"^[IVXLC]+[.)]$"), "UpperRoman"), (re.compile(r"^[a-z][.)]$"), "LowerAlpha"),
                  (re.compile(r"^[A-Z][.)]$"), "UpperAlpha"))


def _numbering(label: str) -> str | None:
    label = label.strip().strip("()")
    if not label:
        return None
    if BULLET.match(label):
        return "Disc"
    for pattern, style in _NUMBER_STYLES:
        if pattern.match(label):
            return style
    return None


@remedy("list_numbering")
def list_numbering(ctx: Context) -> Outcome:
    """Each list whose labels agree on one style (bullets, 1., a), i.) declares that ListNumbering."""
    out = Outcome()
    nodes, records = ctx.tree.nodes, ctx.records
    if len(records) != len(nodes):
        return Outcome(left=f"{NOT_MECHANICAL}: the tag tree could not be read whole")
    children: dict[int, list[int]] = {}
    for i, node in enumerate(nodes):
        if node.parent is not None:
            children.setdefault(node.parent, []).append(i)
    for i, node in enumerate(nodes):
        if ctx.tree.type_of(node.raw_type) != "L":
            continue
        labels = [records[lbl].get("text") or "" for li in children.get(i, [])
                  if ctx.tree.type_of(nodes[li].raw_type) == "LI"
                  for lbl in children.get(li, []) if ctx.tree.type_of(nodes[lbl].raw_type) == "Lbl"]
        styles = [s for s in map(_numbering, labels) if s]
        if len(styles) < 2:
            continue
        style = max(set(styles), key=styles.count)
        if styles.count(style) < 0.8 * len(styles):
            continue
        attrs = _attribute_owner(node.obj, "/List")
        current = str(attrs.get("/ListNumbering", "/None")).lstrip("/")
        if current != style and not (style == "Disc" and current in ("Circle", "Square")):
            attrs.ListNumbering = Name("/" + style)
            out.changes.append(f"list “{labels[0].strip()} …” on page {(node.page or 0) + 1}: ListNumbering "
                               f"{current} → {style}")
    return out


@remedy("heading_levels")
def heading_levels(ctx: Context) -> Outcome:
    """Numbered headings renumbered to nest: the first becomes H1 and each later one goes at most one level
    below the heading before it (H1, H3 → H1, H2); a level that already nests is kept as written."""
    out = Outcome()
    previous: int | None = None
    for node in ctx.tree.nodes:
        match = re.fullmatch(r"H([1-6])", ctx.tree.type_of(node.raw_type))
        if not match:
            continue
        level = int(match.group(1))
        new = 1 if previous is None else min(level, previous + 1)
        previous = new
        if new != level:
            node.obj.S = Name(f"/H{new}")
            out.changes.append(f"heading on page {(node.page or 0) + 1}: H{level} → H{new}")
    return out


# Private structure types whose standard meaning the name says outright.
OBVIOUS_ROLES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), t) for p, t in (
    (r"(heading|head|header|h)[ _-]?([1-6])", r"H\2"), (r"(para|paragraph|normal|body[ _-]?text|text)", "P"),
    (r"(image|picture|graphic|img|illustration)", "Figure"), (r"(list|ul|ol)", "L"),
    (r"(list[ _-]?item|item)", "LI"), (r"(label|list[ _-]?label)", "Lbl"), (r"(list[ _-]?body)", "LBody"),
    (r"(table[ _-]?row|row)", "TR"), (r"(table[ _-]?header|header[ _-]?cell)", "TH"),
    (r"(table[ _-]?cell|data[ _-]?cell|cell)", "TD"), (r"(foot[ _-]?note|end[ _-]?note)", "Note"),
    (r"(section)", "Sect"), (r"(article)", "Art"), (r"(block[ _-]?quote|quotation)", "BlockQuote"),
    (r"(hyperlink|anchor)", "Link"), (r"(equation|math)", "Formula"), (r"(inline|span[ _-]?text)", "Span"),
    (r"(block|division)", "Div"), (r"(figure[ _-]?caption|table[ _-]?caption)", "Caption"),
))


def obvious_role(raw_type: str) -> str | None:
    for pattern, target in OBVIOUS_ROLES:
        match = pattern.fullmatch(raw_type.strip())
        if match:
            return match.expand(target)
    return None


@remedy("role_map")
def role_map(ctx: Context) -> Outcome:
    """RoleMap entries for private types whose name says their standard type (Heading1 → H1, Para → P)."""
    out = Outcome()
    private = sorted({n.raw_type for n in ctx.tree.nodes if not is_standard_type(ctx.tree.type_of(n.raw_type))})
    unclear = []
    root = ctx.pdf.Root.StructTreeRoot
    for raw in private:
        target = obvious_role(raw)
        if target is None:
            unclear.append(raw)
            continue
        if not isinstance(root.get("/RoleMap"), Dictionary):
            root.RoleMap = Dictionary()
        root.RoleMap[Name("/" + raw)] = Name("/" + target)
        out.changes.append(f"RoleMap /{raw} → /{target}")
    ctx.refresh_tree()
    if unclear:
        out.left = f"{NEEDS_MEANING}: no obvious standard type for {', '.join(unclear[:4])}"
    return out


def detect_language(text: str) -> str | None:
    """The text's language as a BCP 47 tag, where a language detector (langdetect) is installed."""
    try:
        from langdetect import detect
    except ImportError:
        return None
    try:
        return str(detect(text)) if len(text) >= 40 else None
    except Exception:  # noqa: BLE001 - langdetect raises its own exception for text it cannot tell
        return None


@remedy("document_lang")
def document_lang(ctx: Context) -> Outcome:
    """A document /Lang: the text's language (with a detector installed), else the language every tagged
    element already declares, else --lang; without any of them the finding stays."""
    if str(ctx.pdf.Root.get("/Lang", "")).strip():
        return Outcome()
    with pymupdf.open(ctx.source) as doc:
        text = " ".join(page.get_text() for page in list(doc)[:3])
    lang, how = detect_language(text), "detected from the text"
    if not lang:
        declared = {str(n.obj.get("/Lang")) for n in ctx.tree.nodes if n.obj.get("/Lang") is not None}
        lang, how = (declared.pop(), "declared by the tagged elements") if len(declared) == 1 else (None, "")
    if not lang and ctx.lang:
        lang, how = ctx.lang, "from --lang"
    if not lang:
        return Outcome(left=f"{NEEDS_MEANING}: the language is unknown; give --lang (e.g. --lang en) or install "
                            "langdetect")
    ctx.pdf.Root.Lang = pikepdf.String(lang)
    return Outcome(changes=[f"document /Lang {lang} ({how})"])


@remedy("display_doc_title")
def display_doc_title(ctx: Context) -> Outcome:
    """/ViewerPreferences /DisplayDocTitle true: viewers show the title, not the file name."""
    prefs = ctx.pdf.Root.get("/ViewerPreferences")
    if not isinstance(prefs, Dictionary):
        ctx.pdf.Root.ViewerPreferences = prefs = Dictionary()
    if prefs.get("/DisplayDocTitle") is True:
        return Outcome()
    prefs.DisplayDocTitle = True
    return Outcome(changes=["/ViewerPreferences /DisplayDocTitle true"])


@remedy("xmp_title")
def xmp_title(ctx: Context) -> Outcome:
    """The XMP dc:title from the document information's /Title (PDF/UA-1 7.1 asks for it in XMP)."""
    info = ctx.pdf.trailer.get("/Info")
    title = _clean(str(info.get("/Title", ""))) if isinstance(info, Dictionary) else ""
    if not title:
        return Outcome(left=f"{NEEDS_MEANING}: the document has no /Title to copy; a person has to name it")
    with ctx.pdf.open_metadata(set_pikepdf_as_editor=False) as meta:
        meta["dc:title"] = title
    return Outcome(changes=[f"XMP dc:title “{title[:60]}” (from /Title)"])
