"""The judge's labels do not change when dates, producer, file names and manifest order change."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pikepdf
import pytest

from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from warehouse import catalog
from warehouse.tables import ALL_TABLES

pytestmark = pytest.mark.heavy  # whole benchmark runs (not in make test-fast)

CRITERIA = ["semantic_tagging", "functional_hyperlinks"]


def disguise(src: Path, dst: Path, seed: int) -> None:
    """Copy a dataset with new metadata, neutral file names and shuffled manifest order."""
    data = json.loads((src / "data/dataset.json").read_text())
    rng = random.Random(seed)
    (dst / "data/files").mkdir(parents=True)
    for criterion, labels in data["tasks"].items():
        for items in labels.values():
            for item in items:
                name = f"data/files/{rng.getrandbits(48):012x}.pdf"
                with pikepdf.open(src / item["pdf_path"]) as pdf:
                    with pdf.open_metadata(set_pikepdf_as_editor=False) as meta:
                        meta["xmp:CreatorTool"] = f"Tool {rng.random()}"
                    pdf.docinfo["/Producer"] = f"Producer {rng.random()}"
                    pdf.docinfo["/CreationDate"] = f"D:19{rng.randint(70, 99)}0101000000"
                    pdf.save(dst / name)
                item["pdf_path"] = name
                for key in ("mutation", "title", "year"):
                    item.pop(key, None)
            rng.shuffle(items)
        data["tasks"][criterion] = dict(rng.sample(sorted(labels.items()), k=len(labels)))
    (dst / "data/dataset.json").write_text(json.dumps(data))


def labels(home: Path, run_id: str, dataset: Path) -> dict[tuple[str, str, str], str]:
    cfg = RunConfig(home=home, run_id=run_id, source="dataset", source_path=str(dataset), criteria=CRITERIA,
                    progress=False)
    for stage in STAGE_LIST:
        execute(cfg, stage)
    _, rows = catalog.query(home, ALL_TABLES, f"""
        select d.criterion, d.base_doc, d.expected_label, l.label from doc_labels l
        join documents d using (run_id, doc_id) where l.run_id = '{run_id}'""")
    return {(c, b, e): label for c, b, e, label in rows}


def test_labels_ignore_metadata_names_and_order(tmp_path: Path, synthetic_dataset: Path) -> None:
    disguised = tmp_path / "disguised"
    disguise(synthetic_dataset, disguised, seed=7)
    original = labels(tmp_path / "home", "original", synthetic_dataset)
    assert original == labels(tmp_path / "home", "disguised", disguised)
    assert len(original) == 2 * 4 * 1  # criteria × labels × base docs (tests/conftest.py: one)
