"""benchmarks/audit_judges: both validation sets, and κ against an LLM judge only when one is there."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.audit_judges import agreement, main
from judges.inclusivity.base import CategoryVerdict
from judges.inclusivity.categories import CATEGORY_NAMES
from judges.llm.scripted_server import ScriptedServer
from tests.audit.conftest import answer_responder
from tests.llm.conftest import MODEL

pytestmark = pytest.mark.heavy  # the judges over every validation set (not in make test-fast)


def verdicts(covered: set[str], depth: int = 2) -> list[CategoryVerdict]:
    return [CategoryVerdict(c, c in covered, depth if c in covered else 0) for c in CATEGORY_NAMES]


def test_agreement_is_perfect_for_equal_judges_and_skips_voided_cells() -> None:
    ours = [verdicts({"Vision"}), verdicts({"Hearing", "Mobility"})]
    same = agreement(ours, ours)
    assert same["cells"] == 18 and same["coverage_kappa"] == pytest.approx(1.0)
    theirs = [verdicts({"Vision"}), [CategoryVerdict(c, None, None) for c in CATEGORY_NAMES]]
    assert agreement(ours, theirs)["cells"] == 9


def test_without_an_llm_judge_the_kappa_line_says_it_was_skipped(capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    monkeypatch.setenv("ACCESSBENCH_HOME", str(tmp_path / "home"))
    main(["--judges", "lexicon"])
    out = capsys.readouterr().out
    assert "set 1 all" in out and "set 2 report" in out and "MAE" in out
    assert "κ against an LLM judge: skipped" in out
    # set 4's held-out half always gets its per-category table: one row per category after the header
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.split()[:4] == ["lexicon", "set", "4", "held-out"])
    table = lines[row + 1:row + 11]
    assert table[0].split() == ["category", "covered", "precision", "recall", "F1", "MAE"]
    assert [row.split()[0] for row in table[1:]] == list(CATEGORY_NAMES)


def test_with_an_llm_judge_kappa_is_printed_for_each_offline_judge(capsys: pytest.CaptureFixture[str],
                                                                   server: ScriptedServer, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCESSBENCH_HOME", str(tmp_path / "home"))  # the judge's reply cache goes there
    server.responder = answer_responder  # a judge that covers Mobility where "wheelchair" is written
    main(["--judges", "lexicon", "--llm-judge", f"llm:{MODEL}", "--llm-api-base", server.api_base])
    out = capsys.readouterr().out
    assert f"κ lexicon vs llm:{MODEL}: coverage" in out
    assert out.count("κ lexicon vs") == 4  # set 1, set 2 fit, set 2 report, set 3
