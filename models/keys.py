"""Which environment variables hold a hosted provider's key, for the providers most often named, so that a
missing key is told before litellm (seconds to import) is loaded: `accessbench run` refuses at once.

litellm stays the authority (`ModelClient.check_credentials` asks it, for every provider, before any call);
this table is only the fast first answer, and `tests/llm/test_provider_keys.py` checks that litellm asks for
the same variables. A provider not listed here is left to litellm. Nothing here imports litellm.
"""

from __future__ import annotations

import os

# provider prefix of a litellm model id → the variables any one of which holds its key
PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "mistral": ("MISTRAL_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "huggingface": ("HUGGINGFACE_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "xai": ("XAI_API_KEY",),
}


def missing_keys(model: str, environ: os._Environ[str] | dict[str, str] | None = None) -> list[str] | None:
    """The variables to set for `model` when none of them is set; [] when one is; None when this table does
    not know the model's provider (litellm will tell)."""
    provider, slash, _ = model.partition("/")
    names = PROVIDER_KEYS.get(provider) if slash else None
    if names is None:
        return None
    env = os.environ if environ is None else environ
    return [] if any(env.get(name) for name in names) else list(names)


def credentials_message(model: str, missing: list[str], api_base: str | None = None) -> str:
    """The one wording of a missing key, whoever found it (this table or litellm)."""
    hint = ""
    if api_base and model.startswith("openai/"):
        hint = " (a local OpenAI-compatible server that needs no key still needs the variable: set it to any value)"
    return (f"no credentials for {model}: set {' or '.join(missing)} in the environment{hint}; "
            "keys are read from the environment only and never stored")
