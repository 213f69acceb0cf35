"""The pluggable backends by name, and the module implementing each: the one list the registries
(extractors.layout, extractors.transcript, extractors.structure), the CLI's choices and the flows'
forms are made from. Importing this module imports nothing else, so the CLI stays light."""

from __future__ import annotations

LAYOUT_BACKENDS = {
    "pymupdf": "extractors.layout.pymupdf_backend",
    "fasterrcnn": "extractors.layout.fasterrcnn_backend",
    "layoutparser": "extractors.layout.layoutparser_backend",
}
TRANSCRIPT_BACKENDS = {
    "emulated": "extractors.transcript.emulated",
    "aws-transcribe": "extractors.transcript.aws",
}
TAG_TREE_BACKENDS = {
    "pikepdf": "extractors.structure.records",
    "pdfix": "extractors.pdfix_backend",
}
