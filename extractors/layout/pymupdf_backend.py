"""The default backend: the layout model bundled with PyMuPDF 2.0 (``pymupdf-layout``).

``page.get_layout()`` runs a small ONNX graph network over the page's text boxes and image
features, entirely offline, and stores ``[x0, y0, x1, y1, class]`` rows on
``page.layout_information``. It gives no confidence per region, so ``score`` is None.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import importlib.util
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from common import exclusive
from extractors.layout.base import LayoutBackendError, LayoutKind, Region, register_backend, rounded_box

if TYPE_CHECKING:
    import pymupdf

# The model's eleven classes onto PubLayNet's five. PubLayNet labels section headings as
# titles and annotates captions, footnotes, formulas and running heads as text.
KIND_MAP: dict[str, LayoutKind] = {
    "text": "text",
    "title": "title",
    "section-header": "title",
    "list-item": "list",
    "table": "table",
    "picture": "figure",
    "caption": "text",
    "footnote": "text",
    "formula": "text",
    "page-header": "text",
    "page-footer": "text",
}

NEEDS_MODEL = "the 'pymupdf' layout backend needs the bundled model: pip install 'pymupdf-layout>=2,<3'"

# Regions thinner than this (points) are table rules or hairlines that the image and vector
# post-processing promotes to pictures; no real region is that thin.
MIN_SIDE = 2.0

# The model object is process-global and not safe to call from two threads at once.
_LOCK = threading.Lock()

# What the image-feature extractor keeps from its last page (its `predict` sets them all again for the next
# one, and they start as None): the decoder's feature map alone is 160 x 300 x 300 float32, ~55 MB held by
# every process that ran the model, until its next page, whose inference then peaked with both in memory.
PAGE_OUTPUTS = ("_combined", "_logits", "_raw_outputs", "_reg_coarse", "_ctr_coarse", "_reg_fine", "_ctr_fine",
                "_text_logits", "_thresh_map", "_db_map", "_detections_picture", "_detections_non_picture")


def _make_session(model_path: str, providers: list[str] | None = None) -> Any:
    """An onnxruntime session on one thread that sleeps instead of spinning between calls.

    The layout stage runs one worker process per core, so a thread pool per session only
    oversubscribes the cores: under load the default pool spent ~60% more CPU on the
    image-feature model for the same output. No memory arena, as pymupdf-layout's own
    sessions: the arena keeps each process's peak allocation for good.
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.enable_cpu_mem_arena = False
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return _OneAtATime(ort.InferenceSession(model_path, sess_options=options, providers=providers))


