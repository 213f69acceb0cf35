"""The tests' CLI commands forked from a helper (tests/cli_process.py) behave as new interpreters do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_process import PRELOAD, run_cli

pytestmark = pytest.mark.heavy  # new interpreters (not in make test-fast)


def _both(args: list[str], env: dict[str, str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], ...]:
    forked = run_cli(args, env=env, cwd=cwd)
    fresh = subprocess.run([sys.executable, "-m", "flows.cli.app", *args], env=env, cwd=cwd, text=True,
                           capture_output=True, timeout=120)
    return forked, fresh


def test_a_forked_command_exits_prints_and_reads_its_environment_as_a_new_interpreter(tmp_path: Path) -> None:
    env = {**os.environ, "ACCESSBENCH_HOME": str(tmp_path / "home")}
    for args in (["sql", "drop view documents"], ["runs"], ["nonsense"], ["--version"]):
        forked, fresh = _both(args, env, tmp_path)
        assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert forked.returncode == 0 and "accessbench" in forked.stdout
    # The working directory is the command's: without ACCESSBENCH_HOME the home is ./.accessbench there.
    env.pop("ACCESSBENCH_HOME")
    (tmp_path / "work" / ".accessbench").mkdir(parents=True)  # `runs` on a home that does not exist says so
    forked, fresh = _both(["runs"], env, tmp_path / "work")
    assert forked.returncode == fresh.returncode == 0 and forked.stdout == fresh.stdout
    assert str(tmp_path / "work" / ".accessbench") in forked.stdout
    with pytest.raises(FileNotFoundError):  # a missing working directory, as subprocess.run reports it
        run_cli(["runs"], env=env, cwd=tmp_path / "missing")


def test_nothing_that_reads_the_environment_at_import_is_preloaded() -> None:
    assert not [name for name in PRELOAD if name.split(".")[0] in {"prefect", "pymupdf", "onnxruntime", "litellm",
                                                                   "dask", "distributed", "fitz"}]
    assert not [name for name in PRELOAD if name.split(".")[0] in {"flows", "tasks", "extractors", "judges",
                                                                   "models", "warehouse", "corpus", "common",
                                                                   "repairs"}]


@pytest.mark.parametrize("argv", [["run", "--runner", "dask"], ["run", "--runner=dask://h:1"]])
def test_runs_on_dask_get_a_new_interpreter(argv: list[str]) -> None:
    from tests.cli_process import _dask

    assert _dask(argv) and not _dask(["run", "--runner", "local"])


def test_litellm_is_imported_ahead_only_for_commands_that_may_call_a_model_and_with_their_settings() -> None:
    from tests.cli_process import _litellm_settings, _may_call_a_model

    assert _may_call_a_model(["run", "--judge", "llm:openai/gpt-4o"])
    assert _may_call_a_model(["--home", "h", "run", "--judge", "rules", "--judge", "hybrid:openai/m"])
    assert _may_call_a_model(["rerun", "--run", "r1", "--stage", "judge"]) and _may_call_a_model(["audit"])
    assert not _may_call_a_model(["run", "--base-docs", "1"]) and not _may_call_a_model(["sql", "select 1"])
    # AccessBench's own default, unless the command's environment says otherwise.
    assert _litellm_settings({"PATH": "/bin"}) == {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    assert _litellm_settings({"LITELLM_LOCAL_MODEL_COST_MAP": "False", "LITELLM_LOG": "DEBUG"}) == {
        "LITELLM_LOCAL_MODEL_COST_MAP": "False", "LITELLM_LOG": "DEBUG"}
