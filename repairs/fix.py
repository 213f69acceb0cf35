"""`accessbench fix`: repair what the rules judge's findings say can be repaired mechanically, re-judge the
repaired copies through the same pipeline as a new run linked to the original, and list what remains for
a person (with the reason).

The original files are only ever read: each repaired copy is written to a new path (the caller's --out),
never an input of the run, never an existing file unless `force`, never through a symlink. The re-judge run
reads copies staged in the data home (`<home>/fix/<run>/`), so the folder the user named holds nothing but
the repaired files.

Fix never makes a document worse: a file over the run's limits, one that needs a password, one whose
permissions forbid changes or that is signed (unless signatures may be invalidated) is refused before any
remedy runs (`Refused`, one line); encryption and permissions are kept; the copy is checked after writing
(pages, text, renders, active content, size) and a remedy that changed what a reader sees is rolled back;
a repair counts only when the rule no longer fires on the re-judged copy.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import pikepdf

from judges.criteria import CRITERIA
from models.config import ModelConfig
from repairs.guards import (
    FixLimits,
    Refused,
    SourceFacts,
    inspect_source,
    keep_metadata,
    refuse_signed,
    verify_copy,
)
from repairs.remedies import (
    NOT_MECHANICAL,
    ORDER,
    REMEDIES,
    UNPROMPTED_REMEDIES,
    Context,
    DraftModel,
    Outcome,
    reason_for,
    remedy_for,
)
from tasks.benchmark.registry import BENCHMARK
from tasks.benchmark.work.judge import call_id
from tasks.engine.context import RunConfig, new_run_id
from tasks.engine.isolation import DocumentTimeout, WorkerPool, run_isolated
from warehouse import catalog as warehouse
from warehouse.paths import DiskFull, disk_full_as_error
from warehouse.tables import ALL_TABLES, FIX_STAGE, FIXES_SCHEMA, LLM_CALLS_SCHEMA


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
    refused: Refused | None = None  # left as it is (nothing written), and why
    notes: list[str] = field(default_factory=list)  # what the file holds that fix kept (active content, encryption)

    @property
    def fixed_rules(self) -> list[str]:
        """Rules that fired before and no longer fire on the re-judged copy: the only repairs claimed."""
        after = {f.rule_id for f in self.after}
        return sorted({f.rule_id for f in self.findings} - after) if self.refused is None else []

    @property
    def worse_rules(self) -> list[str]:
        """Rules with more findings on the copy than on the original (new ones included): worse there."""
        before, after = Counter(f.rule_id for f in self.findings), Counter(f.rule_id for f in self.after)
        return sorted(rid for rid, n in after.items() if n > before[rid]) if self.refused is None else []


def judge_folder(home: Path, run_id: str, folder: Path, criteria: list[str] | None = None,
                 limits: FixLimits | None = None) -> RunConfig:
    """Every PDF of `folder` through the whole pipeline with the rules judge, as `run --pdfs` does, under
    `limits`; the run is recorded in the data home (`accessbench runs` lists it)."""
    limits = limits or FixLimits()
    cfg = RunConfig(home=home, run_id=run_id, source="pdfs", source_path=str(folder), progress=False,
                    workers=1, criteria=list(criteria) if criteria else RunConfig(home=home, run_id=run_id).criteria,
                    **{name: getattr(limits, name) for name in FixLimits.__dataclass_fields__})
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
               (select list([f.rule_id, coalesce(f.location, ''), coalesce(f.problem, '')]
                            order by f.repeat, f.page, f.seq)
                from findings f where f.run_id = l.run_id and f.doc_id = l.doc_id and f.criterion = l.criterion
                and f.judge = l.judge and f.rule_id is not null) as found
        from doc_labels l join documents d using (run_id, doc_id)
        where l.run_id = '{run_id}' and l.judge = 'rules'""")
    out: dict[Path, tuple[dict[str, str], list[Finding]]] = {}
    for root, files, metadata, criterion, label, found in rows:
        path = _document_path(root, files, metadata)
        if path is None:
            continue
        labels, findings = out.setdefault(path, ({}, []))
        labels[criterion] = label
        findings += [Finding(criterion, rule_id, location, problem) for rule_id, location, problem in found or []]
    return out


