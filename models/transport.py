"""The HTTP layer under every model call: each byte and each wait from a provider is bounded.

litellm talks to providers through httpx. This module gives it a transport (`litellm.client_session` for the
OpenAI SDK providers, `litellm.sync_transport` for the others) whose sockets obey, per call:

- a connect deadline, a first-byte deadline and a whole-call deadline — a server that accepts and never
  answers, or trickles one byte a second, is cut off when the deadline passes, not only after an idle gap;
- a cap on the reply body (declared Content-Length refused at once, otherwise counted while streaming and
  refused past the cap): a 200 MB reply never sits in memory. Compressed replies are not accepted (we ask for
  `identity`), so the cap counts the bytes that are actually decoded;
- cancellation: :func:`cancel_calls` (called on SIGTERM / Ctrl-C) shuts every open provider socket, so the
  threads blocked in a call return at once.

The limits of the call in progress live in a thread-local (:func:`bounded_call`); when a limit ends a call,
the reason is recorded there, because litellm turns every transport error into a generic connection error.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import urllib.request
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

MAX_REPLY_MB_ENV = "ACCESSBENCH_MAX_REPLY_MB"
DEFAULT_MAX_REPLY_MB = 16.0
DEFAULT_CONNECT_S = 10.0

# Why a limit ended a call (CallState.kind); the first two are terminal: the same request gets the same reply.
TOO_LARGE, COMPRESSED, DEADLINE, FIRST_BYTE, CANCELLED = "too_large", "compressed", "deadline", "first_byte", \
    "cancelled"


def max_reply_bytes(env: dict[str, str] | None = None) -> int:
    """The reply cap from $ACCESSBENCH_MAX_REPLY_MB (megabytes, default 16); a bad value is refused clearly."""
    raw = (os.environ if env is None else env).get(MAX_REPLY_MB_ENV, "").strip()
    if not raw:
        return int(DEFAULT_MAX_REPLY_MB * 1024 * 1024)
    try:
        mb = float(raw)
    except ValueError:
        mb = 0.0
    if not mb > 0:
        raise ValueError(f"${MAX_REPLY_MB_ENV}={raw!r} is not a positive number of megabytes (default "
                         f"{DEFAULT_MAX_REPLY_MB:g})")
    return int(mb * 1024 * 1024)


@dataclass(frozen=True)
class CallLimits:
    """Deadlines (seconds from the start of one HTTP attempt) and the reply cap (bytes) of a model call."""

    deadline_s: float
    first_byte_s: float
    connect_s: float = DEFAULT_CONNECT_S
    max_reply_bytes: int = int(DEFAULT_MAX_REPLY_MB * 1024 * 1024)

    def __post_init__(self) -> None:
        if not (self.deadline_s > 0 and self.first_byte_s > 0 and self.connect_s > 0):
            raise ValueError("model call deadlines must be > 0 seconds")
        if self.max_reply_bytes < 1:
            raise ValueError("the reply cap must be at least 1 byte")


class CallState:
    """One HTTP attempt in progress on this thread: its deadlines and, once one ends it, why."""

    def __init__(self, limits: CallLimits) -> None:
        self.limits = limits
        self.started = time.monotonic()
        self.deadline = self.started + limits.deadline_s
        self.first_byte_by = self.started + min(limits.first_byte_s, limits.deadline_s)
        self.answered = False  # a byte of the response has arrived
        self.received = 0  # reply body bytes read
        self.kind: str | None = None
        self.reason: str | None = None

    def limit(self, kind: str, reason: str) -> None:
        if self.kind is None:  # the first limit hit is the cause; later errors are its consequences
            self.kind, self.reason = kind, reason

    def read_by(self) -> tuple[float, str]:
        """When the next byte must have arrived, and which limit that is."""
        if not self.answered and self.first_byte_by < self.deadline:
            return self.first_byte_by, FIRST_BYTE
        return self.deadline, DEADLINE

    def reason_for(self, kind: str) -> str:
        if kind == FIRST_BYTE:
            return f"no reply within the first-byte deadline ({self.limits.first_byte_s:g} s)"
        return f"the call passed its whole-call deadline ({self.limits.deadline_s:g} s)"


_LOCAL = threading.local()
_CANCELLED = threading.Event()
_STREAMS: weakref.WeakSet[_BoundedStream] = weakref.WeakSet()


def current() -> CallState | None:
    return getattr(_LOCAL, "call", None)


@contextmanager
def bounded_call(limits: CallLimits) -> Iterator[CallState]:
    """Make `limits` the limits of the HTTP traffic of this thread until the block ends."""
    state = CallState(limits)
    previous = current()
    _LOCAL.call = state
    try:
        yield state
    finally:
        _LOCAL.call = previous


def cancel_calls() -> None:
    """Stop every model call of this process now: open provider sockets are shut, new calls are refused.

    Safe in a signal handler (no lock is taken). :func:`allow_calls` lifts it.
    """
    _CANCELLED.set()
    for _ in range(3):  # another thread may add a stream while we copy the set
        try:
            streams = list(_STREAMS)
            break
        except RuntimeError:
            continue
    else:
        streams = []
    for stream in streams:
        stream.abort()


def allow_calls() -> None:
    _CANCELLED.clear()


def cancelled() -> bool:
    return _CANCELLED.is_set()


def wait_or_cancelled(seconds: float) -> bool:
    """Sleep `seconds` unless the calls are cancelled first; True when they were."""
    return _CANCELLED.wait(max(0.0, seconds))


def _refuse_if_cancelled(state: CallState | None) -> None:
    if _CANCELLED.is_set():
        if state is not None:
            state.limit(CANCELLED, "the call was cancelled (the run was interrupted)")
        raise httpcore.ReadError("model call cancelled")


class _BoundedStream(httpcore.NetworkStream):
    """A socket stream whose reads and writes stop at the deadlines of the call on this thread."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner
        _STREAMS.add(self)

    def _timeout(self, timeout: float | None, state: CallState | None, exc: type[Exception]) -> tuple[float | None,
                                                                                                     str | None]:
        _refuse_if_cancelled(state)
        if state is None:
            return timeout, None
        by, kind = state.read_by()
        remaining = by - time.monotonic()
        if remaining <= 0:
            state.limit(kind, state.reason_for(kind))
            raise exc(state.reason_for(kind))
        return (remaining if timeout is None else min(timeout, remaining)), kind

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        state = current()
        bounded, kind = self._timeout(timeout, state, httpcore.ReadTimeout)
        try:
            data = self._inner.read(max_bytes, bounded)
        except httpcore.ReadTimeout:
            if state is not None and kind is not None and bounded != timeout:
                state.limit(kind, state.reason_for(kind))
            raise
        except httpcore.ReadError:
            _refuse_if_cancelled(state)
            raise
        if not data:
            _refuse_if_cancelled(state)  # a socket shut by cancel_calls reads as end of stream
        elif state is not None:
            state.answered = True
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        state = current()
        bounded, _ = self._timeout(timeout, state, httpcore.WriteTimeout)
        try:
            self._inner.write(buffer, bounded)
        except httpcore.WriteError:
            _refuse_if_cancelled(state)
            raise

    def close(self) -> None:
        _STREAMS.discard(self)
        self._inner.close()

    def abort(self) -> None:
        """Shut the socket from another thread: a blocked recv returns at once."""
        sock = self._inner.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        state = current()
        bounded, _ = self._timeout(timeout, state, httpcore.ConnectTimeout)
        _STREAMS.discard(self)
        return _BoundedStream(self._inner.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _BoundedBackend(httpcore.NetworkBackend):
    """Opens connections within the connect deadline and wraps them in :class:`_BoundedStream`."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def _connect_timeout(self, timeout: float | None) -> float | None:
        state = current()
        _refuse_if_cancelled(state)
        if state is None:
            return timeout
        limit = min(state.limits.connect_s, max(0.001, state.deadline - time.monotonic()))
        return limit if timeout is None else min(timeout, limit)

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _BoundedStream(self._inner.connect_tcp(host, port, self._connect_timeout(timeout), local_address,
                                                      socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _BoundedStream(self._inner.connect_unix_socket(path, self._connect_timeout(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        wait_or_cancelled(seconds)


class _CappedBody(httpx.SyncByteStream):
    """A reply body that is refused once it passes the cap: the bytes past it are never read."""

    def __init__(self, inner: httpx.SyncByteStream, cap: int, state: CallState | None, request: httpx.Request) -> None:
        self._inner, self._cap, self._state, self._request = inner, cap, state, request

    def __iter__(self) -> Iterator[bytes]:
        received = 0
        for chunk in self._inner:
            received += len(chunk)
            if self._state is not None:
                self._state.received = received
            if received > self._cap:
                raise _too_large(self._state, self._request, self._cap, f"more than {self._cap:,} bytes")
            yield chunk

    def close(self) -> None:
        self._inner.close()


def _too_large(state: CallState | None, request: httpx.Request, cap: int, size: str) -> httpx.ReadError:
    reason = (f"the provider's reply is larger than the reply cap ({size}; cap {cap / 1024 / 1024:g} MB, "
              f"${MAX_REPLY_MB_ENV}); it was not read")
    if state is not None:
        state.limit(TOO_LARGE, reason)
    return httpx.ReadError(reason, request=request)


class BoundedTransport(httpx.HTTPTransport):
    """httpx's transport with the limits above on every connection it opens."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        pool = self._pool  # httpx 0.28 keeps its httpcore pool here; the backend is where sockets are made
        backend = getattr(pool, "_network_backend", None)
        if not isinstance(backend, httpcore.NetworkBackend):
            raise RuntimeError("this httpx/httpcore version hides its network backend; the model-call limits "
                               "cannot be installed (pin httpx 0.28 / httpcore 1.0)")
        pool._network_backend = _BoundedBackend(backend)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        state = current()
        _refuse_if_cancelled(state)
        cap = state.limits.max_reply_bytes if state is not None else max_reply_bytes()
        request.headers["Accept-Encoding"] = "identity"  # the cap must count the bytes we will decode
        response = super().handle_request(request)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            response.close()
            reason = f"the provider sent a {encoding!r}-compressed reply although none was accepted; it was not read"
            if state is not None:
                state.limit(COMPRESSED, reason)
            raise httpx.DecodingError(reason, request=request)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            response.close()
            raise _too_large(state, request, cap, f"{int(declared):,} bytes declared")
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(status_code=response.status_code, headers=response.headers,
                              stream=_CappedBody(response.stream, cap, state, request),
                              extensions=response.extensions)


class BoundedClient(httpx.Client):
    """An httpx client whose transports (direct and through an environment proxy) are :class:`BoundedTransport`."""

    def _init_transport(self, verify: Any = True, cert: Any = None, trust_env: bool = True, http1: bool = True,
                        http2: bool = False, limits: httpx.Limits = httpx._config.DEFAULT_LIMITS,
                        transport: httpx.BaseTransport | None = None) -> httpx.BaseTransport:
        if transport is not None:
            return transport
        return BoundedTransport(verify=verify, cert=cert, trust_env=trust_env, http1=http1, http2=http2,
                                limits=limits)

    def _init_proxy_transport(self, proxy: httpx.Proxy, verify: Any = True, cert: Any = None, trust_env: bool = True,
                              http1: bool = True, http2: bool = False,
                              limits: httpx.Limits = httpx._config.DEFAULT_LIMITS) -> httpx.BaseTransport:
        return BoundedTransport(verify=verify, cert=cert, trust_env=trust_env, http1=http1, http2=http2,
                                limits=limits, proxy=proxy)


_INSTALL_LOCK = threading.Lock()


def install(litellm: Any) -> None:
    """Route litellm's synchronous HTTP through bounded transports (once; a session the user set is kept)."""
    with _INSTALL_LOCK:
        if getattr(litellm, "_accessbench_bounded", False):
            return
        if getattr(litellm, "client_session", None) is None:
            litellm.client_session = BoundedClient(follow_redirects=True)
        # litellm's own handler (non-OpenAI-SDK providers) skips the environment's proxies when given a
        # transport: behind a proxy it keeps its own, and only the OpenAI-SDK providers are bounded.
        if getattr(litellm, "sync_transport", None) is None and not urllib.request.getproxies():
            litellm.sync_transport = BoundedTransport()
        litellm._accessbench_bounded = True
