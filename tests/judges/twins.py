"""Pass/fail twins of one defect class: a conforming file typst writes, and that file with the one defect
put in by pikepdf. `judge_twins` writes both for every case, runs them through the whole pipeline with
the rules judge, and returns each file's document label and issue rows per criterion.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pikepdf

from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import execute
from tests.extractors.conftest import compile_typst
from warehouse import catalog
from warehouse.tables import ALL_TABLES

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


def judge_pdfs(folder: Path, home: Path, criteria: Sequence[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """(file name, criterion) → {"label", "issues"} for every PDF in `folder`, judged by the rules judge
    through the whole pipeline (one run in `home`)."""
    cfg = RunConfig(home=home, run_id="twins", source="pdfs", source_path=str(folder), progress=False,
                    workers=1, crop_dpi=36, criteria=sorted(set(criteria)))
    for stage in STAGE_LIST:
        execute(cfg, stage)
    _, rows = catalog.query(home, ALL_TABLES, """
        select json_extract_string(d.metadata, '$.path') as file, l.criterion, l.label,
               (select list(j.issues) from judgments j where j.run_id = l.run_id
                and j.doc_id = l.doc_id and j.criterion = l.criterion) as issues
        from doc_labels l join documents d using (run_id, doc_id) where l.run_id = 'twins'""")
    out = {}
    for file, criterion, label, issues in rows:
        found = [i for page in issues or [] for i in (json.loads(page) if isinstance(page, str) else page or [])]
        out[(Path(file).name, criterion)] = {"label": label, "issues": found}
    return out


def judge_twins(root: Path, cases: Sequence[Case]) -> dict[tuple[str, str], dict[str, Any]]:
    """(file name, criterion) → {"label", "issues"} for the twins of `cases`, judged by the rules judge."""
    write_twins(root / "pdfs", cases)
    return judge_pdfs(root / "pdfs", root / "home", [c.criterion for c in cases])
