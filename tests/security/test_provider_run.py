"""`accessbench run --judge llm:…` against a hostile provider: SIGTERM stops it at once (and the run resumes),
and a key the provider echoes back, encoded, is stored nowhere under the data home."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from judges.llm.scripted_server import judgment_json
from tests import cli_process
from tests.load import allowance
from tests.security.hostile_provider import HostileServer

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
KEY = "sk-hostile/KEY+0123=abcdef"  # URL-encodes to something else; its base64 holds '+' or '/'
RUN = ("run", "--criteria", "semantic_tagging", "--base-docs", "1", "--run-id", "h", "--repeats", "1",
       "--judge", "llm:openai/test-model")


def env_for(home: Path) -> dict[str, str]:
    env = {**os.environ, "ACCESSBENCH_HOME": str(home), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "OPENAI_API_KEY": KEY, "PYTHONPATH": str(REPO)}
    env.pop("ACCESSBENCH_MAX_REPLY_MB", None)
    return env


@pytest.fixture
def hostile() -> Iterator[HostileServer]:
    server = HostileServer().start()
    yield server
    server.stop()


def test_sigterm_stops_a_run_stuck_on_a_silent_provider_within_15_s_and_the_run_resumes(
        hostile: HostileServer, tmp_path: Path) -> None:
    hostile.mode = "silent"
    home = tmp_path / "home"
    log = tmp_path / "stderr.txt"
    with log.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "flows.cli.app", *RUN, "--api-base", hostile.api_base,
                                 "--timeout", "600"], env=env_for(home), cwd=REPO, stdout=subprocess.DEVNULL,
                                stderr=stderr, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while hostile.requests < 1:
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, "the judge stage never called the model"
            time.sleep(0.05)
        time.sleep(0.5)  # let the other pages of the batch reach the provider too
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=allowance(60))
        except subprocess.TimeoutExpired:
            pytest.fail(f"SIGTERM did not stop the run within {allowance(60):.0f} s")
        stopped_in = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert stopped_in < allowance(15), stopped_in  # 15 s at normal load (tests/load.py)
    assert code in (130, 143), log.read_text()[-3000:]  # SIGTERM arrives as Ctrl-C, or as Prefect's signal
    assert ": resume with the same --run-id" in log.read_text()
    # (Leftover multiprocessing fork server / resource tracker processes are issue 37's disk-full part.)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    # The provider is back: the same command resumes the run and completes it.
    hostile.mode, hostile.content = "answer", judgment_json()
    done = cli_process.run_cli([*RUN, "--api-base", hostile.api_base], env=env_for(home), cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "resuming run h" in done.stderr


def encodings(key: str) -> dict[str, bytes]:
    raw = key.encode()
    return {
        "literal": raw,
        "base64": base64.b64encode(raw),
        "base64 url-safe": base64.urlsafe_b64encode(raw),
        "base64 of Bearer KEY": base64.b64encode(b"Bearer " + raw),
        "base64 of user:KEY": base64.b64encode(b"user:" + raw),
        "url-encoded": quote(key, safe="").encode(),
        "hex": raw.hex().encode(),
    }


def test_a_key_echoed_encoded_in_replies_and_errors_is_stored_nowhere(hostile: HostileServer,
                                                                      tmp_path: Path) -> None:
    forms = encodings(KEY)
    echoed = " ".join(f"{name}={value.decode()}" for name, value in forms.items())
    hostile.mode = "answer"
    hostile.errors_first, hostile.error_message = 1, f"upstream failed for {echoed}"
    hostile.content = judgment_json("failed", issues=[{
        "sub_criterion": "heading_nesting", "location": f"page 1 {echoed}", "problem": f"token {echoed}",
        "remediation": "retag"}], summary=f"Page 1: checked with {echoed}")
    home = tmp_path / "home"
    done = cli_process.run_cli([*RUN, "--api-base", hostile.api_base], env=env_for(home), cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    assert hostile.requests >= 2  # the error and the answers reached the run
    stored = [path for path in home.rglob("*") if path.is_file() and not path.is_symlink()]
    assert stored
    leaks = [(name, str(path)) for path in stored for name, form in forms.items() if form in path.read_bytes()]
    # Parquet pages may be compressed: the decoded tables are searched too.
    import pyarrow.parquet as pq

    tables = [path for path in stored if path.suffix == ".parquet"]
    assert any("judgments" in str(path) for path in tables)
    for path in tables:
        text = json.dumps(pq.read_table(path).to_pylist(), default=str, ensure_ascii=False).encode()
        leaks += [(name, f"{path} (decoded)") for name, form in forms.items() if form in text]
    assert not leaks
    summaries = cli_process.run_cli(["sql", "select summary, error from judgments", "--format", "json"],
                                    env=env_for(home), cwd=REPO)
    assert "[REDACTED]" in summaries.stdout  # the echo was there, and hidden


URL_SECRET = "url-pass/WORD+0123=xyz"  # what a user puts in --api-base: http://user:SECRET@host/v1


def test_credentials_inside_api_base_are_stored_and_shown_nowhere(hostile: HostileServer, tmp_path: Path) -> None:
    """Issue 53, point 5: `--api-base http://user:KEY@host/v1` used to land in runs.config, stage_runs, the LLM
    cache and the Prefect flow-run parameters as typed. Now the transport alone gets the whole URL."""
    forms = encodings(URL_SECRET)
    hostile.mode = "answer"
    hostile.content = judgment_json("failed", issues=[{
        "sub_criterion": "heading_nesting", "location": "page 1", "problem": f"echo {URL_SECRET}",
        "remediation": "retag"}], summary=f"called at http://bob:{quote(URL_SECRET, safe='')}@example")
    home = tmp_path / "home"
    port = hostile.api_base.split(":")[2].split("/")[0]
    api_base = f"http://bob:{quote(URL_SECRET, safe='')}@127.0.0.1:{port}/v1"
    done = cli_process.run_cli([*RUN, "--api-base", api_base], env=env_for(home), cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    # The provider was called with the credential (the URL's user:password as basic auth).
    assert hostile.authorizations and all(
        a == "Basic " + base64.b64encode(f"bob:{URL_SECRET}".encode()).decode() for a in hostile.authorizations)

    stored = [path for path in home.rglob("*") if path.is_file() and not path.is_symlink()]
    leaks = [(name, str(path)) for path in stored for name, form in forms.items() if form in path.read_bytes()]
    import pyarrow.parquet as pq

    for path in (p for p in stored if p.suffix == ".parquet"):
        text = json.dumps(pq.read_table(path).to_pylist(), default=str, ensure_ascii=False).encode()
        leaks += [(name, f"{path} (decoded)") for name, form in forms.items() if form in text]
    assert not leaks
    shown = [cli_process.run_cli(["sql", sql, "--format", "json"], env=env_for(home), cwd=REPO).stdout
             for sql in ("select config from runs", "select * from stage_runs", "select * from llm_calls")]
    shown.append(cli_process.run_cli(["runs"], env=env_for(home), cwd=REPO).stdout + done.stderr + done.stdout)
    assert not [name for text in shown for name, form in forms.items() if form.decode() in text]
    assert "bob:[REDACTED]@127.0.0.1" in shown[0]
    url = os.environ.get("PREFECT_API_URL")
    if url:  # the session's Prefect server: the flow run's parameters hold the redacted URL too
        from tests.flows.prefect_server import api

        runs = [r for r in api(url, "/flow_runs/filter", {"flow_runs": {"name": {"any_": ["h"]}}})
                if (r["parameters"].get("options") or {}).get("api_base", "").startswith("http://bob:")]
        assert runs and not [name for r in runs for name, form in forms.items() if form.decode() in json.dumps(r)]
