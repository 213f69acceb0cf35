"""The paper's five models are declared once (judges.paper_models): the report's columns, the mapping of our
model ids to the paper's names and `--vision auto` all read that declaration."""

from __future__ import annotations

import csv

import pytest

from flows.report import paper_numbers as paper_numbers
from judges.llm.judge import vision_for
from judges.paper_models import PAPER_MODELS, PaperModel, paper_family, paper_model


def _ids(model: PaperModel) -> list[str]:
    return [f"provider/{i}-{model.variant}" if model.variant else f"provider/{i}" for i in model.ids]


def test_the_report_and_vision_auto_read_the_one_declaration() -> None:
    assert tuple(m.name for m in PAPER_MODELS) == paper_numbers.PAPER_MODELS
    for model in PAPER_MODELS:
        for model_id in _ids(model):
            assert paper_numbers.paper_model(model_id) == model.name
            assert vision_for(model_id, "auto") is model.vision


def test_the_published_tables_name_exactly_the_declared_models() -> None:
    with (paper_numbers.PUBLISHED / "kumar2025_table3_accuracy.csv").open(encoding="utf-8", newline="") as handle:
        published = {row["model"] for row in csv.DictReader(handle)}
    assert published == {m.name for m in PAPER_MODELS}


@pytest.mark.parametrize(("model_id", "paper", "family"), [
    ("openai/gpt-4o-2024-05-13", "GPT-4o Vision", "GPT-4o Vision"),  # a dated snapshot is the model
    ("openai/gpt-4o-mini", None, "GPT-4o Vision"),  # a sibling is of the family, not the model
    # the bare id names the paper's model in reports, but is no vision model for `--vision auto`
    ("ollama/llama3.2", "Llama 3.2", None),
    ("groq/llama-3.2-11b-vision-preview", "Llama 3.2", "Llama 3.2"),
    ("openai/test-model", None, None),
])
def test_a_model_id_is_the_paper_model_or_of_its_family(model_id: str, paper: str | None, family: str | None) -> None:
    model, of_family = paper_model(model_id), paper_family(model_id)
    assert (model.name if model else None) == paper
    assert (of_family.name if of_family else None) == family
