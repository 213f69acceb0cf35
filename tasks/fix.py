"""`accessbench fix`: repair what the rules judge's findings say can be repaired mechanically, re-judge the
repaired copies through the same pipeline as a new run linked to the original, and list what remains for
a person (with the reason).

The original files are only ever read: each repaired copy is written to a new path (the caller's --out),
and refused when that path is the original. The re-judge run reads copies staged in the data home
(`<home>/fix/<run>/`), so the folder the user named holds nothing but the repaired files.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pikepdf

from judges.criteria import CRITERIA
from tasks.context import RunConfig, new_run_id
from tasks.fix_schema import FIX_STAGE, FIXES_SCHEMA
from tasks.registry import ALL_TABLES, BENCHMARK
from tasks.remedies import (
    ORDER,
    REMEDIES,
    UNPROMPTED_REMEDIES,
    Context,
    DraftModel,
    Outcome,
    reason_for,
    remedy_for,
)
from warehouse import catalog as warehouse


class FixError(ValueError):
    """A fix that cannot start: unsafe output, no such run or document."""


@dataclass
class Finding:
    criterion: str
    rule_id: str
    location: str
    problem: str


@dataclass
class FileFix:
    """One document: its findings before, what each remedy did, and the repaired copy."""

    original: Path
    fixed: Path
    findings: list[Finding]
    labels: dict[str, str]  # criterion → label before
    outcomes: dict[str, tuple[list[str], Outcome]] = field(default_factory=dict)  # remedy → (rule ids, outcome)
    after: list[Finding] = field(default_factory=list)
    labels_after: dict[str, str] = field(default_factory=dict)


def judge_folder(home: Path, run_id: str, folder: Path, criteria: list[str] | None = None) -> RunConfig:
    """Every PDF of `folder` through the whole pipeline with the rules judge, as `run --pdfs` does; the
    run is recorded in the data home (`accessbench runs` lists it)."""
    cfg = RunConfig(home=home, run_id=run_id, source="pdfs", source_path=str(folder), progress=False,
                    workers=1, criteria=list(criteria) if criteria else RunConfig(home=home, run_id=run_id).criteria)
    BENCHMARK.run(cfg)  # the one pipeline driver: checks every stage's config, records the run
    warehouse.refresh(home, ALL_TABLES)
    return cfg


def _document_path(root: str | None, files: list[str] | None, metadata: str | None) -> Path | None:
    if root and files:
        return Path(root) / files[0]
    try:
        path = json.loads(metadata or "{}").get("path")
    except ValueError:
        return None
    return Path(path) if path else None


def run_findings(home: Path, run_id: str) -> dict[Path, tuple[dict[str, str], list[Finding]]]:
    """file → (criterion → label, the rules judge's findings) for every document of a run."""
    _, rows = warehouse.query(home, ALL_TABLES, f"""
        select d.root, d.files, d.metadata, l.criterion, l.label,
               (select list(j.issues) from judgments j where j.run_id = l.run_id and j.doc_id = l.doc_id
                and j.criterion = l.criterion and j.judge = l.judge) as issues
        from doc_labels l join documents d using (run_id, doc_id)
        where l.run_id = '{run_id}' and l.judge = 'rules'""")
    out: dict[Path, tuple[dict[str, str], list[Finding]]] = {}
    for root, files, metadata, criterion, label, issues in rows:
        path = _document_path(root, files, metadata)
        if path is None:
            continue
        labels, findings = out.setdefault(path, ({}, []))
        labels[criterion] = label
        for page in issues or []:
            for issue in (json.loads(page) if isinstance(page, str) else page) or []:
                if issue.get("rule_id"):
                    findings.append(Finding(criterion, issue["rule_id"], issue.get("location") or "",
                                            issue.get("problem") or ""))
    return out


def run_documents(home: Path, run_id: str) -> dict[Path, set[str]]:
    """file → its doc ids, for every document of a run the rules judge labelled."""
    _, rows = warehouse.query(home, ALL_TABLES, f"""
        select distinct d.root, d.files, d.metadata, d.doc_id from doc_labels l join documents d
        using (run_id, doc_id) where l.run_id = '{run_id}' and l.judge = 'rules'""")
    out: dict[Path, set[str]] = {}
    for root, files, metadata, doc_id in rows:
        path = _document_path(root, files, metadata)
        if path is not None:
            out.setdefault(path, set()).add(doc_id)
    return out


def check_output(original: Path, fixed: Path) -> None:
    if fixed.resolve() == original.resolve():
        raise FixError(f"--out {fixed} is the original file: the original is never overwritten; name a new file")
    if fixed.suffix.lower() != ".pdf":
        raise FixError(f"--out {fixed}: name a .pdf file for a single file (or give --run for a folder)")


def repair(original: Path, fixed: Path, findings: list[Finding], lang: str | None = None,
           model: DraftModel | None = None) -> dict[str, tuple[list[str], Outcome]]:
    """Write `fixed`: `original` with every remedy its findings call for applied (in ORDER), then the remedies
    no finding asks for (UNPROMPTED_REMEDIES: page furniture and decoration as artifacts)."""
    check_output(original, fixed)
    wanted: dict[str, list[str]] = {}
    for f in findings:
        name = remedy_for(f.rule_id)
        if name:
            wanted.setdefault(name, [])
            if f.rule_id not in wanted[name]:
                wanted[name].append(f.rule_id)
    outcomes: dict[str, tuple[list[str], Outcome]] = {}
    fixed.parent.mkdir(parents=True, exist_ok=True)
    with pikepdf.open(original) as pdf:
        ctx = Context(pdf=pdf, source=original, lang=lang, model=model)
        for name in sorted(wanted, key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER)):
            outcomes[name] = (wanted[name], REMEDIES[name](ctx))
        for name in UNPROMPTED_REMEDIES:  # no finding asks for these (page furniture as artifacts)
            outcome = REMEDIES[name](ctx)
            if outcome.changes or outcome.left:
                outcomes[name] = ([], outcome)
        temporary = fixed.with_name(f".{fixed.name}.{os.getpid()}.tmp")
        pdf.save(temporary)
    os.replace(temporary, fixed)
    return outcomes


