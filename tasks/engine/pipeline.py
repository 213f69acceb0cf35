"""One pipeline driver for both studies: the benchmark (corpus → … → metrics) and the inclusivity audit
(questions → … → audit_metrics).

A `Pipeline` is a name, the config type of its runs and its stages in order. It knows each stage's
upstream and downstream stages, checks every stage's config before the first one starts, and runs a
list of stages (forced for a rerun) after any upstream stage they need that never completed (resume).
Each stage itself is skipped when its inputs are unchanged and reuses another run's identical outputs
(`tasks.engine.runner.execute`). This module knows nothing about Prefect: the flows pass the Prefect task that
runs one stage (`tasks.prefect_tasks.run_stage`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from common.arrow_memory import use_system_allocator
from tasks.engine import chain
from tasks.engine.context import RunBase
from tasks.engine.isolation import DEFAULT_WORKER_MEMORY_MB, shared_workers
from tasks.engine.runner import ConfigError, Stage, StageFailed, execute
from warehouse.store import StageRun, StageStatus, now, run_lock

log = logging.getLogger("accessbench")

# Runs one stage of a run whose config was checked: (pipeline name, cfg, stage name, force) → its state row.
# `execute` by default; the flows pass the Prefect task that wraps it (`tasks.prefect_tasks.run_stage`).
StageRunner = Callable[[str, RunBase, str, bool], StageRun]


@dataclass(frozen=True)
class Pipeline:
    """A study's stages in order, the config type its runs use, and how a list of them is run."""

    name: str  # benchmark | audit
    config: type[RunBase]
    stages: tuple[Stage, ...]
    by_name: dict[str, Stage] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for stage in self.stages:
            if stage.name in seen:
                raise ValueError(f"pipeline {self.name}: stage {stage.name!r} is listed twice")
            late = [up for up in stage.upstream if up not in seen]
            if late:
                raise ValueError(f"pipeline {self.name}: stage {stage.name!r} needs {', '.join(late)}, which "
                                 "must come before it")
            seen.add(stage.name)
        object.__setattr__(self, "by_name", {stage.name: stage for stage in self.stages})

    # -- order ----------------------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        return [stage.name for stage in self.stages]

    def stage(self, name: str) -> Stage:
        if name not in self.by_name:
            raise KeyError(f"unknown {self.name} stage {name!r}; stages: {', '.join(self.by_name)}")
        return self.by_name[name]

    def downstream_of(self, name: str) -> list[Stage]:
        """`name` and every stage after it that depends on it, directly or not."""
        chosen = {self.stage(name).name}
        for stage in self.stages:
            if chosen & set(stage.upstream):
                chosen.add(stage.name)
        return [stage for stage in self.stages if stage.name in chosen]

    def upstream_closure(self, names: Iterable[str]) -> set[str]:
        """Every stage that `names` need, directly or not (not including `names` themselves)."""
        names = list(names)
        needed: set[str] = set()
        todo = [up for name in names for up in self.stage(name).upstream]
        while todo:
            name = todo.pop()
            if name not in needed:
                needed.add(name)
                todo.extend(self.by_name[name].upstream)
        return needed - set(names)

    def plan(self, cfg: RunBase, names: Sequence[str], force: bool = False) -> list[tuple[Stage, bool]]:
        """(stage, forced) in stage order: `names` (forced when asked) and every upstream stage they need
        whose recorded state is not done (never run, failed, interrupted). Upstream stages that are done
        are used as persisted, even if their code changed since: a rerun works from the artifacts that exist."""
        store = cfg.store
        needed = {name for name in self.upstream_closure(names)
                  if (state := store.get_stage_run(cfg.run_id, name)) is None
                  or not StageStatus(state.status).done}
        return [(stage, force and stage.name in names) for stage in self.stages
                if stage.name in names or stage.name in needed]

    # -- checks and runs ------------------------------------------------------------------------------

    def check(self, cfg: RunBase, names: Iterable[str] | None = None) -> None:
        """Every stage's config check (`Stage.check`), in stage order: the first problem raises ConfigError."""
        wanted = set(self.names if names is None else names)
        for stage in self.stages:
            if stage.name in wanted:
                stage.check(cfg)

    def run(self, cfg: RunBase, names: Sequence[str] | None = None, *, force: bool = False,
            run_stage: StageRunner | None = None, checked: bool = False) -> list[dict[str, Any]]:
        """Run `names` (default: every stage) as planned by `plan`, holding the run: a second process on
        the same run is refused (RunBusy) before it records anything of that run, so the live run's status
        stays its own. The run is recorded running, then completed or failed.

        Every planned stage's config is checked once before the first starts (StageFailed), unless the
        caller did (`checked`: `check` raised no ConfigError); the stages then run without checking again.
        Returns one result per stage run.
        """
        if not isinstance(cfg, self.config):
            raise TypeError(f"the {self.name} pipeline runs a {self.config.__name__}, not a {type(cfg).__name__}")
        chosen = self.names if names is None else list(names)
        for name in chosen:
            self.stage(name)
        with run_lock(cfg.home, cfg.run_id):
            return self._run_held(cfg, chosen, force, run_stage, checked)

    def _run_held(self, cfg: RunBase, names: list[str], force: bool, run_stage: StageRunner | None,
                  checked: bool) -> list[dict[str, Any]]:
        use_system_allocator()  # before any worker starts (`common.arrow_memory`)
        record_run(cfg, StageStatus.RUNNING)
        results = []
        try:
            plan = self.plan(cfg, names, force)
            if not checked:  # as `execute` would, stage by stage; here all of them before the first starts
                for stage, _ in plan:
                    try:
                        stage.check(cfg)
                    except ConfigError as exc:
                        raise StageFailed(f"stage {stage.name!r}: {exc}") from exc
            # One pool of worker processes serves the per-document stages of the run (local runner); a pool
            # started for a stage imports that stage's modules (those of its chain, at a chain's first stage).
            local = cfg.workers if cfg.runner == "local" else 1
            # Imported here: tasks.engine.fanout imports Prefect, which reads its settings (API URL, logging level)
            # once, at import; the CLI imports this module to check a run before it prepares those settings.
            from tasks.engine.fanout import fanout_for

            # After the last per-document stage the workers are stopped: what they hold (the layout model, page
            # caches, their heaps' high-water marks) would sit beside the next stages' tables in this process,
            # the run's peak. A later stage that wants workers (the rules judge) forks fresh ones from the fork
            # server, which import that stage's modules only. So are the workers of a stage that loaded what no
            # later stage reads (the layout model, ~50 MB a worker): the next stage forks fresh ones.
            last = max((i for i, (stage, _) in enumerate(plan) if stage.per_document), default=-1)
            with fanout_for(cfg.runner, cfg.workers, cfg.home / "dask"), shared_workers(local, (),
                                                                                        _memory_mb(cfg)) as pool:
                chains = _chains(plan) if cfg.runner == "local" else {}
                ends = {start + len(group) - 1: group for start, group in chains.items()}
                for index, (stage, forced) in enumerate(plan):
                    pool.preload = _modules(chains.get(index, [(stage, forced)]))  # for a pool this stage starts
                    if index in chains:  # the stages that read the PDFs: the first reads each document for all
                        chain.begin(cfg, chain.joined(cfg, chains[index]))
                    row = (run_stage(self.name, cfg, stage.name, forced) if run_stage is not None
                           else execute(cfg, stage, force=forced, check=False))
                    if index in ends:  # every stage of the chain ran: its parts are moot
                        chain.end(cfg, [s.name for s, _ in ends[index]])
                    results.append({"stage": stage.name, "status": str(row.status), "rows": row.row_count,
                                    "errors": row.error_count, "seconds": seconds(row)})
                    if index == last or stage.releases_workers:
                        pool.reset()
        except BaseException:
            chain.forget(cfg)  # its parts stay for the resume
            record_run(cfg, StageStatus.FAILED, finished=True)
            raise
        record_run(cfg, StageStatus.COMPLETED, finished=True)
        return results



