"""Low-level helpers every layer may use: box geometry, caption labels, the error taxonomy (`errors`),
redaction (`redact`) and the standards' thresholds more than one layer applies (`thresholds`).

This package imports nothing of AccessBench and no third-party library, so extractors, judges,
corpus and tasks can all depend on it without breaking the layer rule (tests/test_layers.py).
"""
