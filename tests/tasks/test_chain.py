"""The one pass per document over render, layout, extract and transcript (tasks.engine.chain, issue 56): the
stages take what it computed only where they would have computed the same, so every table is the same."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from common.rows import ROWS_AT_ONCE
from tasks.benchmark.registry import BENCHMARK
from tasks.engine import chain
from tasks.engine.context import RunConfig
from tasks.engine.runner import Stage

pytestmark = pytest.mark.heavy  # screening runs of a small folder, with and without the chain

CHAINED = ("render", "layout", "extract", "transcript")


def _folder(root: Path, synthetic: Path) -> Path:
    """Tagged files with and without tables, an untagged one, a byte-identical copy and a truncated file."""
    folder = root / "pdfs"
    folder.mkdir()
    processed = synthetic / "data" / "processed"
    for name, source in {"table-failed.pdf": "table_structure/failed", "table-passed.pdf": "table_structure/passed",
                         "untagged.pdf": "semantic_tagging/not_present", "links.pdf": "functional_hyperlinks/failed",
                         "contrast.pdf": "color_contrast/failed"}.items():
        shutil.copy(processed / source / "SYN0001.pdf", folder / name)
    shutil.copy(folder / "table-failed.pdf", folder / "copy of table-failed.pdf")
    (folder / "truncated.pdf").write_bytes((folder / "links.pdf").read_bytes()[:900])
    # A wrong cross-reference offset: read from MuPDF's repair (an extract error row; no transcript).
    data = (folder / "contrast.pdf").read_bytes()
    at = data.rindex(b"startxref") + len(b"startxref")
    (folder / "repaired.pdf").write_bytes(data[:at] + re.sub(rb"\d+", b"17", data[at:], count=1))
    return folder


def _run(root: Path, folder: Path, name: str, **kw: Any) -> RunConfig:
    cfg = RunConfig(home=root / name, run_id=name, source="pdfs", source_path=str(folder), progress=False,
                    workers=1, **kw)
    object.__setattr__(cfg, "doc_timeout_s", None)  # one worker, no time limit: in this process, seen by the test
    results = BENCHMARK.run(cfg)
    assert {r["status"] for r in results} == {"completed"}, results
    return cfg


def _tables(cfg: RunConfig, stages: tuple[str, ...]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    out = {}
    for stage in stages:
        for spec in [*BENCHMARK.stage(stage).tables, None]:
            table = spec.name if spec is not None else "errors"
            data = cfg.store.read_table(stage, cfg.run_id, table)
            rows = data.drop_columns(["run_id"]).to_pylist() if data is not None else []
            home = str(cfg.home)
            out[(stage, table)] = [{k: v.replace(home, "HOME") if isinstance(v, str) else v for k, v in row.items()}
                                   for row in rows]
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, synthetic_dataset: Path) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("chain56")
    folder = _folder(root, synthetic_dataset)
    patch = pytest.MonkeyPatch()
    adopted: dict[str, list[bool]] = {}
    original = chain.Adopter.adopt

    def counted(self: chain.Adopter, staging: Any, group: Any, relabel: Any) -> bool:
        took = original(self, staging, group, relabel)
        adopted.setdefault(self.root.parts[-3], []).append(took)
        return took

    try:
        patch.setattr(chain, "ENABLED", False)
        alone = _run(root, folder, "alone")
        patch.setattr(chain, "ENABLED", True)
        patch.setattr(chain.Adopter, "adopt", counted)
        chained = _run(root, folder, "chained")
    finally:
        patch.undo()
    return {"root": root, "folder": folder, "alone": alone, "chained": chained, "adopted": adopted}


def test_the_chain_gives_every_table_the_stages_alone_give(runs: dict[str, Any]) -> None:
    stages = tuple(BENCHMARK.names)
    alone, chained = _tables(runs["alone"], stages), _tables(runs["chained"], stages)
    assert alone.keys() == chained.keys()
    for key in alone:
        assert chained[key] == alone[key], key
    assert alone[("extract", "tables")] and alone[("layout", "layout_pages")]
    assert "repaired" in {row["kind"] for row in alone[("extract", "errors")]}


def test_each_stage_took_every_document_the_chain_read(runs: dict[str, Any]) -> None:
    adopted = runs["adopted"]
    assert set(adopted) == set(CHAINED[1:])  # render, the first, reads the documents for them
    for stage, took in adopted.items():
        # The truncated file is not read by the corpus stage; every other file's part is taken (the copy is one
        # group with its original), none is computed twice.
        assert took and all(took), (stage, took)
    home = runs["chained"].home
    assert not list(home.glob("artifacts/*/_chain")), "the chain's parts are removed once its stages ran"


def test_a_document_the_chain_could_not_read_is_read_by_the_stages(runs: dict[str, Any],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    original = chain.chain_group

    def fails_once(run_id: str, links: Any, pages: Any, group: list[tuple[str, dict[str, Any]]]) -> Any:
        if any("table-passed" in str(doc.get("files")) for _, doc in group):
            raise MemoryError("the worker ran out of memory")
        return original(run_id, links, pages, group)

    monkeypatch.setattr(chain, "chain_group", fails_once)
    again = _run(runs["root"], runs["folder"], "one-failed")
    stages = tuple(BENCHMARK.names)
    assert _tables(again, stages) == _tables(runs["alone"], stages)


def test_a_part_is_taken_only_for_an_equal_item_and_the_same_code_and_config(tmp_path: Path) -> None:
    cfg = RunConfig(home=tmp_path, run_id="r1", progress=False)
    stage: Stage = BENCHMARK.stage("render")
    target = chain.folder(cfg, "render")
    target.mkdir(parents=True)
    (target / chain.STAMP).write_text(chain.stamp(cfg, stage))
    item = {"doc_id": "d1", "sha256": "abc", "files": ["a.pdf"]}
    from warehouse.store import _encode_part, _key_file, _write_part

    table = pa.table({"doc_id": ["d1"], "page": [1]})
    _write_part(target / f"{_key_file('d1')}.{chain.item_digest(item)}", _encode_part("d1", {"pages": table}))
    staging = cfg.store.staging("render", "r1", "digest")
    found = chain.adopter(cfg, stage)
    assert found is not None
    assert not found.adopt(staging, [("d1", {**item, "files": ["b.pdf"]})], lambda t, d: t)  # another item
    assert found.adopt(staging, [("d1", item)], lambda t, d: t)
    assert staging.done("d1") and staging.tables("d1")["pages"].equals(table)
    # Another config (or code) makes the chain's parts moot.
    other = RunConfig(home=tmp_path, run_id="r1", progress=False, dpi=cfg.dpi + 50)
    assert chain.adopter(other, stage) is None


def test_item_digests_compare_values_and_tables_without_the_run_id() -> None:
    a = pa.table({"run_id": ["r1"], "doc_id": ["d"], "x": [1.5]})
    b = pa.table({"run_id": ["r2"], "doc_id": ["d"], "x": [1.5]})
    assert chain.item_digest({"t": a, "k": [1, 2]}) == chain.item_digest({"k": [1, 2], "t": b})
    assert chain.item_digest({"t": a}) != chain.item_digest({"t": b.set_column(2, "x", pa.array([2.5]))})


def _whole_json_digest(item: Any) -> str:
    """The digest's definition: sha256 of the item's JSON, tables as column names and rows without the run id."""
    def plain(value: Any) -> Any:
        if isinstance(value, pa.Table):
            table = value.drop_columns([c for c in ("run_id",) if c in value.column_names])
            return {"columns": table.column_names, "rows": table.to_pylist()}
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        return value

    text = json.dumps(plain(item), sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def test_item_digests_are_fed_by_batches_and_equal_the_digest_of_the_whole_json() -> None:
    """A table of several batches (and chunks), nested records, empty tables and containers, non-JSON values and
    keys: the digest, fed piece by piece, is the one of the item's whole JSON text."""
    rows = 2 * ROWS_AT_ONCE + 7
    table = pa.table({"run_id": ["r"] * rows, "n": list(range(rows)),
                      "box": [{"x": i / 3, "tags": ["a", None]} for i in range(rows)],
                      "text": [None, 'quote " and é', "z"] * (rows // 3) + [None] * (rows % 3)})
    chunked = pa.concat_tables([table.slice(0, 5), table.slice(5)])
    item = {"doc": {"files": ["a b.pdf"], "z": None, "a": {"deep": [1, {"q": 2.5}]}}, "tables": {"t": chunked},
            "none": table.slice(0, 0), "at": Path("/x y"), 3: (True, 1.25), "empty": {}, "list": []}
    assert chain.item_digest(item) == _whole_json_digest(item)
    assert chain.item_digest(item) == chain.item_digest({**item, "tables": {"t": table}})
    assert chain.item_digest(item) != chain.item_digest({**item, "tables": {"t": table.slice(1)}})
    for other in ([table.slice(3, 4), "s"], "s", None, 1.5):
        assert chain.item_digest(other) == _whole_json_digest(other)
