"""The one builder of model clients: a model id and a resolved `ModelConfig` in, a `ModelClient` out.

Every study builds its clients here: the PDF judges (`llm:`, the LLM tier of `hybrid:`), the audit's respondents
and its `llm:` category judge, and the drafts of `accessbench fix --model`. `local` / `local/<name>` means the data
home's local model server (its endpoint, model id and key, `models.local`); the response cache lives under the data
home and follows the config's mode.
"""

from __future__ import annotations

from pathlib import Path

from models.cache import ResponseCache
from models.client import ModelClient
from models.config import ModelConfig
from models.local import client_options, is_local


def build_client(model: str, config: ModelConfig, home: Path, *, cached: bool = True) -> ModelClient:
    """The client of `model` called as `config` says. `cached=False`: no response cache (a check that makes no
    call). LocalModelError (a ValueError) when `model` is the local server and none of this home runs."""
    api_key = None
    if is_local(model):  # the data home's local model server (accessbench model start)
        local = client_options(Path(home), model)
        model, api_key = local["model"], local["api_key"]
        config = config.model_copy(update={"api_base": local["api_base"]})
    cache = ResponseCache.under_home(Path(home), config.cache) if cached and config.cache != "off" else None
    return ModelClient(model, config=config, cache=cache, api_key=api_key)


def check_model(model: str, config: ModelConfig, home: Path) -> None:
    """What building `model`'s client refuses (its endpoint, the local server), then its provider's credentials
    (CredentialsMissing), without any call."""
    build_client(model, config, home, cached=False).check_credentials()
