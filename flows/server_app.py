"""The ASGI app of a data home's local Prefect server: Prefect's own (the factory `prefect server start` runs),
behind a check of the Host and Origin headers.

Prefect checks the auth string, CORS and CSRF tokens (settings set by `flows.server.server_env`); it has no
Host-header check, so a page of another site whose name resolves to 127.0.0.1 (DNS rebinding) would be
same-origin with the server. Here a request whose Host is not `127.0.0.1:PORT` or `localhost:PORT`
(`ACCESSBENCH_SERVER_ALLOWED_HOSTS`), or that carries an Origin other than the server's own, is refused
before Prefect sees it.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def allowed_hosts() -> frozenset[str]:
    return frozenset(h.strip().lower() for h in os.environ.get("ACCESSBENCH_SERVER_ALLOWED_HOSTS", "").split(",")
                     if h.strip())


class HostCheck:
    """Refuse (HTTP 421, or a closed websocket) requests for another host or from another origin."""

    def __init__(self, app: App, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts
        self.origins = frozenset(f"http://{host}" for host in hosts)

    def allows(self, scope: Scope) -> bool:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if headers.get("host", "").lower() not in self.hosts:
            return False
        origin = headers.get("origin")
        return origin is None or origin.lower() in self.origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.allows(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = b'{"detail": "this server answers only to its own host and origin (127.0.0.1 or localhost)"}'
        await send({"type": "http.response.start", "status": 421,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def create_app() -> App:
    """uvicorn's factory (`uvicorn --factory flows.server_app:create_app`)."""
    hosts = allowed_hosts()
    if not hosts:
        raise RuntimeError("ACCESSBENCH_SERVER_ALLOWED_HOSTS is not set: start the server with accessbench server "
                           "start")
    from prefect.server.api.server import create_app as prefect_app

    app: App = prefect_app(final=True)
    return HostCheck(app, hosts)
