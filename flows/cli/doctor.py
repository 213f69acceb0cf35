"""`accessbench doctor`: what this installation would use, without revealing any secret.

Lists the data home and its free disk, the Prefect server runs go to, which model providers have a
key in the environment (variable names only: a value is never read into the output), and which
optional extras are installed.
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import json
import os
import re
import shutil
import urllib.parse
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement

# Providers litellm reads keys for, by the variable it reads; others are found by name pattern.
PROVIDER_KEYS = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "azure": ("AZURE_API_KEY", "AZURE_OPENAI_API_KEY"),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY"),
    "openrouter": ("OPENROUTER_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "cohere": ("COHERE_API_KEY", "CO_API_KEY"),
    "bedrock / aws": ("AWS_ACCESS_KEY_ID", "AWS_PROFILE"),
}
_KEY_NAME = re.compile(r"(_API_KEY|_API_TOKEN|_ACCESS_KEY_ID)$")
# What an extra needs beyond its packages, where `pip install` of the extra alone does not make it work.
EXTRA_NOTES = {
    "layoutparser": "and detectron2, which is not on PyPI: build it from source first",
}
DISTRIBUTION = "accessbench"


def provider_keys(environ: dict[str, str] | None = None) -> dict[str, list[str]]:
    """Provider → names of the set (non-empty) variables that hold its key; values are never returned."""
    env = dict(os.environ if environ is None else environ)
    present = {name for name, value in env.items() if value}
    found = {provider: [n for n in names if n in present] for provider, names in PROVIDER_KEYS.items()}
    known = {n for names in PROVIDER_KEYS.values() for n in names}
    others = sorted(n for n in present if _KEY_NAME.search(n) and n not in known)
    if others:
        found["other"] = others
    return {provider: names for provider, names in found.items() if names}


def extras(distribution: str = DISTRIBUTION) -> list[str]:
    """The distribution's extras, as its metadata declares them (pyproject's optional-dependencies)."""
    try:
        return list(dict.fromkeys(metadata.metadata(distribution).get_all("Provides-Extra") or []))
    except metadata.PackageNotFoundError:
        return []


def installed_extras(distribution: str = DISTRIBUTION) -> dict[str, bool]:
    """Extra → whether every package it needs is installed."""
    try:
        requires = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:
        return {}
    needs: dict[str, list[Requirement]] = {extra: [] for extra in extras(distribution)}
    for line in requires:
        req = Requirement(line)
        for extra in needs:
            if req.marker is not None and req.marker.evaluate({"extra": extra}):
                needs[extra].append(req)
    return {extra: all(_installed(r) for r in reqs) for extra, reqs in needs.items() if reqs}


def source_folder(distribution: str = DISTRIBUTION) -> str | None:
    """The folder AccessBench is installed from in development mode (`pip install -e`), else None."""
    try:
        direct = json.loads(metadata.distribution(distribution).read_text("direct_url.json") or "null")
    except (metadata.PackageNotFoundError, ValueError):
        return None
    url = direct.get("url", "") if isinstance(direct, dict) else ""
    return urllib.parse.unquote(url.removeprefix("file://")) if url.startswith("file://") else None


def install_hint(extra: str, distribution: str = DISTRIBUTION) -> str:
    """How to install `extra`: AccessBench is installed from its source folder (it is not on PyPI)."""
    if extra == "local":
        from models.local import INSTALL_HINT

        return INSTALL_HINT
    folder = source_folder(distribution)
    command = (f"pip install -e '{folder}[{extra}]'" if folder
               else f"pip install -e '.[{extra}]' in the AccessBench source folder")
    note = EXTRA_NOTES.get(extra)
    return f"{command}, {note}" if note else command


def _installed(req: Requirement) -> bool:
    try:
        return req.specifier.contains(metadata.version(req.name), prereleases=True)
    except metadata.PackageNotFoundError:
        return False


def prefect_server(home: Path) -> str:
    """Where runs go: PREFECT_API_URL, else this home's own server, as it is now (running or not)."""
    from flows import server

    url = os.environ.get("PREFECT_API_URL")
    if url:
        return f"{url} (from PREFECT_API_URL)"
    prefect_home = os.environ.get("PREFECT_HOME") or str(server.prefect_home(home))
    state = server.running(home)
    if state is not None:
        return f"local, running: dashboard {state.ui_url} (pid {state.pid}; PREFECT_HOME={prefect_home})"
    if os.environ.get("ACCESSBENCH_PREFECT") == "ephemeral":
        return f"ephemeral: a throwaway server in each command (ACCESSBENCH_PREFECT; PREFECT_HOME={prefect_home})"
    stale = server.read_state(home)  # its own process (pid, start time, executable, folder), not answering
    if stale is not None:
        return (f"local, not answering (pid {stale.pid}, port {stale.port}): see {server.log_file(home)}; "
                f"restart it: accessbench server stop; accessbench server start (PREFECT_HOME={prefect_home})")
    return f"local, not running: the first run starts it, or accessbench server start (PREFECT_HOME={prefect_home})"


