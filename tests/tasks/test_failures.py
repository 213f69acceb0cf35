"""Per-document errors handled once in the runner: error kinds, retry on resume, `errors.retryable`,
`documents.status`, `Stage.check`, and judges that say they are deterministic."""

from __future__ import annotations

import json
import pickle
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pymupdf
import pytest

from extractors import pages as pages_module  # the render stage's work imports render_pages from it when it runs
from extractors.errors import ExtractionError
from extractors.transcript import TranscriptError
from judges.base import JUDGES, PageJudgment
from judges.evidence import PageBundle
from judges.labels import Label
from tasks.benchmark.registry import STAGES
from tasks.benchmark.work import extract as extract_module  # the work, where `extract_file` is called
from tasks.engine.context import RunConfig
from tasks.engine.failures import Failure, PartialFailure, classify, guarded, kind_of
from tasks.engine.isolation import DocumentTimeout
from tasks.engine.runner import ConfigError, StageFailed, execute
from warehouse import catalog
from warehouse.store import StageRun, now
from warehouse.tables import ALL_TABLES, JUDGE_INPUTS_SCHEMA

# -- error kinds -------------------------------------------------------------------------------


def test_exceptions_are_classified_by_their_attributes_with_defaults() -> None:
    corrupt = classify(ExtractionError("corrupt", "PyMuPDF cannot parse it"))
    assert (corrupt.kind, corrupt.transient) == ("corrupt", False)
    assert corrupt.message.startswith("PyMuPDF cannot parse it;")  # the kind is its own column
    assert (classify(ExtractionError("encrypted", "x")).transient, classify(ExtractionError("empty", "x")).transient) \
        == (False, False)
    timeout = classify(DocumentTimeout("processing took longer than 5 s"))
    # Terminal: a resumed run does not pay the same document's time limit again (issue 37).
    assert (timeout.kind, timeout.transient, timeout.message) == (
        "timeout", False, "processing took longer than 5 s")
    assert classify(TimeoutError("read timed out")).kind == "timeout"
    assert (classify(ConnectionResetError("reset")).kind, classify(ConnectionResetError("reset")).transient) == (
        "connection", True)
    assert (classify(MemoryError()).kind, classify(MemoryError()).transient) == ("memory", True)
    throttled = classify(TranscriptError("Amazon Transcribe throttled the job", transient=True))
    assert (throttled.kind, throttled.transient) == ("transcript", True)  # the exception's own flag wins
    assert classify(TranscriptError("no recorded audio")).transient is False
    bug = classify(KeyError("page"))
    assert (bug.kind, bug.transient, bug.message) == ("internal", False, "KeyError: 'page'")
    for failure in (corrupt, timeout, throttled, bug):
        assert failure.advice and "\n" not in failure.advice
    assert kind_of("bad_question").transient is False  # a stage's own kind is terminal


def test_a_partial_failure_keeps_its_rows_and_crosses_processes() -> None:
    def work(item: int) -> dict[str, list[dict[str, Any]]]:
        try:
            raise ExtractionError("corrupt", "cannot read the page tree")
        except ExtractionError as exc:
            raise PartialFailure({"pages": [{"doc_id": "d", "page": 1}]}, exc) from exc

    result = guarded(work, 1)
    assert isinstance(result, Failure) and result.kind == "corrupt" and result.rows == {"pages": [{"doc_id": "d",
                                                                                                   "page": 1}]}
    assert pickle.loads(pickle.dumps(result)) == result


# -- retry on resume, errors.retryable, documents.status ---------------------------------------------


def in_process(fn: Callable[[Any], Any], args: Sequence[Any], *, workers: int, timeout_s: float | None
               ) -> Iterator[tuple[int, Any]]:
    """The fan-out contract, in this process (so monkeypatched extractors apply)."""
    for index, arg in enumerate(args):
        try:
            yield index, fn(arg)
        except Exception as exc:  # noqa: BLE001 - a fan-out reports exceptions as values
            yield index, exc


def make_pdfs(folder: Path, names: Sequence[str]) -> Path:
    folder.mkdir()
    for name in names:
        doc = pymupdf.open()
        doc.new_page().insert_text((72, 72), f"This is {name}.")
        doc.save(folder / f"{name}.pdf")
        doc.close()
    return folder


def pdfs_config(home: Path, folder: Path, run_id: str = "r") -> RunConfig:
    return RunConfig(home=home, run_id=run_id, source="pdfs", source_path=str(folder), criteria=["semantic_tagging"],
                     progress=False)


