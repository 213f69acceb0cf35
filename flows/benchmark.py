"""The benchmark flow (corpus → … → metrics) and the flow that re-runs one stage.

The flows take typed parameters, so Prefect's UI offers a form to start a run, and every flow run
is named by its AccessBench run id. Paths and the data home are resolved where the flow runs (a
worker), never where a deployment was registered: `$ACCESSBENCH_DATASET`, `~` and relative paths in
a parameter are expanded on the worker, and the data home is the worker's `$ACCESSBENCH_HOME`.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Annotated, Any

from prefect import flow
from prefect.runtime import flow_run
from pydantic import Field

from flows.deployment_guard import check_run
from judges.criteria import CRITERIA
from tasks.benchmark.registry import BENCHMARK, STAGES
from tasks.engine.context import RunConfig, check_runner, new_run_id
from tasks.engine.options import BenchmarkOptions, settings_of
from tasks.prefect_tasks import run_stage
from warehouse import catalog
from warehouse.home import resolve_home
from warehouse.tables import ALL_TABLES

StageName = Annotated[str, Field(description="the stage to re-execute", json_schema_extra={"enum": list(STAGES)})]


def resolve_path(value: str | None, what: str) -> str | None:
    """`$VARS`, `~` and relative paths of a parameter, resolved on the machine that runs the flow."""
    if not value:
        return None
    expanded = os.path.expanduser(os.path.expandvars(value))
    if "$" in expanded:
        raise ValueError(f"{what} {value!r}: the environment of this worker does not set {expanded!r}; set it "
                         "on the worker, or pass the path as the parameter")
    return str(Path(expanded).resolve())


def data_home(home: str | None) -> Path:
    """The data home named by the parameter, else this machine's $ACCESSBENCH_HOME (or ./.accessbench)."""
    return resolve_home(resolve_path(home, "home") if home else None)


def _run_stages(cfg: RunConfig, names: list[str], force: bool, checked: bool = False) -> list[dict[str, Any]]:
    """`names` of the benchmark run `cfg` (forced when asked), through the one pipeline driver."""
    results = BENCHMARK.run(cfg, names, force=force, run_stage=run_stage, checked=checked)
    # warehouse.duckdb's views (for outside tools) gain the tables a run added, once a run: rewriting
    # them costs about 0.2 s of CPU, and a new home's first run adds tables at every stage. A failed
    # run's tables appear with the run or rerun that completes it; `accessbench sql` never needs them.
    catalog.refresh(cfg.home, ALL_TABLES)
    if "aggregate" in names:
        publish_summary(cfg)
    return results


def publish_summary(cfg: RunConfig) -> str | None:
    """The run's summary as a Prefect markdown artifact, shown beside the flow run in the Prefect UI."""
    from prefect.artifacts import create_markdown_artifact

    from flows.report.data import collect
    from flows.report.md import summary_markdown

    markdown = f"## AccessBench run {cfg.run_id}\n\n" + summary_markdown(collect(cfg.home, [cfg.run_id]))
    key = re.sub(r"[^a-z0-9-]+", "-", f"accessbench-{cfg.run_id}".lower())
    try:
        create_markdown_artifact(markdown=markdown, key=key, description=f"AccessBench summary of run {cfg.run_id}")
    except Exception as exc:  # noqa: BLE001 - the results are in the warehouse; the UI copy is a convenience
        logging.getLogger(__name__).warning("could not publish the Prefect artifact for run %s: %s", cfg.run_id, exc)
        return None
    return key


def run_name_from_parameters() -> str:
    """A flow run's name: its AccessBench run id (a scheduled run gets its id when it starts)."""
    parameters = flow_run.parameters or {}
    options = parameters.get("options") or {}  # the benchmark flow's options (a model or, from a deployment, a dict)
    run_id = str(parameters.get("run_id") or getattr(options, "run_id", None)
                 or (options.get("run_id") if isinstance(options, dict) else "") or "")
    stage = parameters.get("stage")
    return f"{run_id} rerun {stage}" if run_id and stage else run_id or "new-run"


def name_this_flow_run(run_id: str) -> None:
    """Rename the current flow run after its run id, once the flow has chosen it."""
    from prefect.client.orchestration import get_client
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    if context is None or context.flow_run is None or context.flow_run.name == run_id:
        return
    with get_client(sync_client=True) as client:
        client.update_flow_run(context.flow_run.id, name=run_id)


@flow(name="accessbench-benchmark", flow_run_name=run_name_from_parameters, log_prints=True,
      validate_parameters=True)
def benchmark_flow(options: BenchmarkOptions | None = None, progress: bool = False) -> list[dict[str, Any]]:
    """Run every stage of one benchmark run; stages with unchanged inputs are skipped.

    options: the run's options, declared once in `tasks.engine.options.BenchmarkOptions` (the CLI's `accessbench
    run` options are generated from the same model). dataset: a folder in the upstream layout (with
    data/dataset.json); pdfs: a folder of unlabelled PDFs; neither: the embedded synthetic benchmark.
    An empty run id (as a scheduled deployment passes) starts a new run; an existing one resumes it.
    """
    options = options or BenchmarkOptions()
    check_run({"options": options})  # a deployment's run may not redirect data or keys (flows/deployment_guard.py)
    source = "dataset" if options.dataset else "pdfs" if options.pdfs else "synthetic"
    settings = options.settings()
    settings["layout_weights"] = resolve_path(options.layout_weights, "layout_weights")
    cfg = RunConfig(home=data_home(options.home), run_id=options.run_id or new_run_id(), source=source,
                    source_path=resolve_path(options.dataset or options.pdfs, source), progress=progress, **settings)
    if options.criteria:
        cfg.criteria = list(options.criteria)
    else:  # the default: what the judges cover (their specs say, before any is built)
        from tasks.benchmark.judge import check_judge_specs

        covered = check_judge_specs(cfg).values()
        cfg.criteria = [c for c in CRITERIA if any(c in judge for judge in covered)]
    BENCHMARK.check(cfg)  # every stage's config (ConfigError), before the run is recorded
    name_this_flow_run(cfg.run_id)
    return _run_stages(cfg, BENCHMARK.names, force=False, checked=True)


def flow_parameters(cfg: RunConfig) -> dict[str, Any]:
    """The benchmark flow's parameters for a run configured by the CLI (or recorded by an earlier run)."""
    options = settings_of(cfg.to_record(), BenchmarkOptions)
    options.update(home=str(cfg.home), dataset=cfg.source_path if cfg.source == "dataset" else None,
                   pdfs=cfg.source_path if cfg.source == "pdfs" else None)
    return {"options": BenchmarkOptions.model_validate(options), "progress": cfg.progress}


@flow(name="accessbench-rerun", flow_run_name=run_name_from_parameters, log_prints=True)
def rerun_flow(run_id: str, stage: StageName, downstream: bool = False, home: str | None = None,
               runner: str | None = None, progress: bool = False) -> list[dict[str, Any]]:
    """Re-execute one stage (and optionally everything after it) of a recorded run from its persisted artifacts."""
    import json

    from warehouse.store import ArtifactStore

    check_run({"home": home})
    root = data_home(home)
    run = ArtifactStore(root).get_run(run_id)
    if run is None:
        raise ValueError(f"no run {run_id!r} in {root}")
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; stages: {', '.join(STAGES)}")
    cfg = RunConfig.from_record(json.loads(run["config"]), home=root, progress=progress)
    cfg.runner = check_runner(runner or cfg.runner)
    names = [s.name for s in BENCHMARK.downstream_of(stage)] if downstream else [stage]
    return _run_stages(cfg, names, force=True)
