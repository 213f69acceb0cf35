"""The audit's questions: the shipped set of 35, or a user's file (JSON list or JSONL) with the same fields."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

SHIPPED = "questions.json"


@dataclass(frozen=True)
class Question:
    question_id: str
    text: str
    theme: str | None = None
    note: str | None = None  # why the wording is broad and neutral


def questions_bytes(path: str | Path | None) -> bytes:
    if path is None:
        return (resources.files("judges.inclusivity") / "data" / SHIPPED).read_bytes()
    return Path(path).read_bytes()


def questions_digest(path: str | Path | None) -> str:
    return hashlib.sha256(questions_bytes(path)).hexdigest()


def _records(raw: str, name: str) -> list[Any]:
    stripped = raw.lstrip()
    if stripped.startswith("["):
        data = json.loads(stripped)
        return list(data)
    out: list[Any] = []
    for number, line in enumerate(raw.splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                out.append(ValueError(f"{name} line {number}: not JSON ({exc.msg})"))
    return out


def load_questions(path: str | Path | None = None) -> tuple[list[Question], list[str]]:
    """(valid questions in file order, one problem message per record that was refused)."""
    name = str(path) if path else SHIPPED
    try:
        records = _records(questions_bytes(path).decode("utf-8"), name)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read questions from {name}: {exc}") from exc
    questions: list[Question] = []
    problems: list[str] = []
    seen: set[str] = set()
    for index, record in enumerate(records, 1):
        if isinstance(record, Exception):
            problems.append(str(record))
            continue
        if not isinstance(record, dict) or not str(record.get("question_id") or "").strip() \
                or not str(record.get("text") or "").strip():
            problems.append(f"{name} record {index}: needs a non-empty question_id and text")
            continue
        qid = str(record["question_id"]).strip()
        if qid in seen:
            problems.append(f"{name} record {index}: duplicate question_id {qid!r}")
            continue
        seen.add(qid)
        questions.append(Question(qid, str(record["text"]).strip(), record.get("theme"), record.get("note")))
    return questions, problems
