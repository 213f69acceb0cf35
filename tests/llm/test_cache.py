"""The response cache: reruns make no calls and cost nothing; repeats are distinct calls."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from judges.llm.scripted_server import ScriptedServer, chat
from models.cache import ResponseCache, cache_key
from models.client import ModelClient
from tests.llm.conftest import MODEL, tagging_bundle

HELLO = [{"role": "user", "content": "hello"}]


def cached_client(server: ScriptedServer, home: Path, model: str = MODEL) -> ModelClient:
    return ModelClient(model, api_base=server.api_base, cache=ResponseCache.under_home(home), backoff_base_s=0.01)


def test_identical_call_is_served_from_the_cache(server: ScriptedServer, home: Path) -> None:
    first = cached_client(server, home, "openai/gpt-4o").complete(HELLO, {"temperature": 0.7})
    again = cached_client(server, home, "openai/gpt-4o").complete(HELLO, {"temperature": 0.7})  # a fresh process
    assert server.calls == 1
    assert not first.cached and again.cached and again.attempts == 0
    assert again.text == first.text and again.tokens_in == first.tokens_in == 100
    assert first.cost_usd and first.cost_usd > 0
    assert again.cost_usd == 0.0 and again.original_cost_usd == first.cost_usd  # the rerun is free


def test_unknown_price_stays_unknown_on_a_hit(server: ScriptedServer, home: Path) -> None:
    cached_client(server, home).complete(HELLO)
    hit = cached_client(server, home).complete(HELLO)
    assert hit.cached and hit.cost_usd is None and hit.original_cost_usd is None


def test_repeat_index_and_parameters_are_part_of_the_key(server: ScriptedServer, home: Path) -> None:
    client = cached_client(server, home)
    client.complete(HELLO, {"temperature": 0.7}, repeat=0)
    client.complete(HELLO, {"temperature": 0.7}, repeat=1)
    client.complete(HELLO, {"temperature": 0.2}, repeat=0)
    client.complete(HELLO, {"temperature": 0.7}, repeat=0)
    assert server.calls == 3 and client.stats.cache_hits == 1


def test_key_hashes_images_instead_of_embedding_them() -> None:
    def message(url: str) -> list[dict[str, Any]]:
        return [{"role": "user", "content": [{"type": "text", "text": "x"},
                                             {"type": "image_url", "image_url": {"url": url}}]}]

    a = cache_key(MODEL, message("data:image/png;base64,AAAA"), {}, 0)
    b = cache_key(MODEL, message("data:image/png;base64,BBBB"), {}, 0)
    assert a != b and a == cache_key(MODEL, message("data:image/png;base64,AAAA"), {}, 0)


def test_judge_rerun_makes_zero_calls(server: ScriptedServer, make_judge: Callable[..., Any]) -> None:
    bundles = [(tagging_bundle(page=p), r) for p in (1, 2, 3) for r in range(2)]
    first = make_judge().judge_many(bundles)
    calls = server.calls
    rerun = make_judge().judge_many(bundles)
    assert calls == 6 and server.calls == 6
    assert [j.label for j in rerun] == [j.label for j in first]
    assert all(j.tokens_in == 100 for j in rerun)


def test_concurrent_writers_leave_readable_entries(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: cache.put("ab" + "0" * 62, {"text": f"reply {i}"}), range(64)))
    entry = cache.get("ab" + "0" * 62)
    assert entry is not None and entry["text"].startswith("reply ")
    assert len(cache) == 1 and not list(tmp_path.rglob(".tmp-*"))


def test_damaged_entry_is_a_miss(server: ScriptedServer, home: Path) -> None:
    client = cached_client(server, home)
    client.complete(HELLO)
    for path in (home / "cache" / "llm").rglob("*.json"):
        path.write_text("{not json")
    server.script(chat("fresh"))
    assert client.complete(HELLO).text == "fresh" and server.calls == 2


def test_identical_concurrent_requests_make_one_call(server: ScriptedServer, home: Path) -> None:
    server.responder = lambda body: chat("shared", delay_s=0.2)
    client = cached_client(server, home)
    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda _: client.complete(HELLO), range(8)))
    assert server.calls == 1 and [r.cached for r in replies].count(False) == 1
    assert {r.text for r in replies} == {"shared"}
