"""The extract stage's work in a worker: every evidence table of one document (tag tree, links, fonts, text spans
with colour contrast, reading order, tables, figures, conformance), and its chain item."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common import geometry
from common.progress import in_shares
from common.rows import Rows
from tasks.engine.documents import add_run_id, content_key, document_files, error_row
from tasks.engine.failures import PartialFailure
from warehouse.text_columns import CONTRAST_COLUMNS

if TYPE_CHECKING:
    from extractors.source import PdfSource

# The extractors (PyMuPDF, pikepdf, numpy) are imported by the functions that run them.

# The stage's tables, in the order `tasks.benchmark.extract.EXTRACT_TABLES` declares them.
EXTRACT_TABLE_NAMES = ("struct_elements", "links", "orphan_link_elements", "fonts", "text_spans", "doc_structure",
                       "reading_order", "tables", "table_cells", "figures", "conformance")
# Columns holding struct element ids, offset so ids stay unique across a document's files.
_ID_COLUMNS = {
    "struct_elements": ("elem_id", "parent_id"),
    "links": ("element_id",),
    "orphan_link_elements": ("elem_id",),
    "reading_order": ("elem_id",),
    "tables": ("table_id",),  # negative ids mark untagged tables and are left alone
    "table_cells": ("table_id", "elem_id"),
    "figures": ("elem_id",),
}


def with_contrast(spans: list[dict[str, Any]], contrast: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Attach each span's measured contrast: the measurement of the same text on the same page
    whose box overlaps the span's most (at least half of the smaller box).

    The two extractions read text with different settings (contrast also sees text off the
    page), so a span may start with a space in one and not the other: boxes are compared by
    overlap, not by exact position.
    """
    measured: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for row in contrast:
        if row.get("bbox"):
            measured.setdefault((row["page"], row["text"].strip()), []).append(row)
    out = []
    for span in spans:
        text = span["text"].strip()
        best, match = 0.0, None
        for row in measured.get((span["page"], text), ()) if text else ():
            overlap = geometry.overlap_of_smaller(span["bbox"], row["bbox"])
            if overlap > best:  # ties keep the earlier measurement
                best, match = overlap, row
                if overlap >= 1.0:  # no later one can overlap more: stop (a page repeats "," hundreds of times)
                    break
        if best < 0.5:
            match = None
        out.append({**span, **{c: (match or {}).get(c) for c in CONTRAST_COLUMNS}})
    return out


def extract_file(pdf: str | Path | PdfSource, doc_id: str, page_offset: int, id_offset: int, crops: Path | None,
                 crop_dpi: int, regions: list[dict[str, Any]], tag_tree: str = "pikepdf"
                 ) -> dict[str, list[dict[str, Any]]]:
    """Every evidence table of one PDF file (pages numbered from `page_offset` + 1).

    Figure and table crops (PNG, for model judges) go under `crops`; None makes none (`crop_path` empty): a run
    whose judges are the rules judge and checkers reads none (`RunConfig.model_evidence`).

    All extractors share one :class:`PdfSource`: the file is parsed once and each page
    interpreted once, whatever number of extractors read it.
    """
    from extractors.source import pdf_source

    with pdf_source(pdf) as source:
        return _extract_file(source, doc_id, page_offset, id_offset, crops, crop_dpi, regions, tag_tree)


_PASSES = 10  # the `done(...)` passes of `_extract_file`, crops of figures and tables counted as one


def _extract_file(source: PdfSource, doc_id: str, page_offset: int, id_offset: int, crops: Path | None, crop_dpi: int,
                  regions: list[dict[str, Any]], tag_tree: str = "pikepdf") -> dict[str, list[dict[str, Any]]]:
    from extractors.contrast import extract_contrast
    from extractors.figures import extract_figures, render_figure_crops
    from extractors.fonts import extract_fonts, extract_text_spans
    from extractors.links import extract_links, extract_orphan_link_elements
    from extractors.reading_order import extract_reading_order
    from extractors.structure.records import extract_struct_elements, get_tag_tree_backend
    from extractors.tables import extract_tables, render_table_crops

    at: dict[str, Any] = {"doc_id": doc_id, "page_offset": page_offset}
    # Each extractor is one pass over the file's pages: the progress bar counts a share of them per pass.
    done = in_shares(source.page_count, _PASSES)
    # The default reader shares the parsed file; another (pdfix) reads the file itself.
    elements = done(extract_struct_elements(source, **at) if tag_tree == "pikepdf"
                    else get_tag_tree_backend(tag_tree)(source.path, **at))
    tables, cells = done(extract_tables(source, **at, elements=elements, regions=regions))
    figures = done(extract_figures(source, **at, elements=elements))
    # Icons and inline formula images (under 2% of the page) are not judged, so they get no crop.
    judged = [f for f in figures if not f.get("small")]
    figure_crops = (render_figure_crops(source, judged, crops, crop_dpi, page_offset=page_offset) if crops is not None
                    else [None] * len(judged))
    for record, crop in zip(judged, figure_crops, strict=True):
        record["crop_path"] = crop
    table_crops = done(render_table_crops(source, tables, crops, crop_dpi, page_offset=page_offset)
                       if crops is not None else [None] * len(tables))
    rows = {
        "struct_elements": elements,
        "links": done(extract_links(source, **at)),
        "orphan_link_elements": done(extract_orphan_link_elements(source, **at)),
        "fonts": done(extract_fonts(source, **at)),
        # text_spans never holds off-page text: measure the very spans it holds.
        "text_spans": with_contrast(done(extract_text_spans(source, **at)),
                                    done(extract_contrast(source, **at, off_page=False))),
        "reading_order": done(extract_reading_order(source, **at, elements=elements)),
        "tables": [{**t, "crop_path": c} for t, c in zip(tables, table_crops, strict=True)],
        "table_cells": cells,
        "figures": figures,
    }
    for table, columns in _ID_COLUMNS.items():
        for row in rows[table]:
            for column in columns:
                if row.get(column) is not None and row[column] >= 0:
                    row[column] += id_offset
    return rows


