"""The model client against the scripted server: retries, Retry-After, timeouts, errors, cost, limits."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from email.utils import formatdate

import pytest

from judges.llm.scripted_server import ScriptedServer, chat, error
from models.client import ModelCallError, ModelClient
from tests.llm.conftest import MODEL, SECRET

HELLO = [{"role": "user", "content": "hello"}]


def client(server: ScriptedServer, model: str = MODEL, **options: object) -> ModelClient:
    settings: dict[str, object] = {"api_base": server.api_base, "backoff_base_s": 0.01, "timeout_s": 5, **options}
    return ModelClient(model, **settings)  # type: ignore[arg-type]


def test_reply_text_tokens_and_params_sent(server: ScriptedServer) -> None:
    server.script(chat("hi there", prompt_tokens=12, completion_tokens=3))
    response = client(server).complete(HELLO, {"temperature": 0.7, "max_tokens": 50})
    assert (response.text, response.tokens_in, response.tokens_out) == ("hi there", 12, 3)
    assert response.params_sent == {"temperature": 0.7, "max_tokens": 50}
    body = server.requests[0].body
    assert body["temperature"] == 0.7 and body["max_tokens"] == 50 and body["model"] == "test-model"


@pytest.mark.heavy
def test_429_waits_at_least_retry_after_seconds(server: ScriptedServer) -> None:
    server.script(error(429, "rate limited", headers={"Retry-After": "1"}), chat("ok"))
    start = time.monotonic()
    response = client(server).complete(HELLO)
    assert response.text == "ok" and response.attempts == 2
    gap = server.requests[1].at - server.requests[0].at
    assert gap >= 1.0 and time.monotonic() - start >= 1.0


@pytest.mark.heavy
def test_429_retry_after_as_http_date(server: ScriptedServer) -> None:
    server.script(error(429, "rate limited", headers={"Retry-After": formatdate(time.time() + 2, usegmt=True)}),
                  chat("ok"))
    client(server).complete(HELLO)
    # HTTP dates have one-second resolution, so the wait is at least ~1 s of the 2 requested.
    assert server.requests[1].at - server.requests[0].at >= 1.0


@pytest.mark.heavy
def test_429_pauses_other_callers_of_the_same_model(server: ScriptedServer) -> None:
    shared = client(server, concurrency=2)
    server.script(error(429, "slow down", headers={"Retry-After": "1"}))
    first = shared.complete(HELLO, repeat=0)  # 429, waits, then succeeds
    assert first.attempts == 2
    server.script(error(429, "slow down", headers={"Retry-After": "1"}))
    with ThreadPoolExecutor(2) as pool:
        a = pool.submit(shared.complete, HELLO, None, 1)
        time.sleep(0.2)  # let the 429 land first
        b = pool.submit(shared.complete, HELLO, None, 2)
        a.result(), b.result()
    times = [r.at for r in server.requests[2:]]
    assert max(times) - min(times) >= 0.9  # the second caller was held back by the first one's Retry-After


def test_500_is_retried(server: ScriptedServer) -> None:
    server.script(error(500, "boom"), error(503, "busy"), chat("ok"))
    c = client(server)
    assert c.complete(HELLO).text == "ok"
    assert server.calls == 3 and c.stats.retries == 2


def test_retries_are_bounded(server: ScriptedServer) -> None:
    server.script(*[error(500, "boom")] * 5)
    with pytest.raises(ModelCallError) as caught:
        client(server, max_retries=2).complete(HELLO)
    assert caught.value.transient and caught.value.attempts == 3 and server.calls == 3
    assert "rerun the judge stage later" in str(caught.value)


@pytest.mark.heavy
def test_timeout_is_per_call_and_retried(server: ScriptedServer) -> None:
    server.script(chat("late", delay_s=20.0), chat("ok"))
    start = time.monotonic()
    response = client(server, timeout_s=0.5).complete(HELLO)
    assert response.text == "ok" and server.calls == 2
    assert time.monotonic() - start < 10  # did not wait for the 20 s reply (generous for a loaded machine)


@pytest.mark.parametrize("status", [400, 401, 404])
def test_terminal_errors_are_not_retried(server: ScriptedServer, status: int) -> None:
    server.script(error(status, "nope"))
    with pytest.raises(ModelCallError) as caught:
        client(server).complete(HELLO)
    assert not caught.value.transient and caught.value.status == status and server.calls == 1


def test_context_length_is_terminal(server: ScriptedServer) -> None:
    server.script(error(400, "This model's maximum context length is 8192 tokens", code="context_length_exceeded"))
    with pytest.raises(ModelCallError, match="larger context"):
        client(server).complete(HELLO)
    assert server.calls == 1


def test_quota_429_is_terminal(server: ScriptedServer) -> None:
    server.script(error(429, "You exceeded your current quota", code="insufficient_quota"))
    with pytest.raises(ModelCallError):
        client(server).complete(HELLO)
    assert server.calls == 1


def test_echoed_key_is_redacted_from_errors(server: ScriptedServer) -> None:
    server.script(error(401, f"Incorrect API key provided: {SECRET}"))
    with pytest.raises(ModelCallError) as caught:
        client(server).complete(HELLO)
    assert SECRET not in str(caught.value) and "[REDACTED]" in str(caught.value)
    assert "API key environment variable" in str(caught.value)


def test_cost_is_none_for_an_unpriced_model(server: ScriptedServer) -> None:
    response = client(server).complete(HELLO)
    assert response.cost_usd is None and response.tokens_in == 100


def test_cost_from_litellm_price_map_and_from_a_price_table(server: ScriptedServer) -> None:
    priced = client(server, model="openai/gpt-4o").complete(HELLO)
    assert priced.cost_usd is not None and priced.cost_usd > 0
    table = client(server, price_table={MODEL: (1.0, 2.0)}).complete(HELLO, repeat=1)
    assert table.cost_usd == pytest.approx((100 * 1.0 + 20 * 2.0) / 1e6)


def test_a_parameter_the_provider_rejects_is_dropped_and_recorded(server: ScriptedServer) -> None:
    server.script(error(400, "Unsupported value: 'temperature' does not support 0.7 with this model."), chat("ok"))
    c = client(server)
    response = c.complete(HELLO, {"temperature": 0.7, "max_tokens": 50})
    assert response.params_sent == {"max_tokens": 50}
    assert "temperature" not in server.requests[1].body
    assert c.describe_params({"temperature": 0.7, "max_tokens": 50}) == {
        "max_tokens": 50, "dropped_params": {"temperature": 0.7}}


def test_litellm_side_rejection_is_recorded_too(server: ScriptedServer) -> None:
    # litellm refuses temperature != 1 for o-series models before sending anything.
    c = client(server, model="openai/o1")
    response = c.complete(HELLO, {"temperature": 0.7})
    assert response.params_sent == {} and server.calls == 1 and "temperature" not in server.requests[0].body
    assert c.describe_params({"temperature": 0.7}) == {"dropped_params": {"temperature": 0.7}}


def test_concurrency_is_bounded(server: ScriptedServer) -> None:
    server.responder = lambda body: chat("ok", delay_s=0.15)
    c = client(server, concurrency=3)
    with ThreadPoolExecutor(10) as pool:
        list(pool.map(lambda i: c.complete(HELLO, repeat=i), range(12)))
    assert server.calls == 12 and server.max_in_flight == 3


def test_threads_share_one_client_safely(server: ScriptedServer) -> None:
    c = client(server, concurrency=4)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            c.complete(HELLO, repeat=i)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and c.stats.calls == 16 and c.stats.tokens_in == 1600


def test_a_retry_after_beyond_the_cap_fails_now_instead_of_sleeping(server: ScriptedServer) -> None:
    server.script(error(429, "come back tomorrow", headers={"Retry-After": "100000"}))
    start = time.monotonic()
    with pytest.raises(ModelCallError, match="asked to wait 100000 s") as caught:
        client(server, max_retries=4).complete(HELLO)
    assert time.monotonic() - start < 60 and server.calls == 1 and caught.value.transient  # slept no 100000 s


def test_an_oversized_reply_is_refused_and_never_cached(server: ScriptedServer, tmp_path: object) -> None:
    from pathlib import Path

    from models.cache import ResponseCache

    cache = ResponseCache(Path(str(tmp_path)) / "cache")
    server.script(chat("x" * 300_000))
    with pytest.raises(ModelCallError, match="300,000 characters"):
        client(server, cache=cache).complete(HELLO)
    assert len(cache) == 0


def test_a_reply_echoing_the_key_is_stored_redacted(server: ScriptedServer, tmp_path: object) -> None:
    from pathlib import Path

    from models.cache import ResponseCache

    root = Path(str(tmp_path)) / "cache"
    server.script(chat(f"your key is {SECRET}"))
    response = client(server, cache=ResponseCache(root)).complete(HELLO)
    assert SECRET not in response.text
    assert all(SECRET not in p.read_text() for p in root.rglob("*.json"))
