"""The fixed-width tables of `calls list`, `review list`, `doctor`, `fix` and `rules` fit the terminal
(COLUMNS, 120 in a pipe) and never cut an id; `sql --format csv` ends lines with LF; latency is rounded."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from flows.cli.app import format_rows
from flows.cli.calls import format_call, print_calls_table
from flows.cli.console import PIPE_WIDTH, layouts, print_first_fitting
from flows.cli.review import print_queue

CALL_IDS = ["c0123456789abcdef", "c89abcdef01234567"]


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _call(call_id: str, **extra: Any) -> dict[str, Any]:
    return {"run_id": "20261203T144547-b581", "call_id": call_id, "purpose": "judge_page", "judge": "llm",
            "model": "openai/gpt-4o-2024-08-06", "doc_id": "d0123456789ab", "criterion": "logical_reading_order",
            "page": 12, "repeat": 2, "kind": "first", "cached": True, "tokens_in": 12345, "tokens_out": 678,
            "normalised": '["fenced", "paper_shape"]', "error": None,
            "parse_error": "the reply is not JSON: Expecting value at line 1 column 1 (char 0)", **extra}


@pytest.mark.parametrize("columns", [80, 100, 200])
def test_calls_list_fits_and_keeps_whole_call_ids(columns: int, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    print_calls_table("20261203T144547-b581", [_call(call_id) for call_id in CALL_IDS])
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= columns
    assert "…" not in out
    for call_id in CALL_IDS:
        assert call_id in out  # whole, on one line
    assert "d0123456789ab" in out
    if columns == 200:
        assert "read as" in out and "fenced, paper_shape" in out  # every column where they fit
    else:
        assert "not shown:" in out  # the title says which columns were left out


def test_a_table_in_a_pipe_is_120_columns(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # capsys's stdout is no terminal: a pipe
    print_calls_table("r", [_call(call_id, model="x" * 40, parse_error="word " * 60) for call_id in CALL_IDS])
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) == PIPE_WIDTH


def _queue_item(item_id: str, decided: bool = False) -> tuple[dict[str, Any], dict[str, Any] | None]:
    return ({"item_id": item_id, "criterion": "functional_hyperlinks", "doc_id": "de2f5ae95650", "page": 1,
             "label": "failed", "tier_labels": '{"llm": "failed", "rules": "passed"}',
             "reason": "the LLM fails descriptiveness on a page the rules passed"},
            {"label": "passed"} if decided else None)


@pytest.mark.parametrize("columns", [60, 80, 160])
def test_review_list_fits_and_keeps_whole_item_ids(columns: int, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    print_queue("hy", [_queue_item("r68ed0f1713"), _queue_item("r1e08b05117", decided=True)])
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= columns and "…" not in out
    if columns >= 80:
        assert "r68ed0f1713" in out and "r1e08b05117" in out and "de2f5ae95650" in out
    if columns == 160:
        assert "functional_hyperlinks" in out  # no word broken where the layout fits
    else:  # narrower than the ids and the criterion together: folded onto two lines, still every character
        assert "r68ed" in out.replace("│", "").replace(" ", "")
    if columns == 160:
        assert "rules passed, llm failed" in out  # the tiers as words, rules first, not JSON
        assert "decision" in out


def test_an_open_queue_has_no_empty_decision_column(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    print_queue("hy", [_queue_item("r68ed0f1713")])
    assert "decision" not in capsys.readouterr().out
    monkeypatch.setenv("COLUMNS", "80")  # without it, 80 columns hold every id and word whole
    print_queue("hy", [_queue_item("r68ed0f1713")])
    out = capsys.readouterr().out
    assert "r68ed0f1713" in out and "functional_hyperlinks" in out and "descriptiveness" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_doctor_fits_the_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli.doctor import run_doctor

    monkeypatch.setenv("COLUMNS", "72")
    assert run_doctor(tmp_path / "home", argparse.Namespace(local_model=False)) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 72 and "…" not in out
    assert "data home" in out and "free disk" in out


def test_rules_table_fits_and_keeps_rule_ids(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli.rules import run_rules
    from judges.rules.catalog import catalog

    monkeypatch.setenv("COLUMNS", "100")
    assert run_rules(Path("."), argparse.Namespace(criterion="table_structure", format="table")) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100 and "…" not in out
    for rule in catalog().values():
        if rule.criterion == "table_structure":
            assert rule.id in out


def test_layouts_drop_columns_then_fold_ids(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The helper `fix` prints its tables with: every column; then without the droppable ones; then the id
    folded; never a cut value."""
    rows = [("SYN0001-with-a-long-file-name.pdf", "table_structure.tagging.untagged_table", "page 3, Table 1",
             "needs a person: the header row cannot be told from the data")]
    columns = ("file", "rule", "where", "reason")
    for width, expect_where in ((200, True), (90, False)):
        monkeypatch.setenv("COLUMNS", str(width))
        print_first_fitting(layouts("left", columns, rows, keys=("file", "rule"), drops=((), ("where",))))
        out = capsys.readouterr().out
        assert max(len(line) for line in out.splitlines()) <= width
        assert ("page 3, Table 1" in out) is expect_where and "…" not in out
        assert rows[0][0] in out and rows[0][1] in out
    monkeypatch.setenv("COLUMNS", "50")
    print_first_fitting(layouts("left", columns, rows, keys=("file", "rule"), drops=((), ("where",))))
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 50 and "…" not in out
    cells = "".join(line.split("│")[2].strip() for line in out.splitlines() if line.count("│") >= 3)
    assert rows[0][1] in cells  # the rule id folded over lines, every character kept