def by_file(home: Path, sql: str) -> dict[str, tuple[Any, ...]]:
    """Rows of `sql` keyed by the document's file name (`sql` selects files first)."""
    _, rows = catalog.query(home, ALL_TABLES, sql)
    return {row[0][0].removesuffix(".pdf"): row[1:] for row in rows}


def test_a_transient_failure_is_retried_on_resume_and_a_terminal_one_is_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = make_pdfs(tmp_path / "pdfs", ["flaky", "broken", "fine"])
    calls: Counter[str] = Counter()
    real = pages_module.render_pages

    def render_pages(path: Path, **kw: Any) -> list[dict[str, Any]]:
        calls[path.stem] += 1
        if path.stem == "flaky" and calls[path.stem] == 1:
            raise TimeoutError("the renderer timed out")  # once: throttled, slow disk, busy service
        if path.stem == "broken":
            raise ExtractionError("corrupt", "PyMuPDF cannot parse it")
        return real(path, **kw)

    monkeypatch.setattr(pages_module, "render_pages", render_pages)
    cfg = pdfs_config(tmp_path / "home", folder)
    execute(cfg, STAGES["corpus"])
    assert execute(cfg, STAGES["render"], fanout=in_process).status == "completed"
    assert calls == {"flaky": 1, "broken": 1, "fine": 1}
    errors = "select d.files, e.kind, e.retryable from errors e join documents d using (run_id, doc_id)"
    assert by_file(cfg.home, errors) == {"flaky": ("timeout", True), "broken": ("corrupt", False)}
    status = "select files, status from documents where run_id = 'r'"
    assert by_file(cfg.home, status) == {"flaky": ("failed",), "broken": ("failed",), "fine": ("ok",)}

    # The resume retries the throttled document alone: done documents are not computed again.
    assert execute(cfg, STAGES["render"], fanout=in_process).status == "completed"
    assert calls == {"flaky": 2, "broken": 1, "fine": 1}
    assert by_file(cfg.home, errors) == {"broken": ("corrupt", False)}
    assert by_file(cfg.home, status) == {"flaky": ("ok",), "broken": ("failed",), "fine": ("ok",)}
    _, pages = catalog.query(cfg.home, ALL_TABLES, "select count(*) from pages where run_id = 'r'")
    assert pages == [(2,)]
    # Nothing left to retry: the next resume skips the stage.
    assert execute(cfg, STAGES["render"], fanout=in_process).status == "skipped"
    assert calls == {"flaky": 2, "broken": 1, "fine": 1}


def test_outputs_with_pending_retries_are_never_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = make_pdfs(tmp_path / "pdfs", ["flaky", "fine"])
    calls: Counter[str] = Counter()
    real = pages_module.render_pages

    def render_pages(path: Path, **kw: Any) -> list[dict[str, Any]]:
        calls[path.stem] += 1
        if path.stem == "flaky" and calls[path.stem] == 1:
            raise ConnectionResetError("the shared disk went away")
        return real(path, **kw)

    monkeypatch.setattr(pages_module, "render_pages", render_pages)
    home = tmp_path / "home"
    first, second = pdfs_config(home, folder, "r1"), pdfs_config(home, folder, "r2")
    for cfg in (first, second):
        execute(cfg, STAGES["corpus"])
    assert execute(first, STAGES["render"], fanout=in_process).status == "completed"
    assert first.store.retries_pending("render", "r1")
    # r2 has the same inputs, but r1's outputs lack a document that may yet render: computed, not reused.
    assert execute(second, STAGES["render"], fanout=in_process).status == "completed"
    # Resuming r1 now takes r2's complete outputs, and nothing is left to retry.
    assert execute(first, STAGES["render"], fanout=in_process).status == "reused"
    assert not first.store.retries_pending("render", "r1")
    assert calls == {"flaky": 2, "fine": 2}
    assert by_file(home, "select files, status from documents where run_id = 'r1'") == {"flaky": ("ok",),
                                                                                         "fine": ("ok",)}


