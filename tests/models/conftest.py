"""The model layer's tests use the scripted server of tests/llm (imported where used)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    # litellm's own pydantic models warn about ReadOnly TypedDict items on first use; not ours to fix.
    config.addinivalue_line("filterwarnings", "ignore:Items? .* (is|are) using the `ReadOnly` qualifier:UserWarning")