def run_documents(home: Path, run_id: str) -> dict[Path, set[str]]:
    """file → its doc ids, for every document of a run the rules judge labelled or the run refused (a file the
    run refused is listed so that fix can say it will not repair it, never skip it silently)."""
    _, rows = warehouse.query(home, ALL_TABLES, f"""
        select distinct d.root, d.files, d.metadata, d.doc_id from documents d where d.run_id = '{run_id}'
        and (d.status = 'failed' or exists (select 1 from doc_labels l where l.run_id = d.run_id
                                              and l.doc_id = d.doc_id and l.judge = 'rules'))""")
    out: dict[Path, set[str]] = {}
    for root, files, metadata, doc_id in rows:
        path = _document_path(root, files, metadata)
        if path is not None:
            out.setdefault(path, set()).add(doc_id)
    return out


def _identity(path: Path) -> set[object]:
    """What names a file: its resolved path, and (when it exists) its device and inode (a hard link)."""
    found: set[object] = {path.resolve()}
    try:
        stat = path.stat()
        found.add((stat.st_dev, stat.st_ino))
    except OSError:
        pass
    return found


@lru_cache(maxsize=8)
def _identities(paths: tuple[Path, ...]) -> frozenset[object]:
    return frozenset(x for p in paths for x in _identity(p))


def _same(a: Path, b: Path) -> bool:
    return bool(_identity(a) & _identity(b))


def check_output(original: Path, fixed: Path, *, inputs: tuple[Path, ...] = (), force: bool = False) -> None:
    """Refuse an output that is an input (the original or any other file of the run), not a .pdf, a symlink,
    or an existing file (unless `force`)."""
    if _same(fixed, original):
        raise FixError(f"--out {fixed} is the original file: the original is never overwritten; name a new file")
    if _identity(fixed) & _identities(tuple(inputs)):
        raise FixError(f"--out {fixed} is an input of the run: inputs are never overwritten; name another folder")
    if fixed.suffix.lower() != ".pdf":
        raise FixError(f"--out {fixed}: name a .pdf file for a single file (or give --run for a folder)")
    if fixed.is_symlink():
        raise FixError(f"--out {fixed} is a symlink: fix never writes through one; name a new file")
    if fixed.exists() and not force:
        raise FixError(f"--out {fixed} exists: name a new file, or pass --force to replace it")


def unique_outputs(files: list[Path], out: Path, inputs: list[Path] | None = None) -> list[tuple[Path, Path]]:
    """Each file's repaired copy in the folder `out`: its own name; where names repeat (ignoring case) its
    parent folders' names joined in front; then -2, -3 … until the name is unused and no input of the run.
    Files are taken in sorted order, so the same files always get the same names, and none is dropped."""
    taken: set[str] = set()
    protected = _identities(tuple(inputs or files))
    counts = Counter(p.name.lower() for p in files)
    pairs = []
    for path in sorted(files):
        name = path.name if counts[path.name.lower()] == 1 else "__".join(path.parts[-3:])
        stem, suffix, n = Path(name).stem, Path(name).suffix or ".pdf", 1
        candidate = out / name
        while candidate.name.lower() in taken or _identity(candidate) & protected:
            n += 1
            candidate = out / f"{stem}-{n}{suffix}"
        taken.add(candidate.name.lower())
        pairs.append((path, candidate))
    order = {p: i for i, p in enumerate(files)}
    return sorted(pairs, key=lambda pair: order[pair[0]])


def _wanted(findings: list[Finding]) -> dict[str, list[str]]:
    wanted: dict[str, list[str]] = {}
    for f in findings:
        name = remedy_for(f.rule_id)
        if name:
            wanted.setdefault(name, [])
            if f.rule_id not in wanted[name]:
                wanted[name].append(f.rule_id)
    return wanted


