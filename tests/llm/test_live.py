"""One real call to a provider; skipped unless ACCESSBENCH_LIVE=1 (and the provider's key is set).

    ACCESSBENCH_LIVE=1 ACCESSBENCH_LIVE_MODEL=openai/gpt-4o-mini OPENAI_API_KEY=... pytest -m live tests/llm
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from judges.base import get_judge
from judges.criteria import labels_for
from tests.llm.conftest import tagging_bundle

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(os.environ.get("ACCESSBENCH_LIVE") != "1", reason="set ACCESSBENCH_LIVE=1 to call a provider"),
]


@pytest.fixture(autouse=True)
def _dummy_key() -> None:
    """Overrides the suite's dummy key: live tests use the real one from the environment."""


def test_real_model_returns_a_valid_judgment(tmp_path: Path) -> None:
    model = os.environ.get("ACCESSBENCH_LIVE_MODEL", "openai/gpt-4o-mini")
    judge = get_judge(f"llm:{model}", {"home": tmp_path})
    result = judge.judge_page(tagging_bundle(), 0)
    assert result.error is None, result.error
    assert result.label in labels_for("semantic_tagging") and result.tokens_in
