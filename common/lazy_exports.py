"""Names a package exports but imports only when first asked for (PEP 562).

A package whose modules load PyMuPDF, pikepdf or a model runtime exports their functions this way, so that a
process importing one light part of it (the run's own process, which never reads a PDF; issue 56) does not load
the rest. `from package import name` and `package.name` work as with an eager import.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(namespace: dict[str, Any], exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `namespace` (the package's globals()): each name of `exports` from the module
    it names, imported on first use and kept in the namespace."""
    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value
    return __getattr__