def free_disk(home: Path) -> str:
    existing = next((p for p in (home, *home.parents) if p.exists()), Path("/"))
    usage = shutil.disk_usage(existing)
    return f"{usage.free / 2**30:.1f} GiB free of {usage.total / 2**30:.1f} GiB (on {existing})"


def local_model(home: Path) -> tuple[str, bool]:
    """The local model's parts (server binary, packaged GGUF) and whether its server runs for this home."""
    from models import local

    binary, gguf = local.server_binary(), local.packaged_gguf()
    state = local.running(home)
    parts = [f"llama-server: {binary}" if binary else "llama-server: missing",
             f"packaged model: {gguf.name} ({gguf.stat().st_size / 1e6:.0f} MB)" if gguf else "packaged model: missing"]
    if state:
        parts.append(f"running: {state.name} at {state.api_base}")
    elif binary and gguf:
        parts.append("not running (accessbench model start)")
    else:
        parts.append(f"install: {local.INSTALL_HINT}")
    return "; ".join(parts), bool(binary and gguf)


def report(home: Path) -> list[tuple[str, str]]:
    keys = provider_keys()
    found = installed_extras()
    rows: list[tuple[str, str]] = [
        ("data home", f"{home}" + ("" if home.exists() else " (does not exist, not created yet: the first run "
                                   "creates it; check --home / $ACCESSBENCH_HOME for a typo)")),
        ("free disk", free_disk(home)),
        ("prefect server", prefect_server(home)),
        ("provider keys", "; ".join(f"{p}: {', '.join(n)}" for p, n in keys.items()) or
         "none set (the rules judge needs none; LLM judges read e.g. OPENAI_API_KEY)"),
        ("extras installed", ", ".join(e for e, ok in found.items() if ok) or "none"),
        ("local model", local_model(home)[0]),
        ("extras missing", "; ".join(f"{e} ({install_hint(e)})" for e, ok in found.items() if not ok) or "none"),
    ]
    return rows


def run_doctor(home: Path, args: argparse.Namespace) -> int:
    from flows.cli.console import layouts, print_first_fitting

    if getattr(args, "local_model", False):  # `make install-local`'s check: the parts are there, or exit 1
        text, ready = local_model(home)
        print(f"local model: {text}")
        return 0 if ready else 1
    # At the terminal's width (values are data, never markup): the check's name whole, its value folded.
    print_first_fitting(layouts("accessbench doctor", ("check", "value"), report(home), keys=("check",)))
    return 0


def add_parser(sub: Any) -> None:
    doctor = sub.add_parser("doctor", help="data home, free disk, Prefect server, provider keys set (names only), "
                                           "extras, the local model")
    doctor.add_argument("--local-model", action="store_true",
                        help="only check the local model's parts (exit 1 when one is missing)")
