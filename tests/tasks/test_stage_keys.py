"""Stage keys are derived from one declaration (tasks.engine.options.STAGE_HASH), never listed by hand: a setting that
changes what a stage computes enters its input hash, and a run with another such setting never reuses another
run's outputs (issue 57: `--disable-rule` in a home holding another run reused that run's judgments)."""

from __future__ import annotations

from pathlib import Path

import pytest
import typst

from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.options import STAGE_HASH, StageSettings, stage_keys
from tasks.engine.runner import StageStatus, execute

SOURCE = """#set document(title: "Case")
#set text(lang: "en", size: 10pt)
= Results
Accessible documents let every reader reach the same content in the same order.
=== Details
A screen reader follows the structure tree, so the tree has to follow the page.
"""


def test_every_setting_declares_the_stages_whose_hash_it_enters() -> None:
    assert set(STAGE_HASH) == set(StageSettings.model_fields), (
        "declare each StageSettings field in tasks.engine.options.STAGE_HASH (its stages, or () for execution only)")
    names = {stage.name for stage in STAGE_LIST}
    for setting, stages in STAGE_HASH.items():
        assert set(stages) <= names, setting
        for stage in STAGE_LIST:
            assert (setting in stage.config_keys) == (stage.name in stages), (setting, stage.name)
    assert "disabled_rules" in stage_keys("judge")  # the confirmed bug: it entered no stage's hash


@pytest.mark.slow
def test_a_disabled_rule_or_fresh_calls_never_reuse_another_runs_judgments(tmp_path: Path) -> None:
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    (tmp_path / "main.typ").write_text(SOURCE, encoding="utf-8")
    (pdfs / "skip.pdf").write_bytes(typst.compile(str(tmp_path / "main.typ"), format="pdf"))
    home = tmp_path / "home"

    def run(run_id: str, **settings: object) -> dict[str, StageStatus]:
        cfg = RunConfig(home=home, run_id=run_id, source="pdfs", source_path=str(pdfs), progress=False, workers=1,
                        crop_dpi=36, criteria=["semantic_tagging"], **settings)
        return {stage.name: StageStatus(execute(cfg, stage).status) for stage in STAGE_LIST}

    first = run("first")
    assert first["judge"] is StageStatus.COMPLETED
    assert run("same")["judge"] is StageStatus.REUSED  # identical settings: identical outputs, reused
    disabled = run("disabled", disabled_rules=["semantic_tagging.heading_nesting"])
    assert disabled["extract"] is StageStatus.REUSED and disabled["judge"] is StageStatus.COMPLETED
    assert run("fresh", cache="off")["judge"] is StageStatus.COMPLETED  # --cache off: fresh calls, no reuse
