"""`accessbench doctor` names what is configured and never prints a secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.cli.app import EXIT_OK, main
from flows.cli.doctor import installed_extras, provider_keys

SECRETS = {"OPENAI_API_KEY": "sk-proj-DOCTOR-secret-1", "ANTHROPIC_API_KEY": "sk-ant-DOCTOR-secret-2",
           "ACME_API_KEY": "acme-DOCTOR-secret-3"}


def test_doctor_lists_key_names_home_disk_prefect_and_extras(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("PREFECT_HOME", raising=False)
    monkeypatch.setenv("COLUMNS", "240")  # what doctor says, not how it fits (tests/flows/test_tables_width.py)
    assert main(["--home", str(tmp_path / "home"), "doctor"]) == EXIT_OK
    out = capsys.readouterr().out
    for name, value in SECRETS.items():
        assert name in out and value not in out
        assert value[:8] not in out  # not even a prefix
    flowing = " ".join(out.replace("│", " ").split())  # the value column wraps at the terminal's width, by words
    assert str(tmp_path / "home") in out and "not created yet" in flowing
    assert "GiB free" in out and "PREFECT_HOME=" in out
    assert "extras installed" in out


def test_prefect_server_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PREFECT_API_URL", "http://prefect.example:4200/api")
    main(["--home", str(tmp_path), "doctor"])
    assert "http://prefect.example:4200/api (from PREFECT_API_URL)" in capsys.readouterr().out


def test_provider_keys_ignores_empty_variables_and_returns_names_only() -> None:
    found = provider_keys({"OPENAI_API_KEY": "", "GEMINI_API_KEY": "g-secret", "PATH": "/bin", "X_API_TOKEN": "t"})
    assert found == {"gemini": ["GEMINI_API_KEY"], "other": ["X_API_TOKEN"]}


def test_installed_extras_reflects_this_environment() -> None:
    extras = installed_extras()
    assert extras.get("dev") is True  # pytest is running this test
    # Every extra pyproject declares (embedding, dask and local too: tests/flows/test_doctor_truth.py).
    assert {"llm", "aws", "pdfix", "layout", "layoutparser", "embedding", "dask", "local", "dev"} <= set(extras)
