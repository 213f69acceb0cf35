"""One registry pattern: declared names (known without imports), factories bound on first use."""

from __future__ import annotations

import pytest

from common import backends
from common.registry import Registry, UnknownName


def test_names_are_declared_and_factories_load_on_first_use() -> None:
    registry: Registry[str] = Registry("greeter", {"json": "json"})
    assert registry.names() == ["json"]
    with pytest.raises(RuntimeError, match="did not register"):
        registry.factory("json")  # the module exists but binds nothing
    with pytest.raises(UnknownName, match="unknown greeter 'yaml'; choose one of json"):
        registry.factory("yaml")
    with pytest.raises(ValueError, match="not declared"):
        registry.register("yaml")


def test_every_backend_registry_resolves_each_declared_name() -> None:
    from extractors.layout.base import LAYOUT_BACKENDS
    from extractors.structure.records import TAG_TREE_BACKENDS
    from extractors.transcript.base import TRANSCRIBERS
    from judges.base import JUDGES
    from judges.inclusivity.base import CATEGORY_JUDGES

    for registry, declared in ((LAYOUT_BACKENDS, backends.LAYOUT_BACKENDS),
                               (TRANSCRIBERS, backends.TRANSCRIPT_BACKENDS),
                               (TAG_TREE_BACKENDS, backends.TAG_TREE_BACKENDS)):
        assert registry.declared == declared
    for registry in (LAYOUT_BACKENDS, TRANSCRIBERS, TAG_TREE_BACKENDS, JUDGES, CATEGORY_JUDGES):
        for name in registry.names():
            assert callable(registry.factory(name))  # every declaration is bound by its module


def test_the_cli_and_the_flow_form_offer_the_declared_backends() -> None:
    from flows.benchmark import benchmark_flow
    from flows.cli.app import build_parser

    run = build_parser()._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    shown = {a.dest: a.metavar for a in run._actions}
    assert shown["layout_backend"] == "{" + ",".join(backends.LAYOUT_BACKENDS) + "}"
    assert shown["transcript_backend"] == "{" + ",".join(backends.TRANSCRIPT_BACKENDS) + "}"
    assert shown["tag_tree_backend"] == "{" + ",".join(backends.TAG_TREE_BACKENDS) + "}"
    schema = benchmark_flow.parameters.model_dump()
    form = next(d for d in (schema.get("definitions") or {}).values() if "layout_backend" in d["properties"])
    assert form["properties"]["layout_backend"]["enum"] == list(backends.LAYOUT_BACKENDS)
    assert form["properties"]["tag_tree_backend"]["enum"] == list(backends.TAG_TREE_BACKENDS)
