"""`--runner dask`: per-document work as Prefect task runs on a 2-worker LocalCluster, the same rows as local."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tasks.engine.context import check_runner
from tests.flows.prefect_server import REPO, api, cli, processes_of
from tests.inprocess import run_synthetic

pytest.importorskip("prefect_dask", reason="the dask extra: pip install -e '.[dask]'")

pytestmark = pytest.mark.heavy  # worker processes and Dask (not in make test-fast)


def test_runner_names_are_checked() -> None:
    assert check_runner("dask://10.0.0.5:8786") == "dask://10.0.0.5:8786"
    for bad in ("spark", "dask://", "dask://host", "tcp://host:8786"):
        with pytest.raises(ValueError, match="dask://HOST:PORT"):
            check_runner(bad)


def test_a_bad_runner_is_refused_before_prefect_is_imported(tmp_path: Path) -> None:
    """Prefect reads PREFECT_API_URL when imported: importing it before the server is chosen loses the server."""
    code = ("import sys; from flows.cli.app import main; code = main(['run', '--runner', 'spark']); "
            "print(code, 'prefect' in sys.modules)")
    env = {**os.environ, "ACCESSBENCH_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.stdout.split() == ["2", "False"], result.stderr
    assert "dask://HOST:PORT" in result.stderr


def test_an_unreachable_scheduler_is_one_line_before_any_work(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = ("import sys; from flows.cli.app import main; "
            f"code = main(['run', '--runner', 'dask://127.0.0.1:{port}']); "
            "print(code, 'prefect' in sys.modules)")
    env = {**os.environ, "ACCESSBENCH_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.stdout.split() == ["1", "False"], result.stderr
    assert result.stderr.count("\n") == 1
    assert f"cannot reach the Dask scheduler at dask://127.0.0.1:{port}" in result.stderr
    assert not (tmp_path / "home" / "artifacts").exists()  # no run was started


def _tables(home: Path, run_id: str) -> dict[str, tuple[int, str]]:
    """Every artifact table of a run as (rows, digest of its sorted rows), free of run id and data home path."""
    digests = {}
    for path in sorted((home / "artifacts").glob(f"*/run={run_id}/*.parquet")):
        rows = []
        for row in pq.read_table(path).to_pylist():
            # input_hash hashes `evidence`, which names crops under the data home; `evidence` itself is compared.
            row = {k: v for k, v in row.items() if k not in {"run_id", "input_hash"}}
            rows.append(json.dumps(row, sort_keys=True, default=str).replace(str(home), "<home>"))
        digests[f"{path.parent.parent.name}/{path.name}"] = (
            len(rows), hashlib.sha256("\n".join(sorted(rows)).encode()).hexdigest())
    return digests


@pytest.fixture
def homes(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    local, dask = tmp_path / "local", tmp_path / "dask"
    yield local, dask
    cli(local, "server", "stop", check=False)
    assert processes_of(local) == []


@pytest.mark.slow
def test_dask_runner_gives_the_same_rows_as_the_local_runner(homes: tuple[Path, Path]) -> None:
    local, dask = homes
    api_url = os.environ.get("PREFECT_API_URL")  # the session's server (tests/prefect_env.py), if any
    # Two criteria whose documents go through every per-document stage (figures and tables: crops, layout).
    run = ("run", "--base-docs", "1", "--criteria", "alt_text_quality", "table_structure")
    if api_url:
        # The local runner's rows, its pipeline run in this process (the same stages and worker pool as the
        # CLI's local run; the Dask run below is the CLI's, on the session's server).
        run_synthetic(local, "a", run[-2:])
    else:
        cli(local, *run, "--run-id", "a")
        api_url = "http://127.0.0.1:{}/api".format(json.loads((local / "prefect/server.json").read_text())["port"])
    # Another data home, so nothing is reused from the local run; the same server, to see the task runs.
    cli(dask, *run, "--run-id", "b", "--runner", "dask", "--workers", "2", PREFECT_API_URL=api_url)
    expected, got = _tables(local, "a"), _tables(dask, "b")
    assert set(got) == set(expected) and len(got) > 20
    assert {name: rows for name, (rows, _) in got.items()} == {name: rows for name, (rows, _) in expected.items()}
    assert got == expected
    flow_run = next(r for r in api(api_url, "/flow_runs/filter", {}) if r["name"] == "b")
    names = {t["name"] for t in api(api_url, "/task_runs/filter",
                                    {"flow_runs": {"id": {"any_": [flow_run["id"]]}}})}
    assert {"render batch 0", "layout batch 0", "extract batch 0", "transcript batch 0", "judge batch 0"} <= names
    assert (dask / "dask").is_dir()  # the cluster's scratch files stay in the data home



def test_a_dask_batch_enforces_the_document_time_limit_and_goes_on() -> None:
    """What a Dask worker runs for one batch: each document in the worker's kept child process."""
    import time

    from tasks.engine.fanout import batch_payload, batch_results, process_batch
    from tasks.engine.isolation import DocumentTimeout
    from tests.tasks.test_isolation import slow_or_fast  # a light module for the child to import

    def batch(items: list[int], timeout_s: float | None) -> list[object]:
        return batch_results(process_batch.fn(batch_payload(slow_or_fast, items), "extract", 0, timeout_s=timeout_s))

    started = time.monotonic()
    results = batch([0, 2, 3, 4], 3)
    assert time.monotonic() - started < 120  # not behind the stuck document's 600 s (test_isolation)
    assert results[0] == 0 and results[3] == 40
    assert isinstance(results[1], DocumentTimeout) and isinstance(results[2], ValueError)
    assert batch([1], None) == [10]  # no limit: in the worker


def test_each_worker_gets_one_batch_until_batches_grow_too_large() -> None:
    from tasks.engine.fanout import MAX_BATCH, batch_sizes

    assert batch_sizes(20, 2) == [10, 10]  # one task run per worker: the fewest task-run overheads
    assert batch_sizes(20, 1) == [20]
    assert batch_sizes(3, 2) == [2, 1]  # fewer documents than workers allow: still both workers
    assert batch_sizes(1, 4) == [1]
    assert batch_sizes(0, 2) == []
    large = batch_sizes(1000, 2)  # large runs: the same number of batches per worker, none too large
    assert sum(large) == 1000 and len(large) % 2 == 0 and max(large) <= MAX_BATCH
    assert max(large) - min(large) <= 1


def _square(n: int) -> int:
    return n * n


@pytest.mark.slow
def test_a_flow_starts_its_own_cluster_or_takes_over_the_one_the_cli_started(tmp_path: Path) -> None:
    """`accessbench run` starts the LocalCluster ahead of the flow (tasks/engine/cluster.py); a flow started
    otherwise (a deployment's run) starts its own. Both give the same results, and none outlives its run."""
    from tasks.engine import cluster
    from tasks.engine.fanout import fanout_for

    own, started = tmp_path / "own", tmp_path / "started"
    with fanout_for("dask", 1, own) as fanout:
        assert fanout is not None
        assert sorted(fanout(_square, [1, 2, 3], workers=1, timeout_s=None)) == [(0, 1), (1, 4), (2, 9)]

    cluster.prestart("dask", 1, started)
    assert cluster._PRESTARTED  # started in the background, waiting for its flow
    with fanout_for("dask", 1, started) as fanout:
        assert not cluster._PRESTARTED  # taken over by the flow
        assert fanout is not None
        assert sorted(fanout(_square, [4, 5], workers=1, timeout_s=30)) == [(0, 16), (1, 25)]
    assert cluster.take_prestarted(1, started) is None
