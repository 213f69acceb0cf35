"""What one benchmark run is: its id, data home, corpus source and stage settings."""

from __future__ import annotations

import re
import secrets
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judges.criteria import CRITERIA
from warehouse.store import ArtifactStore, check_run_id

# Where per-document work runs; checked before Prefect is imported (the CLI must not import it early).
RUNNER_PATTERN = re.compile(r"^(local|dask|dask://[A-Za-z0-9.\-\[\]:]+:\d+)$")


def check_runner(runner: str) -> str:
    if not RUNNER_PATTERN.match(runner):
        raise ValueError(f"runner {runner!r}: use local, dask (a LocalCluster on this machine) or "
                         "dask://HOST:PORT (an existing Dask scheduler)")
    return runner


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(2)


@dataclass
class RunConfig:
    """Everything that decides a run's outputs (and so its stages' input hashes)."""

    home: Path
    run_id: str
    source: str = "synthetic"  # synthetic|dataset|pdfs
    source_path: str | None = None
    criteria: list[str] = field(default_factory=lambda: list(CRITERIA))
    judges: list[str] = field(default_factory=lambda: ["rules"])  # one or more, judged on the same evidence
    repeats: int = 3  # for stochastic judges; the rules judge is deterministic and runs once
    api_base: str | None = None  # OpenAI-compatible endpoint for llm:/hybrid judges
    temperature: float = 0.7
    max_tokens: int = 1500
    concurrency: int = 8
    timeout_s: float = 60.0  # per LLM call (a small local model on a busy machine needs minutes)
    disabled_rules: list[str] = field(default_factory=list)  # rules catalog ids (or prefixes) switched off
    vision: str = "auto"  # auto|on|off: page, figure and table images for LLM judges
    evidence: str | None = None  # paper|enriched (default: paper for llm:, enriched for hybrid:)
    cache: str = "on"  # on|off|read|write: the LLM response cache
    max_error_rate: float = 0.2  # share of failed LLM pages above which the judge stage fails
    dpi: int = 72
    crop_dpi: int = 110  # figure and table crops, sharper than the page images for vision models
    layout_backend: str = "pymupdf"  # pymupdf | fasterrcnn | layoutparser
    layout_weights: str | None = None  # local weights for fasterrcnn/layoutparser
    tag_tree_backend: str = "pikepdf"  # pikepdf | pdfix (common.backends)
    transcript_backend: str = "emulated"  # emulated | aws-transcribe (recorded audio beside each PDF)
    seed: int = 0
    base_docs: int = 3
    doc_timeout_s: float = 120.0  # per document, in render and extract
    workers: int = 2  # processes for per-document work (Dask workers of a LocalCluster with runner "dask")
    # Limits on what one input may cost; a document over one gets a `limit` error row.
    max_file_mb: float = 512.0  # bytes read for one input file
    max_pages: int = 2000  # pages of one document
    max_page_megapixels: float = 16.0  # one page render or crop; larger pages render at a lower dpi
    follow_symlinks: bool = False  # --pdfs: read symlinks that leave the folder
    runner: str = "local"  # local | dask | dask://HOST:PORT: where per-document work runs (never in a hash)
    progress: bool = True

    def __post_init__(self) -> None:
        if self.run_id:  # empty: a scheduled deployment's "new run each time", filled in by the flow
            check_run_id(self.run_id)

    def judge_options(self) -> dict[str, Any]:
        """Options for `judges.base.get_judge`; never API keys (those stay in the environment)."""
        return {"home": self.home, "api_base": self.api_base, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "concurrency": self.concurrency, "vision": self.vision,
                "evidence": self.evidence, "cache": self.cache, "timeout_s": self.timeout_s,
                "disabled_rules": list(self.disabled_rules)}

    @property
    def judge_label(self) -> str:
        """The judges as one string, for listings: `rules, llm:openai/gpt-4o`."""
        return ", ".join(self.judges)

    @property
    def store(self) -> ArtifactStore:
        return ArtifactStore(self.home)

    def to_record(self) -> dict[str, Any]:
        data = asdict(self)
        data["home"] = str(self.home)
        return data

    @classmethod
    def from_record(cls, record: dict[str, Any], **overrides: Any) -> RunConfig:
        data = {**record, **overrides}
        data["home"] = Path(data["home"])
        if "judges" not in data and data.get("judge"):  # runs recorded before several judges per run
            data["judges"] = [data["judge"]]
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})
