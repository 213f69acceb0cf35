"""The semantic defect classes through the hybrid judge: the rules judge raises a candidate, a real model
settles it with one focused question.

For each semantic candidate rule, the benchmark writes small typst + pikepdf files where the candidate is
raised and the defect is real (a short sentence of the method tagged H2, a body paragraph tagged Caption,
a sidebar read in the middle of the article) and look-alikes where it is raised and the content is fine
(a question used as a section title), plus the conforming twins, which raise nothing. It runs them
through the whole pipeline with `--judge rules` and with `--judge hybrid:<model>` (default the local
model of the data home, started here) and prints, per file, the rules label, the hybrid label and the
model's answer to each question, then: defects caught, look-alikes dismissed, conforming files passed.

    python -m benchmarks.candidates [--judge hybrid:local] [--keep DIR]

Needs `make install-local` for the default judge (or an API key / --api-base for another model). Prints
numbers; asserts nothing: a 135M-parameter model is not expected to read meaning well.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pikepdf

from corpus.mutations.structure import stype
from tests.extractors.conftest import compile_typst, struct_elements_of
from tests.judges.twins import PREAMBLE, prose, remove_sources

STEP = "We asked each reader to finish the form twice."
QUESTION = "Why do some readers never reach the second form?"
ARTICLE = (PREAMBLE + "= Method\n" + prose(3) + "\n\n" + STEP + "\n\n" + prose(2, 1) + "\n\n"
           "== " + QUESTION + "\n" + prose(3, 2) + "\n")
SIDEBAR = (PREAMBLE + "= Article\n#grid(columns: (1fr, 120pt), gutter: 16pt, [" + prose(4) + "\n\n" + prose(4, 1)
           + "\n\n" + prose(4, 2) + "], block(fill: luma(235), inset: 8pt)[#set text(size: 9pt)\n"
           + "Box 1. A sidebar printed beside the article, in a box of its own, with a few words about colour "
           "and contrast: readers meet it after the article, not in the middle of it.])\n")


def _step(pdf: pikepdf.Pdf) -> pikepdf.Dictionary:
    """The short step of the method: ARTICLE's second paragraph (typst writes paragraphs in source order)."""
    paragraphs = [e for e in struct_elements_of(pdf) if stype(e) == "/P"]
    assert len(paragraphs) == 4, len(paragraphs)
    return paragraphs[1]


def _step_as(kind: str) -> Any:
    def edit(pdf: pikepdf.Pdf) -> None:
        _step(pdf).S = pikepdf.Name(kind)
    return edit


def _sidebar_in_text(pdf: pikepdf.Pdf) -> None:
    from corpus.mutations.structure import kids, set_kids

    grid = next(e for e in struct_elements_of(pdf) if e.get("/S") == "/Div"
                and sum(isinstance(k, pikepdf.Dictionary) and k.get("/S") == "/Div" for k in kids(e)) == 2)
    article, box = [k for k in kids(grid) if isinstance(k, pikepdf.Dictionary)]
    set_kids(grid, [k for k in kids(grid) if not (isinstance(k, pikepdf.Dictionary) and k.objgen == box.objgen)])
    blocks = kids(article)
    blocks.insert(1, box)
    set_kids(article, blocks)
    box.P = article


@dataclass(frozen=True)
class Probe:
    """One file: its source, the edit that makes it (None: as typst writes it), the criterion, the rule
    that should raise a candidate on it (None: nothing should be raised) and whether the defect is real."""

    name: str
    source: str
    edit: Any
    criterion: str
    rule_id: str | None
    defect: bool


PROBES = [
    Probe("step_as_h2", ARTICLE, _step_as("/H2"), "semantic_tagging",
          "semantic_tagging.proper_tag_usage.heading_text_candidate", True),
    Probe("question_heading", ARTICLE, None, "semantic_tagging",
          "semantic_tagging.proper_tag_usage.heading_text_candidate", False),
    Probe("step_as_caption", ARTICLE, _step_as("/Caption"), "semantic_tagging",
          "semantic_tagging.proper_tag_usage.caption_misplaced_candidate", True),
    Probe("sidebar_in_text", SIDEBAR, _sidebar_in_text, "logical_reading_order",
          "logical_reading_order.no_disruptions.text_interrupted_candidate", True),
    Probe("sidebar_after_text", SIDEBAR, None, "logical_reading_order", None, False),
]


def write(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for probe in PROBES:
        written = compile_typst(probe.source, folder / f"{probe.name}.pdf")
        if probe.edit is not None:
            with pikepdf.open(written, allow_overwriting_input=True) as pdf:
                probe.edit(pdf)
                pdf.save(written)
    remove_sources(folder)


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "flows.cli.app", "--home", str(home), *args]
    return subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603


