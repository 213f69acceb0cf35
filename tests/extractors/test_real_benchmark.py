"""Every processed dev-benchmark PDF extracts into schema-true records, or raises ExtractionError.

Reads ../shared/pdf-accessibility-benchmark (never copied into the repository). Each distinct PDF (by
sha256: the split files some papers under several criteria) is extracted once for the whole module, the
way the extract and transcript stages do it (one shared `PdfSource` per file), and each test checks what
one extractor made of every file; the module prints the time per page each part took. Per-extractor
speed against a bare PyMuPDF pass is `python -m benchmarks.extract`.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from extractors import PAGES_SCHEMA, STRUCT_SUMMARY_SCHEMA, ExtractionError, render_pages, struct_summary
from extractors.reading_order import order_agreement
from extractors.source import pdf_source
from extractors.tables import extract_tables
from extractors.transcript.emulated import transcribe
from tasks.benchmark.registry import STAGES
from tasks.benchmark.work.extract import extract_file
from tests.conftest import SHARED_BENCHMARK
from tests.extractors.conftest import assert_fits
from warehouse.tables import TABLE_CELLS_SCHEMA, TABLES_SCHEMA

pytestmark = pytest.mark.benchmark_data

PROCESSED = SHARED_BENCHMARK / "data" / "processed"
CROP_DPI = 36  # the pipeline crops at 110 dpi (RunConfig.crop_dpi); the same code at a third of the resolution


@dataclass
class Extracted:
    doc_id: str
    pages: int = 0
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # table name -> records
    error: str | None = None  # the ExtractionError kind, when the file could not be read


@dataclass
class DevBenchmark:
    files: list[Extracted]
    seconds: dict[str, float]

    @property
    def pages(self) -> int:
        return sum(f.pages for f in self.files)

    @property
    def readable(self) -> list[Extracted]:
        return [f for f in self.files if f.error is None]

    def report(self, *parts: str) -> str:
        return ", ".join(f"{part} {1000 * self.seconds[part] / max(self.pages, 1):.1f} ms/page" for part in parts)


def _timed(seconds: dict[str, float], part: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    start = time.perf_counter()
    try:
        return fn(*args, **kwargs)
    finally:
        seconds[part] = seconds.get(part, 0.0) + time.perf_counter() - start


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> DevBenchmark:
    pdfs = sorted(PROCESSED.rglob("*.pdf"))
    if not pdfs:
        pytest.skip(f"no benchmark PDFs under {PROCESSED}; place the shared dev benchmark there to run this")
    out = tmp_path_factory.mktemp("dev-benchmark")
    seconds: dict[str, float] = {}
    files = []
    seen: set[str] = set()
    for pdf in pdfs:
        digest = hashlib.sha256(pdf.read_bytes()).hexdigest()
        if digest in seen:  # the same file filed under another criterion or label: extracted already
            continue
        seen.add(digest)
        found = Extracted(str(pdf.relative_to(PROCESSED)))
        files.append(found)
        at: dict[str, Any] = {"doc_id": found.doc_id}
        try:
            with pdf_source(pdf) as source:
                found.pages = source.page_count
                rows = _timed(seconds, "extract", extract_file, source, found.doc_id, 0, 0, out / "crops", CROP_DPI, [])
                found.rows.update(rows)
                found.rows["struct_summary"] = [_timed(seconds, "struct_summary", struct_summary, source)]
                found.rows["pages"] = _timed(seconds, "pages@36dpi", render_pages, source, **at, out_dir=out, dpi=36)
                found.rows["transcripts"] = _timed(seconds, "transcript", transcribe, source, **at,
                                                  elements=rows["struct_elements"], links=rows["links"])
                tables, cells = _timed(seconds, "tables (tags only)", extract_tables, source, **at,
                                       elements=rows["struct_elements"], visual=False)
                found.rows.update(tags_only_tables=tables, tags_only_table_cells=cells)
        except ExtractionError as exc:
            found.error = exc.kind
    return DevBenchmark(files, seconds)


def _without_run_id(schema: pa.Schema) -> pa.Schema:
    return schema.remove(schema.get_field_index("run_id")) if "run_id" in schema.names else schema


def schemas() -> dict[str, pa.Schema]:
    """What each extracted table must fit: the stages' own table schemas (less the run id they add)."""
    found = {spec.name: _without_run_id(spec.schema) for stage in ("extract", "transcript")
             for spec in STAGES[stage].tables}
    found.update(struct_summary=STRUCT_SUMMARY_SCHEMA, pages=PAGES_SCHEMA, tags_only_tables=TABLES_SCHEMA,
                 tags_only_table_cells=TABLE_CELLS_SCHEMA)
    return found


def test_every_processed_pdf_extracts_or_raises(dev: DevBenchmark) -> None:
    expected = schemas()
    for extracted in dev.readable:
        assert set(extracted.rows) <= set(expected), set(extracted.rows) - set(expected)
        for table, records in extracted.rows.items():
            assert_fits(records, expected[table])
        assert extracted.rows["struct_summary"][0]["pages"] == extracted.pages
        assert len(extracted.rows["pages"]) == extracted.pages
    errors = [f"{f.doc_id}: {f.error}" for f in dev.files if f.error]
    print(f"\n{len(dev.files)} distinct PDFs, {dev.pages} pages, {len(errors)} extraction errors {errors}\n  "
          + dev.report(*sorted(dev.seconds)))
    assert len(errors) < len(dev.files)  # the dev split is readable: errors here would be a regression


def test_every_processed_pdf_yields_tables(dev: DevBenchmark) -> None:
    for extracted in dev.readable:
        for tables, cells in (("tables", "table_cells"), ("tags_only_tables", "tags_only_table_cells")):
            assert_fits(extracted.rows[tables], TABLES_SCHEMA if tables.startswith("tags") else schemas()[tables])
            assert_fits(extracted.rows[cells], TABLE_CELLS_SCHEMA if cells.startswith("tags") else schemas()[cells])
            ids = {t["table_id"] for t in extracted.rows[tables]}
            assert {c["table_id"] for c in extracted.rows[cells]} <= ids  # every cell belongs to a table
    found = sum(len(f.rows["tables"]) for f in dev.readable)
    assert found > 0  # scholarly papers have tables: none at all would be a regression
    print(f"\ntables: {found} in {len(dev.readable)} PDFs; " + dev.report("tables (tags only)"))


def test_every_processed_pdf_yields_reading_order(dev: DevBenchmark) -> None:
    for extracted in dev.readable:
        order_agreement(extracted.rows["reading_order"])
    assert any(f.rows["reading_order"] for f in dev.readable)


def test_every_processed_pdf_yields_figures(dev: DevBenchmark) -> None:
    figures = [r for f in dev.readable for r in f.rows["figures"]]
    assert figures
    for record in figures:
        if record.get("crop_path"):
            assert Path(record["crop_path"]).is_file()


def test_every_processed_pdf_transcribes(dev: DevBenchmark) -> None:
    rows = sum(len(f.rows["transcripts"]) for f in dev.readable)
    assert rows > 0 and all(f.rows["transcripts"] for f in dev.readable if f.rows["struct_elements"])
    print(f"\ntranscript: {rows} rows; " + dev.report("transcript"))
