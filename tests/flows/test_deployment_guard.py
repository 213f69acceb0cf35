"""A flow run created on a deployment cannot redirect the worker's keys or data (issue 53, point 2).

The end-to-end test does what the tester did: a flow run on the `audit` deployment, created over the API
with no AccessBench involved, whose `options.api_base` names a listener on 127.0.0.1; the worker's process
(`prefect flow-run execute`, what a process worker runs) has OPENAI_API_KEY set. The listener must hear
nothing, and the run fails saying why.
"""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from flows.deployment_guard import ALLOW_ENDPOINTS, ALLOW_PATHS, refused
from tests import prefect_env
from tests.flows.prefect_server import REPO, api, cli

KEY = "sk-worker-secret-0123456789abcdef"


def test_endpoints_and_outside_paths_are_refused_unless_declared_or_allowed(tmp_path: Path) -> None:
    home = tmp_path / "worker-home"
    outside = {"api_base": "http://127.0.0.1:9/v1", "judge_api_base": "http://127.0.0.1:9/v1",
               "home": str(tmp_path / "elsewhere"), "pdfs": "/etc", "responses_path": "/tmp/x.jsonl",
               "questions_path": "~/q.json"}
    problems = refused(outside, {}, set(), home)
    assert [p.split("=")[0] for p in problems] == ["api_base", "judge_api_base", "home", "pdfs", "questions_path",
                                                  "responses_path"]
    # Paths inside the worker's home, and values the deployment itself declares, are the deployer's.
    assert refused({"home": str(home), "pdfs": str(home / "in"), "responses_path": str(home / "r.jsonl")},
                   {}, set(), home) == []
    assert refused({"api_base": "http://gpu:8000/v1", "dataset": "$ACCESSBENCH_DATASET"},
                   {"api_base": "http://gpu:8000/v1", "dataset": "$ACCESSBENCH_DATASET"}, set(), home) == []
    assert refused(outside, {}, {ALLOW_ENDPOINTS}, home)[0].startswith("home=")
    assert refused(outside, {}, {ALLOW_ENDPOINTS, ALLOW_PATHS}, home) == []
    # Settings that redirect nothing stay free.
    assert refused({"models": ["openai/gpt-4o"], "question_limit": 1, "base_docs": 1}, {}, set(), home) == []


class _Recorder(http.server.BaseHTTPRequestHandler):
    heard: list[dict[str, str]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        type(self).heard.append(dict(self.headers.items()))
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST  # noqa: N815

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[tuple[str, list[dict[str, str]]]]:
    _Recorder.heard = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()  # shutdown() waits a poll
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", _Recorder.heard
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.slow
def test_a_deployment_run_cannot_send_the_workers_key_to_its_own_endpoint(
        tmp_path: Path, listener: tuple[str, list[dict[str, str]]]) -> None:
    url = os.environ.get("PREFECT_API_URL")
    if not url or not os.environ.get(prefect_env.OWNER_VAR):
        pytest.skip("needs the session's Prefect server (ACCESSBENCH_TEST_PREFECT=ephemeral turns it off)")
    prefect_env.wait()
    endpoint, heard = listener
    deployer = tmp_path / "deployer"
    cli(deployer, "deploy", "--name", "audit", PREFECT_API_URL=url,
        PREFECT_API_AUTH_STRING=os.environ.get("PREFECT_API_AUTH_STRING", ""))
    [deployment] = [d for d in api(url, "/deployments/filter", {}) if d["name"] == "audit"]
    run = api(url, f"/deployments/{deployment['id']}/create_flow_run", {"parameters": {"options": {
        "models": ["openai/gpt-4o"], "api_base": endpoint, "question_limit": 1, "variants": ["base"]}}})

    worker_home = tmp_path / "worker-home"
    env = {**os.environ, "ACCESSBENCH_HOME": str(worker_home), "OPENAI_API_KEY": KEY, "PYTHONPATH": str(REPO)}
    env.pop("ACCESSBENCH_PREFECT", None)
    executed = subprocess.run([sys.executable, "-m", "prefect", "flow-run", "execute", run["id"]], env=env,
                              cwd=tmp_path, capture_output=True, text=True, timeout=600)

    assert heard == []  # nothing reached the run's endpoint, least of all the key
    state = api(url, f"/flow_runs/{run['id']}")
    assert state["state_type"] == "FAILED"
    output = executed.stdout + executed.stderr
    assert "api_base" in output and ALLOW_ENDPOINTS in output
    assert KEY not in output
