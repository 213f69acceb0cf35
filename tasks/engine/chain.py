"""One pass per document over the stages that read its PDF (the "chain").

The per-document stages run one after another over every document: render reads all of them, then
layout reads them again, then extract, then transcript. Each stage opened the file, parsed it and
interpreted its pages once more (display lists, text pages, the tag tree, the drawn-table search).

When a run is about to compute two or more consecutive chained stages (a `Stage` with a `link`; `begin`,
called by the pipeline with the stages that will compute, `joined`), the first of them reads each document
for all of them: its `StageIO.per_key` hands a worker a document (with its byte-identical copies) and the
worker runs every chained stage's work on it in turn (`chain_group`), each given the item its own stage body
would give it (`Link.item`, built from the earlier stages' results for that document), all reading one
:class:`extractors.source.PdfSource` per file (`extractors.source.shared_sources`). The first stage's result
is its staged part, as always; each later stage's is kept in that stage's chain folder, named after the
document and a digest of the item its work was given, written before the first stage's part.

The later stages then run as always (`tasks.engine.runner.execute`): before `StageIO.per_key` computes a
document it looks for a chain part computed from an item equal to its own, with the same code and config
(`Adopter.adopt`), and stages that part instead. Whatever the chain did not compute (a document that
timed out or crashed its worker, an item that differs) the stage computes itself, so every table, error
row, reuse and resume is what the stages alone give: the chain changes the order of work, not a result.
A killed run resumes with the first stage's staged parts and the chain parts it left.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from tasks.engine.chain_work import Chained, ItemOf, chain_group, item_digest
from warehouse.paths import inside, remove_tree
from warehouse.store import Staging, _encode_part, _key_file, _write_part

__all__ = ["Adopter", "Chained", "Head", "ItemOf", "Link", "chain_group", "item_digest"]

if TYPE_CHECKING:
    from tasks.engine.context import RunBase
    from tasks.engine.runner import Stage

log = logging.getLogger("accessbench")

ENABLED = True  # tests compare runs with and without the chain
STAMP = "stamp"


@dataclass(frozen=True)
class Link:
    """How a per-document stage runs in the chain: its work for a run (a picklable function of one item,
    the very one its body gives `per_key`) and its item for one document."""

    work: Callable[[Any], Callable[[Any], Any]]  # the run's config → work(item)
    item: ItemOf  # a picklable top-level function

    def adopter(self, cfg: RunBase, stage: Stage) -> Adopter | None:
        """The stage's chain parts for this run, if the chain left usable ones (`StageIO.per_key`)."""
        return adopter(cfg, stage)

    def head(self, cfg: RunBase, stage: Stage) -> Head | None:
        """The chain this stage runs ahead of the later ones, if it is the first of one (`StageIO.per_key`)."""
        return head(cfg, stage)


def stamp(cfg: RunBase, stage: Stage) -> str:
    """What a stage's chain parts were computed with besides their items: its code and its config."""
    from tasks.engine.runner import stage_identity

    return hashlib.sha256(json.dumps(stage_identity(cfg, stage), sort_keys=True, default=str).encode()).hexdigest()


def folder(cfg: RunBase, stage: str) -> Path:
    return inside(cfg.home, cfg.store.artifacts / stage / "_chain" / f"run={cfg.run_id}")


def clear(cfg: RunBase, stages: Sequence[str]) -> None:
    for name in stages:
        target = folder(cfg, name)
        remove_tree(cfg.home, target)
        with contextlib.suppress(OSError):
            target.parent.rmdir()  # `_chain` itself, once no run's parts are left in it


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


_pending: dict[str, tuple[Stage, ...]] = {}  # run id → the stages its next chain runs (`begin`)


def begin(cfg: RunBase, stages: Sequence[Stage]) -> None:
    """The first of `stages` (chained, in order) reads each document for all of them (`Head`); their folders for
    the later stages' parts are made ready (parts a killed attempt left with the same code and config are kept)."""
    stages = [s for s in stages if s.link is not None]
    if len(stages) < 2 or not ENABLED:
        return
    for stage in stages[1:]:
        target = folder(cfg, stage.name)
        mark = target / STAMP
        expected = stamp(cfg, stage)
        if target.exists() and not (mark.is_file() and mark.read_text() == expected):
            remove_tree(cfg.home, target)
        target.mkdir(parents=True, exist_ok=True)
        mark.write_text(expected)
    _pending[cfg.run_id] = tuple(stages)


def end(cfg: RunBase, names: Sequence[str]) -> None:
    """The chain's stages all ran: its parts are moot."""
    forget(cfg)
    clear(cfg, names)


def forget(cfg: RunBase) -> None:
    """No chain is pending for the run (it stopped): the parts kept so far stay for its resume."""
    _pending.pop(cfg.run_id, None)


class Head:
    """The chain as its first stage's `StageIO.per_key` runs it: `work` for a group of identical documents in a
    worker, `take` for its result here (the later stages' parts kept, the first stage's result returned)."""

    def __init__(self, cfg: RunBase, stages: Sequence[Stage]) -> None:
        self.run_id = cfg.run_id
        self.links = tuple((s.name, s.link.work(cfg), s.link.item, s.columns()) for s in stages)
        self.folders = {s.name: folder(cfg, s.name) for s in stages[1:]}
        self.by_name = {s.name: s for s in stages}

    @property
    def stages(self) -> int:
        return len(self.links)

    def work(self, pages: str | None) -> Callable[[list[tuple[str, Any]]], Chained]:
        return partial(chain_group, self.run_id, self.links, pages)

    def take(self, result: Any) -> Any:
        """Keep the later stages' parts of a document's result; return the first stage's (or what was raised)."""
        if not isinstance(result, Chained):
            return result  # a time limit, a lost worker: the later stages read the document themselves
        from tasks.engine.runner import StageBug, arrow_tables

        for name, (key, digest, shaped) in result.others.items():
            if not shaped.done:
                continue
            try:
                tables = arrow_tables(self.by_name[name], shaped.tables)
            except StageBug:
                continue  # the stage computes the document itself, and fails on it
            _write_part(self.folders[name] / f"{_key_file(key)}.{digest}", _encode_part(key, tables))
        return result.head


def head(cfg: RunBase, stage: Stage) -> Head | None:
    """The chain `stage` runs for the stages after it (`begin`), if it is the first of one."""
    stages = _pending.get(cfg.run_id)
    if not stages or stages[0].name != stage.name:
        return None
    return Head(cfg, stages)


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