def test_documents_status_is_ok_partial_or_failed_and_leaves_reuse_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = make_pdfs(tmp_path / "pdfs", ["good", "half"])
    (folder / "garbage.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 400)
    real = extract_module.extract_file

    def extract_file(source: Any, doc_id: str, *args: Any, **kw: Any) -> dict[str, list[dict[str, Any]]]:
        if Path(str(source.path)).stem == "half":
            raise ExtractionError("corrupt", "cannot read the fonts")
        return real(source, doc_id, *args, **kw)

    monkeypatch.setattr(extract_module, "extract_file", extract_file)
    home = tmp_path / "home"
    for run_id in ("r1", "r2"):
        cfg = pdfs_config(home, folder, run_id)
        statuses = {name: execute(cfg, STAGES[name], fanout=in_process).status
                    for name in ("corpus", "render", "layout", "extract")}
        assert statuses["corpus"] == "completed"
    # The second run reused the first run's outputs: documents.status is not in any fingerprint.
    assert statuses["render"] == statuses["extract"] == "reused"
    assert "status" not in pq.read_schema(cfg.store.table_path("corpus", "r2", "documents")).names
    for run_id in ("r1", "r2"):
        assert by_file(home, f"select files, status from documents where run_id = '{run_id}'") == {
            "good": ("ok",),
            "half": ("partial",),  # rendered, and extract kept its doc_structure row, but extract failed
            "garbage": ("failed",),  # nothing usable
        }
    _, rows = catalog.query(home, ALL_TABLES, "select distinct kind, retryable from errors where run_id = 'r1' "
                                              "order by all")
    assert rows and all(retryable is False for _, retryable in rows)
    # The same view in the warehouse file that outside tools open.
    assert catalog.refresh(home, ALL_TABLES)
    import duckdb

    con = duckdb.connect(str(home / catalog.WAREHOUSE_FILE), read_only=True)
    try:
        counted = dict(con.execute("select status, count(*) from documents where run_id = 'r1' group by all")
                       .fetchall())
    finally:
        con.close()
    assert counted == {"ok": 1, "partial": 1, "failed": 1}


# -- Stage.check -----------------------------------------------------------------------------------


def test_a_stage_refuses_a_bad_config_before_any_work(tmp_path: Path) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="dpi"):  # a range is the settings model's (tasks.engine.options)
        RunConfig(home=tmp_path, run_id="r", dpi=5, progress=False)
    cfg = RunConfig(home=tmp_path, run_id="r", progress=False, layout_backend="fasterrcnn")
    with pytest.raises(StageFailed, match="needs weights"):
        execute(cfg, STAGES["layout"])
    assert cfg.store.get_stage_run("r", "layout") is None  # refused before it started
    with pytest.raises(ConfigError, match="needs weights"):
        STAGES["layout"].check(RunConfig(home=tmp_path, run_id="r", layout_backend="fasterrcnn"))
    with pytest.raises(ConfigError, match="unknown judge"):
        STAGES["judge"].check(RunConfig(home=tmp_path, run_id="r", judges=["nonsense"]))
    STAGES["transcript"].check(RunConfig(home=tmp_path, run_id="r"))


