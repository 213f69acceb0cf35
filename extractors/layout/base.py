"""What every layout backend shares: the region record, the backend protocol, the registry.

A backend is a class with a ``name`` and a ``detect(page)`` method, registered under that
name with :func:`register_backend`; :func:`get_backend` resolves a name (from config) to a
ready instance. Instances are cached per (name, weights), so a model file is loaded once per
process however many documents it then reads.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

import numpy as np

from common import backends
from common.registry import Registry, UnknownName

if TYPE_CHECKING:  # imported where a page is read: the registry and the checks load no PDF library
    import pymupdf

# PubLayNet's five classes; every backend maps its own classes onto these.
LayoutKind = Literal["text", "title", "list", "table", "figure"]
Box = tuple[float, float, float, float]
PUBLAYNET_KINDS: tuple[LayoutKind, ...] = ("text", "title", "list", "table", "figure")


class LayoutBackendError(RuntimeError):
    """A layout backend cannot run as configured (unknown name, missing package or weights).

    Terminal for the whole stage, not one document: the message says what to pass or install.
    """


@dataclass(frozen=True)
class Region:
    """One detected region; ``bbox`` is PDF points, top-left origin, unrotated page space."""

    kind: LayoutKind
    raw_kind: str
    bbox: Box
    score: float | None  # None when the backend gives no confidence


class LayoutBackend(Protocol):
    name: ClassVar[str]

    def detect(self, page: pymupdf.Page) -> list[Region]:
        """Regions of ``page``; may change the page in memory (never pass a page you will save)."""
        ...


BackendFactory = Callable[[Path | None], LayoutBackend]
LAYOUT_BACKENDS: Registry[LayoutBackend] = Registry("layout backend", backends.LAYOUT_BACKENDS)


def register_backend(name: str) -> Callable[[BackendFactory], BackendFactory]:
    """Class decorator: bind a declared backend name (see LAYOUT_BACKENDS) to its class."""
    return LAYOUT_BACKENDS.register(name)


def available_backends() -> tuple[str, ...]:
    """Declared backend names (declaration does not mean its packages are installed)."""
    return tuple(LAYOUT_BACKENDS.names())


def _factory(name: str) -> BackendFactory:
    try:
        return LAYOUT_BACKENDS.factory(name)
    except UnknownName as exc:
        raise LayoutBackendError(str(exc)) from None


def get_backend(name: str, weights: str | Path | None = None) -> LayoutBackend:
    """The backend registered as ``name``, loaded with ``weights``; raises LayoutBackendError."""
    _factory(name)
    # Resolve the path so the cache sees one key however the caller spells it.
    return _cached_backend(name, Path(weights).expanduser().resolve() if weights is not None else None)


def check_backend(name: str, weights: str | Path | None = None) -> None:
    """What can be known of ``name`` with ``weights`` without loading its model (unknown name, wrong
    or missing weights, package not installed); raises LayoutBackendError. A backend class declares
    this as a ``check(weights)`` static method; one without it is loaded to find out."""
    factory = _factory(name)
    path = Path(weights).expanduser().resolve() if weights is not None else None
    check = getattr(factory, "check", None)
    if check is None:
        _cached_backend(name, path)
    else:
        check(path)


@functools.lru_cache(maxsize=4)
def _cached_backend(name: str, weights: Path | None) -> LayoutBackend:
    return LAYOUT_BACKENDS.factory(name)(weights)


def clear_backend_cache() -> None:
    """Forget loaded backends (frees their models; the next call loads them again)."""
    _cached_backend.cache_clear()


def require_weights(backend: str, weights: Path | None, what: str) -> Path:
    """``weights`` if it names an existing file or folder, else a LayoutBackendError saying what to pass."""
    if weights is None:
        raise LayoutBackendError(
            f"the {backend!r} layout backend needs weights: pass weights=PATH to {what} (nothing is downloaded)"
        )
    if not weights.exists():
        raise LayoutBackendError(
            f"the {backend!r} layout backend found no weights at {weights}; pass the path to {what}"
        )
    return weights


def render_page(page: pymupdf.Page, dpi: int) -> tuple[np.ndarray, float]:
    """The page as displayed (rotation applied), as an (h, w, 3) uint8 RGB array, and the dpi
    used: lower than ``dpi`` for a page over the pixel limit (a 14,400 pt poster)."""
    import pymupdf

    from extractors.source import capped_zoom

    zoom = capped_zoom(page.rect, dpi)
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csRGB, alpha=False)
    # `samples` copies the pixels: a view would dangle once `pix` is freed.
    rows = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.h, pix.stride)
    return rows[:, : pix.w * 3].reshape(pix.h, pix.w, 3), zoom * 72


def pixels_to_page(page: pymupdf.Page, box: tuple[float, float, float, float], dpi: float) -> Box:
    """Map a box in pixels of :func:`render_page`'s image to unrotated page points."""
    import pymupdf

    return rounded_box(pymupdf.Rect(box) * pymupdf.Matrix(72 / dpi, 72 / dpi) * page.derotation_matrix)


def rounded_box(rect: pymupdf.Rect) -> Box:
    """``rect`` as a plain tuple at 0.01 pt, finer than any rendering shows."""
    return (round(rect.x0, 2), round(rect.y0, 2), round(rect.x1, 2), round(rect.y1, 2))
