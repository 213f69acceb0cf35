"""functional_hyperlinks mutations.

Failed: annotations detached from the tag tree, an internal destination that does not resolve,
or a malformed external URI. Not present: no link annotations and no Link elements.
"""

from __future__ import annotations

import random

import pikepdf
from pikepdf import Array, Name

from corpus.mutations.structure import (
    Mutation,
    NotApplicable,
    PdfObject,
    is_objr,
    iter_struct_elements,
    kids,
    link_annotations,
    named_destinations,
    rebuild_parent_tree,
    set_kids,
    stype,
    unwrap,
)


def _internal_links(pdf: pikepdf.Pdf) -> list[PdfObject]:
    def is_goto(a: PdfObject) -> bool:
        action = a.get("/A")
        return "/Dest" in a or (action is not None and action.get("/S") == Name.GoTo)

    return [a for a in link_annotations(pdf) if is_goto(a)]


def _uri_links(pdf: pikepdf.Pdf) -> list[PdfObject]:
    return [a for a in link_annotations(pdf) if "/A" in a and a.A.get("/S") == Name.URI]


def links_detached(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """Link elements keep their text but lose their OBJR; annotations lose /StructParent."""
    link_elems = [e for e in iter_struct_elements(pdf) if stype(e) == "/Link"]
    if not link_elems:
        raise NotApplicable("no Link elements")
    for elem in link_elems:
        set_kids(elem, [k for k in kids(elem) if not is_objr(k)])
    for annot in link_annotations(pdf):
        if "/StructParent" in annot:
            del annot["/StructParent"]
    rebuild_parent_tree(pdf)


def internal_dest_missing(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """A link to a named destination now names one the document does not define."""
    named = [a for a in _internal_links(pdf) if isinstance(a.get("/Dest"), pikepdf.String)]
    if not named:
        raise NotApplicable("no named-destination links")
    annot = rng.choice(named)
    existing = named_destinations(pdf)
    target = str(annot.Dest) + "-draft"
    while target in existing:
        target += "-old"
    annot.Dest = pikepdf.String(target)


def internal_dest_out_of_range(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """An internal link points at a page index past the end of the document."""
    links = _internal_links(pdf)
    if not links:
        raise NotApplicable("no internal links")
    annot = rng.choice(links)
    dest = Array([len(pdf.pages) + rng.randint(2, 20), Name.Fit])
    if "/A" in annot:
        del annot["/A"]
    annot.Dest = dest


def break_uri(kind: str) -> Mutation:
    def mutate(pdf: pikepdf.Pdf, rng: random.Random) -> None:
        links = _uri_links(pdf)
        if not links:
            raise NotApplicable("no URI links")
        annot = rng.choice(links)
        old = str(annot.A.URI)
        new = malform_uri(old, kind)
        annot.A.URI = pikepdf.String(new)
        if str(annot.get("/Contents", "")) == old:  # typst mirrors the URI into /Contents
            annot.Contents = pikepdf.String(new)

    mutate.__doc__ = f"One external URI becomes malformed ({kind})."
    return mutate


def malform_uri(uri: str, kind: str) -> str:
    """Damage a URI the way hand-edited documents do."""
    scheme, sep, rest = uri.partition("://")
    if not sep:
        raise NotApplicable(f"not an absolute URI: {uri}")
    if kind == "scheme_typo":
        # Drop the second letter ("https" -> "htps"): not a scheme any browser knows. Dropping
        # the last one would turn https into http, which still works.
        return f"{scheme[0]}{scheme[2:]}://{rest}"
    if kind == "missing_colon":
        return f"{scheme}//{rest}"
    if kind == "embedded_space":
        host, slash, path = rest.partition("/")
        return f"{scheme}://{host.replace('.', ' ', 1)}{slash}{path}"
    raise ValueError(f"unknown malformation {kind!r}")


def links_removed(pdf: pikepdf.Pdf, rng: random.Random) -> None:
    """No hyperlinks at all: link annotations go, Link elements are unwrapped into their parent."""
    for page in pdf.pages:
        annots = page.obj.get("/Annots")
        if annots is None:
            continue
        remaining = [a for a in annots if a.get("/Subtype") != Name.Link]
        if remaining:
            page.obj.Annots = Array(remaining)
        else:
            del page.obj["/Annots"]
    if "/StructTreeRoot" in pdf.Root:
        for elem in [e for e in iter_struct_elements(pdf) if stype(e) == "/Link"]:
            unwrap(elem, keep=lambda kid: not is_objr(kid))
        rebuild_parent_tree(pdf)
