"""Warming the Dask workers of `--runner dask` up: each imports Prefect's task engine and starts the child
process it keeps for `--doc-timeout` (which imports the stages) before the first batch reaches it.

Shared by the cluster started ahead of the flow (`tasks.engine.cluster`, which must not import Prefect) and the
flow's fan-out (`tasks.engine.fanout`); no Prefect import here either, so both can use it.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

from tasks.engine.isolation import kept_workers

WARM_UP_WAIT_S = 120.0  # the longest anyone waits for the workers to warm up


def submit_warm_up(client: Any) -> list[Any]:
    """`warm_worker` on every worker of `client`'s cluster, once each: the futures to wait for."""
    return [client.submit(warm_worker, pure=False, workers=[address], allow_other_workers=False)
            for address in client.scheduler_info()["workers"]]


def warm_worker() -> bool:
    """Runs once on each Dask worker when the run starts (`DaskFanOut.warm_up`, `tasks.engine.cluster`): the
    worker imports Prefect's task engine while its child process, which imports the stages, starts beside it."""
    pool = kept_workers(1)
    starting = threading.Thread(target=pool.get, daemon=True) if pool is not None else None
    if starting is not None:
        starting.start()
    importlib.import_module("prefect.task_engine")
    if starting is not None:
        starting.join()
    return True
