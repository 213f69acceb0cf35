"""The model layer: the one client every model call of both studies goes through.

`client` (litellm with limits, retries, cost accounting), `cache` (replies keyed on everything
sent), `calllog` (every call as sent and answered, the
`llm_calls` table) and `local` (the packaged local model server). The PDF judges (`judges.llm`),
the audit's respondents and its LLM category judge (`judges.inclusivity`) all use it; it imports
none of them. Every error and reply it keeps goes through `common.redact` (no key reaches a table or a log).
"""
