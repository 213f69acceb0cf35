"""Corpus sources for AccessBench: the upstream benchmark layout, samplers and the synthetic generator."""

import extractors  # noqa: F401,E402 - first, so pymupdf's layout model loads only where it is used
