"""One registry pattern for judges found by name: `kind` or `kind:argument` (e.g. `llm:openai/gpt-4o`).

A registry knows the modules that register its kinds, imports them on first lookup (so heavy
dependencies load only when a kind is used), and says what is available when a name is unknown.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
Factory = Callable[[str | None, dict[str, Any]], T]


class Registry(Generic[T]):
    def __init__(self, what: str, plugins: tuple[str, ...]) -> None:
        self.what = what  # "judge", "category judge": used in messages
        self.plugins = plugins  # modules whose import registers the kinds
        self._factories: dict[str, Factory[T]] = {}

    def register(self, kind: str) -> Callable[[Factory[T]], Factory[T]]:
        def wrap(factory: Factory[T]) -> Factory[T]:
            self._factories[kind] = factory
            return factory
        return wrap

    def kinds(self) -> list[str]:
        self._load()
        return sorted(self._factories)

    def get(self, spec: str, options: dict[str, Any] | None = None) -> T:
        """Build the `kind:argument` named by `spec`; an unknown kind raises ValueError listing the known ones."""
        self._load()
        kind, _, argument = spec.partition(":")
        factory = self._factories.get(kind)
        if factory is None:
            raise ValueError(f"unknown {self.what} {spec!r}; available: {', '.join(sorted(self._factories))}")
        return factory(argument or None, options or {})

    def _load(self) -> None:
        for module in self.plugins:
            importlib.import_module(module)
