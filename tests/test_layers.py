"""Layers point one way: flows → tasks → extractors | judges → warehouse (STYLE.md rule 1).

`common` (box geometry, caption labels) sits below them all and imports nothing of ours.

Read from the source with `ast`, so a lazy import inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# package → the project packages it must never import (third-party names included where they matter)
FORBIDDEN: dict[str, set[str]] = {
    "common": {"flows", "tasks", "judges", "extractors", "corpus", "deployments", "warehouse", "prefect"},
    "warehouse": {"flows", "tasks", "judges", "extractors", "corpus", "deployments", "prefect"},
    "extractors": {"flows", "tasks", "judges", "corpus", "deployments", "prefect"},
    "judges": {"flows", "tasks", "extractors", "corpus", "deployments", "prefect"},
    "corpus": {"flows", "tasks", "deployments", "prefect"},
    "tasks": {"flows", "deployments"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_layers_below_it(package: str) -> None:
    wrong = {}
    for path in sorted((REPO / package).rglob("*.py")):
        bad = _imports(path) & FORBIDDEN[package]
        if bad:
            wrong[str(path.relative_to(REPO))] = sorted(bad)
    assert not wrong, f"{package} must not import {sorted(FORBIDDEN[package])}: {wrong}"


def test_nothing_outside_tests_imports_the_tests() -> None:
    offenders = [str(p.relative_to(REPO)) for top in ("flows", "tasks", "extractors", "judges", "warehouse", "corpus",
                                                     "deployments", "common")
                 for p in (REPO / top).rglob("*.py") if "tests" in _imports(p)]
    assert not offenders