def test_sql_csv_ends_lines_with_lf() -> None:
    text = format_rows(["run_id", "n"], [("a", 1), ("b, c", 2)], "csv")
    assert "\r" not in text
    assert text == 'run_id,n\na,1\n"b, c",2\n'


def test_latency_is_rounded(tmp_path: Path) -> None:
    row = {"call_id": "c1", "run_id": "r", "judge": "llm", "model": "m", "doc_id": "d",
           "criterion": "fonts_readability",
           "page": 1, "repeat": 0, "kind": "first", "prompt_version": "v1", "params": "{}", "cached": False,
           "latency_s": 2.3456789012, "tokens_in": 10, "tokens_out": 2, "cost_usd": None, "messages": "[]",
           "reply": "{}", "parsed": None, "normalised": None, "parse_error": None, "error": None}
    assert "latency: 2.35 s" in format_call(tmp_path, row)
    assert "latency: 0.042 s" in format_call(tmp_path, {**row, "latency_s": 0.0417})
    assert "latency: - " in format_call(tmp_path, {**row, "latency_s": None})


@pytest.fixture(scope="module")
def hybrid_home(tmp_path_factory: pytest.TempPathFactory, synthetic_dataset: Path) -> Path:
    """A hybrid run whose LLM fails the link descriptiveness the rules pass: a queue with both opinions."""
    import os

    from judges.llm.scripted_server import ScriptedServer, chat, judgment_json
    from tasks.benchmark.registry import STAGE_LIST
    from tasks.engine.context import RunConfig
    from tasks.engine.runner import execute

    server = ScriptedServer().start()
    server.responder = lambda body: chat(judgment_json("failed", {"descriptiveness": "failed"}, [
        {"sub_criterion": "descriptiveness", "location": "Page 1, link 'here'", "problem": "the link text says "
         "only 'here'", "remediation": "name the target: 'the project data archive'"}], summary="one vague link"))
    home = tmp_path_factory.mktemp("hybrid") / "home"
    previous = os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = "sk-test"
    try:
        cfg = RunConfig(home=home, run_id="hy", source="dataset", source_path=str(synthetic_dataset),
                        criteria=["functional_hyperlinks"], judges=["hybrid:openai/test-model"],
                        api_base=server.api_base, repeats=1, progress=False, workers=1)
        for stage in STAGE_LIST:
            execute(cfg, stage)
        cfg.store.record_run({"run_id": "hy", "config": cfg.store.config_json(cfg.to_record())})
    finally:
        server.stop()
        if previous is None:
            os.environ.pop("OPENAI_API_KEY", None)
        else:
            os.environ["OPENAI_API_KEY"] = previous
    return home


def _review(home: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    from flows.cli.app import main

    capsys.readouterr()
    assert main(["--home", str(home), "review", *args]) == 0
    return capsys.readouterr().out


def test_review_show_prints_both_opinions_with_reasons_and_evidence(hybrid_home: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from warehouse.store import ArtifactStore

    queue = ArtifactStore(hybrid_home).read_rows("judge", "hy", "review_queue")
    item = next(row for row in queue if "LLM fails" in row["reason"])
    text = _review(hybrid_home, capsys, "show", item["item_id"])
    assert not text.lstrip().startswith("{")  # for a person, not JSON
    rules = text.split("rules (Tier 1): ", 1)[1].split("\n\n", 1)[0]
    llm = text.split("LLM (Tier 2, openai/test-model): ", 1)[1].split("\n\n", 1)[0]
    assert rules.startswith("passed") and "links" in rules  # the rules' label and summary
    assert llm.startswith("failed") and "one vague link" in llm  # the LLM's label and its reason
    assert "the link text says only 'here'" in llm and "fix: name the target" in llm and "descriptiveness" in llm
    assert "evidence (what the judges saw):" in text and "link_metadata" in text and "links (" in text
    assert f"accessbench review resolve {item['item_id']}" in text and "accessbench calls show c" in text
    assert max(len(line) for line in text.splitlines()) < 400  # long evidence values are shortened
    details = json.loads(_review(hybrid_home, capsys, "show", item["item_id"], "--format", "json"))
    assert details["rules"]["label"] == "passed" and details["llm"]["label"] == "failed"
    answer = details["llm"]["answers"][0]
    assert answer["parsed"]["summary"] == "one vague link" and answer["call_id"]
    assert details["evidence"]["link_metadata"]["links"]  # json keeps the whole evidence


def test_review_show_of_an_item_the_llm_was_not_asked_about(hybrid_home: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from warehouse.store import ArtifactStore

    queue = ArtifactStore(hybrid_home).read_rows("judge", "hy", "review_queue")
    item = next(row for row in queue if "could not tell" in row["reason"])
    text = _review(hybrid_home, capsys, "show", item["item_id"])
    assert "rules (Tier 1): cannot_tell" in text and "LLM (Tier 2): not asked" in text
