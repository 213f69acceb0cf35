"""One pass per document over the stages that read its PDF, ahead of those stages (the "chain").

The per-document stages run one after another over every document: render reads all of them, then
layout reads them again, then extract, then transcript. Each stage opened the file, parsed it and
interpreted its pages once more (display lists, text pages, the tag tree, the drawn-table search),
about a third of a screening run's work.

When a run is about to compute two or more consecutive chained stages (a `Stage` with a `link`),
`prefetch` first runs them for one document after another in the worker pool: one worker runs every
chained stage of a document in turn, each stage's work given the item its own stage body would give it
(`Link.item`, built from the earlier stages' results for that document), all of them reading one
:class:`extractors.source.PdfSource` per file (`extractors.source.shared_sources`). Each stage's result
is kept as a part in the stage's chain folder, named after the document and a digest of the item the
work was given.

The stages then run as always (`tasks.engine.runner.execute`): when `StageIO.per_key` is about to
compute a document, it first looks for a chain part computed from an item equal to its own (`adopt`),
and takes it as the document's staged part instead. Whatever the chain did not compute (a document that
timed out or crashed its worker, an item that differs, a part whose code or config changed since) the
stage computes itself, so every table, error row, reuse and resume is what the stages alone would give.
The chain is an order of work, not a different result.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from warehouse.paths import inside, remove_tree
from warehouse.store import Staging, _encode_part, _key_file, _write_part

if TYPE_CHECKING:
    from tasks.engine.context import RunBase
    from tasks.engine.runner import Stage

log = logging.getLogger("accessbench")

ENABLED = True  # tests compare runs with and without the chain
STAMP = "stamp"

# (the document's corpus row, the chain's earlier results for it by stage: {table: rows}, the chained
# stages' names) → the item the stage's work takes, or None where the stage does not process the document
# or its item cannot be told from the chain (an upstream stage the chain does not run).
ItemOf = Callable[[dict[str, Any], Mapping[str, Mapping[str, pa.Table]], frozenset[str]], Any]


@dataclass(frozen=True)
class Link:
    """How a per-document stage runs in the chain: its work for a run (a picklable function of one item,
    the very one its body gives `per_key`) and its item for one document."""

    work: Callable[[Any], Callable[[Any], Any]]  # the run's config → work(item)
    item: ItemOf  # a picklable top-level function
    documents: Callable[[Any], list[dict[str, Any]]]  # the run's config → the documents the chain reads
    same: Callable[[dict[str, Any]], str]  # identical documents (one is read, as the stages read one)
    weight: Callable[[dict[str, Any]], int]  # a document's pages, for the progress bar

    def adopter(self, cfg: RunBase, stage: Stage) -> Adopter | None:
        """The stage's chain parts for this run, if the chain left usable ones (`StageIO.per_key`)."""
        return adopter(cfg, stage)