def _stage(home: Path, run_id: str, files: list[Path]) -> Path:
    """Copies of `files` in a folder of the data home of their own, for a run to read."""
    folder = home / "fix" / run_id / "input"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for i, path in enumerate(files):
        shutil.copyfile(path, folder / f"{i:04d}-{path.name}")
    return folder


def fix_files(home: Path, pairs: list[tuple[Path, Path]], *, original_run: str | None = None,
              criteria: list[str] | None = None, lang: str | None = None, model: DraftModel | None = None
              ) -> tuple[str, str, list[FileFix]]:
    """Judge (unless `original_run` already did), repair each (original, fixed) pair, re-judge the repaired
    copies as a new run linked to the original; returns (original run, re-judge run, per-file results)."""
    for original, fixed in pairs:
        check_output(original, fixed)
    if original_run is None:
        original_run = new_run_id()
        judge_folder(home, original_run, _stage(home, original_run, [p for p, _ in pairs]), criteria)
        found = run_findings(home, original_run)
        staged = home / "fix" / original_run / "input"  # copies named NNNN-<name>, in the order of `pairs`
        by_original = {orig: found.get(staged / f"{i:04d}-{orig.name}", ({}, [])) for i, (orig, _) in enumerate(pairs)}
    else:
        found = run_findings(home, original_run)
        by_original = {orig: found.get(orig, ({}, [])) for orig, _ in pairs}
    results = []
    for original, fixed in pairs:
        labels, findings = by_original[original]
        result = FileFix(original, fixed, findings, labels)
        result.outcomes = repair(original, fixed, findings, lang, model)
        results.append(result)
    rejudge = f"{original_run[:100]}-fixed-{new_run_id()[-4:]}"
    folder = _stage(home, rejudge, [r.fixed for r in results])
    judge_folder(home, rejudge, folder, criteria or _criteria_of(home, original_run))
    after = run_findings(home, rejudge)
    for i, result in enumerate(results):
        result.labels_after, result.after = after.get(folder / f"{i:04d}-{result.fixed.name}", ({}, []))
    cfg_store = RunConfig(home=home, run_id=rejudge).store
    cfg_store.write_table(FIX_STAGE, rejudge, "fixes", [
        {"run_id": rejudge, "original_run_id": original_run, "original_file": str(r.original),
         "fixed_file": str(r.fixed), "remedy": name, "rule_ids": rule_ids, "changes": outcome.changes,
         "left": outcome.left, "drafts": outcome.drafts}
        for r in results for name, (rule_ids, outcome) in r.outcomes.items()], FIXES_SCHEMA)
    warehouse.refresh(home, ALL_TABLES)  # `fixes` is one of the warehouse's tables (tasks.fix_schema)
    return original_run, rejudge, results


