"""The fast table of provider keys (`models.keys`, read before litellm is imported) asks for what litellm
asks for: the same variables missing with none set, and any one of them enough (issue 58, point 5)."""

from __future__ import annotations

import pytest

from models.keys import PROVIDER_KEYS, missing_keys

litellm = pytest.importorskip("litellm")


@pytest.mark.parametrize("provider", sorted(PROVIDER_KEYS))
def test_the_table_agrees_with_litellm(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    model = f"{provider}/some-model"
    names = PROVIDER_KEYS[provider]
    for name in names:
        monkeypatch.delenv(name, raising=False)
    found = litellm.validate_environment(model=model)
    assert not found["keys_in_environment"] and set(found["missing_keys"]) == set(names)
    assert missing_keys(model) == list(names)
    for name in names:  # any one of them is enough, for both
        with monkeypatch.context() as env:
            env.setenv(name, "k")
            assert litellm.validate_environment(model=model)["keys_in_environment"]
            assert missing_keys(model) == []


def test_models_of_other_providers_are_left_to_litellm() -> None:
    assert missing_keys("ollama/llama3") is None and missing_keys("gpt-4o") is None
    assert missing_keys("bedrock/anthropic.claude-3") is None  # AWS's own credential chain
