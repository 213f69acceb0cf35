"""The inclusivity audit's stages, one module per stage; `tasks.audit.registry.AUDIT` is the pipeline."""
