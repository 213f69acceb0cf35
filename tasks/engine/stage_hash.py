"""Which stages' input hash each run setting enters: one declaration, without the option classes.

The settings themselves are declared in :mod:`tasks.engine.options` (pydantic models); tests/tasks/test_stage_keys.py
checks that every one of them is declared here. Kept apart so that a worker process, which imports a stage's module
to run its work, never builds those classes (~11 MB a process; issue 56).
"""

from __future__ import annotations

# Which stages' input hash each setting enters (a stage whose hash is unchanged is skipped, or reuses another
# run's identical outputs), declared once beside the settings: every stage's `config_keys` is derived from it
# (`stage_keys`), and tests/tasks/test_stage_keys.py fails on a setting missing here. () = execution only: it
# changes how a stage runs (limits on time and memory, parallelism, the response cache), not what it computes.
STAGE_HASH: dict[str, tuple[str, ...]] = {
    "criteria": ("corpus",), "seed": ("corpus",), "base_docs": ("corpus",), "follow_symlinks": ("corpus",),
    "limit": ("corpus",), "sample": ("corpus",),
    "max_file_mb": ("corpus", "extract"), "max_pages": ("corpus",), "max_stream_mb": ("corpus", "extract"),
    "dpi": ("render",), "max_page_megapixels": ("render", "extract"),
    "layout_backend": ("layout",), "layout_weights": ("layout",),
    "tag_tree_backend": ("extract",),
    "transcript_backend": ("transcript",),
    "judges": ("judge",), "repeats": ("judge",), "api_base": ("judge",), "temperature": ("judge",),
    "max_tokens": ("judge",), "vision": ("judge",), "evidence": ("judge",), "max_error_rate": ("judge",),
    "disabled_rules": ("judge",), "checker_path": ("judge",),
    # --cache off/write asks for fresh model calls: the judge stage then never reuses another run's outputs
    # (tasks.benchmark.judge.JUDGE.fresh) instead of entering the hash.
    "cache": (), "concurrency": (), "timeout_s": (), "doc_timeout_s": (), "worker_memory_mb": (),
}


def stage_keys(stage: str, *extra: str) -> tuple[str, ...]:
    """The settings whose values enter `stage`'s input hash: those STAGE_HASH assigns to it, after `extra` (run
    facts that are not settings, such as the corpus source)."""
    return (*extra, *(name for name, stages in STAGE_HASH.items() if stage in stages and name not in extra))
