"""Every stage in plain Python (no Prefect): outputs, skipping, reuse, error rows, rerun."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tasks.benchmark.registry import BENCHMARK, STAGE_LIST, STAGES
from tasks.engine.context import RunConfig
from tasks.engine.runner import StageFailed, execute
from warehouse import catalog
from warehouse.tables import ALL_TABLES

pytestmark = pytest.mark.heavy  # whole benchmark runs (not in make test-fast)

CRITERIA = ["semantic_tagging", "functional_hyperlinks"]


def run_all(cfg: RunConfig) -> dict[str, str]:
    return {stage.name: execute(cfg, stage).status for stage in STAGE_LIST}


def config(home: Path, run_id: str, dataset: Path, **kw: object) -> RunConfig:
    return RunConfig(home=home, run_id=run_id, source="dataset", source_path=str(dataset), criteria=CRITERIA,
                     progress=False, **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory, synthetic_dataset: Path) -> Path:
    """A data home with run r1 complete; tests that change it work on a copy."""
    home = tmp_path_factory.mktemp("finished")
    assert set(run_all(config(home, "r1", synthetic_dataset)).values()) == {"completed"}
    return home


@pytest.fixture
def home(finished: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(finished, copy, symlinks=True)
    return copy


def test_full_run_fills_every_table_and_scores(finished: Path) -> None:
    tmp_path = finished
    _, rows = catalog.query(tmp_path, ALL_TABLES, "select count(*) from documents where run_id='r1'")
    n_docs = rows[0][0]
    assert n_docs == 2 * 4 * 1  # criteria × labels × base docs (tests/conftest.py: one)
    _, rows = catalog.query(tmp_path, ALL_TABLES, "select count(distinct doc_id) from doc_labels")
    assert rows[0][0] == n_docs
    _, rows = catalog.query(tmp_path, ALL_TABLES, "select count(*) from struct_elements")
    assert rows[0][0] > 0
    _, rows = catalog.query(tmp_path, ALL_TABLES,
                            "select criterion, accuracy from accuracy_by_criterion where run_id='r1'")
    assert {c for c, _ in rows} == set(CRITERIA)
    _, rows = catalog.query(tmp_path, ALL_TABLES, "select count(*) from run_metrics where run_id='r1'")
    assert rows[0][0] > 0
    _, rows = catalog.query(tmp_path, ALL_TABLES, """
        select count(*), count(s.run_id) from judgments j left join remediation_scores s using
        (run_id, judge, repeat, doc_id, criterion, page) where j.run_id = 'r1' and j.label = 'failed'""")
    assert rows[0][0] > 0 and rows[0][1] == rows[0][0]  # every Failed judgment's remediation is scored


def test_unchanged_stages_are_skipped_and_other_runs_reuse_outputs(home: Path, synthetic_dataset: Path) -> None:
    tmp_path = home
    assert set(run_all(config(tmp_path, "r1", synthetic_dataset)).values()) == {"skipped"}
    statuses = run_all(config(tmp_path, "r2", synthetic_dataset))
    assert statuses["corpus"] == "completed"  # the corpus is always re-read for a new run
    assert statuses["extract"] == "reused" and statuses["judge"] == "reused"
    _, rows = catalog.query(tmp_path, ALL_TABLES, "select run_id, count(*) from doc_labels group by 1 order by 1")
    assert rows[0][1] == rows[1][1] and [r[0] for r in rows] == ["r1", "r2"]


def test_changed_config_recomputes_downstream(home: Path, synthetic_dataset: Path) -> None:
    statuses = run_all(config(home, "r1", synthetic_dataset, dpi=50))
    assert statuses["corpus"] == "skipped" and statuses["extract"] == "skipped"
    assert statuses["render"] == "completed"


def test_broken_pdfs_become_error_rows_and_the_run_completes(tmp_path: Path, synthetic_dataset: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    good = next(synthetic_dataset.rglob("passed/*.pdf"))
    shutil.copy(good, folder / "good.pdf")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not a pdf")
    (folder / "truncated.pdf").write_bytes(good.read_bytes()[:300])
    cfg = RunConfig(home=tmp_path / "home", run_id="r", source="pdfs", source_path=str(folder),
                    criteria=CRITERIA, progress=False)
    assert set(run_all(cfg).values()) == {"completed"}
    _, errors = catalog.query(cfg.home, ALL_TABLES, "select distinct doc_id, stage, message from errors")
    assert len({d for d, _, _ in errors}) == 4  # two bad files × two criteria
    # Each says what happened and what to do, and names its file.
    for _, _, message in errors:
        assert ("replace or remove" in message or "re-export" in message) and "(file: " in message, message
    _, labels = catalog.query(cfg.home, ALL_TABLES, "select count(*) from doc_labels")
    assert labels[0][0] == 2  # the good file, for each criterion


def test_manifest_path_escaping_the_root_is_refused(tmp_path: Path, synthetic_dataset: Path) -> None:
    root = tmp_path / "ds"
    shutil.copytree(synthetic_dataset, root)
    manifest = root / "data" / "dataset.json"
    data = json.loads(manifest.read_text())
    item = data["tasks"]["semantic_tagging"]["passed"][0]
    item["pdf_path"] = "../../../../etc/passwd"
    item["input_pdfs"] = []
    manifest.write_text(json.dumps(data))
    cfg = config(tmp_path / "home", "r", root)
    execute(cfg, STAGES["corpus"])
    _, rows = catalog.query(cfg.home, ALL_TABLES, "select message from errors where stage='corpus'")
    assert any("escapes the dataset root" in r[0] for r in rows)


def test_a_stage_refuses_to_run_before_its_upstream(tmp_path: Path, synthetic_dataset: Path) -> None:
    with pytest.raises(StageFailed, match="accessbench rerun"):
        execute(config(tmp_path, "r", synthetic_dataset), STAGES["judge"])


def test_rerun_with_force_recomputes_only_the_named_stage(home: Path, synthetic_dataset: Path) -> None:
    cfg = config(home, "r1", synthetic_dataset)
    extract_file = cfg.store.table_path("extract", "r1", "struct_elements")
    judge_file = cfg.store.table_path("judge", "r1", "judgments")
    before = (extract_file.stat().st_mtime_ns, judge_file.stat().st_mtime_ns)
    for stage in BENCHMARK.downstream_of("judge"):
        assert execute(cfg, stage, force=True).status == "completed"
    assert extract_file.stat().st_mtime_ns == before[0]
    assert judge_file.stat().st_mtime_ns != before[1]
    assert [s.name for s in BENCHMARK.downstream_of("judge")] == ["judge", "aggregate", "metrics"]


def test_a_document_that_cannot_be_extracted_is_unjudged_never_a_label(tmp_path: Path,
                                                                      synthetic_dataset: Path) -> None:
    dataset = tmp_path / "dataset"
    shutil.copytree(synthetic_dataset, dataset)
    broken = dataset / "data" / "processed" / "semantic_tagging" / "cannot_tell" / "SYN0001.pdf"
    broken.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 400)  # no objects, no pages: nothing to extract
    home = tmp_path / "home"
    run_all(config(home, "u", dataset))
    _, rows = catalog.query(home, ALL_TABLES, "select label, correct from doc_results where run_id='u' and "
                                             "doc_id in (select doc_id from documents where run_id='u' and "
                                             "json_extract_string(metadata, '$.pdf_path') like '%cannot_tell/SYN0001%' "
                                             "and criterion='semantic_tagging')")
    assert rows == [("unjudged", False)]  # not a lucky "cannot_tell"
    _, why = catalog.query(home, ALL_TABLES, "select reason from unjudged where run_id='u'")
    assert len(why) == 1 and why[0][0]