class _OneAtATime:
    """An onnxruntime session whose `run` is exclusive among the run's workers (`common.exclusive`).

    One inference's tensors are the model's memory peak (the image-feature network alone, ~120 MB
    for a page); two workers at that peak together were the run's. The rest of the layout work (text
    boxes, pooling, post-processing: over half of its CPU) goes on in both workers at once.
    """

    def __init__(self, session: Any) -> None:
        self._session = session

    def run(self, *args: Any, **kwargs: Any) -> Any:
        with exclusive.exclusive():
            return self._session.run(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


# Blocks of this size or more come from their own mapping, handed back whole when freed: the network's
# tensors, allocated and freed once a page (no memory arena), otherwise stayed in the heap at its
# high-water mark between trims (`tasks.engine.isolation.release_heap`) and fragmented it (~45 MB
# higher peak over the dev documents, ~15 MB more resident once the model is loaded).
MMAP_THRESHOLD = 1 << 20
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter


def _map_large_blocks() -> None:
    """glibc's ``mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)`` in this process (nothing elsewhere)."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is not None:
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def tuned_layout_function() -> Any:
    """``pymupdf._get_layout`` for a model whose sessions come from :func:`_make_session`.

    pymupdf-layout builds its model at import with default sessions and no way to pass options,
    so the model is built once more while its modules' ``make_session`` is swapped for ours;
    the first model is freed once nothing refers to it. The table-grid network is dropped (see below).
    """
    from pymupdf.layout import DocumentLayoutAnalyzer
    from pymupdf.layout.onnx import common_util

    original = common_util.make_session
    users = [m for name, m in list(sys.modules.items())
             if name.startswith("pymupdf.layout.") and getattr(m, "make_session", None) is original]
    # The table-grid network's classes, as the model's modules name them: not built at all (see below).
    layout_modules = [m for name, m in list(sys.modules.items()) if name.startswith("pymupdf.layout.") and m]
    grids = [(m, name, value) for m in layout_modules for name, value in list(vars(m).items())
             if name.startswith("TableGridExtractor") and isinstance(value, type)]
    for module in users:
        module.make_session = _make_session  # type: ignore[attr-defined]
    for module, name, _ in grids:
        setattr(module, name, _NoTableGrid)
    try:
        model = DocumentLayoutAnalyzer.get_model()
    finally:
        for module in users:
            module.make_session = original  # type: ignore[attr-defined]
        for module, name, value in grids:
            setattr(module, name, value)
    # No table-grid network: it predicts the rows and columns of each table region into the model's raw groups, which
    # only ``predict(return_raw=True)`` returns (pymupdf-layout's own find_tables with ``use_layout``); the regions that
    # ``page.get_layout`` stores (``layout_information``) are computed before it runs and never read it. Without it,
    # no session is held for it and no inference runs on a page with a table region. It is not even built: its
    # session was ~40% of building the model, which happens once per document that needs the model.
    inner: Any = getattr(model, "_model", None)
    if getattr(inner, "table_grid_extractor", None) is not None:
        inner.table_grid_extractor = None

    def get_layout(*args: Any, **kwargs: Any) -> Any:
        try:
            return model.predict(*args, **kwargs)
        finally:
            release_page_outputs(model)

    get_layout.accessbench_tuned = True  # type: ignore[attr-defined]
    get_layout.accessbench_model = model  # type: ignore[attr-defined]
    return get_layout


class _NoTableGrid:
    """Stands in for pymupdf-layout's table-grid extractor while the model is built (`tuned_layout_function`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass


def release_page_outputs(model: Any) -> None:
    """Drop what the model's image-feature extractor holds from the page it just laid out (`PAGE_OUTPUTS`).

    Not while it holds a result cached for the next call (`is_image_page` runs the network ahead of
    `predict`, which then reuses it); `page.get_layout` never leaves one.
    """
    extractor = getattr(getattr(model, "_model", None), "feature_extractor", None)
    if extractor is None or getattr(extractor, "_cached", False):
        return
    for name in PAGE_OUTPUTS:
        if getattr(extractor, name, None) is not None:
            setattr(extractor, name, None)


def _import_pymupdf_layout() -> None:
    """Import pymupdf-layout, deferred by :mod:`extractors` (see there), without its default model.

    Its import builds a model with default sessions unless ``pymupdf._get_layout`` is set; ours
    (:func:`tuned_layout_function`) replaces it right after, so the default one is never built.
    """
    import pymupdf

    if "pymupdf.layout" in sys.modules and sys.modules["pymupdf.layout"] is None:
        del sys.modules["pymupdf.layout"]
        if pymupdf._get_layout is None:
            pymupdf._get_layout = _not_loaded
    importlib.import_module("pymupdf.layout")


def _drop_model() -> None:
    """Free the model this process built (``_model_built`` builds it again when a page needs it)."""
    import pymupdf

    if getattr(pymupdf._get_layout, "accessbench_tuned", False):
        pymupdf._get_layout = _not_loaded
        gc.collect()  # the model's objects refer to each other


def _not_loaded(*args: Any, **kwargs: Any) -> Any:
    raise LayoutBackendError("the pymupdf layout model is not loaded yet")


@register_backend("pymupdf")
class PyMuPDFLayoutBackend:
    """Regions from ``page.get_layout()``; image and vector-graphic areas are added as figures."""

    name: ClassVar[str] = "pymupdf"

    @staticmethod
    def check(weights: Path | None) -> None:
        if weights is not None:
            raise LayoutBackendError(
                "the 'pymupdf' layout backend uses the model inside the pymupdf-layout wheel; "
                "drop the weights argument, or choose backend='fasterrcnn' to load weights from a file"
            )
        # Not importlib.util.find_spec("pymupdf.layout"): extractors keeps the module out of sys.modules until it
        # is used; nor PyMuPDF's own import: the run's process checks the backend without loading a PDF library.
        spec = importlib.util.find_spec("pymupdf")
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        if not any((Path(folder) / "layout" / "__init__.py").is_file() for folder in folders):
            raise LayoutBackendError(NEEDS_MODEL)

    def __init__(self, weights: Path | None = None) -> None:
        self.check(weights)
        try:
            _import_pymupdf_layout()
        except ImportError as exc:
            raise LayoutBackendError(NEEDS_MODEL) from exc
        # The model itself (~60 MB, ~0.5 s) is built by the first page to lay out (`_model_built`): the layout
        # stage checks the backend in one worker up front, and most runs' documents need few model pages or none.

    @staticmethod
    def _model_built() -> None:
        import pymupdf

        if not getattr(pymupdf._get_layout, "accessbench_tuned", False):
            _map_large_blocks()  # a process that holds the model: the layout stage's workers, stopped after it
            pymupdf._get_layout = tuned_layout_function()

    @contextmanager
    def for_document(self) -> Iterator[None]:
        """One document's pages (`extractors.layout.detect_layout`): in a pool of workers, the model is held
        by one of them at a time, built for the document's first page and dropped after its last (~60 MB a
        worker otherwise, each worker that got a page keeping its own; building it again costs ~0.5 s, and
        most documents need the model on no page)."""
        with exclusive.exclusive():
            try:
                yield
            finally:
                if exclusive.shared():
                    with _LOCK:
                        _drop_model()

    def detect(self, page: pymupdf.Page) -> list[Region]:
        # On a rotated page the model returns boxes in no consistent space (one page-sized
        # "table"), so make the page upright, in memory only, and map the boxes back.
        import pymupdf

        derotate = page.derotation_matrix
        if page.rotation:
            page.remove_rotation()
        with _LOCK:
            self._model_built()
            # filter_img_bboxes adds embedded images the network missed as pictures;
            # expand_by_vectors grows regions over the vector drawings they belong to (charts).
            page.get_layout(filter_img_bboxes=True, expand_by_vectors=True)
            rows: list[list[Any]] = list(page.layout_information or ())
        return [
            Region(
                kind=KIND_MAP.get(str(row[4]), "text"),
                raw_kind=str(row[4]),
                bbox=rounded_box(pymupdf.Rect(row[:4]) * derotate),
                score=None,
            )
            for row in rows
            if min(row[2] - row[0], row[3] - row[1]) >= MIN_SIDE
        ]

