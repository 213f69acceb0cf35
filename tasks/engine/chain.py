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
# stages' names, the run's documents of the same content in run order, this one among them) → the item the
# stage's work takes, or None where the stage does not process the document or its item cannot be told from
# the chain (an upstream stage the chain does not run).
ItemOf = Callable[[dict[str, Any], Mapping[str, Mapping[str, pa.Table]], frozenset[str], Sequence[dict[str, Any]]],
                  Any]


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


def item_digest(item: Any) -> str:
    """A digest of a stage's work item: equal items (rows compared by value, Arrow tables by their rows
    without the run id) have equal digests.

    The digest of the item's JSON (sorted keys, compact separators; a table as its column names and rows), fed to
    the hash piece by piece: a table's rows become Python values a batch at a time, so the item's rows are never
    all in memory as dicts, nor its JSON as one text (a document's transcript item holds all its extract tables).
    """
    digest = hashlib.sha256()
    _feed(digest.update, item)
    return digest.hexdigest()[:32]


_ROWS_AT_ONCE = 1024


def _feed(put: Callable[[bytes], Any], value: Any) -> None:
    def dump(plain: Any) -> None:
        put(json.dumps(plain, sort_keys=True, default=str, separators=(",", ":")).encode())

    if isinstance(value, pa.Table):
        table = value.drop_columns([c for c in ("run_id",) if c in value.column_names])
        put(b'{"columns":')
        dump(table.column_names)
        put(b',"rows":[')
        first = True
        for batch in table.to_batches(max_chunksize=_ROWS_AT_ONCE):
            for row in batch.to_pylist():
                if not first:
                    put(b",")
                first = False
                dump(row)
        put(b"]}")
    elif isinstance(value, Mapping):
        put(b"{")
        for at, (key, member) in enumerate(sorted(((str(k), v) for k, v in value.items()), key=lambda kv: kv[0])):
            if at:
                put(b",")
            dump(key)
            put(b":")
            _feed(put, member)
        put(b"}")
    elif isinstance(value, list | tuple):
        put(b"[")
        for at, member in enumerate(value):
            if at:
                put(b",")
            _feed(put, member)
        put(b"]")
    else:
        dump(value)


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


# -- in a worker ---------------------------------------------------------------------------------------

@dataclass
class Chained:
    """One document's results: its first stage's (`runner.Shaped`) and the later stages' parts,
    {stage: (key, item digest, Shaped)}."""

    head: Any
    others: dict[str, tuple[str, str, Any]]


def chain_group(run_id: str, links: tuple[tuple[str, Callable[[Any], Any], ItemOf, Mapping[str, pa.Schema]], ...],
                pages: str | None, group: list[tuple[str, Any]]) -> Chained:
    """Every chained stage's result for one document (`group`: the first stage's (key, item) of it and of its
    identical copies, in the run's order), in stage order, each as its stage computes it (`runner.shaped`).

    As in `StageIO.per_key`, a later stage computes the first copy it takes (its `Link.item` is not None) and
    each copy it takes gets those rows under its own id; it sees the rows its own stage body would read for a
    copy. The pages the stages report count for the first stage's tally `pages`, each page once over all the
    stages. A later stage whose rows break its schema ends the chain there (the stage itself then reports it).
    """
    from common.progress import counting, in_parts
    from extractors.source import shared_sources
    from tasks.engine.common import document_of
    from tasks.engine.failures import guarded
    from tasks.engine.runner import StageBug, shaped

    (head_name, head_work, _, head_schemas), later = links[0], links[1:]
    key, head_item = group[0]
    docs = [document_of(item) for _, item in group]
    chained = frozenset(name for name, *_ in links)
    others: dict[str, tuple[str, str, Any]] = {}
    with shared_sources(), counting(pages, key) as counted, in_parts(len(links)):
        head = shaped(partial(guarded, head_work), run_id, head_name, head_schemas, (key, head_item))
        computed: dict[str, tuple[Any, set[str]]] = {head_name: (head, {d["doc_id"] for d in docs})}
        for name, work, item_of, schemas in later:
            taken = [(doc, item) for doc in docs
                     if (item := item_of(doc, _Upstream(computed, doc["doc_id"]), chained, docs)) is not None]
            if not taken:
                continue
            doc, item = taken[0]
            try:
                result = shaped(partial(guarded, work), run_id, name, schemas, (doc["doc_id"], item))
            except StageBug:
                break
            computed[name] = (result, {d["doc_id"] for d, _ in taken})
            others[name] = (doc["doc_id"], item_digest(item), result)
    head.reported = counted.reported
    return Chained(head, others)


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
        self.links = tuple((s.name, s.link.work(cfg), s.link.item, s.schemas()) for s in stages)
        self.folders = {s.name: folder(cfg, s.name) for s in stages[1:]}

    @property
    def stages(self) -> int:
        return len(self.links)

    def work(self, pages: str | None) -> Callable[[list[tuple[str, Any]]], Chained]:
        return partial(chain_group, self.run_id, self.links, pages)

    def take(self, result: Any) -> Any:
        """Keep the later stages' parts of a document's result; return the first stage's (or what was raised)."""
        if not isinstance(result, Chained):
            return result  # a time limit, a lost worker: the later stages read the document themselves
        for name, (key, digest, shaped) in result.others.items():
            if shaped.done:
                _write_part(self.folders[name] / f"{_key_file(key)}.{digest}", _encode_part(key, shaped.tables))
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

