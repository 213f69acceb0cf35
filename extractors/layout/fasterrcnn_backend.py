"""Faster R-CNN (ResNet-50 FPN, torchvision) trained on PubLayNet, from a local weights file.

Nothing is downloaded: the user names a ``state_dict`` saved from
``torchvision.models.detection.fasterrcnn_resnet50_fpn(num_classes=6)`` (background plus
PubLayNet's five classes in its category order) or a checkpoint holding one under ``model``.
torch and torchvision are imported only when this backend is chosen.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from extractors.layout.base import (
    PUBLAYNET_KINDS,
    LayoutBackendError,
    Region,
    pixels_to_page,
    register_backend,
    render_page,
    require_weights,
)

if TYPE_CHECKING:
    import pymupdf

# PubLayNet's category ids: 1 text, 2 title, 3 list, 4 table, 5 figure; 0 is background.
LABELS: dict[int, str] = {i + 1: kind for i, kind in enumerate(PUBLAYNET_KINDS)}
NUM_CLASSES = len(LABELS) + 1
MIN_SCORE = 0.5
# PubLayNet's page images are about 612 x 792 pixels, i.e. 72 dpi; the model resizes anyway.
RENDER_DPI = 72
INSTALL = "pip install torch==2.14.1 torchvision==0.29.1 (torchvision 0.28 does not import beside torch 2.13)"
WEIGHTS_HELP = (
    "a torchvision fasterrcnn_resnet50_fpn state_dict (.pth) trained on PubLayNet with 6 classes "
    "(background, text, title, list, table, figure)"
)


def import_torchvision() -> tuple[Any, Any]:
    """(torch, torchvision), or a LayoutBackendError with the install command."""
    try:
        import torch
        import torchvision
    except ImportError as exc:  # also raised when torchvision does not match the installed torch
        raise LayoutBackendError(
            f"the 'fasterrcnn' layout backend needs torch and torchvision: {INSTALL} ({exc})"
        ) from exc
    return torch, torchvision


@register_backend("fasterrcnn")
class FasterRCNNLayoutBackend:
    """PubLayNet Faster R-CNN on the rendered page; regions below ``min_score`` are dropped."""

    name: ClassVar[str] = "fasterrcnn"

    @staticmethod
    def check(weights: Path | None) -> None:
        require_weights("fasterrcnn", weights, WEIGHTS_HELP)
        missing = [name for name in ("torch", "torchvision") if importlib.util.find_spec(name) is None]
        if missing:
            raise LayoutBackendError(f"the 'fasterrcnn' layout backend needs torch and torchvision: {INSTALL} "
                                     f"(not installed: {', '.join(missing)})")

    def __init__(self, weights: Path | None = None, *, min_score: float = MIN_SCORE) -> None:
        path = require_weights(self.name, weights, WEIGHTS_HELP)
        self._torch, torchvision = import_torchvision()
        self.min_score = min_score
        self.model = torchvision.models.detection.fasterrcnn_resnet50_fpn(
            weights=None, weights_backbone=None, num_classes=NUM_CLASSES
        )
        self.model.load_state_dict(self._load_state_dict(path))
        self.model.eval()

    def _load_state_dict(self, path: Path) -> dict[str, Any]:
        try:
            # weights_only: a .pth is a pickle, and this refuses to run code hidden in one.
            state = self._torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - torch raises many kinds for a bad file
            raise LayoutBackendError(f"cannot read layout weights {path} ({exc}); pass {WEIGHTS_HELP}") from exc
        if isinstance(state, dict) and isinstance(state.get("model"), dict):
            state = state["model"]  # a training checkpoint rather than a bare state_dict
        if not isinstance(state, dict):
            raise LayoutBackendError(f"layout weights {path} hold a {type(state).__name__}, not a state_dict; "
                                     f"pass {WEIGHTS_HELP}")
        expected = self.model.state_dict()
        wrong = [k for k, v in state.items() if k in expected and tuple(v.shape) != tuple(expected[k].shape)]
        missing = sorted(set(expected) - set(state))
        if wrong or missing:
            detail = f"shape mismatch in {wrong[:3]}" if wrong else f"missing {missing[:3]}"
            raise LayoutBackendError(f"layout weights {path} do not fit the model ({detail}); pass {WEIGHTS_HELP}")
        return state

    def detect(self, page: pymupdf.Page) -> list[Region]:
        image, dpi = render_page(page, RENDER_DPI)
        tensor = self._torch.from_numpy(image.copy()).permute(2, 0, 1).float().div(255.0)
        with self._torch.inference_mode():
            output = self.model([tensor])[0]
        regions = []
        for box, label, score in zip(output["boxes"].tolist(), output["labels"].tolist(),
                                     output["scores"].tolist(), strict=True):
            if score < self.min_score or label not in LABELS:
                continue
            kind = PUBLAYNET_KINDS[label - 1]
            x0, y0, x1, y1 = box
            regions.append(Region(kind, kind, pixels_to_page(page, (x0, y0, x1, y1), dpi), round(score, 4)))
        return regions
