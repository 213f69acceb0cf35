"""Read-only commands on a data home that does not exist (a typo in --home) say so and create nothing
(issue 31, point 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.cli.app import EXIT_NOT_FOUND, EXIT_OK, main


@pytest.mark.parametrize("command", [["runs"], ["report"], ["report", "--run", "r1"], ["sql", "select 1"]],
                         ids=lambda c: " ".join(c))
def test_a_read_only_command_on_a_missing_home_says_so_and_creates_nothing(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "homme"  # mistyped
    assert main(["--home", str(home), *command]) == EXIT_NOT_FOUND
    err = capsys.readouterr().err
    assert f"the data home {home} does not exist (from --home)" in err and "typo" in err
    assert not home.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_home_from_the_environment_is_named_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ACCESSBENCH_HOME", str(tmp_path / "nowhere"))
    assert main(["runs"]) == EXIT_NOT_FOUND
    assert "does not exist (from $ACCESSBENCH_HOME)" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()


def test_doctor_reports_a_missing_home_and_creates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    home = tmp_path / "homme"
    assert main(["--home", str(home), "doctor"]) == EXIT_OK
    out = " ".join(capsys.readouterr().out.split())
    assert "does not exist" in out
    assert not home.exists() and list(tmp_path.iterdir()) == []


def test_an_existing_empty_home_still_has_no_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(tmp_path), "runs"]) == EXIT_OK
    assert f"no runs in {tmp_path}" in capsys.readouterr().out
