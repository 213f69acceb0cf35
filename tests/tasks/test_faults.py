"""The fault corpus through the whole pipeline: every damaged or hostile file ends as labels or
error rows, no stage fails, and no process passes 2 GiB."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from corpus.faults import MUTATIONS, build_fault_corpus
from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from warehouse import catalog
from warehouse.tables import ALL_TABLES

pytestmark = pytest.mark.slow


def test_a_hundred_faulty_pdfs_end_as_labels_or_error_rows(tmp_path: Path) -> None:
    # 15 of each of the 7 kinds, each kind on each of the 3 base papers 5 times (the extract stage is most of
    # the test's time: 203 files cost twice as much). `python -m benchmarks.faults` runs the larger corpus.
    made = build_fault_corpus(tmp_path / "pdfs", count=105, seed=1)
    assert len(made) == 105 and set(made.values()) == set(MUTATIONS)
    home = tmp_path / "home"
    cfg = RunConfig(home=home, run_id="faults", source="pdfs", source_path=str(tmp_path / "pdfs"),
                    criteria=["semantic_tagging"], progress=False, doc_timeout_s=60,
                    dpi=36, crop_dpi=36)  # the same code at lower resolutions: damage, not pixels, is tested here
    statuses = {stage.name: execute(cfg, stage).status for stage in STAGE_LIST}
    assert set(statuses.values()) == {"completed"}, statuses
    _, rows = catalog.query(home, ALL_TABLES, """
        select json_extract_string(d.metadata, '$.path') as file, any_value(l.label) as label,
               count(e.kind) as errors
        from documents d left join doc_labels l using (run_id, doc_id) left join errors e using (run_id, doc_id)
        where d.run_id = 'faults' group by all""")
    outcome = {file: (label, errors) for file, label, errors in rows}
    assert set(outcome) == set(made)
    assert all(label or errors for label, errors in outcome.values())
    assert sum(1 for label, _ in outcome.values() if label) >= len(made) // 4  # most damage is repaired and judged
    _, bugs = catalog.query(home, ALL_TABLES, "select message from errors where kind = 'internal'")
    assert not bugs, bugs  # damage is reported as what it is (corrupt, repaired, limit…), never as a crash
    peak_mib = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024
    assert peak_mib < 2048, f"a process reached {peak_mib:.0f} MiB"
