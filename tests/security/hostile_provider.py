"""A hostile OpenAI-compatible chat server on 127.0.0.1, for the tests that a provider cannot exhaust
memory, hang a run or smuggle a key into storage.

`HostileServer.mode` picks the behaviour of every request to /v1/chat/completions:

- ``huge``: a valid-looking reply that declares `huge_bytes` in Content-Length and streams them;
- ``huge_chunked``: the same body with chunked transfer encoding (no size declared in advance);
- ``gzip``: a small valid reply, gzip-compressed although the client asked for `identity`;
- ``silent``: reads the request and never answers (until the server stops);
- ``trickle``: sends the status line and headers, then the body one byte every `trickle_s` seconds;
- ``answer``: a normal reply whose content is `content`; the first `errors_first` requests get a 500 whose
  message is `error_message` instead.

The server records how many requests arrived and how many body bytes it managed to write, so a test can
show that a refused reply was not read to its end.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHUNK = b"A" * (1024 * 1024)


def reply_body(content: str) -> bytes:
    return json.dumps({
        "id": "chatcmpl-hostile", "object": "chat.completion", "created": int(time.time()), "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }).encode()


class HostileServer:
    def __init__(self, mode: str = "answer") -> None:
        self.mode = mode
        self.content = "{}"
        self.huge_bytes = 200 * 1024 * 1024
        self.trickle_s = 0.5
        self.errors_first = 0
        self.error_message = "upstream failed"
        self.requests = 0
        self.authorizations: list[str] = []  # the Authorization header of each request
        self.written = 0  # body bytes written, over all requests
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        # stop() waits for serve_forever to look again: every 0.05 s, not the default 0.5 s after each test.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> HostileServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _count(self, requests: int = 0, written: int = 0) -> None:
        with self._lock:
            self.requests += requests
            self.written += written

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet test output
                return

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                server._count(requests=1)
                server.authorizations.append(self.headers.get("Authorization") or "")
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client hung up: as wanted
                    getattr(self, f"_{server.mode}")()

            def _headers(self, **headers: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                for name, value in headers.items():
                    self.send_header(name.replace("_", "-"), value)
                self.end_headers()

            def _stream(self, write: Any) -> None:
                prefix = reply_body("\x00").split(b"\\u0000")[0]
                write(prefix)
                sent = len(prefix)
                while sent < server.huge_bytes and not server.stopping.is_set():
                    piece = CHUNK[:server.huge_bytes - sent]
                    write(piece)
                    sent += len(piece)
                    server._count(written=len(piece))

            def _huge(self) -> None:
                self._headers(Content_Length=str(server.huge_bytes))
                self._stream(self.wfile.write)

            def _huge_chunked(self) -> None:
                self._headers(Transfer_Encoding="chunked")
                self._stream(lambda data: self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data)))
                self.wfile.write(b"0\r\n\r\n")

            def _gzip(self) -> None:
                data = gzip.compress(reply_body(server.content))
                self._headers(Content_Encoding="gzip", Content_Length=str(len(data)))
                self.wfile.write(data)

            def _silent(self) -> None:
                server.stopping.wait()

            def _trickle(self) -> None:
                data = reply_body(server.content)
                self._headers(Content_Length=str(len(data)))
                for i in range(len(data)):
                    if server.stopping.wait(server.trickle_s):
                        return
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
                    server._count(written=1)

            def _answer(self) -> None:
                if server.requests <= server.errors_first:
                    data = json.dumps({"error": {"message": server.error_message, "type": "server_error"}}).encode()
                    self.send_response(500)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                data = reply_body(server.content)
                self._headers(Content_Length=str(len(data)))
                self.wfile.write(data)

        return Handler
