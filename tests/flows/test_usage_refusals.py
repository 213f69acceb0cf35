"""`accessbench run` refuses bad usage before any heavy import (issue 58, point 5): a misspelled criterion, a
missing or empty input, a model judge without its key. Checked by what the refusing process imported, not by
its time (`python -m benchmarks.cli_latency` prints the times)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.cli_latency import cases
from flows.cli.preflight import input_refusal

HEAVY = ("prefect", "pymupdf", "pyarrow", "litellm", "duckdb", "tasks.benchmark.registry", "tasks.engine.runner",
         "extractors")
REPO = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from flows.cli.app import main
code = main(sys.argv[1:])
# a None entry is a placeholder (common.layout_deferral's for pymupdf.layout), not an import
heavy = sorted(m for m, mod in sys.modules.items()
               if mod is not None and (m.split(".")[0] in {roots} or m in {modules}))
print(json.dumps({{"code": code, "heavy": heavy}}))
"""


def refuse(args: list[str], cwd: Path) -> tuple[int, list[str], str]:
    """Run `accessbench ARGS` in a fresh interpreter: (exit code, heavy modules it imported, its stderr)."""
    roots = {name for name in HEAVY if "." not in name}
    probe = PROBE.format(roots=sorted(roots), modules=sorted(set(HEAVY) - roots))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "GOOGLE_API_KEY"}
    env.update(ACCESSBENCH_HOME=str(cwd / "home"), PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-c", probe, *args], env=env, cwd=cwd, capture_output=True, text=True,
                            timeout=300)
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    return outcome["code"], outcome["heavy"], result.stderr


@pytest.mark.heavy  # a child interpreter per refusal
def test_each_refusal_imports_nothing_heavy_and_creates_nothing(tmp_path: Path) -> None:
    for what, args, expected in cases(tmp_path):
        code, heavy, stderr = refuse(args, tmp_path)
        assert code == expected, f"{what}: exit {code}\n{stderr}"
        assert stderr.startswith("accessbench: error: "), what
        assert heavy == [], f"{what}: imported {heavy} before refusing"
    assert not (tmp_path / "home").exists()  # no data home made for a command that never ran


@pytest.mark.heavy
def test_the_refusals_say_what_to_do(tmp_path: Path) -> None:
    found = {what: refuse(args, tmp_path)[2] for what, args, _ in cases(tmp_path)}
    assert "did you mean 'semantic_tagging'" in found["misspelled criterion"]
    assert "set OPENAI_API_KEY in the environment" in found["missing API key (llm:)"]
    assert "only empty .pdf files" in found["--pdfs: one empty PDF"]


def test_a_folder_with_something_to_check_is_not_refused(tmp_path: Path) -> None:
    (tmp_path / "empty.pdf").write_bytes(b"")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "paper.pdf").write_bytes(b"%PDF-1.7\n")  # not a good PDF: the run says so, as a row
    assert input_refusal(None, str(tmp_path)) is None
    fifo_only = tmp_path / "fifo"
    fifo_only.mkdir()
    os.mkfifo(fifo_only / "pipe.pdf")  # not a file of 0 bytes: the run records it as skipped
    assert input_refusal(None, str(fifo_only)) is None


@pytest.mark.parametrize("judge", ["llm:local", "rules", "llm:ollama/llama3"])
def test_judges_without_a_known_key_go_on_to_the_full_checks(tmp_path: Path, judge: str) -> None:
    from flows.cli.preflight import key_refusal

    assert key_refusal([judge], None) is None