USAGE_RIGHTS = ("/UR", "/UR3")  # /Perms entries of a Reader-extended form: dropped from a copy they no longer sign


@dataclass
class RepairJob:
    """One document's repair, as handed to a bounded worker."""

    original: Path
    fixed: Path
    findings: list[Finding]
    lang: str | None = None
    limits: FixLimits = field(default_factory=FixLimits)
    allow_invalidating_signatures: bool = False
    force: bool = False
    inputs: tuple[Path, ...] = ()


def _build(job: RepairJob, facts: SourceFacts, names: list[str], model: DraftModel | None, target: Path,
           ) -> dict[str, tuple[list[str], Outcome]]:
    """Write `target`: the original with the remedies `names` applied (prompted ones with their rule ids), its
    metadata kept, its encryption kept, and (signatures being allowed to break) usage rights dropped."""
    wanted = _wanted(job.findings)
    outcomes: dict[str, tuple[list[str], Outcome]] = {}
    with pikepdf.open(job.original) as pdf:
        info = pdf.trailer.get("/Info")
        before = {str(k): v for k, v in info.items()} if isinstance(info, pikepdf.Dictionary) else {}
        ctx = Context(pdf=pdf, source=job.original, lang=job.lang, model=model)
        for name in names:
            outcome = REMEDIES[name](ctx)
            if name in wanted or outcome.changes or outcome.left:
                outcomes[name] = (wanted.get(name, []), outcome)
        changed = any(o.changes for _, o in outcomes.values())
        perms = pdf.Root.get("/Perms")  # a rewritten file breaks them even unchanged (signatures being allowed)
        if facts.signatures and isinstance(perms, pikepdf.Dictionary):
            for key in USAGE_RIGHTS:
                if key in perms:
                    del perms[key]
            if not len(perms):
                del pdf.Root["/Perms"]
        keep_metadata(pdf, before, changed)
        with disk_full_as_error(target.parent):
            pdf.save(target, encryption=bool(facts.encrypted))
    return outcomes


def repair(original: Path, fixed: Path, findings: list[Finding], lang: str | None = None,
           model: DraftModel | None = None, *, limits: FixLimits | None = None,
           allow_invalidating_signatures: bool = False, force: bool = False,
           inputs: tuple[Path, ...] = ()) -> dict[str, tuple[list[str], Outcome]]:
    """Write `fixed`: `original` with every remedy its findings call for applied (in ORDER), then the remedies
    no finding asks for (UNPROMPTED_REMEDIES: page furniture and decoration as artifacts), checked against the
    original after writing. Raises `Refused` for a file it must leave alone (nothing is written then)."""
    job = RepairJob(original, fixed, findings, lang, limits or FixLimits(), allow_invalidating_signatures, force,
                    inputs)
    return repair_job(job, model)


def repair_job(job: RepairJob, model: DraftModel | None = None) -> dict[str, tuple[list[str], Outcome]]:
    check_output(job.original, job.fixed, inputs=job.inputs, force=job.force)
    facts = inspect_source(job.original, job.limits)
    refuse_signed(facts, job.allow_invalidating_signatures)
    wanted = _wanted(job.findings)
    names = [*sorted(wanted, key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER)), *UNPROMPTED_REMEDIES]
    job.fixed.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=job.fixed.parent, prefix=f".{job.fixed.name}.", suffix=".tmp")
    os.close(handle)
    temporary = Path(name)
    try:
        return _repair_into(job, facts, names, model, temporary)
    except DiskFull as exc:
        raise Refused("disk_full", f"{exc}; nothing written (free space there and run fix again)") from None
    finally:
        temporary.unlink(missing_ok=True)


