"""layoutparser + detectron2 with the PubLayNet Faster R-CNN config, from local files.

``weights`` names either a folder holding ``config.yaml`` and ``model_final.pth`` (the layout
of layoutparser's model zoo downloads), or the ``.pth`` file with ``config.yaml`` beside it.
layoutparser's ``lp://`` catalogue paths download at run time, which this backend never does.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from extractors.layout.base import (
    LayoutBackendError,
    LayoutKind,
    Region,
    pixels_to_page,
    register_backend,
    render_page,
    require_weights,
)

if TYPE_CHECKING:
    import pymupdf

# layoutparser's PubLayNet label map (detectron2 class index -> name), and its names as kinds.
LABEL_MAP: dict[int, str] = {0: "Text", 1: "Title", 2: "List", 3: "Table", 4: "Figure"}
KIND_MAP: dict[str, LayoutKind] = {
    "Text": "text", "Title": "title", "List": "list", "Table": "table", "Figure": "figure",
}
MIN_SCORE = 0.5
RENDER_DPI = 72
INSTALL = "pip install 'layoutparser>=0.3,<0.4', then build detectron2 from source (it is not on PyPI)"
WEIGHTS_HELP = "a folder with config.yaml and model_final.pth from layoutparser's PubLayNet faster_rcnn_R_50_FPN_3x"


def model_files(weights: Path) -> tuple[Path, Path]:
    """(config.yaml, model .pth) for ``weights``, or a LayoutBackendError naming what is missing."""
    config, model = (weights / "config.yaml", weights / "model_final.pth") if weights.is_dir() else (
        weights.with_name("config.yaml"), weights)
    for needed in (config, model):
        if not needed.is_file():
            raise LayoutBackendError(f"the 'layoutparser' layout backend found no {needed}; pass {WEIGHTS_HELP}")
    return config, model


def _import_layoutparser() -> Any:
    try:
        import layoutparser
    except ImportError as exc:
        raise LayoutBackendError(
            f"the 'layoutparser' layout backend needs layoutparser and detectron2: {INSTALL}"
        ) from exc
    if not layoutparser.is_detectron2_available():
        raise LayoutBackendError(f"the 'layoutparser' layout backend needs detectron2: {INSTALL}")
    return layoutparser


@register_backend("layoutparser")
class LayoutParserBackend:
    """detectron2's PubLayNet model through layoutparser on the rendered page."""

    name: ClassVar[str] = "layoutparser"

    @staticmethod
    def check(weights: Path | None) -> None:
        model_files(require_weights("layoutparser", weights, WEIGHTS_HELP))
        if importlib.util.find_spec("layoutparser") is None or importlib.util.find_spec("detectron2") is None:
            raise LayoutBackendError(f"the 'layoutparser' layout backend needs layoutparser and detectron2: {INSTALL}")

    def __init__(self, weights: Path | None = None) -> None:
        config, model = model_files(require_weights(self.name, weights, WEIGHTS_HELP))
        lp = _import_layoutparser()
        self.model = lp.Detectron2LayoutModel(
            config_path=str(config), model_path=str(model), label_map=LABEL_MAP,
            extra_config=["MODEL.ROI_HEADS.SCORE_THRESH_TEST", MIN_SCORE, "MODEL.DEVICE", "cpu"],
        )

    def detect(self, page: pymupdf.Page) -> list[Region]:
        from PIL import Image

        # A PIL image: layoutparser converts those to the BGR order detectron2 expects.
        pixels, dpi = render_page(page, RENDER_DPI)
        image = Image.fromarray(pixels)
        regions = []
        for block in self.model.detect(image):
            raw = str(block.type)
            if raw not in KIND_MAP:
                continue
            x0, y0, x1, y1 = (float(v) for v in block.coordinates)
            box = pixels_to_page(page, (x0, y0, x1, y1), dpi)
            regions.append(Region(KIND_MAP[raw], raw, box, round(float(block.score), 4)))
        return regions
