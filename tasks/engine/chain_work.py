"""The chain's part that runs in a worker process (`tasks.engine.chain`): every chained stage's work on one
document, and the digest of a stage's work item. Imports no pyarrow (issue 56): the stages' rows travel as
`common.rows.Rows` and become Arrow tables in the run's process.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from common.rows import ArrowRows, Columns, Rows

# (the document's corpus row, the chain's earlier results for it by stage: {table: rows}, the chained
# stages' names, the run's documents of the same content in run order, this one among them) → the item the
# stage's work takes, or None where the stage does not process the document or its item cannot be told from
# the chain (an upstream stage the chain does not run).
ItemOf = Callable[[dict[str, Any], Mapping[str, Mapping[str, Rows]], frozenset[str], Sequence[dict[str, Any]]], Any]


def item_digest(item: Any) -> str:
    """A digest of a stage's work item: equal items (rows compared by value; tables, as `Rows`, `ArrowRows` or
    Arrow tables, by their column names and rows without the run id) have equal digests: a table's `Rows` in a
    worker and the same rows read back from its stored Arrow table digest alike.

    The digest of the item's JSON (sorted keys, compact separators; a table as its column names and rows), fed to
    the hash piece by piece: an Arrow table's rows become Python values a batch at a time, so the item's rows are never
    all in memory as dicts, nor its JSON as one text (a document's transcript item holds all its extract tables).
    """
    digest = hashlib.sha256()
    _feed(digest.update, item)
    return digest.hexdigest()[:32]


def _is_arrow_table(value: Any) -> bool:
    arrow = sys.modules.get("pyarrow")  # never imported here: a table can only come from a process that has it
    return arrow is not None and isinstance(value, arrow.Table)


def _feed(put: Callable[[bytes], Any], value: Any) -> None:
    def dump(plain: Any) -> None:
        put(json.dumps(plain, sort_keys=True, default=str, separators=(",", ":")).encode())

    if _is_arrow_table(value):
        value = ArrowRows(value)
    if isinstance(value, Rows | ArrowRows):
        put(b'{"columns":')
        dump([name for name in value.column_names if name != "run_id"])
        put(b',"rows":[')
        for at, row in enumerate(value.iter_rows(("run_id",))):
            if at:
                put(b",")
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


@dataclass
class Chained:
    """One document's results: its first stage's (`runner.Shaped`) and the later stages' parts,
    {stage: (key, item digest, Shaped)}."""

    head: Any
    others: dict[str, tuple[str, str, Any]]


def chain_group(run_id: str, links: tuple[tuple[str, Callable[[Any], Any], ItemOf, Mapping[str, Columns]], ...],
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
    from tasks.engine.documents import document_of
    from tasks.engine.failures import guarded
    from tasks.engine.shaping import StageBug, shaped

    (head_name, head_work, _, head_columns), later = links[0], links[1:]
    key, head_item = group[0]
    docs = [document_of(item) for _, item in group]
    chained = frozenset(name for name, *_ in links)
    others: dict[str, tuple[str, str, Any]] = {}
    with shared_sources(), counting(pages, key) as counted, in_parts(len(links)):
        head = shaped(partial(guarded, head_work), run_id, head_name, head_columns, (key, head_item))
        computed: dict[str, tuple[Any, set[str]]] = {head_name: (head, {d["doc_id"] for d in docs})}
        for name, work, item_of, columns in later:
            taken = [(doc, item) for doc in docs
                     if (item := item_of(doc, _Upstream(computed, doc["doc_id"]), chained, docs)) is not None]
            if not taken:
                continue
            doc, item = taken[0]
            try:
                result = shaped(partial(guarded, work), run_id, name, columns, (doc["doc_id"], item))
            except StageBug:
                break
            computed[name] = (result, {d["doc_id"] for d, _ in taken})
            others[name] = (doc["doc_id"], item_digest(item), result)
    head.reported = counted.reported
    return Chained(head, others)


class _Upstream(Mapping[str, Mapping[str, Rows]]):
    """The earlier chained stages' tables as one copy of the document reads them: the rows its stage stored
    under the copy's id (none for a copy the stage did not take)."""

    def __init__(self, computed: Mapping[str, tuple[Any, set[str]]], doc_id: str) -> None:
        self._computed = computed
        self._doc_id = doc_id

    def __getitem__(self, stage: str) -> Mapping[str, Rows]:
        result, taken = self._computed[stage]
        if self._doc_id not in taken:
            raise KeyError(stage)
        return _Relabelled(result, self._doc_id)

    def __iter__(self) -> Iterator[str]:
        return (stage for stage, (_, taken) in self._computed.items() if self._doc_id in taken)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Relabelled(Mapping[str, Rows]):
    """A Shaped's tables under another copy's id, each relabelled when read."""

    def __init__(self, result: Any, doc_id: str) -> None:
        self._result = result
        self._doc_id = doc_id

    def __getitem__(self, table: str) -> Rows:
        found = self._result.tables[table]
        if self._doc_id == self._result.doc_id:
            return found
        return found.with_value("doc_id", self._doc_id)

    def __iter__(self) -> Iterator[str]:
        return iter(self._result.tables)

    def __len__(self) -> int:
        return len(self._result.tables)


