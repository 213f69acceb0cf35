"""Usage checks of `accessbench run`, `audit` and `fix` that refuse before any heavy import (issue 58).

A misspelled criterion, a folder that does not exist or holds nothing to check, or a model judge without its
provider's key should come back in well under a second and a half, not after Prefect, the stages, PyMuPDF,
pyarrow or litellm have loaded (seconds each on a busy machine). These checks read only the arguments, the
file system and the environment; `main` runs them right after parsing. The commands then check everything again
with the real thing (litellm's own table of provider keys, each stage's config check): this is the fast first
pass, and it refuses nothing that the full checks would let through.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

from flows.cli.console import EXIT_NOT_FOUND, EXIT_USAGE

MODEL_JUDGES = ("llm", "hybrid")  # judge kinds whose argument is a litellm model id (`llm:openai/gpt-4o`)


@dataclass(frozen=True)
class Refusal:
    message: str
    code: int = EXIT_USAGE


def check_run(args: argparse.Namespace) -> Refusal | None:
    """The first reason `accessbench run` with these arguments cannot start, or None."""
    from pydantic import ValidationError

    from flows.cli.options import describe_errors, given
    from tasks.engine.options import BenchmarkOptions

    try:  # every range and choice, as declared once in tasks.engine.options (criteria names included)
        options = BenchmarkOptions.model_validate(given(args, BenchmarkOptions))
    except ValidationError as exc:
        return Refusal(describe_errors(exc, BenchmarkOptions))
    # A dry run prices a run whose keys are not set yet (flows.cli.dry_run): no key refusal for it.
    keys = None if getattr(args, "dry_run", False) else key_refusal(options.judges, options.api_base)
    return input_refusal(options.dataset, options.pdfs) or keys


def input_refusal(dataset: str | None, pdfs: str | None) -> Refusal | None:
    """A `--dataset` folder without the upstream manifest, or a `--pdfs` folder with nothing to check."""
    from corpus.dataset_layout import MANIFEST

    if dataset:
        path = Path(dataset).resolve()
        if not path.is_dir():
            return Refusal(f"no such folder: {path}", EXIT_NOT_FOUND)
        if not (path / MANIFEST).exists():
            return Refusal(f"{path} has no {MANIFEST}: pass the folder that contains data/dataset.json",
                           EXIT_NOT_FOUND)
    if pdfs:
        path = Path(pdfs).resolve()
        if not path.is_dir():
            return Refusal(f"no such folder: {path}" if not path.exists() else f"{path} is not a folder",
                           EXIT_NOT_FOUND)
        sizes = [_size(p) for p in path.rglob("*") if p.suffix.lower() == ".pdf"]
        if not sizes:
            return Refusal(f"{path} holds no .pdf files (searched its subfolders too)", EXIT_NOT_FOUND)
        if all(size == 0 for size in sizes):  # every one is a file of 0 bytes: nothing to open, let alone check
            return Refusal(f"{path} holds only empty .pdf files ({len(sizes)} of 0 bytes): nothing to check",
                           EXIT_NOT_FOUND)
    return None


def _size(path: Path) -> int | None:
    """A file's size, or None when it is not an empty regular file we can tell apart (a FIFO, a link out of
    the folder, one that cannot be read: the run decides about those, with an error row)."""
    try:
        info = path.lstat()
    except OSError:
        return None
    import stat

    return info.st_size if stat.S_ISREG(info.st_mode) else None


def key_refusal(judges: list[str], api_base: str | None) -> Refusal | None:
    """A model judge whose provider's key is not in the environment, where the fast table knows the provider."""
    from models.keys import credentials_message, missing_keys

    for judge in judges:
        kind, _, model = judge.strip().partition(":")
        if kind not in MODEL_JUDGES or not model or model == "local" or model.startswith("local/"):
            continue
        missing = missing_keys(model, dict(os.environ))
        if missing:
            return Refusal(credentials_message(model, missing, api_base))
    return None


def check_audit(args: argparse.Namespace) -> Refusal | None:
    """The first reason `accessbench audit` with these arguments cannot start, or None (the wording is the
    audit's own: `flows.cli.audit`)."""
    from pydantic import ValidationError

    from flows.cli.options import describe_errors, given
    from tasks.engine.options import AuditOptions

    try:
        options = AuditOptions.model_validate(given(args, AuditOptions))
    except ValidationError as exc:
        return Refusal(describe_errors(exc, AuditOptions))
    for path, what in ((options.questions_path, "--questions"), (options.responses_path, "--responses")):
        if path and not Path(path).is_file():
            return Refusal(f"{what} {path} is not a file", EXIT_NOT_FOUND)
    for model in options.models:
        if (refusal := key_refusal([f"llm:{model}"], options.api_base)) is not None:
            return Refusal(f"cannot start the audit: {refusal.message}")
    for judge in options.audit_judges:
        if (refusal := key_refusal([judge], options.judge_api_base)) is not None:
            return Refusal(f"cannot start the audit: category judge {judge}: {refusal.message}")
    return None


def check_fix(args: argparse.Namespace) -> Refusal | None:
    """A file to repair that is not there, or a drafting model without its key (`flows.cli.fix` words them)."""
    if args.file and not args.run and not Path(args.file).expanduser().is_file():
        return Refusal(f"no such file: {Path(args.file).expanduser()}", EXIT_NOT_FOUND)
    model = args.model or ""
    if model.startswith("llm:") and (refusal := key_refusal([model], None)) is not None:
        return Refusal(f"--model {model}: {refusal.message}")
    return None


CHECKS = {"run": check_run, "audit": check_audit, "fix": check_fix}


def refusal_for(args: argparse.Namespace) -> Refusal | None:
    """The first usage error of the parsed command line, for the commands that have fast checks."""
    check = CHECKS.get(args.command)
    return check(args) if check is not None else None
