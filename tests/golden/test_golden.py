"""Golden outputs of the generated fixture papers: tag tree, reading order, table cells, transcript, rules labels.

The synthetic corpus (seed 0, one base paper: every criterion's variants) is built, each distinct
file is extracted as the extract stage does it (no layout regions), and the rules judge labels
every item as the pipeline does (Cannot Tell items without their starred evidence). The results
must match the files in tests/golden/ exactly; a mismatch fails with a diff.

An intended change: ``pytest tests/golden --update-golden`` rewrites the files and MANIFEST.json
(their hashes and the fixture they come from); review ``git diff tests/golden`` and commit. The
guard test fails when a golden file no longer matches the manifest, i.e. it was edited by hand
or regenerated only in part.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from corpus.synthetic import DATASET_VERSION, build_synthetic_benchmark
from extractors.pages import render_pages
from extractors.reading_order import order_agreement
from extractors.structure.summary import struct_summary
from extractors.transcript import transcribe
from judges.evidence import DocEvidence, build_bundles
from judges.labels import Label
from judges.rules import RulesJudge
from tasks.benchmark.work.extract import extract_file

GOLDEN = Path(__file__).resolve().parent
MANIFEST = GOLDEN / "MANIFEST.json"
FIXTURE = {"corpus": "corpus.synthetic", "seed": 0, "base_docs": 1, "dataset_version": DATASET_VERSION}
UPDATE_HINT = ("if the change is intended, run `pytest tests/golden --update-golden`, "
               "review `git diff tests/golden` and commit the files with the change that explains them")
DIFF_LINES = 80
# Extracted tables: the columns kept (doc_id becomes `fixture`; crop paths depend on the machine).
COLUMNS = {
    "struct_elements": ("elem_id", "parent_id", "depth", "order", "raw_type", "type", "standard", "page", "alt",
                        "actual_text", "lang", "title", "attributes", "scope", "elem_key", "mcids", "objr_annots",
                        "text", "bbox", "subtree_bbox"),
    "reading_order": ("page", "block_index", "bbox", "text", "struct_rank", "content_rank", "visual_rank", "column",
                      "role", "elem_id", "font_size", "marks"),
    "table_cells": ("table_id", "row", "col", "kind", "scope", "text", "rowspan", "colspan", "headers",
                    "associated_headers", "elem_id"),
    "transcript": ("seq", "page", "announcement", "role", "element", "level", "text"),
}
GOLDEN_FILES = tuple(f"{name}.csv" for name in COLUMNS) + ("rules_judgments.json",)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "golden_file" in metafunc.fixturenames:
        metafunc.parametrize("golden_file", GOLDEN_FILES)


# --------------------------------------------------------------------------- fresh outputs


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> dict[str, str]:
    """Every golden file's fresh text; written to tests/golden/ (with the manifest) under --update-golden."""
    root = tmp_path_factory.mktemp("golden")
    build_synthetic_benchmark(root / "corpus", seed=FIXTURE["seed"], base_docs=FIXTURE["base_docs"])
    data = root / "corpus" / "data"
    items = json.loads((data / "dataset.json").read_text(encoding="utf-8"))
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in COLUMNS}
    judgments: list[dict[str, Any]] = []
    extracted: dict[str, dict[str, list[dict[str, Any]]]] = {}  # sha256 → rows, each distinct file once
    for item in _items(items):
        path = data / item["path"]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest not in extracted:
            extracted[digest] = _extract(path, root / "artifacts")
            fixture = item["path"].removeprefix("processed/").removesuffix(".pdf")
            for name in COLUMNS:
                rows[name] += [{"fixture": fixture, **{c: r.get(c) for c in COLUMNS[name]}}
                               for r in extracted[digest][name]]
        judgments += _judge(item, extracted[digest])
    texts = {f"{name}.csv": _csv(table) for name, table in rows.items()}
    texts["rules_judgments.json"] = json.dumps(judgments, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if request.config.getoption("--update-golden"):
        for name, text in texts.items():
            (GOLDEN / name).write_text(text, encoding="utf-8", newline="\n")
        _write_manifest()
    return texts


def _items(dataset: dict[str, Any]) -> list[dict[str, Any]]:
    """(criterion, label, path under data/) of every item in the synthetic dataset.json, sorted by path."""
    found = [{"criterion": criterion, "label": label, "path": entry["pdf_path"].removeprefix("data/")}
             for criterion, labels in dataset["tasks"].items() for label, entries in labels.items()
             for entry in entries]
    assert found, "the synthetic dataset.json lists no items: has its layout changed?"
    return sorted(found, key=lambda i: i["path"])


def _extract(path: Path, artifacts: Path) -> dict[str, list[dict[str, Any]]]:
    rows = extract_file(path, "doc", 0, 0, artifacts / "crops", 36, [])
    rows["pages"] = render_pages(path, doc_id="doc", out_dir=artifacts / "pages", dpi=36)
    rows["doc_structure"] = [struct_summary(path)]
    rows["transcript"] = transcribe(path, doc_id="doc", elements=rows["struct_elements"], links=rows["links"])
    return rows


def _judge(item: dict[str, Any], rows: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The rules judge's page judgments for the item's criterion, as the inputs and judge stages make them."""
    order = rows["reading_order"]
    tables = ("struct_elements", "links", "fonts", "text_spans", "reading_order", "tables", "table_cells", "figures")
    evidence = DocEvidence("doc", pages=sorted(rows["pages"], key=lambda p: p["page"]),
                           doc_structure=rows["doc_structure"], transcripts=rows["transcript"],
                           order_agreement={p: order_agreement(order, page=p) for p in {r["page"] for r in order}},
                           **{name: rows[name] for name in tables})
    withhold = item["label"] == Label.CANNOT_TELL
    out = []
    for bundle, withheld in build_bundles(item["criterion"], evidence, withhold=withhold):
        stored = json.loads(json.dumps(bundle.evidence, sort_keys=True, default=str))  # as the inputs table holds it
        bundle.evidence = stored
        judgment = RulesJudge().judge_page(bundle, 0)
        out.append({"item": item["path"], "criterion": item["criterion"], "expected": item["label"],
                    "page": bundle.page, "withheld": withheld, "label": judgment.label.value,
                    "sub_criteria": judgment.sub_criteria, "summary": judgment.summary,
                    "issues": json.loads(judgment.issues_json())})
    return out


def _csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    if not rows:
        return ""
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(_rounded(value), ensure_ascii=False, sort_keys=True)
    return str(value)


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 2)
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------- manifest


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_manifest() -> None:
    files = {name: _digest(GOLDEN / name) for name in GOLDEN_FILES}
    MANIFEST.write_text(json.dumps({"fixture": FIXTURE, "files": files}, indent=1, sort_keys=True) + "\n",
                        encoding="utf-8", newline="\n")


def _diff(golden: str, fresh: str, name: str) -> str:
    lines = list(difflib.unified_diff(golden.splitlines(), fresh.splitlines(), f"tests/golden/{name}", "fresh output",
                                      lineterm="", n=1))
    shown = "\n".join(lines[:DIFF_LINES])
    more = f"\n... {len(lines) - DIFF_LINES} more diff lines" if len(lines) > DIFF_LINES else ""
    return f"{shown}{more}"


# --------------------------------------------------------------------------- tests


def test_output_matches_golden(golden_file: str, fresh: dict[str, str]) -> None:
    path = GOLDEN / golden_file
    assert path.exists(), f"no golden file {path.name}: {UPDATE_HINT}"
    golden = path.read_text(encoding="utf-8")
    if golden != fresh[golden_file]:
        pytest.fail(f"{golden_file} differs from the fresh output of the fixture papers ({UPDATE_HINT}):\n"
                    f"{_diff(golden, fresh[golden_file], golden_file)}", pytrace=False)


def test_golden_files_are_the_ones_last_generated(request: pytest.FixtureRequest) -> None:
    """A golden file edited by hand, regenerated alone, or from another fixture is caught here."""
    if request.config.getoption("--update-golden"):
        request.getfixturevalue("fresh")  # regenerate first, then check what was written
    assert MANIFEST.exists(), f"tests/golden/MANIFEST.json is missing: {UPDATE_HINT}"
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    assert manifest["fixture"] == FIXTURE, (
        f"the golden files come from fixture {manifest['fixture']}, the test builds {FIXTURE}: {UPDATE_HINT}")
    assert sorted(manifest["files"]) == sorted(GOLDEN_FILES), f"the manifest lists other files: {UPDATE_HINT}"
    changed = [name for name in GOLDEN_FILES
               if not (GOLDEN / name).exists() or _digest(GOLDEN / name) != manifest["files"][name]]
    assert not changed, (f"{', '.join(changed)} changed since --update-golden last wrote them (edited by hand?): "
                         f"{UPDATE_HINT}")
    stray = sorted(p.name for p in GOLDEN.iterdir()
                   if p.is_file() and p.suffix in (".csv", ".json") and p.name not in {*GOLDEN_FILES, MANIFEST.name})
    assert not stray, f"files in tests/golden/ that no test checks: {stray}; delete them or add them to GOLDEN_FILES"
