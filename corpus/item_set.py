"""Which items a run measured: its item set, said beside every number a report shows.

A run's numbers mean little without it: the synthetic benchmark's labels are its generator's own (built from
the same principles as the rules judge), a dataset's development split is the split rules may be tuned on,
and a screening run has no expected labels at all. The corpus stage records one `item_set` row per run;
`label` is how every report names it:

- `synthetic (self-labelled)`, with the generator's seed and size;
- `dataset:<name>`, with its split and item count (and how a `--limit` or `--sample` chose them);
- `screening`, with its file count.

`select` makes the small runs: `--limit N` takes N items in turn from each (criterion, label) stratum in
manifest order; `--sample N --seed S` draws N at random, stratified the same way.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

SYNTHETIC = "synthetic (self-labelled)"
SCREENING = "screening"
KINDS = ("synthetic", "dataset", "screening")


T = TypeVar("T")


def _strata(entries: Sequence[T], key: Any) -> list[list[T]]:
    """Entries grouped by `key` (a (criterion, label) pair), interleaved across criteria: each criterion's first
    label, then each one's second … so that a small N spreads over the criteria before the labels."""
    groups: dict[Any, list[T]] = {}
    for entry in entries:
        groups.setdefault(key(entry), []).append(entry)
    outer: dict[Any, int] = {}
    rank = {k: (sum(1 for other in list(groups)[:i] if other[0] == k[0]), outer.setdefault(k[0], len(outer)))
            for i, k in enumerate(groups)}
    return [groups[k] for k in sorted(groups, key=lambda k: rank[k])]


def select(entries: Sequence[T], key: Any, limit: int | None = None, sample: int | None = None,
           seed: int = 0) -> list[T]:
    """At most `limit` (or `sample`) of `entries`, spread over the strata `key` gives (criterion, label): one
    from each stratum in turn (criteria interleaved) until N are taken. `limit` takes each stratum's first
    items, `sample` a seeded random draw. The chosen entries keep their original order."""
    wanted = sample if sample is not None else limit
    if wanted is None or wanted >= len(entries):
        return list(entries)
    strata = _strata(entries, key)
    if sample is not None:
        rng = random.Random(f"accessbench-sample:{seed}")
        strata = [rng.sample(group, len(group)) for group in strata]
        rng.shuffle(strata)  # which strata get one more item when N does not divide evenly
    chosen: list[T] = []
    depth = 0
    while len(chosen) < wanted:
        for group in strata:
            if depth < len(group) and len(chosen) < wanted:
                chosen.append(group[depth])
        depth += 1
    picked = {id(e) for e in chosen}
    return [e for e in entries if id(e) in picked]


def selection_text(limit: int | None, sample: int | None, seed: int) -> str:
    if sample is not None:
        return f"sample {sample}, seed {seed}"
    return f"limit {limit}" if limit is not None else ""


def label_of(kind: str, name: str | None, split: str | None, items: int, of_items: int | None = None,
             selection: str = "", seed: int | None = None) -> str:
    """`synthetic (self-labelled): …`, `dataset:<name> (split dev, 75 items)`, `screening (16 files)`."""
    if kind == SCREENING:
        return f"{SCREENING} ({items} file{'s' if items != 1 else ''})"
    count = f"{items} of {of_items} items" if of_items and of_items != items else f"{items} items"
    chosen = f", {selection}" if selection else ""
    if kind == "synthetic":
        return f"{SYNTHETIC}: {name or 'generator'}" + (f" seed {seed}" if seed is not None else "") + \
            f", {count}{chosen}"
    return f"dataset:{name or 'unnamed'} (split {split or 'unstated'}, {count}{chosen})"


def fallback_label(source: str | None, source_path: str | None) -> str:
    """A run recorded before item sets were: named from its source alone."""
    if source == "synthetic":
        return SYNTHETIC
    if source == "pdfs":
        return SCREENING
    name = (source_path or "").rstrip("/").rsplit("/", 1)[-1]
    return f"dataset:{name or 'unnamed'}"


def is_synthetic(label: str | None) -> bool:
    return bool(label) and str(label).startswith(SYNTHETIC)
