"""What a flow run created on a deployment may change: nothing that redirects where data or keys go.

Anyone who can create a flow run on a deployment chooses its parameters, and the worker runs it with the
worker's environment (its provider keys) and its data home. So a run of a deployment may not, unless the
deployment declares it allowed (a tag), set:

- an endpoint (`api_base`, `judge_api_base`): the worker would send its provider key there;
- a path outside the worker's data home (`home`, `dataset`, `pdfs`, `questions_path`, `responses_path`,
  `layout_weights`): the worker would read or write there.

A value the deployment itself declares (its `parameters` in prefect.yaml) is the deployer's and stays
allowed. Tags `accessbench:allow-api-base` and `accessbench:allow-paths` on a deployment allow the run's
own values. A run started from the command line (no deployment) named everything itself and is not checked.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

ENDPOINTS = ("api_base", "judge_api_base")
PATHS = ("home", "dataset", "pdfs", "questions_path", "responses_path", "layout_weights", "checker_path")
ALLOW_ENDPOINTS = "accessbench:allow-api-base"
ALLOW_PATHS = "accessbench:allow-paths"


class ParameterRefused(ValueError):
    """A deployment run's parameter would redirect data or keys; the message names it and the remedy."""


def _expand(value: str) -> Path:
    return Path(os.path.expanduser(os.path.expandvars(value))).resolve()


def _inside(value: str, root: Path) -> bool:
    path = _expand(value)
    return path == root or root in path.parents


def refused(options: Mapping[str, Any], declared: Mapping[str, Any], tags: Collection[str],
            worker_home: Path) -> list[str]:
    """The parameters of `options` a deployment run may not set (empty: all allowed), each with why."""
    found = []
    for name in ENDPOINTS:
        value = options.get(name)
        if value and value != declared.get(name) and ALLOW_ENDPOINTS not in tags:
            found.append(f"{name}={value!r} (an endpoint the deployment does not name: the worker's keys would go "
                         f"there; tag the deployment {ALLOW_ENDPOINTS} to allow it)")
    for name in PATHS:
        value = options.get(name)
        if value and value != declared.get(name) and ALLOW_PATHS not in tags \
                and not _inside(str(value), worker_home.resolve()):
            found.append(f"{name}={value!r} (outside the worker's data home {worker_home}; tag the deployment "
                         f"{ALLOW_PATHS} to allow it)")
    return found


def _as_dict(options: Any) -> dict[str, Any]:
    if options is None:
        return {}
    if hasattr(options, "model_dump"):
        return dict(options.model_dump())
    return dict(options)


def check_run(parameters: Mapping[str, Any]) -> None:
    """Refuse (ParameterRefused) the current flow run when it was created on a deployment and sets a
    redirecting parameter the deployment does not allow. `parameters`: the flow's own, e.g.
    {"options": BenchmarkOptions(...)} or {"home": ..., "run_id": ...}."""
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    deployment_id = context.flow_run.deployment_id if context is not None and context.flow_run else None
    if deployment_id is None:
        return
    from prefect.client.orchestration import get_client

    from warehouse.home import resolve_home

    with get_client(sync_client=True) as client:
        deployment = client.read_deployment(deployment_id)
    declared = {**(deployment.parameters or {}), **_as_dict((deployment.parameters or {}).get("options"))}
    given = {k: v for k, v in parameters.items() if k != "options"} | _as_dict(parameters.get("options"))
    problems = refused(given, declared, set(deployment.tags or ()), resolve_home(None))
    if problems:
        raise ParameterRefused(f"this run of deployment {deployment.name!r} sets parameters a deployment run may "
                               f"not change: {'; '.join(problems)}")
