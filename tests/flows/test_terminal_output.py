"""What a command prints on the terminal: a failed stage is one line (tracebacks only with -v), and
Prefect's settings are in place before Prefect is imported."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flows.cli.console import quiet_run_logs
from judges.llm.scripted_server import ScriptedServer, chat
from tests import cli_process

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def root_handler() -> Iterator[tuple[logging.Handler, io.StringIO]]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler, stream
    finally:
        root.removeHandler(handler)


def _log_a_failed_task() -> None:
    try:
        raise RuntimeError("stage 'judge' failed: the model kept failing")
    except RuntimeError:
        logging.getLogger("prefect.task_runs").error("Task run failed with exception", exc_info=True)
    logging.getLogger("prefect.flow_runs").error("Finished in state Failed()")
    logging.getLogger("accessbench").warning("judge: 2 document(s) failed transiently")


def test_run_logs_stay_off_the_terminal_without_verbose(root_handler: tuple[logging.Handler, io.StringIO]) -> None:
    handler, stream = root_handler
    quiet_run_logs(verbose=False)
    quiet_run_logs(verbose=False)  # twice: one filter, not two
    _log_a_failed_task()
    text = stream.getvalue()
    assert "Traceback" not in text and "Finished in state" not in text
    assert "accessbench: judge: 2 document(s) failed transiently" in text  # our own warnings still show
    assert len(handler.filters) == 1


def test_verbose_shows_prefects_tracebacks(root_handler: tuple[logging.Handler, io.StringIO]) -> None:
    handler, stream = root_handler
    quiet_run_logs(verbose=False)
    quiet_run_logs(verbose=True)  # -v after a quiet command in the same process
    _log_a_failed_task()
    text = stream.getvalue()
    assert "Traceback" in text and "RuntimeError: stage 'judge' failed" in text
    assert "prefect.flow_runs: Finished in state Failed()" in text and not handler.filters


def test_checking_a_run_imports_no_prefect() -> None:
    """Prefect reads PREFECT_API_URL and its logging level once, when imported: what `accessbench run`
    imports to check the run before it prepares them must not import Prefect (else every run starts a
    throwaway server and logs at INFO)."""
    code = ("import sys\nimport flows.cli.app\nflows.cli.app.build_parser()\n"
            "from tasks.benchmark.registry import BENCHMARK, STAGES\n"
            "from tasks.benchmark.judge import check_judge_specs\n"
            "from tasks.audit.registry import AUDIT_STAGES\nfrom warehouse.store import check_run_free\n"
            "from flows.report.data import reusing_collected\nprint('prefect' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.slow
def test_a_failed_stage_prints_one_line_and_verbose_the_traceback(tmp_path: Path) -> None:
    server = ScriptedServer().start()
    server.responder = lambda body: chat("no JSON here")  # every page judgment fails: the judge stage fails
    try:
        env = {**os.environ, "ACCESSBENCH_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "sk-test",
               "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        env.pop("PREFECT_HOME", None)
        args = ("run", "--criteria", "table_structure", "--base-docs", "1", "--repeats", "1", "--run-id", "bad",
                "--judge", "llm:openai/test-model", "--api-base", server.api_base, "--max-error-rate", "0")
        quiet = cli_process.run_cli(args, env=env)
        assert quiet.returncode == 1, quiet.stderr[-3000:]
        lines = quiet.stderr.splitlines()
        failure = [line for line in lines if line.startswith("accessbench: error: stage 'judge' failed")]
        assert len(failure) == 1 and "--max-error-rate" in failure[0]
        assert "Traceback" not in quiet.stderr and "Finished in state" not in quiet.stderr
        assert len(lines) < 20, quiet.stderr
        verbose = cli_process.run_cli(("-v", "rerun", "--run", "bad", "--stage", "judge"), env=env)
        assert verbose.returncode == 1
        assert "Traceback" in verbose.stderr and "StageFailed" in verbose.stderr
        assert verbose.stderr.rstrip().splitlines()[-2].startswith("accessbench: error: stage 'judge' failed")
    finally:
        server.stop()


class _Recorder:
    """Stands in for the runner's progress bar: what it was asked to count, and each advance."""

    bars: list[dict[str, object]] = []

    def __init__(self, enabled: bool, description: str, total: int, completed: int, unit: str = "documents") -> None:
        self.bar = {"description": description, "total": total, "completed": completed, "unit": unit, "advances": []}
        _Recorder.bars.append(self.bar)

    def __enter__(self) -> object:
        advances = self.bar["advances"]
        assert isinstance(advances, list)
        return advances.append

    def __exit__(self, *exc: object) -> None:
        pass


@pytest.mark.heavy
def test_progress_counts_pages_not_documents_called_pages(tmp_path: Path, synthetic_dataset: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from tasks.benchmark.registry import STAGES
    from tasks.engine import runner
    from tasks.engine.context import RunConfig

    monkeypatch.setattr(runner, "_progress", _Recorder)
    _Recorder.bars = []
    cfg = RunConfig(home=tmp_path / "home", run_id="p", source="dataset", source_path=str(synthetic_dataset),
                    criteria=["table_structure"], progress=True, workers=1)
    for name in ("corpus", "render", "layout", "extract", "transcript", "inputs", "judge"):
        runner.execute(cfg, STAGES[name])
    documents = cfg.store.read_rows("corpus", "p", "documents")
    pages = sum(int(d["pages"] or 1) for d in documents)
    assert pages > len(documents)  # the synthetic documents have several pages each
    bars = {bar["description"]: bar for bar in _Recorder.bars}
    render = bars["render"]
    assert render["unit"] == "pages" and render["total"] == pages and sum(render["advances"]) == pages
    assert bars["extract evidence"]["unit"] == "pages"
    judge = bars["judge (rules)"]
    judged = len(cfg.store.read_rows("inputs", "p", "judge_inputs"))  # a page judgment per input (rules: 1 repeat)
    assert judge["unit"] == "page judgments" and judge["total"] == judged == sum(judge["advances"])


def test_the_bar_names_its_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    from tasks.engine import runner

    out = io.StringIO()
    monkeypatch.setattr(runner, "console", Console(file=out, force_terminal=True, width=100))
    monkeypatch.setattr(runner.sys, "stderr", type("Tty", (io.StringIO,), {"isatty": lambda self: True})())
    with runner._progress(True, "render", 352, 0, "pages") as advance:
        advance(120)
        runner.console.print("")  # a frame of the live bar
    assert "pages" in out.getvalue()
