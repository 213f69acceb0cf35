"""Shared fixtures: the real dev benchmark (skip when absent) and small synthetic corpora."""

from __future__ import annotations

import atexit
import gc
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_BENCHMARK = REPO.parent / "shared" / "pdf-accessibility-benchmark"


def pytest_configure(config: pytest.Config) -> None:
    from tests import prefect_env

    # Last of this process's exit handlers but pytest's own (registered before this file is read): the
    # interpreter's final garbage collection over everything the tests imported (PyMuPDF, Prefect, litellm,
    # pyarrow, ...) takes a second or two in each process, and `-n auto` waits for every worker's exit before it
    # ends. Every test, fixture and exit handler has run by then; frozen objects are only not collected.
    atexit.register(gc.freeze)
    if hasattr(config, "workerinput"):  # an xdist worker: the controller owns the server
        return
    prefect_env.own_cache()
    if prefect_env.wanted() and _may_run_slow_tests(config):
        prefect_env.start()
    else:
        os.environ.pop("PREFECT_API_URL", None)  # the tests' runs never go to the shell's Prefect server
        os.environ.pop("PREFECT_API_AUTH_STRING", None)
        # Only the `slow` tests start CLI commands that call a model: the helper that forks the others
        # (tests/cli_process.py) need not import litellm (4 s of CPU) for any. Inherited by the workers.
        from tests.cli_process import PRELOAD_LITELLM_VAR

        os.environ.setdefault(PRELOAD_LITELLM_VAR, "0")


def _may_run_slow_tests(config: pytest.Config) -> bool:
    """False when the mark expression deselects the `slow` tests (make test-fast): only they run flows on
    Prefect, so the session's server would only take CPU from the other tests."""
    expression = " ".join(str(config.getoption("markexpr", "") or "").split())
    return "not slow" not in expression


_TMP_CLEANUP = "_accessbench_tmp_cleanup"


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, in the controller, once per worker it starts
def pytest_configure_node(node: object) -> None:
    """Remove the basetemp directories of older sessions (pytest keeps the last 3) while the workers start and
    collect, instead of after the last test: pytest does it when the session ends (seconds, for a whole `make
    test-fast` tree of ~4400 files and folders, on the critical path). The same pytest function with the same
    arguments, in a thread of the controller that pytest_sessionfinish joins before pytest's own clean-up runs
    (which then finds nothing left, or the directories of sessions that started meanwhile); directories still
    locked by a running session are left alone, as pytest leaves them. pytest-xdist has just made the session's
    basetemp for its workers; only pytest's own numbered directory (no --basetemp) with sessions kept."""
    config = node.config  # type: ignore[attr-defined]
    factory = getattr(config, "_tmp_path_factory", None)
    if getattr(config, _TMP_CLEANUP, None) is not None:
        return
    try:
        from _pytest.pathlib import LOCK_TIMEOUT, cleanup_numbered_dir

        basetemp = factory._basetemp  # type: ignore[union-attr]
        if (basetemp is None or factory._given_basetemp is not None  # type: ignore[union-attr]
                or factory._retention_policy == "none" or factory._retention_count < 1):  # type: ignore[union-attr]
            return
        args = (basetemp.parent, "pytest-", factory._retention_count,  # type: ignore[union-attr]
                basetemp.stat().st_mtime - LOCK_TIMEOUT)
    except (AttributeError, ImportError, OSError):  # another pytest: its own clean-up at the end, as before
        return
    thread = threading.Thread(target=cleanup_numbered_dir, args=args, name="pytest-tmp-cleanup", daemon=True)
    thread.start()
    setattr(config, _TMP_CLEANUP, thread)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    thread = getattr(session.config, _TMP_CLEANUP, None)
    if isinstance(thread, threading.Thread):
        thread.join()


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
