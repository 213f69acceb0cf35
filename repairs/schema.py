"""The table `accessbench fix` writes (repairs/fix.py), declared apart so the table registry
(tasks/benchmark/registry.py)
can list it without importing the fix machinery, which itself runs the pipeline through the registry."""

from __future__ import annotations


