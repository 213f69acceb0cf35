"""Where a folder in the upstream benchmark's layout keeps its manifest: read by the corpus stage
(`corpus.manifest`) and checked by the command line before anything heavy is imported."""

from __future__ import annotations

from pathlib import Path

MANIFEST = Path("data") / "dataset.json"
