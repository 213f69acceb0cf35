"""Corpus sources for AccessBench: the upstream benchmark layout, samplers and the synthetic generator."""

import common.layout_deferral  # noqa: F401 - first, so pymupdf's layout model loads only where it is used