REPAIRED = ("the file is damaged (broken cross-reference table, truncation or bad offsets) and was read from "
            "MuPDF's repair; its labels describe the repaired file: re-export or fix it (qpdf --check shows it)")


def file_conformance(source: PdfSource, doc_id: str, file_index: int, page_offset: int,
                     rows: dict[str, list[dict[str, Any]]], limits: tuple[float, float],
                     validated: tuple[list[dict[str, Any]], str | None] | None = None) -> list[dict[str, Any]]:
    """The `conformance` rows of one file: the validator's failures (`validated`, when already run), and every
    other declared rule passed where the file has what it checks (its tag types and features) and not applicable
    where it has not."""
    from extractors.conformance import extract_conformance
    from judges.conformance import conformance_rows

    max_file_mb, max_stream_mb = limits
    failures, features, error = extract_conformance(str(source.path), source.qpdf, max_file_mb=max_file_mb,
                                                    max_stream_mb=max_stream_mb, page_offset=page_offset,
                                                    validated=validated)
    present = features | {t for e in rows["struct_elements"] for t in (e.get("type"), e.get("raw_type")) if t}
    if rows["fonts"]:
        present.add("@fonts")
    return conformance_rows(doc_id, file_index, failures, error, present)


def extract_document(run_id: str, crops_root: str | None, crop_dpi: int, max_pixels: int, tag_tree: str,
                     limits: tuple[float, float], item: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """All extract-stage rows for one document (possibly several files, pages numbered on).

    A file that breaks raises PartialFailure with the rows of the files before it (the runner keeps
    them beside the error row, and the document's status is `partial`).
    """
    from extractors.conformance import validate
    from extractors.source import pdf_source
    from extractors.structure.summary import struct_summary
    from tasks.engine.isolation import release_heap

    out: dict[str, list[dict[str, Any]]] = {name: [] for name in EXTRACT_TABLE_NAMES}
    errors: list[dict[str, Any]] = []
    page_offset = 0
    doc, regions = item["doc"], item["regions"]
    doc_id = doc["doc_id"]
    crops = Path(crops_root) / f"{(doc.get('sha256') or doc_id)[:24]}-{crop_dpi}dpi" if crops_root else None
    for index, path in enumerate(document_files(doc, verify=True)):
        try:
            # The validator first, before the extractors fill the file's page caches (the peak of a worker is
            # otherwise both at once); it reads the file itself.
            validated = validate(str(path), max_file_mb=limits[0], max_stream_mb=limits[1])
            release_heap()  # the validator's parse, freed: its pages go back before the extractors take theirs
            with pdf_source(path, max_pixels=max_pixels) as source:
                summary = struct_summary(source)
                out["doc_structure"].append({**summary, "doc_id": doc_id, "file_index": index})
                if summary.get("error"):  # already "kind: what happened; what to do" — kept as it is
                    kind = str(summary["error"]).partition(": ")[0] or "corrupt"
                    errors.append(error_row(run_id, "extract", doc, kind, str(summary["error"])))
                    break
                if source.doc.is_repaired:
                    # Not an error: the labels stand, but they come from MuPDF's reconstruction.
                    errors.append(error_row(run_id, "extract", doc, "repaired", REPAIRED))
                pages = int(summary.get("pages") or 0)
                mine = [{k: v for k, v in r.items() if k != "run_id"} for r in regions
                        if page_offset < r["page"] <= page_offset + pages]
                rows = extract_file(source, doc_id, page_offset, len(out["struct_elements"]), crops, crop_dpi, mine,
                                    tag_tree)
                rows["conformance"] = file_conformance(source, doc_id, index, page_offset, rows, limits, validated)
                errors += [error_row(run_id, "extract", doc, "conformance", r["message"])
                           for r in rows["conformance"] if r["status"] == "not_checked"]
                for table, found in rows.items():
                    out[table] += found
            page_offset += pages
        except Exception as exc:
            kept = {**{table: add_run_id(run_id, rows) for table, rows in out.items()}, "errors": errors}
            raise PartialFailure(kept, exc) from exc
    return {**{table: add_run_id(run_id, rows) for table, rows in out.items()}, "errors": errors}


def extract_item_of(doc: dict[str, Any], regions: list[dict[str, Any]]) -> dict[str, Any]:
    """One document's work item: the document and its layout regions (rows of `layout_regions`)."""
    return {"doc": doc, "doc_id": doc["doc_id"], "sha": content_key(doc), "regions": regions}


def extract_item(doc: dict[str, Any], results: Mapping[str, Mapping[str, Rows]], chained: frozenset[str],
                 copies: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The item from the layout regions the chain found (`tasks.engine.chain`): none without the layout stage
    in the chain (its regions come from its stored table), none where the document was not laid out."""
    if "layout" not in chained:
        return None
    laid_out = results.get("layout")
    regions = laid_out.get("layout_regions") if laid_out is not None else None
    return extract_item_of(doc, regions.to_pylist() if regions is not None else [])


