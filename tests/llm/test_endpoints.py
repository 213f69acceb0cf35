"""`--api-base` refuses link-local and cloud-metadata addresses unless `--allow-private-endpoint` (issue 53,
point 7): the key would be sent there, and the metadata service hands out the machine's own credentials.
Nothing here connects anywhere: the refusal comes before any call."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.client import ModelClient
from models.endpoints import ALLOW_ENV, EndpointRefused, check_endpoint, why_refused
from tests.flows.test_cli import cli

REFUSED = ["http://169.254.169.254/latest/meta-data", "http://169.254.1.7:8000/v1", "http://[fd00:ec2::254]/v1",
           "http://[fe80::1]:8080/v1", "http://[::ffff:169.254.169.254]/v1", "http://metadata.google.internal/v1",
           "http://METADATA.GOOGLE.INTERNAL./v1", "http://100.100.100.200/v1", "http://user:pw@169.254.169.254/v1"]
ALLOWED = ["http://127.0.0.1:8080/v1", "http://localhost:11434", "http://10.0.0.5:8000/v1", "http://192.168.1.20/v1",
           "https://api.example.com/v1", None, ""]


@pytest.mark.parametrize("base", REFUSED)
def test_link_local_and_metadata_endpoints_are_refused(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    assert why_refused(base)
    with pytest.raises(EndpointRefused, match="--allow-private-endpoint"):
        ModelClient("openai/gpt-4o", api_base=base)
    assert "pw" not in (why_refused(base) or "")  # the message names the host, never credentials
    monkeypatch.setenv(ALLOW_ENV, "1")
    check_endpoint(base)  # allowed when the user says so


@pytest.mark.parametrize("base", ALLOWED)
def test_local_and_private_servers_stay_allowed(base: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    assert why_refused(base) is None
    check_endpoint(base)


@pytest.mark.heavy  # seconds of CPU: make test runs it, make test-fast leaves it out
def test_the_command_refuses_before_any_run_and_names_the_switch(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = cli(home, "run", "--judge", "llm:openai/gpt-4o", "--api-base", "http://169.254.169.254/v1",
              "--criteria", "table_structure", check=False)
    assert run.returncode == 2 and "169.254.169.254 is a cloud metadata address" in run.stderr
    assert "--allow-private-endpoint" in run.stderr and "Traceback" not in run.stderr
    audit = cli(home, "audit", "--models", "openai/gpt-4o", "--api-base", "http://[fd00:ec2::254]/v1", "--limit", "1",
                check=False)
    assert audit.returncode == 2 and "fd00:ec2::254" in audit.stderr and "audit run" not in audit.stderr
