"""Trying a run small (`--limit`, `--sample --seed`) and naming the items a run measured (corpus.item_set)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from corpus.item_set import SYNTHETIC, is_synthetic, label_of, select
from corpus.manifest import dataset_items, load_dataset

STRATA = [(c, lab, k) for c in ("alt", "fonts") for lab in ("passed", "failed", "cannot_tell") for k in range(5)]


def _key(e: tuple[str, str, int]) -> tuple[str, str]:
    return e[0], e[1]


def test_limit_takes_the_first_items_in_turn_from_each_criterion_and_label() -> None:
    chosen = select(STRATA, _key, limit=6)
    assert Counter(_key(e) for e in chosen) == Counter({(c, lab): 1 for c in ("alt", "fonts")
                                                        for lab in ("passed", "failed", "cannot_tell")})
    assert all(e[2] == 0 for e in chosen)  # each stratum's first item, in manifest order
    assert select(STRATA, _key, limit=100) == STRATA
    two = select(STRATA, _key, limit=2)  # a small N covers the criteria before the labels
    assert [e[0] for e in two] == ["alt", "fonts"]


def test_sample_is_stratified_random_and_repeatable_by_seed() -> None:
    first = select(STRATA, _key, sample=12, seed=1)
    assert len(first) == 12 and set(Counter(_key(e) for e in first).values()) == {2}  # 2 from each of 6 strata
    assert select(STRATA, _key, sample=12, seed=1) == first
    assert any(select(STRATA, _key, sample=12, seed=s) != first for s in range(2, 6))
    assert first != select(STRATA, _key, limit=12)  # random, not the first two of each stratum
    odd = select(STRATA, _key, sample=7, seed=3)
    assert len(odd) == 7 and max(Counter(_key(e) for e in odd).values()) == 2


def test_item_set_labels_say_what_was_measured() -> None:
    assert label_of("synthetic", "AccessBench-Synthetic", "synthetic", 25, 25, seed=0) == \
        f"{SYNTHETIC}: AccessBench-Synthetic seed 0, 25 items"
    assert label_of("dataset", "PDF-Accessibility-Benchmark", "dev", 8, 75, "sample 8, seed 3") == \
        "dataset:PDF-Accessibility-Benchmark (split dev, 8 of 75 items, sample 8, seed 3)"
    assert label_of("screening", None, None, 16) == "screening (16 files)"
    assert is_synthetic(label_of("synthetic", "x", None, 3)) and not is_synthetic("dataset:x (split dev, 3 items)")


def test_load_dataset_reads_only_the_chosen_items(synthetic_dataset: Path) -> None:
    every = load_dataset(synthetic_dataset, "r", ["alt_text_quality", "semantic_tagging"])
    assert len(every) == dataset_items(synthetic_dataset, ["alt_text_quality", "semantic_tagging"]) == 8
    few = load_dataset(synthetic_dataset, "r", ["alt_text_quality", "semantic_tagging"], limit=3)
    assert len(few) == 3 and len({(r["criterion"], r["expected_label"]) for r in few}) == 3
    drawn = load_dataset(synthetic_dataset, "r", ["alt_text_quality", "semantic_tagging"], sample=5, seed=2)
    assert len(drawn) == 5 and {r["doc_id"] for r in drawn} <= {r["doc_id"] for r in every}
