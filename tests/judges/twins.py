"""Pass/fail twins of one defect class: a conforming file typst writes, and that file with the one defect
put in by pikepdf. `judge_twins` writes both for every case, extracts and judges them in memory with the
rules judge (`judge_pdfs`), and returns each file's document label and issues per criterion; one test per
criterion runs the whole pipeline on such twins instead (`judge_pdfs_pipeline`, test_twins_end_to_end.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pikepdf

from extractors.layout import layout_file
from extractors.pages import render_pages
from extractors.reading_order import order_agreement
from extractors.source import PdfSource
from extractors.structure.summary import struct_summary
from extractors.transcript import get_transcriber
from judges.criteria import SPEC
from judges.evidence import DocEvidence, PageBundle, build_bundles
from judges.labels import aggregate_labels
from judges.rules import RulesJudge
from tasks.benchmark.inputs import EVIDENCE_TABLES
from tasks.benchmark.registry import STAGE_LIST
from tasks.benchmark.work.extract import extract_file, file_conformance
from tasks.benchmark.work.layout import LAYOUT_CRITERIA
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from tests.extractors.conftest import compile_typst
from warehouse import catalog
from warehouse.schema import conform
from warehouse.tables import ALL_TABLES

SPECS = {spec.name: spec for spec in ALL_TABLES}

PREAMBLE = ('#set document(title: "Case")\n#set text(lang: "en", size: 10pt)\n'
            "#set page(width: 420pt, height: 595pt)\n")
SENTENCES = (
    "Accessible documents let every reader reach the same content in the same order. ",
    "A screen reader follows the structure tree, so the tree has to follow the page. ",
    "Each paragraph here is ordinary body text, long enough to wrap over several lines. ",
    "Nothing in this text is a heading, a caption or a label; it is running prose. ",
)


def prose(n: int, start: int = 0) -> str:
    return "".join(SENTENCES[(start + i) % len(SENTENCES)] for i in range(n))


Edit = Callable[[pikepdf.Pdf], None]


@dataclass(frozen=True)
class Case:
    """One defect class: the typst source of the conforming twin, the edit that makes the defective twin
    (None: a conforming case that must pass and has no twin), the criterion and the rule the defect raises."""

    name: str
    source: str
    edit: Edit | None
    criterion: str
    rule_id: str | None
    files: dict[str, bytes] | None = None  # images and the like beside the typst source
    fails_as_written: bool = False  # the source itself has the defect: only a fail twin is written

    def file(self, defective: bool) -> str:
        return f"{self.name}-{'fail' if defective else 'pass'}.pdf"


def remove_sources(folder: Path) -> None:
    """Drop the typst sources `compile_typst` leaves beside the PDFs (the pipeline reads the folder)."""
    for leftover in folder.glob("*-src"):
        for child in leftover.iterdir():
            child.unlink()
        leftover.rmdir()


def write_twins(folder: Path, cases: Sequence[Case]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for case in cases:
        passed = compile_typst(case.source, folder / case.file(case.fails_as_written), case.files)
        if case.edit is not None and not case.fails_as_written:
            with pikepdf.open(passed) as pdf:
                case.edit(pdf)
                pdf.save(folder / case.file(True))
    remove_sources(folder)


def judge_pdfs(folder: Path, work: Path, criteria: Sequence[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """(file name, criterion) → {"label", "issues"} for every PDF in `folder`, each file extracted, its evidence
    built and judged by the rules judge in memory, as the stages do for a screened file (`run --pdfs`), with
    no Prefect and no warehouse; page images and crops go under `work`. `judge_pdfs_pipeline` runs the stages."""
    cfg = RunConfig(home=work, run_id="twins", crop_dpi=36)
    out = {}
    for path in sorted(folder.glob("*.pdf")):
        for criterion, result in judge_file(path, sorted(set(criteria)), cfg, work / path.stem).items():
            out[(path.name, criterion)] = result
    return out


def judge_file(path: Path, criteria: Sequence[str], cfg: RunConfig, work: Path) -> dict[str, dict[str, Any]]:
    """criterion → {"label", "issues"} of one PDF: the render, layout, extract, transcript, inputs, judge and
    aggregate stages' work on one screened file, in this process (rows conformed to the stages' schemas, as
    the inputs stage reads them back)."""
    doc_id = "twin"
    max_pixels = int(cfg.max_page_megapixels * 1e6)
    rows: dict[str, list[dict[str, Any]]] = {}
    rows["pages"] = render_pages(path, doc_id=doc_id, out_dir=work / "pages", dpi=cfg.dpi, max_pixels=max_pixels)
    rows["layout_regions"] = layout_file(path, doc_id=doc_id, backend=cfg.layout_backend,
                                         weights=cfg.layout_weights,
                                         drawn_tables_only=cfg.layout_scope == "drawn_tables")[0] \
        if LAYOUT_CRITERIA.intersection(criteria) else []
    with PdfSource(path, max_pixels=max_pixels) as source:
        rows["doc_structure"] = [{**struct_summary(source), "doc_id": doc_id, "file_index": 0}]
        rows |= extract_file(source, doc_id, 0, 0, work / "crops" if cfg.model_evidence else None, cfg.crop_dpi,
                             rows["layout_regions"],
                             cfg.tag_tree_backend)
        rows["conformance"] = file_conformance(source, doc_id, 0, 0, rows, (cfg.max_file_mb, cfg.max_stream_mb))
    rows["transcripts"] = get_transcriber(cfg.transcript_backend)(path, doc_id=doc_id,
                                                                  elements=rows["struct_elements"] or None,
                                                                  links=rows["links"])
    stored = {name: [{k: v for k, v in r.items() if k not in ("run_id", "doc_id")}
                     for r in conform([{**r, "run_id": "twins", "doc_id": doc_id} for r in rows[name]],
                                      SPECS[name].schema, name).to_pylist()]
              for name in ("pages", "layout_regions", "transcripts", *EVIDENCE_TABLES)}
    stored["pages"].sort(key=lambda p: p["page"])
    order = stored["reading_order"]
    evidence = DocEvidence(doc_id, extract_failed=False, transcript_failed=False,
                           order_agreement={p: order_agreement(order, page=p) for p in {r["page"] for r in order}},
                           **stored)
    tagged = any(s.get("tagged") for s in stored["doc_structure"])
    judge = RulesJudge()
    out = {}
    for criterion in criteria:
        labels, issues, untagged = [], [], False
        for bundle, _ in build_bundles(criterion, evidence, withhold=False, screening=True):
            sent = json.loads(json.dumps(bundle.evidence, sort_keys=True, default=str))  # as judge_inputs holds it
            judgment = judge.judge_page(PageBundle(criterion, bundle.page, sent, bundle.image_path, doc_ref=doc_id), 0)
            labels.append(judgment.label)
            issues += json.loads(judgment.issues_json())
            untagged = untagged or (SPEC[criterion].tree_evidence in sent and not tagged)
        out[criterion] = {"label": aggregate_labels(labels, untagged=untagged).value, "issues": issues}
    return out


def judge_pdfs_pipeline(folder: Path, home: Path, criteria: Sequence[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """(file name, criterion) → {"label", "issues"} for every PDF in `folder`, judged by the rules judge
    through the whole pipeline (one run in `home`); the issues are the run's `findings` rows."""
    cfg = RunConfig(home=home, run_id="twins", source="pdfs", source_path=str(folder), progress=False,
                    workers=1, crop_dpi=36, criteria=sorted(set(criteria)))
    for stage in STAGE_LIST:
        execute(cfg, stage)
    _, rows = catalog.query(home, ALL_TABLES, """
        select json_extract_string(d.metadata, '$.path') as file, l.criterion, l.label,
               (select list({'rule_id': f.rule_id, 'sub_criterion': f.sub_criterion, 'location': f.location,
                             'bbox': f.bbox, 'problem': f.problem} order by f.page, f.seq)
                from findings f where f.run_id = l.run_id and f.doc_id = l.doc_id
                and f.criterion = l.criterion) as issues
        from doc_labels l join documents d using (run_id, doc_id) where l.run_id = 'twins'""")
    return {(Path(file).name, criterion): {"label": label, "issues": list(issues or [])}
            for file, criterion, label, issues in rows}


def judge_twins(root: Path, cases: Sequence[Case]) -> dict[tuple[str, str], dict[str, Any]]:
    """(file name, criterion) → {"label", "issues"} for the twins of `cases`, judged by the rules judge."""
    write_twins(root / "pdfs", cases)
    return judge_pdfs(root / "pdfs", root / "home", [c.criterion for c in cases])
