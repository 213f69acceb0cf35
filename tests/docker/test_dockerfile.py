"""The worker image: a linted Dockerfile whose build context holds what it copies and nothing else."""

from __future__ import annotations

import fnmatch
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "docker" / "Dockerfile"


def _ignored(path: str, patterns: list[str]) -> bool:
    """Docker's rule: the last matching pattern wins; `!` re-includes (enough of it for this allow-list)."""
    ignored = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        pattern = pattern.lstrip("!").rstrip("/")
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if any(fnmatch.fnmatch(p, pattern) or fnmatch.fnmatch(p, pattern.replace("**/", "")) for p in prefixes):
            ignored = not negated
    return ignored


def test_build_context_holds_what_the_dockerfile_copies_and_never_the_virtualenv() -> None:
    patterns = [line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    copied = [src for line in DOCKERFILE.read_text().splitlines() if line.startswith("COPY ")
              for src in line.split()[1:-1]]
    assert "flows" in copied and "deployments" in copied and (REPO / "deployments" / "prefect.yaml").is_file()
    for src in copied:
        assert not _ignored(src, patterns), f"{src} is copied but excluded by .dockerignore"
        assert (REPO / src).exists()
    for never in (".venv/bin/python", ".accessbench/artifacts", "tests/conftest.py", ".git/HEAD",
                  "flows/__pycache__/cli.cpython-311.pyc"):
        assert _ignored(never, patterns), f"{never} would be sent to the Docker build"


def test_image_runs_as_a_non_root_user_on_a_pinned_base() -> None:
    lines = DOCKERFILE.read_text().splitlines()
    base = next(line.split()[1] for line in lines if line.startswith("FROM "))
    name, _, tag = base.partition("@")[0].partition(":")
    assert "@sha256:" in base or any(ch.isdigit() for ch in tag.split("-")[0].split(".")[-1]) and tag.count(".") == 2
    user = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert user and user[-1].split(":")[0] not in {"root", "0"}


def test_hadolint_passes() -> None:
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    if hadolint is None:
        pytest.fail("hadolint is missing: it is a dev dependency (pip install -e '.[dev]')")
    result = subprocess.run([hadolint, str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
