"""The model layer: the one client every model call of both studies (and of `fix --model`) goes through.

`config` (`ModelConfig`: how a model is called, resolved once from a run's options, and the one limit on a
stored reply), `build` (the one builder of clients from a model id and a config), `client` (litellm with
limits, retries, cost accounting), `cache` (replies keyed on everything sent), `calllog` (every call as sent
and answered, the `llm_calls` table) and `local` (the packaged local model server). The PDF judges
(`judges.llm`, `judges.hybrid`), the audit's respondents and its LLM category judge (`judges.inclusivity`) and
fix's drafts (`repairs.remedies`) all use it; it imports none of them. Every error and reply it keeps goes through
`common.redact` (no key reaches a table or a log).
"""
