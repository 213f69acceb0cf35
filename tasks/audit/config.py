"""What one run of the inclusivity audit is (`AuditConfig`), and the ids and call-log rows its stages share."""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import ConfigDict, model_validator

from tasks.benchmark.work.judge import call_id
from tasks.engine.context import RunBase
from tasks.engine.options import AuditSettings
from tasks.engine.runner import StageIO


class AuditConfig(AuditSettings, RunBase):
    """A run of the audit: its settings (declared once, in `tasks.engine.options.AuditSettings`) plus what every run
    has (`RunBase`: home, run id, source); none of the benchmark's settings."""

    model_config = ConfigDict(extra="ignore", arbitrary_types_allowed=True)

    source: str = "audit"
    judge: str = ""  # recorded in `runs`: the audit's judges, comma-separated

    @model_validator(mode="after")
    def _judge_label(self) -> AuditConfig:
        self.judge = self.judge or ",".join(self.audit_judges)
        return self

    @classmethod
    def from_audit_record(cls, record: dict[str, Any], **overrides: Any) -> AuditConfig:
        cfg = cls.from_record(record, **overrides)
        assert isinstance(cfg, AuditConfig)
        return cfg

    @property
    def judge_label(self) -> str:
        """The audit's category judges, for `runs` (not the PDF study's judges, which it has none of)."""
        return ", ".join(self.audit_judges)

    def judge_options(self) -> dict[str, Any]:
        """Options for `judges.inclusivity.base.get_category_judge`: the data home and how llm: judges call their
        models (`AuditSettings.judge_calls`, resolved once); never API keys."""
        return {"home": self.home, "calls": self.judge_calls()}


def cfg_of(io: StageIO) -> AuditConfig:
    if not isinstance(io.cfg, AuditConfig):
        raise TypeError("the audit stages need an AuditConfig")
    return io.cfg


def response_id(model: str, variant: str, question_id: str, repeat: int = 0) -> str:
    key = f"{model}\0{variant}\0{question_id}" + (f"\0{repeat}" if repeat else "")
    return "a" + hashlib.sha1(key.encode()).hexdigest()[:12]


def audit_call_rows(run_id: str, records: list[dict[str, Any]], *, judge: str, model: str | None, doc_id: str,
                    repeat: int, prompt_version: str) -> list[dict[str, Any]]:
    """`llm_calls` rows of the audit: an audited model's answer (doc_id: its response) or a category judge's call."""
    return [{**record, "run_id": run_id, "judge": judge, "model": model, "doc_id": doc_id, "criterion": None,
             "page": None, "repeat": repeat, "prompt_version": prompt_version,
             "call_id": call_id(run_id, judge, model, doc_id, record.get("purpose") or "", 0, repeat,
                                record["attempt"])}
            for record in records]
