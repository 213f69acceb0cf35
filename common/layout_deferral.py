"""Keep pymupdf-layout's ONNX model from loading with PyMuPDF: import this before anything imports pymupdf.

`import pymupdf` imports pymupdf-layout, which builds its ONNX layout model at once (~0.6 s and
~100 MB in every process, the CLI and each worker). Only the layout stage uses it, through
extractors.layout.pymupdf_backend, which imports it then. Until then pymupdf runs as without
the package; its "consider pymupdf_layout" hint (find_tables) stays off, as the package is there.
Packages that import pymupdf (extractors, corpus) import this module first; it imports nothing heavy
itself, so a command that needs none of them (`accessbench report`) pays for nothing.
"""

from __future__ import annotations

import os
import sys

if "pymupdf" not in sys.modules:
    sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]
    os.environ.setdefault("PYMUPDF_SUGGEST_LAYOUT_ANALYZER", "0")