def _repair_into(job: RepairJob, facts: SourceFacts, names: list[str], model: DraftModel | None,
                 temporary: Path) -> dict[str, tuple[list[str], Outcome]]:
    """Build the copy in `temporary`, check it, roll back what made it differ, then move it to `job.fixed`."""
    outcomes = _build(job, facts, names, model, temporary)
    problem = verify_copy(job.original, temporary, facts)
    if problem:  # find the remedies that change what a reader gets, each applied alone, and drop them
        rolled_back = {}
        for remedy_name in [n for n, (_, o) in outcomes.items() if o.changes]:
            _build(job, facts, [remedy_name], model, temporary)
            alone = verify_copy(job.original, temporary, facts)
            if alone:
                rolled_back[remedy_name] = alone
        outcomes = _build(job, facts, [n for n in names if n not in rolled_back], model, temporary)
        problem = verify_copy(job.original, temporary, facts)
        if problem:
            raise Refused("unverified", f"the repaired copy would differ from the original ({problem}); "
                                        "nothing written")
        for remedy_name, why in rolled_back.items():
            outcomes[remedy_name] = (_wanted(job.findings).get(remedy_name, []),
                                     Outcome(left=f"{NOT_MECHANICAL}: rolled back, because {why}"))
    check_output(job.original, job.fixed, inputs=job.inputs, force=job.force)  # again: nothing appeared since
    os.replace(temporary, job.fixed)  # replaces a path, never writes through a link
    return outcomes


def _repair_in_worker(job: RepairJob) -> dict[str, tuple[list[str], Outcome]]:
    return repair_job(job, None)


def _abandon(job: RepairJob, pool: WorkerPool, existed: bool) -> None:
    """A repair given up on (past its time or memory) writes nothing after the refusal: its worker is stopped (an
    abandoned task would otherwise run on and still move its copy into place), then what it left is removed —
    its temporary copy, and the output itself when the worker got as far as writing it in the meantime."""
    pool.reset()
    for leftover in job.fixed.parent.iterdir():  # repair_job's mkstemp names, matched literally (no glob)
        if leftover.name.startswith(f".{job.fixed.name}.") and leftover.name.endswith(".tmp"):
            leftover.unlink(missing_ok=True)
    if not existed:
        job.fixed.unlink(missing_ok=True)


def repair_bounded(job: RepairJob, pool: WorkerPool) -> dict[str, tuple[list[str], Outcome]]:
    """`repair_job` in a worker of `pool` (its memory ceiling) within the document time limit, as `run`
    processes a document: past either, `Refused("limit" | "timeout")`."""
    existed = job.fixed.exists()
    ((_, value),) = list(run_isolated(_repair_in_worker, [job], workers=1, timeout_s=job.limits.doc_timeout_s,
                                      pool=pool))
    if isinstance(value, DocumentTimeout | MemoryError):
        _abandon(job, pool, existed)
    if isinstance(value, DocumentTimeout):
        raise Refused("timeout", f"the repair took longer than --doc-timeout {job.limits.doc_timeout_s:g} s; "
                                 "nothing written")
    if isinstance(value, MemoryError):
        raise Refused("limit", f"the repair needed more than --worker-memory-mb {job.limits.worker_memory_mb:g} "
                               "MiB; nothing written")
    if isinstance(value, BaseException):
        raise value
    return value


def _stage(home: Path, run_id: str, files: list[Path]) -> Path:
    """Copies of `files` in a folder of the data home of their own, for a run to read."""
    folder = home / "fix" / run_id / "input"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for i, path in enumerate(files):
        shutil.copyfile(path, folder / f"{i:04d}-{path.name}")
    return folder


def run_errors(home: Path, run_id: str) -> dict[Path, list[str]]:
    """file → the run's error rows about it ("kind: message"), for every document with one."""
    _, rows = warehouse.query(home, ALL_TABLES, f"""
        select d.root, d.files, d.metadata, e.kind, e.message from errors e join documents d using (run_id, doc_id)
        where e.run_id = '{run_id}'""")
    out: dict[Path, list[str]] = {}
    for root, files, metadata, kind, message in rows:
        path = _document_path(root, files, metadata)
        if path is not None:
            out.setdefault(path, []).append(f"{kind or 'error'}: {message or ''}".strip())
    return out


