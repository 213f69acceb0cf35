"""Who can reach a data home's local Prefect server (issue 53, point 1): only a client with the home's auth
string, only under the server's own host name, a browser page only from the server's own origin and with a
CSRF token for every write. Driven with raw HTTP, as a hostile page or process would."""

from __future__ import annotations

import base64
import json
import stat
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from flows import server
from tests.flows.prefect_server import api, cli, processes_of

pytestmark = pytest.mark.slow


ANOTHER_SERVER = {"PREFECT_SERVER_UI_API_URL": "http://127.0.0.1:4200/api", "PREFECT_UI_API_URL": "http://127.0.0.1:4200/api",
                  "PREFECT_UI_SERVE_BASE": "/elsewhere"}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("secure") / "home"
    # Started from a shell whose Prefect settings name another server (a global profile's, Prefect's default):
    # the home's server and its dashboard must not take them.
    cli(root, "server", "start", ACCESSBENCH_SERVER_START_TIMEOUT="600", **ANOTHER_SERVER)
    yield root
    cli(root, "server", "stop", check=False)
    assert processes_of(root) == []


def _call(url: str, method: str = "GET", body: bytes | None = None, **headers: str) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:  # noqa: S310 - the test's own server
            return reply.status, {k.lower(): v for k, v in reply.headers.items()}
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}


def _basic(home: Path) -> str:
    return "Basic " + base64.b64encode(server.auth_string(home, create=False).encode()).decode()  # type: ignore[union-attr]


def test_the_auth_string_is_the_homes_own_and_private(home: Path) -> None:
    auth = server.auth_file(home)
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert auth.read_text().startswith("accessbench:") and len(auth.read_text().strip()) > 40
    assert "api-auth" in cli(home, "server", "status").stdout  # the dashboard line says where it is


def test_a_client_without_the_auth_string_can_neither_read_nor_write(home: Path) -> None:
    url = server.running(home).api_url  # type: ignore[union-attr]
    assert _call(f"{url}/flow_runs/filter", "POST", b"{}", **{"Content-Type": "application/json"})[0] in (401, 403)
    assert _call(f"{url}/variables/", "POST", json.dumps({"name": "x", "value": "y"}).encode(),
                 **{"Content-Type": "application/json"})[0] in (401, 403)
    assert _call(f"{url}/admin/version")[0] == 401
    assert _call(f"{url}/admin/version", Authorization="Basic " + base64.b64encode(b"accessbench:guess").decode()
                 )[0] == 401
    # With the auth string but no CSRF token (a form post a browser would send): refused too.
    assert _call(f"{url}/variables/", "POST", json.dumps({"name": "x", "value": "y"}).encode(),
                 Authorization=_basic(home), **{"Content-Type": "application/json"})[0] == 403
    # The CLI's own client (auth string and CSRF token) reads and writes.
    api(url, "/variables/", {"name": "written", "value": "by the owner"}, home=home)
    assert [v["name"] for v in api(url, "/variables/filter", {}, home=home)] == ["written"]


def test_another_origin_or_host_name_is_refused(home: Path) -> None:
    state = server.running(home)
    assert state is not None
    url = state.api_url
    preflight = _call(f"{url}/flow_runs/filter", "OPTIONS", Origin="http://evil.example",
                      **{"Access-Control-Request-Method": "POST"})
    assert preflight[0] != 200 and preflight[1].get("access-control-allow-origin") not in ("*", "http://evil.example")
    own = f"http://127.0.0.1:{state.port}"
    allowed = _call(f"{url}/flow_runs/filter", "OPTIONS", Origin=own, **{"Access-Control-Request-Method": "POST"})
    assert allowed[0] == 200 and allowed[1]["access-control-allow-origin"] == own
    # DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1 sends its own Host.
    assert _call(f"{url}/admin/version", Host=f"evil.example:{state.port}", Authorization=_basic(home))[0] == 421
    assert _call(f"{url}/admin/version", Host=f"localhost:{state.port}", Authorization=_basic(home))[0] == 200
    assert _call(f"{url}/admin/version", Origin="http://evil.example", Authorization=_basic(home))[0] == 421


def test_the_dashboard_talks_to_the_homes_own_server(home: Path) -> None:
    """What a browser does with the URL `server status` prints: load the page, read `/ui-settings` for the API
    to talk to, then call that API from the page's origin with the auth string typed into the sign-in prompt."""
    state = server.running(home)
    assert state is not None
    dashboard = cli(home, "server", "status").stdout.split("dashboard ")[1].split()[0]
    assert dashboard == state.ui_url
    request = urllib.request.Request(dashboard + "/", headers={"Accept": "text/html"})
    with urllib.request.urlopen(request, timeout=30) as page:  # noqa: S310 - the test's own server
        assert page.status == 200 and b"<html" in page.read().lower()
    with urllib.request.urlopen(f"{dashboard}/ui-settings", timeout=30) as reply:  # noqa: S310
        settings = json.loads(reply.read())
    assert settings["api_url"] == state.api_url == f"http://127.0.0.1:{state.port}/api"  # not :4200
    assert settings["auth"] == "BASIC" and settings["csrf_enabled"] is True  # the page asks for the auth string
    for origin in (dashboard, f"http://localhost:{state.port}"):  # opened under either name
        status, headers = _call(f"{settings['api_url']}/health", Origin=origin, Authorization=_basic(home))
        assert status == 200 and headers["access-control-allow-origin"] == origin
