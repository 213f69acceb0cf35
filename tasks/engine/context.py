"""What one run is: its id, data home, corpus source and settings (`RunConfig` a benchmark run's)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self, TypeVar, cast

from pydantic import ConfigDict, Field, PrivateAttr

from judges.criteria import CRITERIA
from tasks.engine.options import MODEL_JUDGE_KINDS, Execution, StageSettings
from tasks.engine.options import RUNNER_PATTERN as RUNNER_PATTERN
from tasks.engine.options import check_runner as check_runner
from warehouse.store import ArtifactStore, check_run_id

T = TypeVar("T")


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(2)


class RunBase(Execution):
    """What every run has, whichever study: its data home, id and source, where its work runs, and how it is
    recorded. Each study's settings come from its own model in `tasks.engine.options`."""

    model_config = ConfigDict(extra="ignore", arbitrary_types_allowed=True)

    home: Path
    run_id: str
    source: str = ""
    source_path: str | None = None
    criteria: list[str] = Field(default_factory=list)
    progress: bool = True
    _checked: dict[str, Any] = PrivateAttr(default_factory=dict)

    def __init__(self, **data: Any) -> None:
        # Checked before pydantic validates, so the error is UnsafePathError itself (a validator's or
        # model_post_init's would arrive wrapped in a ValidationError). Empty: a scheduled deployment's "new
        # run each time", filled in by the flow.
        if isinstance(data.get("run_id"), str) and data["run_id"]:
            check_run_id(data["run_id"])
        super().__init__(**data)

    @property
    def judge_label(self) -> str:
        """The run's judges as one string, for `runs`."""
        return ""

    @property
    def store(self) -> ArtifactStore:
        return ArtifactStore(self.home)

    def checked_once(self, what: str, check: Callable[[], T]) -> T:
        """`check()` the first time this run config asks for `what` (its judges' specs and credentials), its
        result after that: the CLI, the flow and the stages each check a run config they made once. Kept on this
        object only: another run config (another command, the flow of a deployment) checks again."""
        if what not in self._checked:
            self._checked[what] = check()
        return cast(T, self._checked[what])

    def to_record(self) -> dict[str, Any]:
        data = self.model_dump()
        data["home"] = str(self.home)
        return data

    @classmethod
    def from_record(cls, record: dict[str, Any], **overrides: Any) -> Self:
        data = {**record, **overrides}
        data["home"] = Path(data["home"])
        if "judges" not in data and data.get("judge"):  # runs recorded before several judges per run
            data["judges"] = [data["judge"]]
        return cls(**{k: v for k, v in data.items() if k in cls.model_fields})


class RunConfig(StageSettings, RunBase):
    """A benchmark run as it executes: its settings (declared once, in `tasks.engine.options.StageSettings`) plus
    what a run knows only once it starts (`RunBase`)."""

    model_config = ConfigDict(extra="ignore", arbitrary_types_allowed=True)

    source: str = "synthetic"  # synthetic|dataset|pdfs
    # Resolved: every criterion unless the run asked for fewer (BenchmarkOptions.criteria None = what the judges cover).
    criteria: list[str] = Field(default_factory=lambda: list(CRITERIA))
    crop_dpi: int = 110  # figure and table crops, sharper than the page images for vision models

    def judge_options(self) -> dict[str, Any]:
        """Options for `judges.base.get_judge`: how models are called as one typed config (`calls`, resolved once
        per run: `model_calls`) and what the judges show and skip; never API keys (those stay in the environment)."""
        return {"home": self.home, "calls": self.model_calls(), "vision": self.vision, "evidence": self.evidence,
                "disabled_rules": list(self.disabled_rules), "checker_path": self.checker_path}

    @property
    def layout_scope(self) -> str:
        """Which pages the layout model must see for this run's judges (a layout stage key).

        ``evidence``: every page the plan lays out, as model judges (llm:, hybrid:) are shown every table
        region; ``drawn_tables``: only those with a line-drawn table, the only regions the rules judge reads
        (checkers read none). See extractors.layout.plan. The plan reads the tags as the default tag-tree reader
        does: with another reader (--tag-tree pdfix) every planned page is laid out."""
        return "evidence" if self.model_evidence or self.tag_tree_backend != "pikepdf" else "drawn_tables"

    @property
    def model_evidence(self) -> bool:
        """Whether a judge of this run calls a model (llm:, hybrid:) and is shown the evidence as extracted for
        models: figure and table crops, every layout region (an extract stage key). The rules judge and the
        checkers read neither."""
        return any(spec.partition(":")[0] in MODEL_JUDGE_KINDS for spec in self.judges)

    @property
    def judge_label(self) -> str:
        """The judges as one string, for listings: `rules, llm:openai/gpt-4o`."""
        return ", ".join(self.judges)
