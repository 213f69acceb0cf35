"""`run --limit/--sample/--dry-run` and `--fail-on` from the command line (issue 54): a run tried small and priced
before it costs anything, and exit codes a CI job can gate on."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from flows.cli.app import EXIT_USAGE, main
from flows.cli.console import EXIT_FAILED, EXIT_GATE, EXIT_OK
from flows.cli.gate import screening_exit
from tests.flows.report_warehouse import SCREEN, write_judgments
from tests.flows.report_warehouse import build as build_warehouse
from warehouse.store import ArtifactStore
from warehouse.tables import DOC_LABELS_SCHEMA, DOCUMENTS_SCHEMA, ERRORS_SCHEMA


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return code, out.out, out.err


def test_dry_run_prices_a_limited_run_per_judge_and_runs_nothing(synthetic_dataset: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a dry run prices a run whose key is not set yet
    home = tmp_path / "home"
    code, out, err = _run(capsys, "--home", str(home), "run", "--dataset", str(synthetic_dataset), "--limit", "4",
                          "--criteria", "alt_text_quality", "semantic_tagging", "--judge", "rules",
                          "--judge", "llm:openai/gpt-4o", "--repeats", "2", "--dry-run")
    assert code == EXIT_OK, err
    assert "4 documents" in out and "nothing was run" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:] if line.startswith(("rules", "llm:"))}
    assert rows["rules"][1:5] == ["4", rows["rules"][2], "0", "0"]  # documents, pages, no calls, no tokens
    documents, pages, calls = (int(v) for v in rows["llm:openai/gpt-4o"][1:4])
    assert documents == 4 and pages >= 4 and calls == pages * 2  # one call per page and repeat
    assert int(rows["llm:openai/gpt-4o"][4]) > calls * 1000  # tokens in: instructions + evidence per call
    assert float(rows["llm:openai/gpt-4o"][6]) > 0  # priced from litellm's table
    assert ArtifactStore(home).runs() == []  # no run recorded, no stage ran


@pytest.mark.parametrize(("argv", "words"), [
    (["--limit", "2", "--sample", "3"], "not both"),
    (["--limit", "0"], "--limit: must be ≥ 1"),
    (["--fail-on", "sometimes"], "--fail-on"),
])
def test_bad_small_run_or_gate_options_are_one_line(argv: list[str], words: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "--home", str(tmp_path / "h"), "run", *argv)
    assert code == EXIT_USAGE and words in err and len(err.strip().splitlines()) == 1


def test_limit_and_sample_refuse_a_folder_of_unlabelled_pdfs(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pdfs").mkdir()
    (tmp_path / "pdfs" / "a.pdf").write_bytes(b"%PDF-1.7\n")
    code, _, err = _run(capsys, "--home", str(tmp_path / "h"), "run", "--pdfs", str(tmp_path / "pdfs"),
                        "--sample", "2")
    assert code == EXIT_USAGE and "labelled items" in err


def test_report_fail_on_gates_a_screening_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = build_warehouse(tmp_path / "home")  # run `screen`: one file fails, one passes
    base = ["--home", str(home), "report", "--run", SCREEN, "--format", "json"]
    assert _run(capsys, *base)[0] == EXIT_OK  # default: never
    code, out, err = _run(capsys, *base, "--fail-on", "fails")
    assert code == EXIT_GATE and "1 of 2 file(s)" in err and json.loads(out)["screening"]  # the report is written
    assert _run(capsys, *base, "--fail-on", "never")[0] == EXIT_OK


def _screening_home(home: Path, labels: dict[str, str | None], warning: bool = False) -> Path:
    """A screening run `s`: one document per file (tagging), its label (None: no label, an error row instead)."""
    store = ArtifactStore(home)
    store.record_run({"run_id": "s", "created": datetime(2026, 1, 1, tzinfo=UTC), "source": "pdfs", "judge": "rules",
                      "config": "{}", "status": "completed", "criteria": ["semantic_tagging"]})
    store.write_table("corpus", "s", "documents", [
        {"run_id": "s", "doc_id": f"d-{name}", "criterion": "semantic_tagging", "expected_label": None,
         "files": [name], "pages": 1, "source": "pdfs"} for name in labels], DOCUMENTS_SCHEMA)
    store.write_table("aggregate", "s", "doc_labels", [
        {"run_id": "s", "judge": "rules", "model": None, "repeat": 0, "doc_id": f"d-{name}",
         "criterion": "semantic_tagging", "label": label, "pages": 1, "failed_pages": [], "error_pages": 0}
        for name, label in labels.items() if label], DOC_LABELS_SCHEMA)
    advisory = [{"sub_criterion": "structural_hierarchy", "location": "document", "problem": "no /Lang",
                 "remediation": "set /Lang", "rule_id": "semantic_tagging.structural_hierarchy.lang_missing_advisory"}]
    write_judgments(store, "s", [
        {"run_id": "s", "judge": "rules", "model": None, "repeat": 0, "doc_id": f"d-{name}",
         "criterion": "semantic_tagging", "page": 1, "label": label,
         "issues": json.dumps(advisory if warning else [])}
        for name, label in labels.items() if label], screened=True)
    store.write_table("corpus", "s", "errors", [
        {"run_id": "s", "stage": "corpus", "doc_id": f"d-{name}", "kind": "encrypted",
         "message": "encrypted: needs a password", "retryable": False}
        for name, label in labels.items() if not label], ERRORS_SCHEMA)
    return home


def test_a_run_that_could_check_no_file_exits_1_whatever_fail_on_says(tmp_path: Path) -> None:
    home = _screening_home(tmp_path / "h", {"a.pdf": None, "b.pdf": None})
    assert screening_exit(home, ["s"], "never") == EXIT_FAILED
    assert screening_exit(home, ["s"], "never", nothing_checked_fails=False) == EXIT_OK  # `report` wrote it


def test_fail_on_warnings_also_gates_a_file_that_passes_with_warnings(tmp_path: Path) -> None:
    home = _screening_home(tmp_path / "h", {"a.pdf": "passed"}, warning=True)
    assert screening_exit(home, ["s"], "fails") == EXIT_OK
    assert screening_exit(home, ["s"], "warnings") == EXIT_GATE


@pytest.mark.slow
def test_run_pdfs_exit_codes_end_to_end(tmp_path: Path) -> None:
    """Through Prefect, as CI runs it: every file refused → 1; an untagged file with --fail-on fails → 4."""
    from tests.cli_process import run_cli

    env = {**os.environ, "ACCESSBENCH_HOME": str(tmp_path / "home")}
    env.pop("PREFECT_HOME", None)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "empty.pdf").write_bytes(b"")
    (bad / "junk.pdf").write_bytes(b"not a pdf at all")
    refused = run_cli(["run", "--pdfs", str(bad), "--criteria", "semantic_tagging"], env=env)
    assert refused.returncode == EXIT_FAILED, refused.stderr[-2000:]
    assert "no file could be checked" in refused.stderr and "could not be checked" in refused.stdout
    import pymupdf

    good = tmp_path / "good"
    good.mkdir()
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 72), "An untagged page of text.")
        doc.save(good / "untagged.pdf")
    gated = run_cli(["run", "--pdfs", str(good), "--criteria", "semantic_tagging", "--fail-on", "fails"], env=env)
    assert gated.returncode == EXIT_GATE, gated.stderr[-2000:]
    assert "Tag the document first" in (tmp_path / "home" / "reports").joinpath(
        next(p.name for p in (tmp_path / "home" / "reports").glob("*.html") if p.stat().st_size)).read_text() \
        or "tag the document" in gated.stdout
