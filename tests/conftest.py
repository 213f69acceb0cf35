"""Shared fixtures: the real dev benchmark (skip when absent) and small synthetic corpora."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_BENCHMARK = REPO.parent / "shared" / "pdf-accessibility-benchmark"


def pytest_configure(config: pytest.Config) -> None:
    from tests import prefect_env

    if hasattr(config, "workerinput"):  # an xdist worker: the controller owns the server
        return
    prefect_env.own_cache()
    if prefect_env.wanted() and _may_run_slow_tests(config):
        prefect_env.start()
    else:
        os.environ.pop("PREFECT_API_URL", None)  # the tests' runs never go to the shell's Prefect server
        os.environ.pop("PREFECT_API_AUTH_STRING", None)


def _may_run_slow_tests(config: pytest.Config) -> bool:
    """False when the mark expression deselects the `slow` tests (make test-fast): only they run flows on
    Prefect, so the session's server would only take CPU from the other tests."""
    expression = " ".join(str(config.getoption("markexpr", "") or "").split())
    return "not slow" not in expression


def pytest_unconfigure(config: pytest.Config) -> None:
    from tests import prefect_env

    prefect_env.stop()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Every flow of the session runs on one local Prefect server (tests/prefect_env.py). The `slow`
    tests (those that run flows) wait for its start before any of their fixtures (a module's fixture
    may run flows); the others run meanwhile."""
    from tests import prefect_env

    if item.get_closest_marker("slow") is not None:
        prefect_env.wait()


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: `-p no:xdist` must still run the tests
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` with the `slow` tests selected (make test): one worker more than the cores this process may use.

    Some of the end-to-end tests mostly wait: for a Prefect worker to pick up a scheduled run, a provider
    that never answers, a signal's deadline. With one worker per core such a test leaves its core idle
    (the suite's CPU use dipped to 55% for half a minute at a time); a spare worker fills it. Measured on
    this 2-core machine, alternating: 3 workers 7:04 and 6:34, 2 workers 7:28 and 7:49. Without them (make
    test-fast) nothing waits and a spare worker only costs its start: 46 s against 44 s. A value in
    PYTEST_XDIST_AUTO_NUM_WORKERS wins, as with pytest-xdist's own `auto`. None leaves the count to pytest-xdist.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or not _may_run_slow_tests(config):
        return None
    from xdist.plugin import pytest_xdist_auto_num_workers as cores  # pytest-xdist's own count of the cores

    return cores(config) + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Modules with `slow`, `benchmark_data` or `heavy` tests first, the rest in their usual order.

    pytest-xdist (`--dist loadscope`) hands modules to its workers in this order as they free up: the
    long end-to-end modules start at once and the many short ones fill the gaps at the end, instead of
    one worker finishing a long module alone. The same order in every worker (it must be).
    """
    heavy = {item.module.__name__ for item in items if isinstance(item, pytest.Function) and item.module
             and any(item.get_closest_marker(mark) for mark in ("slow", "benchmark_data", "heavy"))}
    items.sort(key=lambda item: 0 if isinstance(item, pytest.Function) and item.module
               and item.module.__name__ in heavy else 1)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/ (and its manifest) from the fresh outputs instead of comparing")


@pytest.fixture(scope="session")
def dev_benchmark() -> Path:
    if not (SHARED_BENCHMARK / "data" / "dataset.json").exists():
        pytest.skip(f"the dev benchmark is not at {SHARED_BENCHMARK}; place the upstream layout there to run this")
    return SHARED_BENCHMARK


@pytest.fixture(scope="session")
def synthetic_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded synthetic benchmark with one base document: 25 PDFs, every criterion with every label."""
    from corpus.synthetic import build_synthetic_benchmark

    root = tmp_path_factory.mktemp("synthetic")
    build_synthetic_benchmark(root, seed=0, base_docs=1)
    return root


@pytest.fixture(autouse=True)
def _ephemeral_prefect(monkeypatch: pytest.MonkeyPatch) -> None:
    """CLI runs in tests use Prefect's throwaway server: a persistent one must never outlive a test.

    Tests of the persistent server (tests/flows/test_server.py) undo this and stop what they start.
    """
    monkeypatch.setenv("ACCESSBENCH_PREFECT", "ephemeral")


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """The URL of moto's S3 server, started once for the session on 127.0.0.1 (tests/s3_server.py)."""
    from tests.s3_server import start_server

    server, endpoint = start_server()
    try:
        yield endpoint
    finally:
        server.stop()  # type: ignore[attr-defined]
