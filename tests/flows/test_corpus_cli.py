"""`accessbench corpus synth|sample` from the command line (no Prefect involved)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from flows.cli.app import main
from warehouse import catalog
from warehouse.tables import ALL_TABLES


def test_synth_then_sample_writes_manifests_and_tables(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "syn"
    assert main(["--home", str(tmp_path / "home"), "corpus", "synth", "--out", str(out), "--base-docs", "2"]) == 0
    data = json.loads((out / "data/dataset.json").read_text())
    assert len(data["tasks"]) == 7 and "not_present" not in data["tasks"]["color_contrast"]
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    for i, path in enumerate(sorted(out.glob("data/processed/*/passed/*.pdf"))[:6]):
        shutil.copy(path, pdfs / f"paper{i}.pdf")
    (pdfs / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    meta = tmp_path / "meta.csv"
    meta.write_text("id,title,field,year,citations\n" + "".join(
        f"paper{i},T{i},{'biology' if i % 2 else 'physics'},2020,{i * 10}\n" for i in range(6)))
    home = tmp_path / "home"
    assert main(["--home", str(home), "corpus", "sample", "--pdfs", str(pdfs), "--metadata", str(meta),
                 "--per-criterion", "2", "--seed", "3", "--out", str(tmp_path / "sample")]) == 0
    assert "1 unreadable" in capsys.readouterr().out
    manifest = json.loads((tmp_path / "sample/data/dataset.json").read_text())
    items = manifest["tasks"]["semantic_tagging"]["to_label"]
    assert len(items) == 2 and {i["field"] for i in items} == {"biology", "physics"}  # stratified
    _, rows = catalog.query(home, ALL_TABLES, "select count(*) from sample_screening where error is not null")
    assert rows == [(1,)]


def test_sample_takes_a_folder_relative_to_where_the_user_stands(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "syn"
    assert main(["--home", str(tmp_path / "home"), "corpus", "synth", "--out", str(out), "--base-docs", "1"]) == 0
    (tmp_path / "pdfs").mkdir()
    shutil.copy(next(out.glob("data/processed/*/passed/*.pdf")), tmp_path / "pdfs" / "a.pdf")
    monkeypatch.chdir(tmp_path)
    assert main(["--home", "home", "corpus", "sample", "--pdfs", "pdfs", "--per-criterion", "1",
                 "--out", "sample"]) == 0
    manifest = json.loads((tmp_path / "sample/data/dataset.json").read_text())
    assert manifest["tasks"]
