"""Exit codes and messages for the ways a user gets the command line wrong (no Prefect needed).

README: 0 done, 1 a stage failed, 2 bad usage, 3 input not found — and never a traceback for a user error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.cli.app import format_rows, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text
    return code, text


def test_missing_folders_and_empty_folders_are_not_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "home")
    code, text = run(capsys, "--home", home, "run", "--dataset", str(tmp_path / "nowhere"))
    assert code == 3 and "no such folder" in text
    code, text = run(capsys, "--home", home, "run", "--pdfs", str(tmp_path / "nowhere"))
    assert code == 3 and "no such folder" in text
    (tmp_path / "empty").mkdir()
    code, text = run(capsys, "--home", home, "run", "--pdfs", str(tmp_path / "empty"))
    assert code == 3 and "no .pdf files" in text
    code, text = run(capsys, "--home", home, "run", "--dataset", str(tmp_path / "empty"))
    assert code == 3 and "data/dataset.json" in text


@pytest.mark.parametrize("option", [("--doc-timeout", "0"), ("--workers", "0"), ("--repeats", "0"),
                                    ("--max-error-rate", "1.5")])
def test_impossible_settings_are_refused(option: tuple[str, str], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run(capsys, "--home", str(tmp_path / "home"), "run", *option)
    assert code == 2 and "error" in text


def test_a_home_that_is_a_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    code, text = run(capsys, "--home", str(tmp_path / "file"), "runs")
    assert code == 2 and "is a file" in text


def test_global_options_work_after_the_subcommand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "home").mkdir()  # `runs` on a home that does not exist says so (tests/flows/test_read_only_home.py)
    code, text = run(capsys, "runs", "--home", str(tmp_path / "home"))
    assert code == 0 and "no runs in" in text and str(tmp_path / "home") in text


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("accessbench ")


def test_sql_cells_are_data_not_markup() -> None:
    out = format_rows(["x"], [("x [/bold] y",), ("[modified Julian day (MJD) 57004]",)], "table")
    assert "x [/bold] y" in out and "[modified Julian day (MJD) 57004]" in out


def test_library_caches_stay_inside_the_data_home(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "outside"))
    (tmp_path / "home").mkdir()
    code, _ = run(capsys, "--home", str(tmp_path / "home"), "runs")
    import os

    assert code == 0 and os.environ["XDG_CACHE_HOME"].startswith(str(tmp_path / "home"))  # onnxruntime writes there