def _notes(facts: SourceFacts, allow_invalidating_signatures: bool) -> list[str]:
    notes = []
    if facts.encrypted:
        notes.append("encrypted: the copy keeps the encryption and permissions")
    if facts.active:
        held = ", ".join(f"{n} {kind}" for kind, n in sorted(facts.active.items()))
        notes.append(f"holds active content ({held}): kept as it is, none added")
    if facts.signatures and allow_invalidating_signatures:
        rights = [s for s in facts.signatures if s.removeprefix("/Perms ") in USAGE_RIGHTS]
        notes.append(f"{', '.join(facts.signatures[:3])}: no longer valid in the copy (--allow-invalidating-"
                     "signatures)" + ("; Reader usage rights removed from it" if rights else ""))
    return notes


def fix_files(home: Path, pairs: list[tuple[Path, Path]], *, original_run: str | None = None,
              criteria: list[str] | None = None, lang: str | None = None, model: DraftModel | None = None,
              limits: FixLimits | None = None, allow_invalidating_signatures: bool = False, force: bool = False,
              inputs: tuple[Path, ...] = ()) -> tuple[str, str | None, list[FileFix]]:
    """Judge (unless `original_run` already did), repair each (original, fixed) pair, re-judge the repaired
    copies as a new run linked to the original; returns (original run, re-judge run or None when no copy was
    written, per-file results). A file fix must leave alone comes back with `refused` set and no copy."""
    limits = limits or FixLimits()
    _identities.cache_clear()  # the inputs as they are now (their inodes), not as a previous call saw them
    protected = tuple(dict.fromkeys([*inputs, *(p for p, _ in pairs)]))
    for original, fixed in pairs:
        check_output(original, fixed, inputs=protected, force=force)
    refused: dict[Path, Refused] = {}
    notes: dict[Path, list[str]] = {}
    for original, _ in pairs:
        try:
            facts = inspect_source(original, limits)
            refuse_signed(facts, allow_invalidating_signatures)
            notes[original] = _notes(facts, allow_invalidating_signatures)
        except Refused as exc:
            refused[original] = exc
    judged = [(o, f) for o, f in pairs if o not in refused]
    if original_run is None:
        original_run = new_run_id()
        found: dict[Path, tuple[dict[str, str], list[Finding]]] = {}
        errors: dict[Path, list[str]] = {}
        if judged:
            staged = _stage(home, original_run, [p for p, _ in judged])  # copies named NNNN-<name>, in order
            judge_folder(home, original_run, staged, criteria, limits)
            run_found, run_errs = run_findings(home, original_run), run_errors(home, original_run)
            for i, (orig, _) in enumerate(judged):
                copy = staged / f"{i:04d}-{orig.name}"
                found[orig], errors[orig] = run_found.get(copy, ({}, [])), run_errs.get(copy, [])
    else:
        found, errors = run_findings(home, original_run), run_errors(home, original_run)
    for original, _ in judged:
        labels = found.get(original, ({}, []))[0]
        stopped = [e for e in errors.get(original, []) if e.startswith(("limit", "timeout"))]
        if not labels or stopped:
            why = "; ".join((stopped or errors.get(original) or ["no judgment of it"])[:2])
            refused[original] = Refused("pipeline", f"run {original_run} did not judge it whole ({why[:300]}); "
                                                    "fix repairs only what the pipeline judged")
    results = []
    pool = WorkerPool(1, memory_mb=limits.worker_memory_mb)
    try:
        for original, fixed in pairs:
            labels, findings = found.get(original, ({}, []))
            result = FileFix(original, fixed, findings, labels, refused=refused.get(original),
                             notes=notes.get(original, []))
            if result.refused is None:
                job = RepairJob(original, fixed, findings, lang, limits, allow_invalidating_signatures, force,
                                protected)
                try:  # a model client stays in this process (its connections); the rest runs bounded
                    result.outcomes = repair_job(job, model) if model is not None else repair_bounded(job, pool)
                except Refused as exc:
                    result.refused = exc
            results.append(result)
    finally:
        pool.reset()
    written = [r for r in results if r.refused is None]
    if not written:
        return original_run, None, results
    rejudge = f"{original_run[:100]}-fixed-{new_run_id()[-4:]}"
    folder = _stage(home, rejudge, [r.fixed for r in written])
    judge_folder(home, rejudge, folder, criteria or _criteria_of(home, original_run), limits)
    after = run_findings(home, rejudge)
    for i, result in enumerate(written):
        result.labels_after, result.after = after.get(folder / f"{i:04d}-{result.fixed.name}", ({}, []))
    cfg_store = RunConfig(home=home, run_id=rejudge).store
    cfg_store.write_table(FIX_STAGE, rejudge, "fixes", [
        {"run_id": rejudge, "original_run_id": original_run, "original_file": str(r.original),
         "fixed_file": str(r.fixed), "remedy": name, "rule_ids": rule_ids, "changes": outcome.changes,
         "left": outcome.left, "drafts": outcome.drafts, "refused": None}
        for r in written for name, (rule_ids, outcome) in r.outcomes.items()] + [
        {"run_id": rejudge, "original_run_id": original_run, "original_file": str(r.original),
         "fixed_file": "", "remedy": "", "rule_ids": [], "changes": [], "left": None, "drafts": [],
         "refused": str(r.refused)} for r in results if r.refused is not None], FIXES_SCHEMA)
    calls = draft_call_rows(rejudge, written, getattr(model, "model", None))
    if calls:  # the drafts' model calls join the call log (`accessbench calls list --run <re-judge run>`)
        cfg_store.write_table(FIX_STAGE, rejudge, "llm_calls", calls, LLM_CALLS_SCHEMA)
    warehouse.refresh(home, ALL_TABLES)  # `fixes` is one of the warehouse's tables (repairs.schema)
    return original_run, rejudge, results


