"""Layers point one way (STYLE.md rule 1), and no module of ours imports itself round a circle.

The order is declared once, in `LAYERS`, lowest first: a module may import its own package and
any package in a lower layer, never a package beside it or above it. `common` (box geometry,
caption labels) sits below them all; `deployments` (Prefect deployment definitions) sits on top:
deployments import flows, never the reverse.

Read from the source with `ast`. Every import counts: module level, inside a function (a lazy
import hides a circle from Python's import machinery, not from whoever has to read or move the
code) and under `TYPE_CHECKING` (a type-only import upward is still a dependency upward).
"""

from __future__ import annotations

import ast
import functools
from collections import deque
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# lowest first; packages in one tuple are siblings and must not import each other
LAYERS: tuple[tuple[str, ...], ...] = (
    ("common",),
    ("warehouse",),
    ("models",),  # the model layer: every model call of both studies (PDF judges, audit, fix drafts)
    ("extractors", "judges"),
    ("corpus",),
    ("tasks",),
    ("repairs",),
    ("flows",),
    ("deployments",),
)
RANK = {package: rank for rank, layer in enumerate(LAYERS) for package in layer}
PACKAGES = tuple(RANK)
# a stage's logic runs in a plain Python test: Prefect is imported from tasks up only
PREFECT_FROM = RANK["tasks"]


def _modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for top in PACKAGES:
        for path in (REPO / top).rglob("*.py"):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


@functools.cache
def _parsed(path: Path) -> ast.Module:
    """The syntax tree of one source file, parsed once for every test of the module (~1 s for all)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imports(path: Path) -> set[str]:
    """Top-level names of everything `path` imports (ours and third-party), at any depth."""
    tree = _parsed(path)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


Edges = dict[str, dict[str, list[str]]]  # module → module it imports → ["path:line", ...]


@functools.cache
def _module_graph() -> Edges:
    """Our modules and the modules of ours each one imports, anywhere in its source (built once; read only).
    `from pkg import sub` depends on `pkg.sub`; `from pkg.mod import name` on `pkg.mod`."""
    modules = _modules()

    def owner(name: str) -> str | None:  # the longest prefix of a dotted name that is one of our modules
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: Edges = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: dict[str, list[str]] = {}
        where = str(path.relative_to(REPO))
        for node in ast.walk(_parsed(path)):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            targets: set[str | None] = set()
            if isinstance(node, ast.Import):
                targets = {owner(alias.name) for alias in node.names}
            else:
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                module = ".".join([*base, node.module] if node.module else base)
                for alias in node.names:
                    full = f"{module}.{alias.name}"
                    targets.add(full if full in modules else owner(module))
            for target in targets - {None, name}:
                assert target is not None
                out.setdefault(target, []).append(f"{where}:{node.lineno}")
        graph[name] = out
    return graph


def _circles(graph: Edges) -> list[tuple[list[str], list[str]]]:
    """Each group of modules that import each other round (Tarjan's strongly connected
    components): one shortest circle through it, as [a, b, ..., a], and all its members."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def connect(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                connect(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(group)

    for module in sorted(graph):
        if module not in index:
            connect(module)

    circles = []
    for group in groups:
        start = min(group)
        came_from: dict[str, str] = {}
        queue = deque([start])
        while queue:  # breadth first from start, inside the group, until we are back at start
            module = queue.popleft()
            if start in graph[module]:
                circle = [start]
                while module != start:
                    circle.insert(1, module)
                    module = came_from[module]
                circles.append(([*circle, start], sorted(group)))
                break
            for other in sorted(graph[module]):
                if other in group and other not in came_from and other != start:
                    came_from[other] = module
                    queue.append(other)
    return sorted(circles)


def _describe(graph: Edges, circle: list[str], group: list[str]) -> str:
    def hops(a: str, b: str) -> str:
        return ", ".join(sorted(graph[a][b], key=lambda at: (at.rpartition(":")[0], int(at.rpartition(":")[2]))))

    lines = [" → ".join(circle), *(f"  {a} → {b} ({hops(a, b)})" for a, b in zip(circle, circle[1:], strict=False))]
    if len(group) > len(circle) - 1:
        lines.append(f"  one of {len(group)} modules that import each other round: {', '.join(group)}")
    return "\n".join(lines)


def test_the_layer_order_names_every_package() -> None:
    on_disk = {p.name for p in REPO.iterdir() if (p / "__init__.py").is_file() and p.name != "tests"}
    assert on_disk == set(PACKAGES), f"declare each package's layer in LAYERS: {sorted(on_disk ^ set(PACKAGES))}"


def test_the_scan_sees_lazy_imports() -> None:
    graph = _module_graph()
    assert {"judges.base", "extractors.layout.base", "tasks.benchmark.registry", "flows.cli.app"} <= set(graph)
    # a lazy import (inside a function) is an edge: flows.cli.app builds its parser from the subcommands' modules
    assert "flows.cli.audit" in graph["flows.cli.app"]
    assert _circles({"a": {"b": []}, "b": {"c": []}, "c": {"a": [], "d": []}, "d": {}}) == \
        [(["a", "b", "c", "a"], ["a", "b", "c"])]
    assert _circles({"a": {"b": []}, "b": {}}) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_package_imports_only_layers_below_it(package: str) -> None:
    upward = {
        f"{module} → {target}": hops
        for module, targets in _module_graph().items() if module.split(".")[0] == package
        for target, hops in sorted(targets.items())
        if target.split(".")[0] != package and RANK[target.split(".")[0]] >= RANK[package]
    }
    below = [p for p in PACKAGES if RANK[p] < RANK[package]]
    assert not upward, f"{package} may import only {below} (STYLE.md rule 1; layers in tests/test_layers.py):\n" + \
        "\n".join(f"  {edge} ({', '.join(sorted(hops))})" for edge, hops in upward.items())


@pytest.mark.parametrize("package", [p for p in PACKAGES if RANK[p] < PREFECT_FROM])
def test_only_tasks_and_above_import_prefect(package: str) -> None:
    wrong = [str(p.relative_to(REPO)) for p in sorted((REPO / package).rglob("*.py")) if "prefect" in _imports(p)]
    assert not wrong, f"{package} must run without Prefect (STYLE.md rule 1): {wrong}"


def test_nothing_outside_tests_imports_the_tests() -> None:
    offenders = [str(p.relative_to(REPO)) for top in PACKAGES
                 for p in (REPO / top).rglob("*.py") if "tests" in _imports(p)]
    assert not offenders


def test_no_import_circle() -> None:
    graph = _module_graph()
    circles = _circles(graph)
    assert not circles, f"{len(circles)} import circle(s); move the shared piece into a module both can import:\n" + \
        "\n".join(_describe(graph, circle, group) for circle, group in circles)
