"""The one pipeline driver (tasks.engine.pipeline) that both studies use: order, upstream and downstream, checks
before the first stage, run, rerun, resume and reuse, and the stage statuses it stores."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from tasks.audit.config import AuditConfig
from tasks.audit.registry import AUDIT
from tasks.benchmark.registry import BENCHMARK
from tasks.engine.context import RunConfig
from tasks.engine.pipeline import Pipeline
from tasks.engine.runner import Stage, StageFailed, StageIO
from warehouse.catalog import TableSpec
from warehouse.store import ArtifactStore, StageStatus, Staging

SCHEMA = pa.schema([pa.field("run_id", pa.string(), nullable=False), pa.field("value", pa.int64())])
CALLS: list[str] = []  # stage bodies, in the order they ran


def _body(name: str, upstream: str | None) -> Any:
    def body(io: StageIO) -> dict[str, Any]:
        CALLS.append(name)
        if (io.cfg.home / f"break-{name}").exists():
            raise RuntimeError(f"{name} is broken")
        base = io.read(upstream, upstream)[0]["value"] if upstream else 1
        return {name: [{"run_id": io.cfg.run_id, "value": base + 1}]}
    return body


def _validate(cfg: RunConfig) -> None:
    if (cfg.home / "bad-config").exists():
        raise ValueError("c cannot run with this config: remove bad-config")


def toy() -> Pipeline:
    """a → b → c, and d beside them (needs a only)."""
    def stage(name: str, upstream: str | None, **kw: Any) -> Stage:
        return Stage(name=name, upstream=(upstream,) if upstream else (), config_keys=("seed",),
                     tables=(TableSpec(name, name, SCHEMA),), body=_body(name, upstream), **kw)
    return Pipeline("toy", RunConfig, (stage("a", None), stage("b", "a"), stage("c", "b", validate=_validate),
                                       stage("d", "a")))


def cfg(home: Path, run_id: str = "t1", **kw: Any) -> RunConfig:
    return RunConfig(home=home, run_id=run_id, progress=False, **kw)


def statuses(home: Path, run_id: str = "t1") -> dict[str, str]:
    return {row.stage: row.status for row in ArtifactStore(home).stage_runs(run_id)}


@pytest.fixture(autouse=True)
def _calls() -> None:
    CALLS.clear()


def test_order_upstream_and_downstream() -> None:
    pipeline = toy()
    assert [s.name for s in pipeline.downstream_of("a")] == ["a", "b", "c", "d"]
    assert [s.name for s in pipeline.downstream_of("b")] == ["b", "c"]
    assert pipeline.upstream_closure(["c"]) == {"a", "b"}
    assert pipeline.upstream_closure(["b", "c"]) == {"a"}
    with pytest.raises(KeyError, match="unknown toy stage 'x'; stages: a, b, c, d"):
        pipeline.downstream_of("x")
    # Both studies are pipelines.
    assert [s.name for s in BENCHMARK.downstream_of("judge")] == ["judge", "aggregate", "metrics"]
    assert [s.name for s in AUDIT.downstream_of("responses")] == ["responses", "category_judgments", "audit_metrics"]
    assert AUDIT.upstream_closure(["audit_metrics"]) == {"questions", "responses", "category_judgments"}


def test_a_stage_listed_before_what_it_needs_is_refused() -> None:
    a, b = toy().stages[:2]
    with pytest.raises(ValueError, match="stage 'b' needs a, which must come before it"):
        Pipeline("bad", RunConfig, (b, a))


def test_the_pipeline_runs_only_its_own_config_type(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="the audit pipeline runs a AuditConfig, not a RunConfig"):
        AUDIT.run(cfg(tmp_path))
    assert not ArtifactStore(tmp_path).runs()
    assert isinstance(AuditConfig(home=tmp_path, run_id="x"), AUDIT.config)


def test_run_then_skip_then_rerun_one_stage_or_its_downstream(tmp_path: Path) -> None:
    pipeline = toy()
    results = pipeline.run(cfg(tmp_path))
    assert [(r["stage"], r["status"]) for r in results] == [(n, "completed") for n in "abcd"]
    assert all(r["seconds"] is not None for r in results)
    run = ArtifactStore(tmp_path).get_run("t1")
    assert run is not None and run["status"] == "completed"

    CALLS.clear()
    again = pipeline.run(cfg(tmp_path))
    assert {r["status"] for r in again} == {"skipped"} and CALLS == []
    assert all(r["seconds"] is None for r in again)

    CALLS.clear()
    rerun = pipeline.run(cfg(tmp_path), ["b"], force=True)  # the upstream a is done: used as persisted
    assert [(r["stage"], r["status"]) for r in rerun] == [("b", "completed")] and CALLS == ["b"]

    CALLS.clear()
    names = [s.name for s in pipeline.downstream_of("b")]
    assert [r["stage"] for r in pipeline.run(cfg(tmp_path), names, force=True)] == ["b", "c"]
    assert CALLS == ["b", "c"]


def test_a_failed_run_resumes_from_the_stage_that_failed(tmp_path: Path) -> None:
    pipeline = toy()
    (tmp_path / "break-b").touch()
    with pytest.raises(StageFailed, match="b is broken"):
        pipeline.run(cfg(tmp_path))
    assert statuses(tmp_path) == {"a": "completed", "b": "failed"}
    run = ArtifactStore(tmp_path).get_run("t1")
    assert run is not None and run["status"] == "failed"

    (tmp_path / "break-b").unlink()
    CALLS.clear()
    # Asking for c alone runs what it needs that is not done (b), not what is (a).
    results = pipeline.run(cfg(tmp_path), ["c"])
    assert [(r["stage"], r["status"]) for r in results] == [("b", "completed"), ("c", "completed")]
    assert CALLS == ["b", "c"]
    assert ArtifactStore(tmp_path).read_rows("c", "t1", "c")[0]["value"] == 4


def test_every_stage_is_checked_before_the_first_starts(tmp_path: Path) -> None:
    (tmp_path / "bad-config").touch()
    with pytest.raises(StageFailed, match="stage 'c': c cannot run with this config: remove bad-config"):
        toy().run(cfg(tmp_path))
    assert CALLS == [] and statuses(tmp_path) == {}  # not even a ran
    run = ArtifactStore(tmp_path).get_run("t1")
    assert run is not None and run["status"] == "failed"


def test_another_run_with_identical_inputs_reuses_the_outputs(tmp_path: Path) -> None:
    pipeline = toy()
    pipeline.run(cfg(tmp_path, "t1"))
    CALLS.clear()
    results = pipeline.run(cfg(tmp_path, "t2"))
    assert {r["status"] for r in results} == {"reused"} and CALLS == []
    assert ArtifactStore(tmp_path).read_rows("c", "t2", "c") == [{"run_id": "t2", "value": 4}]
    CALLS.clear()
    changed = pipeline.run(cfg(tmp_path, "t3", seed=1))  # a config key of every stage differs
    assert {r["status"] for r in changed} == {"completed"} and CALLS == ["a", "b", "c", "d"]


def test_statuses_are_stored_as_the_same_strings(tmp_path: Path) -> None:
    toy().run(cfg(tmp_path), ["a"])
    (row,) = ArtifactStore(tmp_path).stage_runs("t1")
    assert type(row.status) is str and row.status == "completed" == StageStatus.COMPLETED
    assert [str(s) for s in StageStatus] == ["running", "completed", "failed", "skipped", "reused", "interrupted"]
    assert {s for s in StageStatus if s.done} == {"completed", "reused", "skipped"}


def _worker_pid(run_id: str, table: str, item: str) -> dict[str, list[dict[str, Any]]]:
    return {table: [{"run_id": run_id, "value": os.getpid()}]}


def _pids(name: str) -> Any:
    def body(io: StageIO) -> dict[str, Any]:
        return io.per_key([(k, k) for k in "wxyz"], partial(_worker_pid, io.cfg.run_id, name), isolated=True)
    return body


def test_a_stage_that_releases_its_workers_leaves_fresh_ones_to_the_next(tmp_path: Path) -> None:
    """The layout stage's workers hold its model: the per-document stages after it get new processes,
    while stages that release nothing share one pool."""
    def stage(name: str, upstream: str | None, **kw: Any) -> Stage:
        return Stage(name=name, upstream=(upstream,) if upstream else (), config_keys=("seed",),
                     tables=(TableSpec(name, name, SCHEMA),), body=_pids(name), per_document=True, **kw)
    pipeline = Pipeline("pids", RunConfig, (stage("a", None, releases_workers=True), stage("b", "a"),
                                            stage("c", "b")))
    pipeline.run(cfg(tmp_path, workers=2))
    store = ArtifactStore(tmp_path)
    pids = {name: {row["value"] for row in store.read_rows(name, "t1", name)} for name in "abc"}
    assert os.getpid() not in pids["a"] | pids["b"] | pids["c"]  # the work ran in workers
    assert not pids["a"] & (pids["b"] | pids["c"])
    assert len(pids["b"] | pids["c"]) <= 2  # one pool of two workers served both


def test_a_stage_checks_in_a_worker_only_when_it_has_something_to_compute(tmp_path: Path) -> None:
    """`per_key(before=...)` runs once before the first item is computed, and not at all when an earlier attempt
    did every item (the layout stage loads its backend so: not for a run whose one pass laid out everything)."""
    checks: list[str] = []

    def body(io: StageIO) -> dict[str, Any]:
        return io.per_key([(k, k) for k in "wxyz"], partial(_worker_pid, io.cfg.run_id, "b"), isolated=True,
                          before=lambda: checks.append("checked"))
    stage = Stage(name="b", upstream=(), config_keys=("seed",), tables=(TableSpec("b", "b", SCHEMA),), body=body,
                  per_document=True)
    pipeline = Pipeline("before", RunConfig, (stage,))
    pipeline.run(cfg(tmp_path, workers=2))
    assert checks == ["checked"]
    pipeline.run(cfg(tmp_path, workers=2), force=True)  # computed again: checked again
    assert checks == ["checked", "checked"]
    # An attempt that finds every item done (a resume after the last item was staged) computes nothing.
    io = StageIO(cfg(tmp_path, "t9"), stage, Staging(root=tmp_path / "parts", input_hash="h", home=tmp_path))
    for key in "wxyz":
        io.staging.put(key, {"b": pa.table({"run_id": ["t9"], "value": [0]}, schema=SCHEMA)})
    io.per_key([(k, k) for k in "wxyz"], partial(_worker_pid, "t9", "b"), isolated=True,
               before=lambda: checks.append("checked"))
    assert checks == ["checked", "checked"]
