"""The LocalCluster of `--runner dask`, started ahead of the flow (no Prefect import here: the CLI starts
the cluster before it imports Prefect, so the two overlap)."""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import logging
import os
import threading
from pathlib import Path
from typing import Any

from tasks.engine.warm_up import WARM_UP_WAIT_S, submit_warm_up

log = logging.getLogger("accessbench")

START_WAIT_S = 300.0  # the longest a flow waits for a cluster started ahead of it


def configure(scratch: Path) -> None:
    """Dask settings of a run's cluster (workers inherit the environment variables)."""
    # Dask's INFO lines (cluster start, connections) would bury the run's own output; workers inherit this.
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")
    # Workers may start the child process that enforces --doc-timeout (Dask makes them daemonic).
    os.environ["DASK_DISTRIBUTED__WORKER__DAEMON"] = "False"
    # Dask's own temporary files (workspace locks) go to the data home too, not to /tmp.
    os.environ["DASK_TEMPORARY_DIRECTORY"] = str(scratch)


def cluster_kwargs(workers: int, scratch: Path) -> dict[str, Any]:
    import dask

    dask.config.set({"distributed.worker.daemon": False})  # as the variable above, if dask came first
    # A single-threaded worker takes one batch at a time; the rest wait at the scheduler for whichever
    # worker frees first (Dask's default, 1.1, would hand a busy worker a second one).
    dask.config.set({"distributed.scheduler.worker-saturation": 1.0})
    return {"n_workers": workers, "threads_per_worker": 1, "processes": True, "host": "127.0.0.1",
            "dashboard_address": None, "local_directory": str(scratch)}


def _start_warm_cluster(workers: int, scratch: Path) -> Any:
    """A LocalCluster whose workers have imported Prefect's task engine and started their child
    processes (which import the stages)."""
    from distributed import Client, LocalCluster, wait

    cluster = LocalCluster(**cluster_kwargs(workers, scratch))
    try:
        with Client(cluster) as client:
            wait(submit_warm_up(client), timeout=WARM_UP_WAIT_S)
    except Exception as exc:  # noqa: BLE001 - an optimisation only: the batches warm the workers up
        log.debug("could not warm the Dask workers up: %s", exc)
    return cluster


# LocalClusters started ahead of their run's flow (`prestart`), by (workers, scratch folder).
_PRESTARTED: dict[tuple[int, str], concurrent.futures.Future[Any]] = {}


def _key(workers: int, scratch: Path) -> tuple[int, str]:
    return max(1, workers), str(Path(scratch).resolve())


def prestart(runner: str, workers: int, scratch: Path) -> None:
    """Start the LocalCluster of `--runner dask` and warm its workers up in the background, while the
    caller imports Prefect and starts the flow (seconds on a small machine, which would otherwise
    delay the first per-document stage). The flow's `fanout_for` takes it over; a cluster no flow took
    is closed when this process exits. Only where the workers' Prefect API is already known
    (PREFECT_API_URL): the workers report their task runs there."""
    if runner != "dask" or not os.environ.get("PREFECT_API_URL"):
        return
    key = _key(workers, scratch)
    if key in _PRESTARTED:
        return
    configure(scratch)
    started: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def start() -> None:
        try:
            started.set_result(_start_warm_cluster(workers, scratch))
        except BaseException as exc:  # noqa: BLE001 - fanout_for starts its own cluster instead
            started.set_exception(exc)

    threading.Thread(target=start, name="accessbench-dask-start", daemon=True).start()
    _PRESTARTED[key] = started
    atexit.register(_close_prestarted)


def take_prestarted(workers: int, scratch: Path) -> Any | None:
    started = _PRESTARTED.pop(_key(workers, scratch), None)
    if started is None:
        return None
    try:
        return started.result(timeout=START_WAIT_S)
    except Exception as exc:  # noqa: BLE001 - the flow starts a cluster of its own
        log.debug("the Dask cluster started ahead of the flow is unusable: %s", exc)
        return None


def _close_prestarted() -> None:
    for workers, scratch in list(_PRESTARTED):
        cluster = take_prestarted(workers, Path(scratch))
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()