def test_the_cli_checks_every_stage_before_the_flow_starts(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli.app import main
    from warehouse.store import ArtifactStore

    home = tmp_path / "home"
    code = main(["--home", str(home), "run", "--layout-backend", "fasterrcnn", "--run-id", "nope"])
    err = capsys.readouterr().err
    assert code == 2 and "needs weights" in err and "Traceback" not in err
    assert ArtifactStore(home).runs() == []  # no flow run started


def test_the_pdfix_tag_tree_is_an_option_checked_before_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    from flows.cli.app import main
    from warehouse.store import ArtifactStore

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pdfixsdk" else real(name, *a))
    home = tmp_path / "home"
    code = main(["--home", str(home), "run", "--tag-tree", "pdfix", "--run-id", "nope"])
    err = capsys.readouterr().err
    assert code == 2 and "--tag-tree pdfix needs pdfix-sdk" in err and "Traceback" not in err
    assert ArtifactStore(home).runs() == []


# -- deterministic judges ----------------------------------------------------------------------------


class CountingJudge:
    """A judge that is not the rules judge, deterministic or not, counting what it is asked."""

    model: str | None = None
    prompt_version = "t1"

    def __init__(self, name: str, deterministic: bool) -> None:
        self.name = name
        self.deterministic = deterministic
        self.repeats: list[int] = []

    def supports(self, criterion: str) -> bool:
        return True

    def params(self) -> dict[str, Any]:
        return {}

    def judge_page(self, bundle: PageBundle, repeat: int) -> PageJudgment:
        self.repeats.append(repeat)
        return PageJudgment(Label.PASSED)


def test_a_deterministic_judge_runs_once_and_a_stochastic_one_repeats(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    judges = {"steady": CountingJudge("steady", True), "dice": CountingJudge("dice", False)}
    for kind, judge in judges.items():
        monkeypatch.setitem(JUDGES.declared, kind, __name__)
        monkeypatch.setitem(JUDGES._factories, kind, lambda argument, options, judge=judge: judge)
    cfg = RunConfig(home=tmp_path, run_id="r", judges=list(judges), repeats=3, progress=False)
    row = {"run_id": "r", "doc_id": "d1", "criterion": "semantic_tagging", "page": 1, "image_path": None,
           "evidence": json.dumps({}), "available": [], "withheld": [], "input_hash": "h"}
    cfg.store.write_table("inputs", "r", "judge_inputs", [row], JUDGE_INPUTS_SCHEMA)
    cfg.store.record_stage(StageRun("r", "inputs", "completed", now(), now(), "x"))
    assert execute(cfg, STAGES["judge"]).status == "completed"
    # The deterministic judge ran in a worker process (per-document work); its judgments tell.
    judged = cfg.store.read_rows("judge", "r", "judgments")
    assert sorted(r["repeat"] for r in judged if r["judge"] == "steady") == [0]
    assert sorted(r["repeat"] for r in judged if r["judge"] == "dice") == [0, 1, 2]
    assert judges["steady"].repeats == []  # not in this process
    assert judges["dice"].repeats == [0, 1, 2]  # model judges stay in the flow's process


class ThrottledOnce(CountingJudge):
    """Fails its first page with a transient model-call error, as a throttled provider would."""

    def judge_page(self, bundle: PageBundle, repeat: int) -> PageJudgment:
        self.repeats.append(repeat)
        if len(self.repeats) == 1:
            return PageJudgment(Label.CANNOT_TELL, error="model_call: HTTP 429, retried 3 times", transient=True)
        return PageJudgment(Label.PASSED)


def test_a_throttled_judgment_is_judged_again_on_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    judge = ThrottledOnce("throttled", False)
    monkeypatch.setitem(JUDGES.declared, "throttled", __name__)
    monkeypatch.setitem(JUDGES._factories, "throttled", lambda argument, options: judge)
    cfg = RunConfig(home=tmp_path, run_id="r", judges=["throttled"], repeats=1, max_error_rate=1.0, progress=False)
    rows = [{"run_id": "r", "doc_id": doc, "criterion": "semantic_tagging", "page": 1, "image_path": None,
             "evidence": json.dumps({}), "available": [], "withheld": [], "input_hash": doc} for doc in ("d1", "d2")]
    cfg.store.write_table("inputs", "r", "judge_inputs", rows, JUDGE_INPUTS_SCHEMA)
    cfg.store.record_stage(StageRun("r", "inputs", "completed", now(), now(), "x"))
    assert execute(cfg, STAGES["judge"]).status == "completed"
    _, errors = catalog.query(tmp_path, ALL_TABLES, "select count(*) from judgments where error is not null")
    assert errors == [(1,)] and len(judge.repeats) == 2
    assert execute(cfg, STAGES["judge"]).status == "completed"  # the resume judges the throttled page alone
    assert len(judge.repeats) == 3
    _, labels = catalog.query(tmp_path, ALL_TABLES, "select label, error from judgments order by doc_id")
    assert labels == [("passed", None), ("passed", None)]
    assert execute(cfg, STAGES["judge"]).status == "skipped"


def test_no_judge_is_special_cased_by_name() -> None:
    root = Path(__file__).resolve().parents[2]
    pattern = re.compile(r"""\.name\s*[!=]=\s*["'](rules|llm|hybrid)["']""")
    hits = [f"{path.relative_to(root)}" for folder in ("tasks", "flows", "judges", "models", "warehouse")
            for path in (root / folder).rglob("*.py") if pattern.search(path.read_text())]
    assert hits == []


def test_a_row_that_does_not_fit_its_table_fails_the_stage_not_one_document(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A producer's bug (a column the schema does not declare) is checked where the work ran, and
    # still stops the stage with the table and column named instead of becoming a document's error row.
    folder = make_pdfs(tmp_path / "pdfs", ["one", "two"])
    real = pages_module.render_pages

    def render_pages(path: Path, **kw: Any) -> list[dict[str, Any]]:
        return [{**row, "surprise": 1} for row in real(path, **kw)]

    monkeypatch.setattr(pages_module, "render_pages", render_pages)
    cfg = pdfs_config(tmp_path / "home", folder)
    execute(cfg, STAGES["corpus"])
    with pytest.raises(StageFailed, match=r"'pages'.*surprise"):
        execute(cfg, STAGES["render"], fanout=in_process)
    assert cfg.store.get_stage_run("r", "render").status == "failed"