def item_digest(item: Any) -> str:
    """A digest of a stage's work item: equal items (rows compared by value, Arrow tables by their rows
    without the run id) have equal digests."""
    text = json.dumps(_plain(item), sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _plain(value: Any) -> Any:
    if isinstance(value, pa.Table):
        table = value.drop_columns([c for c in ("run_id",) if c in value.column_names])
        return {"columns": table.column_names, "rows": table.to_pylist()}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def stamp(cfg: RunBase, stage: Stage) -> str:
    """What a stage's chain parts were computed with besides their items: its code and its config."""
    from tasks.engine.runner import code_version

    parts = {"stage": stage.name, "version": stage.version, "code": code_version(*stage.code),
             "config": {key: getattr(cfg, key) for key in stage.config_keys}}
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def folder(cfg: RunBase, stage: str) -> Path:
    return inside(cfg.home, cfg.store.artifacts / stage / "_chain" / f"run={cfg.run_id}")


def clear(cfg: RunBase, stages: Sequence[str]) -> None:
    for name in stages:
        remove_tree(cfg.home, folder(cfg, name))


# -- in a worker ---------------------------------------------------------------------------------------

def chain_document(run_id: str, links: tuple[tuple[str, Callable[[Any], Any], ItemOf, Mapping[str, pa.Schema]], ...],
                   group: list[dict[str, Any]]) -> dict[str, tuple[str, str, Any]]:
    """Every chained stage's result for one document (`group`: its identical copies, in the run's order), in
    stage order, each as its stage computes it (`runner.shaped`): {stage: (key, item digest, Shaped)}.

    As in `StageIO.per_key`, a stage computes the first copy it takes (its `Link.item` is not None) and
    each copy it takes gets those rows under its own id; a later stage sees the rows its own stage body
    would read for a copy. Stops at a stage whose rows break its schema (a bug the stage itself reports).
    """
    from extractors.source import shared_sources
    from tasks.engine.failures import guarded
    from tasks.engine.runner import StageBug, shaped

    chained = frozenset(name for name, *_ in links)
    computed: dict[str, tuple[Any, set[str]]] = {}  # stage → (its Shaped, the ids of the copies it took)
    out: dict[str, tuple[str, str, Any]] = {}
    with shared_sources():
        for name, work, item_of, schemas in links:
            taken = [(doc, item) for doc in group
                     if (item := item_of(doc, _Upstream(computed, doc["doc_id"]), chained)) is not None]
            if not taken:
                continue
            doc, item = taken[0]
            try:
                result = shaped(partial(guarded, work), run_id, name, schemas, (doc["doc_id"], item))
            except StageBug:
                break
            computed[name] = (result, {d["doc_id"] for d, _ in taken})
            out[name] = (doc["doc_id"], item_digest(item), result)
    return out


class _Upstream(Mapping[str, Mapping[str, pa.Table]]):
    """The earlier chained stages' tables as one copy of the document reads them: the rows its stage stored
    under the copy's id (none for a copy the stage did not take)."""

    def __init__(self, computed: Mapping[str, tuple[Any, set[str]]], doc_id: str) -> None:
        self._computed = computed
        self._doc_id = doc_id

    def __getitem__(self, stage: str) -> Mapping[str, pa.Table]:
        result, taken = self._computed[stage]
        if self._doc_id not in taken:
            raise KeyError(stage)
        return _Relabelled(result, self._doc_id)

    def __iter__(self) -> Iterator[str]:
        return (stage for stage, (_, taken) in self._computed.items() if self._doc_id in taken)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Relabelled(Mapping[str, pa.Table]):
    """A Shaped's tables under another copy's id, each relabelled when read."""

    def __init__(self, result: Any, doc_id: str) -> None:
        self._result = result
        self._doc_id = doc_id

    def __getitem__(self, table: str) -> pa.Table:
        found = self._result.tables[table]
        if self._doc_id == self._result.doc_id:
            return found
        return type(self._result)({table: found}, True, self._result.doc_id).for_document(self._doc_id)[table]

    def __iter__(self) -> Iterator[str]:
        return iter(self._result.tables)

    def __len__(self) -> int:
        return len(self._result.tables)


# -- in the run's process ------------------------------------------------------------------------------

def joined(cfg: RunBase, group: Sequence[tuple[Stage, bool]]) -> list[Stage]:
    """The stages of `group` (consecutive chained stages of a run's plan, each with whether it is forced) that
    will compute: known for a stage whose upstream stages completed (`runner.will_compute`), assumed for one
    downstream of a stage that joins (its inputs are that stage's new outputs)."""
    from tasks.engine.runner import will_compute

    chosen: list[Stage] = []
    for stage, forced in group:
        decided = will_compute(cfg, stage, forced)
        if decided is None:
            decided = any(up in {s.name for s in chosen} for up in stage.upstream)
        if decided:
            chosen.append(stage)
    return chosen


def prefetch(cfg: RunBase, stages: Sequence[Stage]) -> int:
    """Run `stages` (chained, in order) one document at a time and keep each result as a chain part; returns
    how many documents were read. Documents with a part of the first stage (a killed run's) are not read
    again; parts of other code or config are dropped first."""
    from tasks.engine.isolation import run_isolated
    from tasks.engine.runner import Shaped, _progress

    links = [(s, s.link) for s in stages if s.link is not None]
    if len(links) < 2 or not ENABLED:
        return 0
    head = links[0][1]
    folders = {}
    for stage, _ in links:
        folders[stage.name] = target = folder(cfg, stage.name)
        mark = target / STAMP
        expected = stamp(cfg, stage)
        if target.exists() and not (mark.is_file() and mark.read_text() == expected):
            remove_tree(cfg.home, target)
        target.mkdir(parents=True, exist_ok=True)
        mark.write_text(expected)
    have = {p.name.partition(".")[0] for p in folders[links[0][0].name].iterdir() if p.name != STAMP}
    groups: dict[str, list[dict[str, Any]]] = {}
    for doc in head.documents(cfg):  # identical documents are read once, as the stages read them
        groups.setdefault(head.same(doc), []).append(doc)
    units = [group for group in groups.values() if not {_key_file(d["doc_id"]) for d in group} & have]
    if not units:
        return 0
    plan = tuple((stage.name, link.work(cfg), link.item,
                  {name: stage.schema(name) for name in [spec.name for spec in stage.tables] + ["errors"]})
                 for stage, link in links)
    limit = getattr(cfg, "doc_timeout_s", None)
    names = ", ".join(stage.name for stage, _ in links)
    log.info("%s: one pass per document over %d document(s)", names, len(units))
    total = sum(max(0, head.weight(group[0])) for group in units)
    with _progress(cfg.progress and len(units) > 1, f"read ({names})", total, 0, "pages") as advance:
        work = partial(chain_document, cfg.run_id, plan)
        for index, result in run_isolated(work, units, workers=cfg.workers,
                                          timeout_s=limit * len(plan) if limit else None):
            group = units[index]
            if isinstance(result, dict):
                for name, (key, digest, shaped) in result.items():
                    if isinstance(shaped, Shaped) and shaped.done:
                        _write_part(folders[name] / f"{_key_file(key)}.{digest}", _encode_part(key, shaped.tables))
            else:  # a time limit, a lost worker: the stages read the document themselves
                log.info("%s: reading %s in one pass failed (%s); its stages read it one by one",
                         names, group[0]["doc_id"], type(result).__name__)
            advance(max(0, head.weight(group[0])))
    return len(units)


class Adopter:
    """A stage's chain parts, for `StageIO.per_key`: `adopt` moves a document's part into the staging."""

    def __init__(self, cfg: RunBase, stage: Stage) -> None:
        self.root = folder(cfg, stage.name)
        stamp_file = self.root / STAMP
        self.usable = stamp_file.is_file() and stamp_file.read_text() == stamp(cfg, stage)

    def adopt(self, staging: Staging, group: Sequence[tuple[str, Any]], relabel: Callable[[Mapping[str, pa.Table],
              str | None], Mapping[str, pa.Table]]) -> bool:
        """Stage the part computed for the group's first item, if the chain computed it from an equal item
        (every member gets it, relabelled as `per_key` relabels identical documents); False otherwise."""
        key, item = group[0]
        part = self.root / f"{_key_file(key)}.{item_digest(item)}"
        if not part.is_file():
            return False
        staging.adopt(key, part)
        if len(group) > 1:
            tables = staging.tables(key)
            for other, member in group[1:]:
                staging.put(other, relabel(tables, member.get("doc_id") if isinstance(member, dict) else None))
        return True


def adopter(cfg: RunBase, stage: Stage) -> Adopter | None:
    """The stage's chain parts for this run, if the chain left usable ones."""
    if stage.link is None or not (cfg.store.artifacts / stage.name / "_chain" / f"run={cfg.run_id}").is_dir():
        return None
    found = Adopter(cfg, stage)
    return found if found.usable else None

