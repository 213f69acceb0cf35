"""One registry pattern for everything chosen by name: judges, category judges, layout, transcript and
tag-tree backends.

A registry declares its names and the module that implements each, so the names (and the CLI's
choices) are known without importing anything; the module is imported on first use, where it binds
its factory with ``@registry.register(name)``. An unknown name raises :class:`UnknownName`, which lists
the known ones.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class UnknownName(ValueError):
    """A name no registry entry declares; the message lists the known names."""


class Registry(Generic[T]):
    def __init__(self, what: str, declared: Mapping[str, str]) -> None:
        self.what = what  # "judge", "layout backend": used in messages
        self.declared = dict(declared)  # name -> module that registers its factory
        self._factories: dict[str, Callable[..., T]] = {}
        self._checks: dict[str, Callable[..., Any]] = {}

    def register(self, name: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """Decorator binding the factory of a declared name (in the module the declaration names)."""
        if name not in self.declared:
            raise ValueError(f"{self.what} {name!r} is not declared; add it to the registry's declarations")

        def wrap(factory: Callable[..., T]) -> Callable[..., T]:
            self._factories[name] = factory
            return factory
        return wrap

    def register_check(self, name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator binding the check of a declared name: ``check(argument, options)`` refuses what its
        factory would refuse (ValueError: a bad argument or option, missing credentials) without building
        anything, so a run is checked before it starts; what it returns is the name's to say."""
        if name not in self.declared:
            raise ValueError(f"{self.what} {name!r} is not declared; add it to the registry's declarations")

        def wrap(check: Callable[..., Any]) -> Callable[..., Any]:
            self._checks[name] = check
            return check
        return wrap

    def check(self, spec: str, options: dict[str, Any] | None = None) -> Any:
        """Check `kind` or `kind:argument` as its factory would take it, without building it: UnknownName
        for an undeclared kind, else what the kind's check returns (None when it declares none)."""
        kind, _, argument = spec.partition(":")
        self.factory(kind)  # the module binds its check as it binds its factory
        check = self._checks.get(kind)
        return check(argument or None, options or {}) if check is not None else None

    def names(self) -> list[str]:
        """Every declared name, sorted; nothing is imported (a name's packages may be missing)."""
        return sorted(self.declared)

    def require(self, name: str) -> None:
        """UnknownName unless `name` is declared; nothing is imported (a check in a process that never uses it)."""
        if name not in self.declared:
            raise UnknownName(f"unknown {self.what} {name!r}; choose one of {', '.join(self.names())}")

    def factory(self, name: str) -> Callable[..., T]:
        """The factory of `name`, importing its module on first use."""
        self.require(name)
        if name not in self._factories:
            importlib.import_module(self.declared[name])
        if name not in self._factories:
            raise RuntimeError(f"{self.declared[name]} did not register the {self.what} {name!r}")
        return self._factories[name]

    def get(self, spec: str, options: dict[str, Any] | None = None) -> T:
        """Build `kind` or `kind:argument` (e.g. ``llm:openai/gpt-4o``) as ``factory(argument, options)``."""
        kind, _, argument = spec.partition(":")
        return self.factory(kind)(argument or None, options or {})
