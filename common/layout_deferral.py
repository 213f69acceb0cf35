"""Keep pymupdf-layout's ONNX model from loading with PyMuPDF: import this before anything imports pymupdf.

`import pymupdf` imports pymupdf-layout, which builds its ONNX layout model at once (~0.6 s and
~100 MB in every process, the CLI and each worker). Only the layout stage uses it, through
extractors.layout.pymupdf_backend, which imports it then. Until then pymupdf runs as without
the package; its "consider pymupdf_layout" hint (find_tables) stays off, as the package is there.
Packages that import pymupdf (extractors, corpus) import this module first; it imports nothing heavy
itself, so a command that needs none of them (`accessbench report`) pays for nothing.

pymupdf also imports pymupdf4llm (Markdown and OCR helpers, which nothing here uses), and with it
onnxruntime, tqdm and psutil: ~22 MB in the CLI, the fork server and every worker. It is kept out too, but
its import changed PyMuPDF for every later extraction (text boxes without MuPDF's quad corrections, MuPDF's
diagnostics kept rather than printed): the stand-in below makes those settings at the moment pymupdf would
have imported it, then reports the package as absent, which pymupdf accepts. A test compares the records.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from types import ModuleType


class _SettingsOfPymupdf4llm(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``pymupdf4llm`` for pymupdf's import of it: makes its settings, then raises ImportError."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        return importlib.machinery.ModuleSpec(name, self) if name == "pymupdf4llm" else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        pymupdf = sys.modules.get("pymupdf")
        if pymupdf is not None and hasattr(pymupdf, "TOOLS"):
            pymupdf.TOOLS.unset_quad_corrections(True)
            pymupdf.TOOLS.mupdf_display_errors(False)
            pymupdf.TOOLS.mupdf_display_warnings(False)
        raise ImportError("pymupdf4llm is kept out of AccessBench's processes (common.layout_deferral)")


if "pymupdf" not in sys.modules:
    sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]
    if "pymupdf4llm" not in sys.modules:
        sys.meta_path.insert(0, _SettingsOfPymupdf4llm())
    os.environ.setdefault("PYMUPDF_SUGGEST_LAYOUT_ANALYZER", "0")
