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


def _module_graph() -> dict[str, set[str]]:
    """Our modules and the modules of ours each imports when it is imported (module level, not
    under TYPE_CHECKING, not inside functions). `from pkg import sub` depends on `pkg.sub`."""
    modules: dict[str, Path] = {}
    for top in (*FORBIDDEN, "flows", "deployments"):
        for path in (REPO / top).rglob("*.py"):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def imported(body: list[ast.stmt], out: set[str]) -> set[str]:
        for node in body:
            if isinstance(node, ast.If) and not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                imported(node.body + node.orelse, out)
            elif isinstance(node, ast.Try):
                imported(node.body + [s for h in node.handlers for s in h.body], out)
            elif isinstance(node, ast.Import):
                out.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = {f"{node.module}.{a.name}" for a in node.names} & set(modules)
                out.update(subs)
                if len(subs) < len(node.names):
                    out.add(node.module)
        return out

    return {name: imported(ast.parse(path.read_text(encoding="utf-8")).body, set()) & set(modules)
            for name, path in modules.items()}


def test_no_import_circle() -> None:
    graph = _module_graph()
    assert {"judges.base", "extractors.layout.base", "tasks.registry"} <= set(graph)
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def walk(module: str, path: list[str]) -> None:
        state[module] = 1
        for other in sorted(graph[module]):
            if state.get(other) == 1:
                circles.append(path[path.index(other):] + [other])
            elif other not in state:
                walk(other, [*path, other])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    assert not circles, f"import circles: {circles[:5]}"
