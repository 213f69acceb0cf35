"""Every processed benchmark PDF either extracts into schema-true records or raises ExtractionError.

Reads ../shared/pdf-accessibility-benchmark (never copied into the repository) and
prints the time each extractor took per page, so regressions in speed show up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pymupdf
import pytest

from extractors import (
    FONTS_SCHEMA,
    LINKS_SCHEMA,
    ORPHAN_LINK_ELEMENTS_SCHEMA,
    PAGES_SCHEMA,
    STRUCT_ELEMENTS_SCHEMA,
    STRUCT_SUMMARY_SCHEMA,
    TEXT_SPANS_SCHEMA,
    ExtractionError,
    extract_fonts,
    extract_links,
    extract_orphan_link_elements,
    extract_struct_elements,
    extract_text_spans,
    render_pages,
    struct_summary,
)
from tests.conftest import SHARED_BENCHMARK
from tests.extractors.conftest import assert_fits

PROCESSED = SHARED_BENCHMARK / "data" / "processed"


@pytest.mark.benchmark_data
def test_every_processed_pdf_extracts_or_raises(tmp_path: Path) -> None:
    pdfs = sorted(PROCESSED.rglob("*.pdf"))
    if not pdfs:
        pytest.skip(f"no benchmark PDFs under {PROCESSED}; place the shared dev benchmark there to run this")
    extractors: dict[str, tuple[Callable[[Path, str], list[dict]], pa.Schema]] = {
        "struct_elements": (lambda p, d: extract_struct_elements(p, doc_id=d), STRUCT_ELEMENTS_SCHEMA),
        "struct_summary": (lambda p, d: [struct_summary(p)], STRUCT_SUMMARY_SCHEMA),
        "links": (lambda p, d: extract_links(p, doc_id=d), LINKS_SCHEMA),
        "orphan_link_elements": (lambda p, d: extract_orphan_link_elements(p, doc_id=d), ORPHAN_LINK_ELEMENTS_SCHEMA),
        "fonts": (lambda p, d: extract_fonts(p, doc_id=d), FONTS_SCHEMA),
        "text_spans": (lambda p, d: extract_text_spans(p, doc_id=d), TEXT_SPANS_SCHEMA),
        "pages@36dpi": (lambda p, d: render_pages(p, doc_id=d, out_dir=tmp_path, dpi=36), PAGES_SCHEMA),
    }
    seconds = dict.fromkeys(extractors, 0.0)
    errors: list[str] = []
    pages = 0
    for pdf in pdfs:
        doc_id = str(pdf.relative_to(PROCESSED))
        with pymupdf.open(pdf) as doc:
            pages += doc.page_count
        for name, (extract, schema) in extractors.items():
            start = time.perf_counter()
            try:
                records = extract(pdf, doc_id)
            except ExtractionError as exc:
                errors.append(f"{doc_id} {name}: {exc.kind}")
                continue
            finally:
                seconds[name] += time.perf_counter() - start
            assert_fits(records, schema)
    print(f"\n{len(pdfs)} PDFs, {pages} pages, {len(errors)} extraction errors")
    for name, total in seconds.items():
        print(f"  {name:22s} {total:6.2f} s total  {1000 * total / pages:6.1f} ms/page")
    assert len(errors) < len(pdfs)  # the dev split is readable: errors here would be a regression
