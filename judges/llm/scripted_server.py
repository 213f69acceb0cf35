"""A scripted OpenAI-compatible chat server on 127.0.0.1: a mock model for tests, benchmarks and for
trying the LLM paths without a key or a provider.

Replies come from a queue (`server.script(...)`) and, when it is empty, from `server.responder` — a function
of the request body. Every request is recorded (body, headers, arrival time) and the server tracks how
many requests were in flight at once, so tests can assert what was sent, how often and how concurrently.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted HTTP answer."""

    status: int = 200
    body: Any = None  # dict → JSON; str → sent verbatim
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float


def chat(content: str, *, prompt_tokens: int = 100, completion_tokens: int = 20, delay_s: float = 0.0) -> Reply:
    """A normal chat-completion reply whose message content is `content`."""
    body = {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
    return Reply(body=body, delay_s=delay_s)


def error(status: int, message: str, *, headers: dict[str, str] | None = None, code: str | None = None) -> Reply:
    """An OpenAI-style error reply."""
    return Reply(status=status, body={"error": {"message": message, "type": "test_error", "param": None,
                                                "code": code}}, headers=headers or {})


def judgment_json(label: str = "passed", sub_criteria: dict[str, str] | None = None,
                  issues: list[dict[str, str]] | None = None, summary: str = "Page 1: looks fine.") -> str:
    return json.dumps({"label": label, "sub_criteria": sub_criteria or {}, "issues": issues or [],
                       "summary": summary})


def default_responder(body: dict[str, Any]) -> Reply:
    return chat(judgment_json())


class ScriptedServer:
    """Threaded HTTP server answering /v1/chat/completions from a script."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.responder: Callable[[dict[str, Any]], Reply] = default_responder
        self.max_in_flight = 0
        self._in_flight = 0
        self._generation = 0  # bumped by reset(): slow requests from an earlier test are not counted
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        port = self._httpd.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.max_in_flight = 0
            self._in_flight = 0
            self._generation += 1
        self.responder = default_responder

    @property
    def calls(self) -> int:
        return len(self.requests)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self.responder(body)

    def _enter(self, recorded: Recorded) -> int:
        with self._lock:
            self.requests.append(recorded)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            return self._generation

    def _leave(self, generation: int) -> None:
        with self._lock:
            if generation == self._generation:
                self._in_flight -= 1

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                # Headers and body go out as two writes; without this, Nagle + delayed ACK add ~40 ms.
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet test output
                return

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_unparsed": raw.decode(errors="replace")}
                generation = server._enter(Recorded(self.path, dict(self.headers), body, time.monotonic()))
                try:
                    reply = server._next_reply(body) if self.path.endswith("/chat/completions") \
                        else error(404, f"no route {self.path}")
                    if reply.delay_s:
                        time.sleep(reply.delay_s)
                finally:
                    # Leave before answering: once the client holds the reply it may send the next
                    # request, which must not be counted as overlapping this one.
                    server._leave(generation)
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = payload.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to answer

        return Handler
