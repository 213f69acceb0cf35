"""A hostile provider cannot exhaust memory or hang a call: reply cap, deadlines, retry budget, cancellation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from models import transport
from models.client import ModelCallCancelled, ModelCallError, ModelClient
from tests.security.hostile_provider import HostileServer

REPO = Path(__file__).resolve().parents[2]
MODEL = "openai/test-model"
KEY = "sk-hostile-KEY-0123456789"
MESSAGES = [{"role": "user", "content": "judge this page"}]
GIB = 1024 ** 3


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
def hostile() -> Iterator[HostileServer]:
    server = HostileServer().start()
    yield server
    server.stop()


def client(server: HostileServer, **options: object) -> ModelClient:
    settings: dict[str, object] = {"timeout_s": 30, "max_retries": 0, "backoff_base_s": 0.01, **options}
    return ModelClient(MODEL, api_base=server.api_base, **settings)  # type: ignore[arg-type]


CALL_IN_CHILD = textwrap.dedent("""
    import json, resource, sys
    from models.client import ModelCallError, ModelClient
    for api_base in sys.argv[1:]:  # one interpreter for every server: litellm's import is most of its time
        client = ModelClient("openai/test-model", api_base=api_base, timeout_s=60, max_retries=3)
        try:
            client.complete([{"role": "user", "content": "hi"}])
            outcome = {"error": None}
        except ModelCallError as exc:
            outcome = {"error": str(exc), "transient": exc.transient, "attempts": exc.attempts}
        outcome["peak_rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(json.dumps(outcome), flush=True)
""")


@pytest.mark.heavy
def test_a_200_mb_reply_is_a_terminal_error_and_the_process_stays_small() -> None:
    servers = {mode: HostileServer(mode).start() for mode in ("huge", "huge_chunked")}  # sized, then chunked
    try:
        env = {**os.environ, "PYTHONPATH": str(REPO), "OPENAI_API_KEY": KEY, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        env.pop(transport.MAX_REPLY_MB_ENV, None)  # the default cap
        done = subprocess.run([sys.executable, "-c", CALL_IN_CHILD, *(s.api_base for s in servers.values())],
                              env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    finally:
        for server in servers.values():
            server.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    outcomes = [json.loads(line) for line in done.stdout.strip().splitlines()[-len(servers):]]
    for (mode, hostile), outcome in zip(servers.items(), outcomes, strict=True):
        assert outcome["error"] and "reply cap" in outcome["error"] and "16 MB" in outcome["error"], (mode, outcome)
        assert outcome["transient"] is False and outcome["attempts"] == 1  # terminal: never asked again
        assert hostile.requests == 1
        assert outcome["peak_rss"] < 2 * GIB, (mode, outcome)
        # The reply was not read to its end: the server could write little more than the cap (plus socket buffers).
        assert hostile.written < 64 * 1024 * 1024, (mode, hostile.written)


def test_the_reply_cap_is_configurable(hostile: HostileServer, monkeypatch: pytest.MonkeyPatch) -> None:
    hostile.mode, hostile.content = "answer", "x" * 300_000
    with pytest.raises(ModelCallError, match=r"reply cap .*cap 0\.25 MB") as caught:
        client(hostile, max_reply_mb=0.25).complete(MESSAGES)
    assert caught.value.transient is False
    monkeypatch.setenv(transport.MAX_REPLY_MB_ENV, "1")
    hostile.content = "a small reply"
    assert client(hostile).complete(MESSAGES).text == "a small reply"
    monkeypatch.setenv(transport.MAX_REPLY_MB_ENV, "lots")
    with pytest.raises(ValueError, match="ACCESSBENCH_MAX_REPLY_MB='lots' is not a positive number"):
        client(hostile)


def test_a_compressed_reply_is_refused_rather_than_decompressed(hostile: HostileServer) -> None:
    hostile.mode, hostile.content = "gzip", "compressed"
    with pytest.raises(ModelCallError, match="gzip'-compressed reply") as caught:
        client(hostile).complete(MESSAGES)
    assert caught.value.transient is False


@pytest.mark.heavy
def test_a_provider_that_never_answers_ends_at_the_first_byte_deadline(hostile: HostileServer) -> None:
    hostile.mode = "silent"
    started = time.monotonic()
    with pytest.raises(ModelCallError, match=r"first-byte deadline \(1 s\)") as caught:
        client(hostile, timeout_s=30, first_byte_timeout_s=1).complete(MESSAGES)
    assert caught.value.transient is True
    assert time.monotonic() - started < 25  # far below the 30 s whole-call deadline


@pytest.mark.heavy
def test_a_trickling_provider_ends_at_the_whole_call_deadline(hostile: HostileServer) -> None:
    hostile.mode, hostile.trickle_s = "trickle", 0.05  # well inside any idle timeout, ~10 minutes in all
    started = time.monotonic()
    with pytest.raises(ModelCallError, match=r"whole-call deadline \(2 s\)") as caught:
        client(hostile, timeout_s=2).complete(MESSAGES)
    assert caught.value.transient is True
    assert hostile.written > 0  # it did answer, a byte at a time
    assert time.monotonic() - started < 60


@pytest.mark.heavy
def test_a_stalled_provider_ends_a_run_within_its_retry_window(hostile: HostileServer) -> None:
    """Many pages, many retries allowed per call: the run's budget still ends them all, the pages left
    without a request."""
    hostile.mode = "silent"
    stalled = client(hostile, timeout_s=1, max_retries=50, retry_window_s=3, concurrency=2)
    started = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(lambda i: _failure(stalled, i), range(12)))
    elapsed = time.monotonic() - started
    assert all(o is not None and o.transient for o in outcomes)
    # The first failures after one deadline; then no attempt may end after the 3 s window. Without the window
    # 12 calls of 51 one-second attempts, two at a time, take over 300 s; the margin is for a loaded machine.
    assert elapsed < 1 + 3 + 40, elapsed
    assert hostile.requests < 12 * 51 / 4, hostile.requests
    assert any("retry window" in str(o) for o in outcomes)
    assert any("not sent" in str(o) for o in outcomes)  # the pages left made no request


def _failure(model: ModelClient, i: int) -> ModelCallError | None:
    try:
        model.complete([{"role": "user", "content": f"page {i}"}])
    except ModelCallError as exc:
        return exc
    return None


def test_cancel_calls_ends_calls_in_flight_at_once(hostile: HostileServer) -> None:
    hostile.mode = "silent"
    stalled = client(hostile, timeout_s=300, concurrency=4)
    errors: list[ModelCallError | None] = []

    def call(i: int) -> None:
        errors.append(_failure(stalled, i))

    threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
    try:
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        while hostile.requests < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert hostile.requests == 4  # all four are blocked in the provider
        transport.cancel_calls()
        for thread in threads:
            thread.join(timeout=15)
        assert not any(thread.is_alive() for thread in threads)
        assert len(errors) == 4 and all(isinstance(e, ModelCallCancelled) and e.transient for e in errors)
        with pytest.raises(ModelCallCancelled):  # and nothing new is sent
            stalled.complete(MESSAGES)
        assert hostile.requests == 4
    finally:
        transport.allow_calls()
    hostile.mode, hostile.content = "answer", "back"
    assert client(hostile).complete(MESSAGES).text == "back"


def test_the_llm_judge_takes_the_limits_as_options(hostile: HostileServer, tmp_path: Path) -> None:
    from judges.base import get_judge

    judge = get_judge(f"llm:{MODEL}", {"api_base": hostile.api_base, "home": tmp_path, "max_reply_mb": 2,
                                       "connect_timeout_s": 3, "first_byte_timeout_s": 4, "retry_window_s": 50,
                                       "max_run_retries": 7, "timeout_s": 30})
    limits = judge.client.limits
    assert (limits.max_reply_bytes, limits.connect_s, limits.first_byte_s, limits.deadline_s) == \
        (2 * 1024 * 1024, 3, 4, 30)
    assert (judge.client.budget.window_s, judge.client.budget.max_retries) == (50, 7)
    with pytest.raises(ValueError, match="max_reply_mb must be > 0"):
        get_judge(f"llm:{MODEL}", {"api_base": hostile.api_base, "home": tmp_path, "max_reply_mb": 0})
