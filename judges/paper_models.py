"""The five models of Kumar et al. 2025, declared once: the name its tables give each, the litellm model
names (after the provider) that are that model, and whether the paper sent it page images.

`--vision auto` (judges.llm.judge) follows the paper for these, and the report (flows.report.paper_numbers) puts
our runs of them beside the published numbers.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PaperModel:
    name: str  # as the paper's tables name it
    ids: tuple[str, ...]  # litellm model names, after the provider ("openai/gpt-4o" → "gpt-4o")
    vision: bool  # the paper judged with page, figure and table images (GPT-4 Turbo judged text only)
    # A family whose ids name a size and a variant ("llama-3.2-11b-vision-instruct"): an id matches when it
    # starts with one of `ids` and contains this word.
    variant: str | None = None


PAPER_MODELS: tuple[PaperModel, ...] = (
    PaperModel("GPT-4 Turbo", ("gpt-4-turbo",), vision=False),
    PaperModel("GPT-4o Vision", ("gpt-4o",), vision=True),
    PaperModel("Claude 3.5", ("claude-3-5-sonnet", "claude-3.5-sonnet"), vision=True),
    PaperModel("Gemini 1.5", ("gemini-1.5-pro",), vision=True),
    PaperModel("Llama 3.2", ("llama3.2", "llama-3.2"), vision=True, variant="vision"),
)


def _name(model: str | None) -> str:
    return (model or "").rsplit("/", 1)[-1].lower()


def paper_model(model: str | None) -> PaperModel | None:
    """The paper's model that `model` (a litellm model id) is: the id itself or a dated snapshot of it
    (gpt-4o-2024-05-13), never a sibling (gpt-4o-mini)."""
    name = _name(model)
    for paper in PAPER_MODELS:
        for prefix in paper.ids:
            if name == prefix or name.startswith(prefix + "-20") or (
                    paper.variant and name.startswith(prefix) and paper.variant in name):
                return paper
    return None


def paper_family(model: str | None) -> PaperModel | None:
    """The paper's model whose family `model` belongs to (any id containing one of its names, siblings
    included: gpt-4o-mini is of the GPT-4o family), for choosing how to send pages."""
    name = _name(model)
    for paper in PAPER_MODELS:
        for prefix in paper.ids:
            if prefix in name and (paper.variant is None or paper.variant in name):
                return paper
    return None