def draft_model(home: Path, spec: str) -> DraftModel:
    """The model `--model` names: `llm:<litellm model id>` (credentials from the environment, checked now),
    `local` / `llm:local` (the data home's local model server, `accessbench model start`)."""
    from judges.model.client import ModelClient
    from judges.model.local import client_options, is_local

    argument = spec.removeprefix("llm:")
    if not argument:
        raise FixError("--model: name the model, e.g. --model llm:openai/gpt-4o or --model local")
    options: dict[str, Any] = {"model": argument}
    if is_local(argument):
        try:
            options = client_options(home, argument)
        except ValueError as exc:  # LocalModelError: no server running, another model
            raise FixError(str(exc)) from exc
    client = ModelClient(options.pop("model"), **options)
    try:
        client.check_credentials()
    except (ValueError, ImportError) as exc:  # CredentialsMissing, or litellm not installed
        raise FixError(f"--model {spec}: {exc}") from exc
    return client


def _criteria_of(home: Path, run_id: str) -> list[str] | None:
    record = RunConfig(home=home, run_id=run_id).store.get_run(run_id)
    criteria = (record or {}).get("criteria")
    return list(criteria) if criteria else None


def linked_run(home: Path, run_id: str) -> str | None:
    """The run a re-judge run repaired the findings of (None for a run `accessbench fix` did not make)."""
    store = RunConfig(home=home, run_id=run_id).store
    rows = store.read_rows(FIX_STAGE, run_id, "fixes") if store.has_outputs(FIX_STAGE, run_id) else []
    return rows[0]["original_run_id"] if rows else None


@dataclass
class Remaining:
    file: Path
    criterion: str
    rule_id: str
    location: str
    problem: str
    reason: str


def remaining(results: list[FileFix]) -> list[Remaining]:
    """Every finding left after the re-judge, with why a person has to deal with it."""
    out = []
    for r in results:
        left = {rid: outcome.left for _, (rule_ids, outcome) in r.outcomes.items() for rid in rule_ids
                if outcome.left}
        for f in r.after:
            reason = left.get(f.rule_id) or reason_for(f.rule_id)
            out.append(Remaining(r.fixed, f.criterion, f.rule_id, f.location, f.problem, reason))
    return out


def drafts(results: list[FileFix]) -> list[tuple[Path, str, str]]:
    """(repaired file, remedy, draft) for every change a person should review: a title drawn from the
    document's own heading, alt text and link descriptions a model drafted."""
    return [(r.fixed, name, d) for r in results for name, (_, outcome) in r.outcomes.items() for d in outcome.drafts]


def rule_counts(results: list[FileFix]) -> dict[str, tuple[int | None, int]]:
    """rule id → (findings before, findings after) over `results`. Before is None ("not judged") for a rule of a
    criterion no file was judged on before: its findings after are new evidence, not damage the fix did."""
    before = Counter(f.rule_id for r in results for f in r.findings)
    after = Counter(f.rule_id for r in results for f in r.after)
    judged = {c for r in results for c in r.labels}
    criterion_of = {f.rule_id: f.criterion for r in results for f in (*r.findings, *r.after)}

    def was_judged(rule_id: str) -> bool:
        criterion = criterion_of.get(rule_id, "")
        return criterion in judged or criterion not in CRITERIA or before[rule_id] > 0

    return {rid: (before[rid] if was_judged(rid) else None, after[rid]) for rid in sorted(set(before) | set(after))}

