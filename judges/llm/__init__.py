"""Tier 2: LLM judges through one model client (litellm), with prompts, parsing, caching and accounting.

Importing this package registers the `llm` judge kind; litellm itself is imported on the first call.
"""

from judges.llm.judge import LLMJudge, make_llm_judge
from judges.llm.prompts import PROMPT_VERSION
from models.cache import ResponseCache, cache_key
from models.client import ModelCallError, ModelClient, ModelResponse

__all__ = ["PROMPT_VERSION", "LLMJudge", "ModelCallError", "ModelClient", "ModelResponse", "ResponseCache",
           "cache_key", "make_llm_judge"]
