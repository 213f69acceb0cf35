"""Screening and sampling: features read from real generated PDFs, bad files as error rows, and a
sampler that is stratified by field, seeded, feature-filtered and prefers cited papers."""

from __future__ import annotations

import io
import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from corpus.mutations import CRITERION_MUTATIONS
from corpus.sampling import (
    UNLABELLED,
    load_metadata,
    sample,
    samples_table,
    screen_folder,
    screen_pdf,
    screening_table,
    write_sample_manifest,
)
from corpus.typst_docs import BaseDoc, RenderOptions, compile_base_doc, make_base_doc

CORRUPT = {"garbage.pdf": b"this is not a PDF at all", "empty.pdf": b"", "html.pdf": b"<html><body>hi</body></html>"}


def _mutated(data: bytes, name: str) -> bytes:
    failed = {**CRITERION_MUTATIONS["fonts_readability"].failed, "untagged": CRITERION_MUTATIONS[
        "semantic_tagging"].not_present[1]}  # type: ignore[index]
    with pikepdf.open(io.BytesIO(data)) as pdf:
        failed[name](pdf, random.Random(0))  # type: ignore[operator]
        buf = io.BytesIO()
        pdf.save(buf)
        return buf.getvalue()


@pytest.fixture(scope="module")
def docs() -> list[tuple[BaseDoc, bytes]]:
    chosen = [make_base_doc(i, seed=0) for i in range(4)]
    return [(doc, compile_base_doc(doc)) for doc in chosen]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, docs: list[tuple[BaseDoc, bytes]]) -> Path:
    root = tmp_path_factory.mktemp("pdfs")
    for doc, data in docs:
        (root / f"{doc.doc_id}.pdf").write_bytes(data)
    (root / "sub").mkdir()
    for name, data in CORRUPT.items():
        (root / "sub" / name).write_bytes(data)
    (root / "sub" / "truncated.pdf").write_bytes(docs[0][1][: len(docs[0][1]) // 3])
    return root


# --------------------------------------------------------------------------- screening


def test_screening_reads_the_features_of_a_tagged_paper(tmp_path: Path, docs: list[tuple[BaseDoc, bytes]]) -> None:
    for doc, data in docs:
        path = tmp_path / f"{doc.doc_id}.pdf"
        path.write_bytes(data)
        row = screen_pdf(path)
        assert row["error"] is None and row["doc_id"] == doc.doc_id
        assert row["tagged"] and row["struct_elements"] > 20
        assert row["figures"] == row["figure_tags"] == len(doc.figures)
        assert row["tables"] == len(doc.table_kinds)
        assert row["headings"] >= 4 and row["lists"] >= 2
        assert row["external_links"] == len(doc.external_urls) and row["links"] > row["external_links"]
        assert row["two_column"] == (doc.style.columns == 2), doc.doc_id
        assert row["fonts"] >= 2 and row["unembedded_fonts"] == 0 and row["text_chars"] > 1000
    screening_table([row])  # fits the schema


def test_screening_falls_back_to_heuristics_when_untagged(tmp_path: Path,
                                                          docs: list[tuple[BaseDoc, bytes]]) -> None:
    doc, data = docs[0]
    path = tmp_path / "untagged.pdf"
    path.write_bytes(_mutated(data, "untagged"))
    row = screen_pdf(path)
    assert row["tagged"] is False and row["struct_elements"] == 0
    assert row["tables"] == len(doc.table_kinds)  # from the "Table N:" captions
    assert row["headings"] > 0  # from the outline typst writes
    assert row["lists"] > 0  # from bullet-led blocks


def test_screening_sees_missing_figures_and_unembedded_fonts(tmp_path: Path,
                                                              docs: list[tuple[BaseDoc, bytes]]) -> None:
    doc, data = docs[1]
    (tmp_path / "nofig.pdf").write_bytes(compile_base_doc(doc, RenderOptions(figures=False)))
    (tmp_path / "unembedded.pdf").write_bytes(_mutated(data, "font_unembedded"))
    assert screen_pdf(tmp_path / "nofig.pdf")["figures"] == 0
    assert screen_pdf(tmp_path / "unembedded.pdf")["unembedded_fonts"] == 1


def test_screen_folder_records_bad_files_and_goes_on(folder: Path) -> None:
    rows = screen_folder(folder, workers=2)
    assert [r["path"] for r in rows] == sorted(r["path"] for r in rows)
    bad = {r["doc_id"] for r in rows if r["error"]}
    # MuPDF rebuilds a truncated file's cross-reference table; what it can read stays usable.
    truncated = next(r for r in rows if r["doc_id"] == "truncated")
    assert bad - {"truncated"} == {"garbage", "empty", "html"}
    assert truncated["error"] or truncated["repaired"]
    assert all(r["pages"] is None for r in rows if r["error"])
    assert sum(1 for r in rows if not r["error"] and not r["repaired"]) == 4
    assert screen_folder(folder, workers=1) == rows
    screening_table(rows)


def test_duplicate_stems_are_flagged(tmp_path: Path, docs: list[tuple[BaseDoc, bytes]]) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "X.pdf").write_bytes(docs[0][1])
    (tmp_path / "b" / "X.pdf").write_bytes(docs[1][1])
    rows = screen_folder(tmp_path, workers=1)
    assert rows[0]["error"] is None and "duplicate" in rows[1]["error"]


# --------------------------------------------------------------------------- sampling


def _screened(doc_id: str, **features: Any) -> dict[str, Any]:
    row = {"doc_id": doc_id, "path": f"{doc_id}.pdf", "error": None, "tagged": True, "figures": 1, "tables": 1,
           "links": 1, "text_chars": 500, "two_column": False}
    return {**row, **features}


def _meta(doc_id: str, field: str, citations: int | None = None, prior: float | None = None) -> dict[str, Any]:
    return {"id": doc_id, "title": f"Paper {doc_id}", "field": field, "year": 2020, "citations": citations,
            "prior_score": prior}


def _population(sizes: dict[str, int]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    screened, meta = [], []
    for field, count in sizes.items():
        for n in range(count):
            doc_id = f"{field[:3]}{n:03d}"
            screened.append(_screened(doc_id))
            meta.append(_meta(doc_id, field))
    return screened, meta


def test_fields_are_balanced_round_robin() -> None:
    screened, meta = _population({"biology": 20, "physics": 3, "history": 3, "law": 9})
    rows = sample(screened, meta, per_criterion=12, seed=0, criteria=["color_contrast"])
    assert Counter(r["field"] for r in rows) == {"biology": 3, "physics": 3, "history": 3, "law": 3}
    rows = sample(screened, meta, per_criterion=20, seed=0, criteria=["color_contrast"])
    counts = Counter(r["field"] for r in rows)
    assert counts["physics"] == counts["history"] == 3 and counts["biology"] == counts["law"] == 7
    assert [r["rank"] for r in rows] == list(range(1, 21))
    samples_table(rows)


def test_same_seed_same_sample_and_other_seed_differs() -> None:
    screened, meta = _population({"biology": 15, "physics": 15})
    first = sample(screened, meta, per_criterion=6, seed=7)
    assert sample(list(reversed(screened)), meta, per_criterion=6, seed=7) == first  # input order is irrelevant
    other = sample(screened, meta, per_criterion=6, seed=8)
    assert [r["doc_id"] for r in other] != [r["doc_id"] for r in first]


def test_only_documents_with_the_criterion_features_are_eligible() -> None:
    screened = [
        _screened("plain", figures=0, tables=0, links=0, tagged=False),
        _screened("figs", figures=2, tables=0, links=0, tagged=False),
        _screened("tabs", figures=0, tables=1, links=0, tagged=False),
        _screened("links", figures=0, tables=0, links=4, tagged=False),
        _screened("tagged", figures=0, tables=0, links=0, tagged=True),
        _screened("scan", figures=1, tables=0, links=0, tagged=False, text_chars=0),
        {**_screened("broken"), "error": "unreadable PDF"},
    ]
    rows = sample(screened, [], per_criterion=10, seed=0)
    chosen = {c: {r["doc_id"] for r in rows if r["criterion"] == c} for c in {r["criterion"] for r in rows}}
    assert chosen["alt_text_quality"] == {"figs", "scan"}
    assert chosen["table_structure"] == {"tabs"}
    assert chosen["functional_hyperlinks"] == {"links"}
    assert chosen["semantic_tagging"] == {"tagged"}
    assert chosen["fonts_readability"] == chosen["color_contrast"] == {"plain", "figs", "tabs", "links", "tagged"}
    assert all(r["field"] == "unknown" for r in rows)  # no metadata: one stratum


def test_reading_order_prefers_two_column_layouts() -> None:
    screened = [_screened(f"one{n}") for n in range(6)] + [_screened(f"two{n}", two_column=True) for n in range(3)]
    rows = sample(screened, [], per_criterion=4, seed=1, criteria=["logical_reading_order"])
    assert {r["doc_id"] for r in rows[:3]} == {"two0", "two1", "two2"} and rows[3]["doc_id"].startswith("one")


def test_highly_cited_papers_are_preferred() -> None:
    screened = [_screened(f"d{n}") for n in range(10)]
    meta = [_meta(f"d{n}", "biology", citations=2000 if n % 2 else 0) for n in range(10)]
    cited = [sum(1 for r in sample(screened, meta, per_criterion=5, seed=s, criteria=["fonts_readability"])
                 if r["citations"]) for s in range(40)]
    assert sum(cited) / (40 * 5) > 0.75  # uniform drawing would give about 0.5


def test_prior_score_filter() -> None:
    screened = [_screened(f"d{n}") for n in range(6)]
    meta = [_meta(f"d{n}", "law", prior=n / 10) for n in range(5)]  # d5 has no metadata at all
    rows = sample(screened, meta, per_criterion=10, seed=0, min_prior_score=0.25, criteria=["color_contrast"])
    assert {r["doc_id"] for r in rows} == {"d3", "d4"}


# --------------------------------------------------------------------------- metadata and manifest


def test_metadata_loaders_read_csv_and_jsonl(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("id,title,field,year,citations,prior_score,extra\n"
                                    "W1,A paper,biology,2019,12,0.5,x\nW2,Other,,2020,,,y\n")
    (tmp_path / "m.jsonl").write_text('{"id": "W1", "title": "A paper", "field": "biology", "year": 2019, '
                                      '"citations": 12, "prior_score": 0.5}\n\n{"id": "W2", "title": "Other", '
                                      '"year": "2020"}\n')
    expected = [{"id": "W1", "title": "A paper", "field": "biology", "year": 2019, "citations": 12,
                 "prior_score": 0.5},
                {"id": "W2", "title": "Other", "field": None, "year": 2020, "citations": None, "prior_score": None}]
    assert load_metadata(tmp_path / "m.csv") == expected
    assert load_metadata(tmp_path / "m.jsonl") == expected
    (tmp_path / "bad.csv").write_text("id,citations\nW1,many\n")
    with pytest.raises(ValueError, match=r"bad.csv:2: citations='many'"):
        load_metadata(tmp_path / "bad.csv")


def test_sample_manifest_uses_the_upstream_layout_with_unknown_labels(folder: Path, tmp_path: Path) -> None:
    rows = [r for r in screen_folder(folder, workers=1) if not r["error"]]
    meta = [_meta(r["doc_id"], "ecology", citations=3) for r in rows]
    samples = sample(rows, meta, per_criterion=2, seed=0)
    path = write_sample_manifest(samples, folder, tmp_path / "out")
    manifest = json.loads(path.read_text())
    assert path == tmp_path / "out" / "data" / "dataset.json"
    assert set(manifest["tasks"]) == {r["criterion"] for r in samples}
    for labels in manifest["tasks"].values():
        assert list(labels) == [UNLABELLED] and len(labels[UNLABELLED]) == 2
        for item in labels[UNLABELLED]:
            target = tmp_path / "out" / item["pdf_path"]
            assert target.is_file() and target.resolve().is_relative_to((tmp_path / "out").resolve())
            assert target.read_bytes() == (folder / f"{item['openalex_id']}.pdf").read_bytes()


def test_screening_skips_fifos_devices_and_symlinks_out_of_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    os.mkfifo(folder / "x.pdf")
    (folder / "zero.pdf").symlink_to("/dev/zero")
    (folder / "passwd.pdf").symlink_to("/etc/passwd")
    rows = {Path(r["path"]).name: r for r in screen_folder(folder, workers=1)}  # returns: nothing blocks
    assert "not a regular file" in rows["x.pdf"]["error"]
    assert "--follow-symlinks" in rows["zero.pdf"]["error"] and "--follow-symlinks" in rows["passwd.pdf"]["error"]
    followed = {Path(r["path"]).name: r for r in screen_folder(folder, workers=1, follow_symlinks=True)}
    assert "not a regular file" in followed["zero.pdf"]["error"]
    assert "unreadable PDF" in followed["passwd.pdf"]["error"]
