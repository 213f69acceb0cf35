"""Published results of the two studies AccessBench reproduces, read from the CSVs shipped beside it.

`flows/report/published/` holds every published cell of Kumar, Padath, Wang (ASSETS 2025) Tables 3, 4 and 5
and the inclusivity study's tables (see the README there). They are reference rows, never results of a
run here: every report labels them "published".
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

from judges import paper_models
from judges.criteria import SPECS, labels_for

PUBLISHED = Path(__file__).parent / "published"
CITATION = "Kumar et al. 2025"
# The paper's five models, as its tables name them (declared with their model ids in judges.paper_models).
PAPER_MODELS: tuple[str, ...] = tuple(model.name for model in paper_models.PAPER_MODELS)
# The paper's criterion names → ours, from each criterion's spec; its tables add an "Average" row.
CRITERION_NAMES = {**{spec.paper_name: spec.name for spec in SPECS}, "Average": "average"}
LABEL_NAMES = {"Passed": "passed", "Failed": "failed", "Not Present": "not_present", "Cannot Tell": "cannot_tell"}
# The paper's own items (published/README.md): 125 expert-labelled documents, each criterion's labels × 5 base papers.
BASE_PAPERS = 5
ITEM_SET = f"{CITATION}: 125 expert-labelled documents (each criterion's labels × {BASE_PAPERS} base papers)"


def published_n(row: str) -> int:
    """Items behind one published cell: a criterion's (its labels × 5 papers), a label's (the criteria that have
    it × 5), or the 'average' row's (all 125)."""
    names = [spec.name for spec in SPECS]
    if row in names:
        return len(labels_for(row)) * BASE_PAPERS
    if row in LABEL_NAMES.values():
        return sum(1 for name in names if row in {lab.value for lab in labels_for(name)}) * BASE_PAPERS
    return sum(len(labels_for(name)) for name in names) * BASE_PAPERS


def _rows(name: str) -> list[dict[str, str]]:
    with (PUBLISHED / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@cache
def accuracy_by_criterion() -> dict[tuple[str, str], tuple[float, float]]:
    """Table 3: (criterion, paper model) → (accuracy mean, SD over 3 repeats); criterion 'average' included."""
    return {(CRITERION_NAMES[r["criterion"]], r["model"]): (float(r["accuracy_mean"]), float(r["accuracy_sd"]))
            for r in _rows("kumar2025_table3_accuracy.csv")}


@cache
def macro_prf() -> dict[tuple[str, str], tuple[float, float, float]]:
    """Table 4: (criterion, paper model) → (macro precision, recall, F1)."""
    return {(CRITERION_NAMES[r["criterion"]], r["model"]): (float(r["precision"]), float(r["recall"]), float(r["f1"]))
            for r in _rows("kumar2025_table4_macro_prf.csv")}


@cache
def accuracy_by_label() -> dict[tuple[str, str], tuple[float, float]]:
    """Table 5: (expected label, paper model) → (accuracy mean, SD), pooled over criteria."""
    return {(LABEL_NAMES[r["label"]], r["model"]): (float(r["accuracy_mean"]), float(r["accuracy_sd"]))
            for r in _rows("kumar2025_table5_label_accuracy.csv")}


def paper_model(model: str | None) -> str | None:
    """The paper's name for one of our model ids (e.g. openai/gpt-4o → GPT-4o Vision), if it is one of its five."""
    paper = paper_models.paper_model(model)
    return paper.name if paper is not None else None
