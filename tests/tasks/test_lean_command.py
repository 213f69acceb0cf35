"""The run's own process reads no PDF (issue 56): the corpus stage describes the files in the run's workers, and
the stage modules the process imports load PyMuPDF, pikepdf, the layout model and the validator only in the
functions that run in those workers."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from corpus.manifest import FileLimits, describe_each, load_pdf_folder
from tasks.benchmark.corpus import describe_in_workers
from tasks.engine.context import RunConfig
from tasks.engine.isolation import shared_workers

# A new interpreter runs the whole CLI in its own process and says which libraries that process loaded.
SCRIPT = """
import json, sys
from flows.cli.app import main
code = main(["run", "--pdfs", sys.argv[1], "--home", sys.argv[2], "--fail-on", "never"])
print(json.dumps({"code": code, "loaded": sorted(m for m in ("pymupdf", "pikepdf", "onnxruntime", "page")
                                                  if m in sys.modules)}))
"""


def _folder(root: Path) -> Path:
    root.mkdir()
    with pymupdf.open() as doc:
        for text in ("A sound file", "with two pages"):
            doc.new_page().insert_text((72, 72), text)
        doc.save(root / "sound.pdf")
    (root / "not_a_pdf.pdf").write_bytes(b"this is a text file, not a PDF\n" * 4)
    return root


@pytest.mark.slow  # a new interpreter running a whole flow (on the session's Prefect server)
def test_a_screening_run_loads_no_pdf_library_in_its_own_process(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "pdfs")
    home = tmp_path / "home"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(folder), str(home)], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said == {"code": 0, "loaded": []}
    # ...and the files were read all the same (in the workers): the pages of one, the error of the other.
    import duckdb

    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as db:
        rows = db.execute("select distinct files[1], pages, error_kind from documents order by 1").fetchall()
    assert rows == [("not_a_pdf.pdf", None, "corpus"), ("sound.pdf", 2, None)]


def _config(tmp_path: Path, **options: object) -> RunConfig:
    return RunConfig(home=tmp_path / "home", run_id="lean", source="pdfs", source_path=str(tmp_path / "pdfs"),
                     progress=False, workers=2, **options)


def test_the_corpus_stage_describes_files_in_workers_as_it_would_in_its_own_process(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "pdfs")
    cfg = _config(tmp_path)
    here = load_pdf_folder(folder, "lean", ["semantic_tagging", "color_contrast"])
    with shared_workers(2):
        there = load_pdf_folder(folder, "lean", ["semantic_tagging", "color_contrast"],
                                describe=lambda *a: describe_in_workers(cfg, *a))
    assert there == here
    assert [(r["files"], r.get("pages"), r["error_kind"]) for r in here[::2]] == [
        (["not_a_pdf.pdf"], None, "corpus"), (["sound.pdf"], 2, None)]


def test_a_file_over_the_document_time_limit_is_its_error_row_and_the_others_are_read(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "pdfs")
    cfg = _config(tmp_path, doc_timeout_s=1e-6)  # no file can be read in a microsecond
    with shared_workers(2):
        rows = describe_in_workers(cfg, folder, [["sound.pdf"], ["not_a_pdf.pdf"]], FileLimits(), True)
    assert [r["error_kind"] for r in rows] == ["timeout", "timeout"]
    assert all(r["files"] == files for r, files in zip(rows, [["sound.pdf"], ["not_a_pdf.pdf"]], strict=True))
    assert "--doc-timeout" in rows[0]["error"] and str(folder) not in rows[0]["error"]
    # Worded as the stages' own error rows are: the kind is its own column, not repeated in the message.
    assert rows[0]["error"].startswith("processing took longer than")
    # Without a time limit worth the name the same call reads both.
    assert describe_in_workers(_config(tmp_path), folder, [["sound.pdf"]], FileLimits(), True) == \
        describe_each(folder, [["sound.pdf"]], FileLimits(), True)


# A new interpreter given a chain's work for one document, as a worker process is: what it computed, and which of
# the run's own libraries it loaded to compute it.
WORKER = """
import importlib, pickle, sys
modules, work, group = pickle.loads(sys.stdin.buffer.read())
for name in modules:
    importlib.import_module(name)
result = work(group)
loaded = sorted(m for m in ("pyarrow", "pydantic", "rich", "prefect", "duckdb") if m in sys.modules)
sys.stdout.buffer.write(pickle.dumps((result, loaded)))
"""


def test_a_worker_reads_a_document_for_every_chained_stage_without_pyarrow(tmp_path: Path) -> None:
    """The stages' rows leave a worker as plain columns (`common.rows.Rows`): it never loads pyarrow (~45 MB a
    worker), nor the run's config or console; here they become the tables the same work gives in this process.
    The worker first imports every module a stage's workers import first (`Stage.worker_imports`, the judge's
    too), as a pool's do."""
    from tasks.benchmark.registry import BENCHMARK
    from tasks.engine import chain
    from tasks.engine.runner import arrow_tables

    folder = _folder(tmp_path / "pdfs")
    cfg = _config(tmp_path)
    docs = [d for d in load_pdf_folder(folder, cfg.run_id, ["table_structure", "semantic_tagging"])
            if not d.get("error")]
    modules = sorted({name for stage in BENCHMARK.stages for name in stage.worker_imports})
    assert {"tasks.benchmark.work.extract", "tasks.benchmark.work.judge", "corpus.manifest"} <= set(modules)
    stages = [BENCHMARK.stage(name) for name in ("render", "layout", "extract", "transcript")]
    chain.begin(cfg, stages)
    head = chain.head(cfg, stages[0])
    assert head is not None
    group = [(d["doc_id"], d) for d in docs]  # one file screened for two criteria: one content, two documents
    work = head.work(None)
    done = subprocess.run([sys.executable, "-c", WORKER], input=pickle.dumps((modules, work, group)),
                          capture_output=True, env=os.environ.copy(), timeout=300)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    there, loaded = pickle.loads(done.stdout)
    assert loaded == []
    here = work(group)
    assert set(there.others) == set(here.others) == {"layout", "extract", "transcript"}
    by_name = {s.name: s for s in stages}
    assert arrow_tables(stages[0], there.head.tables) == arrow_tables(stages[0], here.head.tables)
    for name, (key, digest, shaped) in there.others.items():
        assert (key, digest) == here.others[name][:2]
        assert arrow_tables(by_name[name], shaped.tables) == arrow_tables(by_name[name], here.others[name][2].tables)
    assert any(t.num_rows for t in arrow_tables(by_name["extract"], there.others["extract"][2].tables).values())
    chain.forget(cfg)

