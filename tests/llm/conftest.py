"""Fixtures for the LLM judge tests: a scripted server on 127.0.0.1, a data home and a dummy key."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from judges.evidence import PageBundle
from judges.llm.scripted_server import ScriptedServer

SECRET = "sk-test-SECRET123"
MODEL = "openai/test-model"  # unknown to litellm's price map: cost must come out as None


def pytest_configure(config: pytest.Config) -> None:
    # litellm's own pydantic models warn about ReadOnly TypedDict items on first use; not ours to fix.
    config.addinivalue_line("filterwarnings", "ignore:Items? .* (is|are) using the `ReadOnly` qualifier:UserWarning")


@pytest.fixture(scope="session")
def _server() -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    yield server
    server.stop()


@pytest.fixture
def server(_server: ScriptedServer) -> Iterator[ScriptedServer]:
    _server.reset()
    yield _server
    _server.reset()


@pytest.fixture(autouse=True)
def _dummy_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # litellm reads the key from the environment; the tests check it never reaches the disk.
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def make_judge(server: ScriptedServer, home: Path) -> Callable[..., Any]:
    """An LLM judge on the scripted server, its model config resolved from run settings as a run resolves it
    (`StageSettings.model_calls`); fast backoff so retry tests stay quick."""
    from judges.base import get_judge
    from tasks.engine.options import StageSettings

    def make(model: str = MODEL, **options: Any) -> Any:
        shown = {k: options.pop(k) for k in ("vision", "evidence", "structured") if k in options}
        run = {k: options.pop(k) for k in list(options) if k in StageSettings.model_fields}
        calls = StageSettings(**{"api_base": server.api_base, "timeout_s": 5, **run}).model_calls()
        calls = calls.model_copy(update={"backoff_base_s": 0.01, **options})
        return get_judge(f"llm:{model}", {"home": home, "calls": calls, **shown})

    return make


def tagging_bundle(text: str = "Results are shown in Table 2.", *, page: int = 1) -> PageBundle:
    """A small semantic-tagging bundle with a tag tree and page facts."""
    return PageBundle("semantic_tagging", page, {
        "page_image": {"width_pt": 612.0, "height_pt": 792.0, "has_text": True},
        "tag_structure": {
            "tagged": True, "marked": True, "element_count": 4, "root_types": ["Document"],
            "elements": [
                {"id": 0, "type": "Document", "depth": 0},
                {"id": 1, "parent": 0, "type": "H1", "depth": 1, "page": page, "text": "Introduction"},
                {"id": 2, "parent": 0, "type": "P", "depth": 1, "page": page, "text": text},
                {"id": 3, "parent": 0, "type": "Figure", "depth": 1, "page": page, "alt": "Bar chart of accuracy"},
            ],
        },
    })
