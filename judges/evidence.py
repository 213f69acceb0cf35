"""Evidence bundles: what a judge may see for one (document, criterion, page).

The evidence per criterion follows the paper's Table 2. Items marked `withheld_for_cannot_tell`
are dropped for the benchmark's Cannot Tell items — the runner applies that protocol from the
manifest; the judge only notices that the evidence is absent. Evidence that could not be
extracted is absent in the same way. Nothing here carries file paths, manifest fields, PDF
dates or producer: bundles are built from extracted records only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from judges.labels import CRITERIA

# criterion → [(evidence name, withheld for Cannot Tell items)]
EVIDENCE: dict[str, tuple[tuple[str, bool], ...]] = {
    "alt_text_quality": (("page_image", False), ("tag_structure", True), ("figure_crops", False),
                         ("alt_texts", True)),
    "semantic_tagging": (("page_image", False), ("tag_structure", True), ("transcript", True)),
    "logical_reading_order": (("page_image", False), ("reading_order", True), ("transcript", True)),
    "table_structure": (("page_image", False), ("table_crops", False), ("table_tags", True)),
    "functional_hyperlinks": (("page_image", False), ("link_metadata", True), ("tag_structure", True)),
    "color_contrast": (("page_image", False), ("color_values", True)),
    "fonts_readability": (("page_image", False), ("font_metadata", True)),
}
assert set(EVIDENCE) == set(CRITERIA)

TEXT_LIMIT = 80  # characters of element text a bundle carries: enough to recognise, cheap to send


@dataclass
class DocEvidence:
    """Extracted records of one document, grouped for bundle building."""

    doc_id: str
    pages: list[dict[str, Any]] = field(default_factory=list)
    struct_elements: list[dict[str, Any]] = field(default_factory=list)
    doc_structure: list[dict[str, Any]] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    fonts: list[dict[str, Any]] = field(default_factory=list)
    text_spans: list[dict[str, Any]] = field(default_factory=list)
    extract_failed: bool = False


@dataclass
class PageBundle:
    """The evidence of one page for one criterion, as a judge receives it."""

    criterion: str
    page: int
    evidence: dict[str, Any]
    image_path: str | None = None

    def has(self, name: str) -> bool:
        return self.evidence.get(name) is not None


def _strip(row: dict[str, Any], *drop: str) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in {"run_id", "doc_id", *drop} and v not in (None, [], "")}


def _short(text: str | None) -> str | None:
    if text is None:
        return None
    text = " ".join(text.split())
    return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 1] + "…"


def body_size(spans: Iterable[dict[str, Any]]) -> float | None:
    """The dominant text size of a document, weighted by characters."""
    weights: dict[float, int] = {}
    for span in spans:
        size = round(float(span["size"]), 1)
        weights[size] = weights.get(size, 0) + int(span.get("char_count") or 0)
    return max(weights, key=lambda k: weights[k]) if weights else None


def _inside(inner: list[float], outer: list[float], slack: float = 1.0) -> bool:
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack
            and inner[2] <= outer[2] + slack and inner[3] <= outer[3] + slack)


def text_style(bbox: list[float] | None, spans: list[dict[str, Any]]) -> dict[str, Any]:
    """How the text inside a box looks: dominant size and share of bold characters."""
    if not bbox:
        return {}
    sizes: dict[float, int] = {}
    bold = total = 0
    for span in spans:
        if span.get("bbox") and _inside(span["bbox"], bbox):
            chars = int(span.get("char_count") or 0)
            sizes[round(float(span["size"]), 1)] = sizes.get(round(float(span["size"]), 1), 0) + chars
            total += chars
            bold += chars if span.get("bold") else 0
    if not total:
        return {}
    return {"size": max(sizes, key=lambda k: sizes[k]), "bold": round(bold / total, 2)}


def tag_structure(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    if ev.extract_failed:
        return None
    tagged = any(s.get("tagged") for s in ev.doc_structure)
    elements = ev.struct_elements
    page_spans = [s for s in ev.text_spans if s.get("page") == page]
    by_id = {e["elem_id"]: e for e in elements}
    keep: set[int] = set()
    for element in elements:
        if element.get("page") == page:
            node: dict[str, Any] | None = element
            while node is not None and node["elem_id"] not in keep:
                keep.add(node["elem_id"])
                parent = node.get("parent_id")
                node = by_id.get(parent) if parent is not None else None
    prior = [
        int(e["type"][1:]) for e in elements
        if e.get("page") is not None and e["page"] < page and _heading_level(e["type"]) is not None
    ]
    compact = []
    for element in elements:
        if element["elem_id"] not in keep:
            continue
        item = {
            "id": element["elem_id"], "parent": element.get("parent_id"), "type": element["type"],
            "raw_type": element.get("raw_type"), "depth": element.get("depth"), "page": element.get("page"),
            "text": _short(element.get("text")), "alt": element.get("alt"),
            "actual_text": element.get("actual_text"), "scope": element.get("scope"),
            "objr_count": element.get("objr_count"), "mcid_count": element.get("mcid_count"),
        }
        if element.get("page") == page and element.get("text"):
            item.update(text_style(element.get("bbox"), page_spans))
        compact.append({k: v for k, v in item.items() if v is not None})
    return {
        "tagged": tagged,
        "marked": any(s.get("marked") for s in ev.doc_structure),
        "element_count": len(elements),
        "root_types": [e["type"] for e in elements if e.get("parent_id") is None],
        "prior_heading_level": prior[-1] if prior else None,
        "type_counts": _type_counts(elements),
        "body_size": body_size(ev.text_spans),
        "elements": compact,
    }


def _type_counts(elements: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for element in elements:
        counts[element["type"]] = counts.get(element["type"], 0) + 1
    return dict(sorted(counts.items()))


def _heading_level(kind: str) -> int | None:
    if len(kind) == 2 and kind[0] == "H" and kind[1].isdigit():
        return int(kind[1])
    return None


def link_metadata(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    if ev.extract_failed:
        return None
    links = [_strip(link) for link in ev.links if link.get("page") == page]
    link_elements = [
        {"id": e["elem_id"], "page": e.get("page"), "objr_count": e.get("objr_count", 0),
         "text": _short(e.get("text")), "alt": e.get("alt")}
        for e in ev.struct_elements if e["type"] == "Link" and e.get("page") == page
    ]
    return {"links": links, "link_elements": link_elements,
            "tagged": any(s.get("tagged") for s in ev.doc_structure)}


def font_metadata(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    if ev.extract_failed:
        return None
    fonts = [_strip(f) for f in ev.fonts if page in (f.get("pages") or [])]
    spans = [s for s in ev.text_spans if s.get("page") == page]
    sizes: dict[float, int] = {}
    for span in spans:
        sizes[round(span["size"], 1)] = sizes.get(round(span["size"], 1), 0) + int(span.get("char_count") or 0)
    return {"fonts": fonts, "chars_by_size": sorted(sizes.items())}


def page_image(ev: DocEvidence, page: int) -> dict[str, Any] | None:
    for row in ev.pages:
        if row["page"] == page:
            return {"width_pt": row.get("width_pt"), "height_pt": row.get("height_pt"),
                    "has_text": row.get("has_text")}
    return None


# Evidence kinds whose extractor has not been wired yet are simply absent (not extractable).
BUILDERS: dict[str, Callable[[DocEvidence, int], dict[str, Any] | None]] = {
    "page_image": page_image,
    "tag_structure": tag_structure,
    "link_metadata": link_metadata,
    "font_metadata": font_metadata,
}


def build_bundles(criterion: str, ev: DocEvidence, *, withhold: bool) -> list[tuple[PageBundle, list[str]]]:
    """One bundle per page, with the names of the evidence withheld by the protocol."""
    page_numbers: Iterable[int] = sorted({p["page"] for p in ev.pages}) or [1]
    image_paths = {p["page"]: p.get("image_path") for p in ev.pages}
    bundles = []
    for page in page_numbers:
        evidence: dict[str, Any] = {}
        withheld: list[str] = []
        for name, starred in EVIDENCE[criterion]:
            if withhold and starred:
                withheld.append(name)
                continue
            builder = BUILDERS.get(name)
            value = builder(ev, page) if builder else None
            if value is not None:
                evidence[name] = value
        bundles.append((PageBundle(criterion, page, evidence, image_paths.get(page)), withheld))
    return bundles