def _modules(stages: Sequence[tuple[Stage, bool]]) -> tuple[str, ...]:
    """The modules a worker process serving `stages` imports first: those each stage's work imports where it runs
    (`Stage.worker_imports`), else its body's module."""
    return tuple(dict.fromkeys(name for stage, _ in stages
                               for name in (stage.worker_imports or (stage.body.__module__,))))


def _chains(plan: Sequence[tuple[Stage, bool]]) -> dict[int, list[tuple[Stage, bool]]]:
    """Runs of two or more consecutive chained stages (`Stage.link`) in `plan`, by the index of their first."""
    found: dict[int, list[tuple[Stage, bool]]] = {}
    start: int | None = None
    for index in range(len(plan) + 1):
        if index < len(plan) and plan[index][0].link is not None:
            start = index if start is None else start
            continue
        if start is not None and index - start >= 2:
            found[start] = list(plan[start:index])
        start = None
    return found


def _memory_mb(cfg: Any) -> float:
    """A benchmark run's --worker-memory-mb (an audit run has no such option: the default)."""
    return float(getattr(cfg, "worker_memory_mb", DEFAULT_WORKER_MEMORY_MB))


def seconds(row: StageRun) -> float | None:
    """How long a stage that ran took (None for one skipped or reused)."""
    if row.status != StageStatus.COMPLETED or row.started is None or row.finished is None:
        return None
    return (row.finished - row.started).total_seconds()


def record_run(cfg: RunBase, status: StageStatus, finished: bool = False) -> None:
    """The run's row in `runs`: created once, then its status (and when it finished)."""
    store = cfg.store
    existing = store.get_run(cfg.run_id) or {}
    store.record_run({
        "run_id": cfg.run_id,
        "created": existing.get("created") or now(),
        "source": cfg.source,
        "source_path": cfg.source_path,
        "criteria": cfg.criteria,
        "judge": cfg.judge_label,
        "config": store.config_json({k: v for k, v in cfg.to_record().items() if k != "progress"}),
        "status": str(status),
        "finished": now() if finished else None,
    })