def draft_model(home: Path, spec: str, config: ModelConfig | None = None) -> DraftModel:
    """The model `--model` names, built by the one builder (`models.build`) as `config` says (default: the model
    layer's defaults): `llm:<litellm model id>` (credentials from the environment, checked now), `local` /
    `llm:local` (the data home's local model server, `accessbench model start`)."""
    from models.build import build_client

    argument = spec.removeprefix("llm:")
    if not argument:
        raise FixError("--model: name the model, e.g. --model llm:openai/gpt-4o or --model local")
    try:
        client = build_client(argument, config or ModelConfig(), home)
    except ValueError as exc:  # LocalModelError: no server running, another model
        raise FixError(str(exc)) from exc
    try:
        client.check_credentials()
    except (ValueError, ImportError) as exc:  # CredentialsMissing, or litellm not installed
        raise FixError(f"--model {spec}: {exc}") from exc
    return client


def draft_call_rows(run_id: str, results: list[FileFix], model: str | None) -> list[dict[str, Any]]:
    """`llm_calls` rows of the drafts written (study `fix`, judge `fix`, the document the repaired file): every
    call a drafting remedy made for the repaired copies, as sent and answered."""
    rows = []
    for result in results:
        doc_id = str(result.fixed)
        calls = [record for _, (_, outcome) in result.outcomes.items() for record in outcome.calls]
        for seq, record in enumerate(calls):
            rows.append({**record, "run_id": run_id, "judge": "fix", "model": model, "doc_id": doc_id,
                         "criterion": None, "repeat": 0, "prompt_version": None,
                         "call_id": call_id(run_id, "fix", model, doc_id, record.get("purpose") or "", seq, 0,
                                            record["attempt"])})
    return rows


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