def _rows(home: Path, run_id: str) -> dict[tuple[str, str], dict[str, Any]]:
    from warehouse import catalog
    from warehouse.tables import ALL_TABLES

    _, rows = catalog.query(home, ALL_TABLES, f"""
        select json_extract_string(d.metadata, '$.path'), l.criterion, l.label,
               (select list(f.rule_id order by f.repeat, f.page, f.seq) from findings f
                where f.run_id = l.run_id and f.doc_id = l.doc_id and f.criterion = l.criterion
                and f.judge = l.judge and f.rule_id is not null)
        from doc_labels l join documents d using (run_id, doc_id) where l.run_id = '{run_id}'""")
    out = {}
    for file, criterion, label, rule_ids in rows:
        out[(Path(file).stem, criterion)] = {"label": label, "issues": [{"rule_id": r} for r in rule_ids or []]}
    return out


def _answers(home: Path, run_id: str) -> dict[str, list[str]]:
    """file stem → the model's parsed answers to its focused questions in this run."""
    from warehouse import catalog
    from warehouse.tables import ALL_TABLES

    try:
        _, rows = catalog.query(home, ALL_TABLES, f"""
            select json_extract_string(d.metadata, '$.path'), c.parsed from llm_calls c join documents d
            using (run_id, doc_id) where c.run_id = '{run_id}' and c.purpose = 'confirm_candidate'""")
    except Exception as exc:  # noqa: BLE001 - a run without calls has no rows to show
        print(f"(no call log: {exc})")
        return {}
    out: dict[str, list[str]] = {}
    for file, parsed in rows:
        data = json.loads(parsed) if isinstance(parsed, str) else parsed or {}
        rule_id = str(data.get("rule_id")).rsplit(".", 1)[-1]
        out.setdefault(Path(file).stem, []).append(f"{rule_id} → {data.get('defect')}: {data.get('reason', '')}"[:110])
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", default="hybrid:local", help="the hybrid judge to measure (default hybrid:local)")
    parser.add_argument("--api-base", help="OpenAI-compatible endpoint for a model other than the local one")
    parser.add_argument("--keep", type=Path, help="keep the files and the data home in this folder")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="candidates-"))
    home, pdfs = root / "home", root / "pdfs"
    write(pdfs)
    local = args.judge.endswith(":local") or ":local/" in args.judge
    criteria = sorted({p.criterion for p in PROBES})
    try:
        if local:
            started = _cli(home, "model", "start")
            if started.returncode != 0:
                raise SystemExit(f"accessbench model start failed:\n{started.stdout}{started.stderr}")
        extra = ["--api-base", args.api_base] if args.api_base else []
        for run_id, judge in (("rules", "rules"), ("hybrid", args.judge)):
            done = _cli(home, "run", "--pdfs", str(pdfs), "--judge", judge, "--criteria", *criteria,
                        "--run-id", run_id, "--repeats", "1", *extra)
            if done.returncode not in (0, 1):
                tail = f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
                raise SystemExit(f"run {run_id} failed ({done.returncode}):\n{tail}")
        rules, hybrid, answers = _rows(home, "rules"), _rows(home, "hybrid"), _answers(home, "hybrid")
    finally:
        if local:
            _cli(home, "model", "stop")
    print(f"judge {args.judge}; files in {pdfs}")
    print(f"{'file':<20} {'criterion':<22} {'candidate raised':<17} {'defect':<7} {'rules':<8} {'hybrid':<8}")
    caught = dismissed = clean = 0
    for probe in PROBES:
        r, h = rules.get((probe.name, probe.criterion), {}), hybrid.get((probe.name, probe.criterion), {})
        raised = bool(probe.rule_id and any(i.get("rule_id") == probe.rule_id for i in r.get("issues", [])))
        print(f"{probe.name:<20} {probe.criterion:<22} {str(raised):<17} {str(probe.defect):<7} "
              f"{str(r.get('label')):<8} {str(h.get('label')):<8}")
        for answer in answers.get(probe.name, []):
            print(f"{'':<20} model: {answer}")
        caught += probe.defect and h.get("label") == "failed"
        dismissed += bool(probe.rule_id) and not probe.defect and h.get("label") == "passed"
        clean += probe.rule_id is None and h.get("label") == "passed"
    defects = sum(p.defect for p in PROBES)
    lookalikes = sum(bool(p.rule_id) and not p.defect for p in PROBES)
    print(f"defects failed by the hybrid judge: {caught}/{defects}; look-alikes passed: {dismissed}/{lookalikes}; "
          f"conforming files passed: {clean}/{sum(p.rule_id is None for p in PROBES)}")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
