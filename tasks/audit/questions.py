"""Questions stage: the audit's question set (shipped, or `--questions`), one row per usable question."""

from __future__ import annotations

from typing import Any

from judges.inclusivity.questions import load_questions, questions_digest
from tasks.audit.config import cfg_of
from tasks.engine.runner import Stage, StageIO
from warehouse.tables import QUESTIONS


def questions_body(io: StageIO) -> dict[str, Any]:
    cfg = cfg_of(io)
    questions, problems = load_questions(cfg.questions_path)
    for problem in problems:
        io.error(None, "bad_question", problem)
    if cfg.question_limit is not None:
        questions = questions[: cfg.question_limit]
    if not questions:
        raise ValueError(f"no usable question in {cfg.questions_path or 'the shipped set'}; see the error rows")
    return {"questions": [{"run_id": cfg.run_id, **q.__dict__} for q in questions]}


QUESTIONS_STAGE = Stage(
    name="questions", upstream=(), config_keys=("questions_path", "question_limit"), tables=(QUESTIONS,),
    body=questions_body,
    external_inputs=lambda cfg: questions_digest(getattr(cfg, "questions_path", None)),
)
