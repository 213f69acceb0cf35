"""`-n auto` starts a spare worker when the `slow` tests run (tests/conftest.py), and only then."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from xdist.plugin import pytest_xdist_auto_num_workers as xdist_count

from tests.conftest import pytest_xdist_auto_num_workers as ours


def _config(markexpr: str) -> Any:
    return SimpleNamespace(option=SimpleNamespace(numprocesses="auto"), getoption=lambda name, default=None:
                           markexpr if name == "markexpr" else default)


def test_the_whole_suite_gets_one_worker_more_than_pytest_xdist_would_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    config = _config("")
    assert ours(config) == xdist_count(config) + 1
    assert ours(_config("heavy")) == xdist_count(config) + 1  # the slow tests are still selected


def test_without_the_slow_tests_or_with_the_variable_pytest_xdist_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    assert ours(_config("not slow and not benchmark_data and not heavy")) is None
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "5")
    assert ours(_config("")) is None
    assert xdist_count(_config("")) == 5
