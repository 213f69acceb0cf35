"""Corpus sources for AccessBench: the upstream benchmark layout, samplers and the synthetic generator."""
