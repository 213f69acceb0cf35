"""Layout detection: the bundled PyMuPDF model on a generated page, the registry, backend errors."""

from __future__ import annotations

import importlib.util
import io
import time
from pathlib import Path
from typing import Any

import numpy as np
import pikepdf
import pymupdf
import pytest
import typst
from PIL import Image

from extractors.errors import ExtractionError
from extractors.layout import (
    PUBLAYNET_KINDS,
    LayoutBackendError,
    available_backends,
    detect_layout,
    fasterrcnn_backend,
    get_backend,
    layout_file,
    pymupdf_backend,
)
from extractors.layout.layoutparser_backend import model_files
from tasks.benchmark.work.layout import layout_document, layout_item_of
from warehouse.schema import conform
from warehouse.tables import LAYOUT_PAGES_SCHEMA, LAYOUT_SCHEMA

HAS_TORCHVISION = importlib.util.find_spec("torchvision") is not None
HAS_LAYOUTPARSER = importlib.util.find_spec("layoutparser") is not None
IMAGE_RECT = (100.0, 330.0, 300.0, 450.0)  # where the test page draws its picture, in points

PAGE_SOURCE = """#set page(width: 400pt, height: 560pt, margin: 40pt)
#set text(size: 10pt)
= Results

The measurements below were collected over twelve weeks at four sites and summarised per site.

#table(columns: 3, table.header([*Site*], [*Mean*], [*Count*]),
  [Harbour], [41], [12], [Old Town], [37], [15], [Riverside], [52], [9], [Station], [44], [11])

#place(top + left, dx: 60pt, dy: 290pt, image("chart.png", width: 200pt, height: 120pt))
"""


def _chart_png() -> bytes:
    img = np.full((120, 200, 3), 255, dtype=np.uint8)
    img[20:110, 20:50] = (31, 119, 180)
    img[50:110, 80:110] = (214, 39, 40)
    img[70:110, 140:170] = (44, 160, 44)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def table_and_figure_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layout")
    (root / "main.typ").write_text(PAGE_SOURCE, encoding="utf-8")
    (root / "chart.png").write_bytes(_chart_png())
    path = root / "page.pdf"
    path.write_bytes(typst.compile(str(root / "main.typ"), root=str(root), format="pdf"))
    return path


def _iou(a: list[float] | tuple[float, ...], b: list[float] | tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 0.0


def test_pymupdf_backend_finds_the_table_and_the_figure(table_and_figure_pdf: Path) -> None:
    records = detect_layout(table_and_figure_pdf, doc_id="L1", page_offset=4)
    kinds = {r["kind"] for r in records}
    assert {"table", "figure", "title", "text"} <= kinds
    figure = next(r for r in records if r["kind"] == "figure")
    assert figure["raw_kind"] == "picture"
    assert _iou(figure["bbox"], IMAGE_RECT) > 0.9
    assert all(r["page"] == 5 and r["backend"] == "pymupdf" and r["score"] is None for r in records)
    assert [r["region_index"] for r in records] == list(range(len(records)))
    conform(records, LAYOUT_SCHEMA, "layout_regions")


def test_rotated_page_boxes_stay_in_unrotated_page_space(table_and_figure_pdf: Path, tmp_path: Path) -> None:
    doc = pymupdf.open(table_and_figure_pdf)
    doc[0].set_rotation(90)
    doc.save(tmp_path / "rotated.pdf")
    figures = [r for r in detect_layout(tmp_path / "rotated.pdf", doc_id="L1") if r["kind"] == "figure"]
    assert max(_iou(r["bbox"], IMAGE_RECT) for r in figures) > 0.9


def test_every_backend_class_maps_onto_publaynet() -> None:
    assert set(pymupdf_backend.KIND_MAP.values()) == set(PUBLAYNET_KINDS)
    assert pymupdf_backend.KIND_MAP["picture"] == "figure" and pymupdf_backend.KIND_MAP["section-header"] == "title"
    assert fasterrcnn_backend.LABELS == {1: "text", 2: "title", 3: "list", 4: "table", 5: "figure"}
    assert fasterrcnn_backend.NUM_CLASSES == 6


def test_registry_knows_the_three_backends() -> None:
    assert available_backends() == ("fasterrcnn", "layoutparser", "pymupdf")
    assert get_backend("pymupdf") is get_backend("pymupdf")  # loaded once per process


def test_unknown_backend_names_the_choices(table_and_figure_pdf: Path) -> None:
    with pytest.raises(LayoutBackendError, match="unknown layout backend 'yolo'.*fasterrcnn, layoutparser, pymupdf"):
        detect_layout(table_and_figure_pdf, doc_id="L1", backend="yolo")


def test_pymupdf_backend_refuses_weights(tmp_path: Path) -> None:
    with pytest.raises(LayoutBackendError, match="drop the weights argument"):
        get_backend("pymupdf", tmp_path)


def test_fasterrcnn_without_weights_says_what_to_pass(table_and_figure_pdf: Path) -> None:
    with pytest.raises(LayoutBackendError, match=r"'fasterrcnn' layout backend needs weights: pass weights=PATH"):
        detect_layout(table_and_figure_pdf, doc_id="L1", backend="fasterrcnn")


def test_fasterrcnn_with_a_missing_weights_file_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "publaynet.pth"
    with pytest.raises(LayoutBackendError, match=f"no weights at {missing}"):
        get_backend("fasterrcnn", missing)


@pytest.mark.skipif(HAS_TORCHVISION, reason="torchvision is installed here")
def test_fasterrcnn_without_torchvision_gives_the_install_command(tmp_path: Path) -> None:
    weights = tmp_path / "publaynet.pth"
    weights.write_bytes(b"not used")
    with pytest.raises(LayoutBackendError, match=r"pip install torch==2\.14\.1 torchvision==0\.29\.1"):
        get_backend("fasterrcnn", weights)


def test_layoutparser_needs_config_beside_the_weights(tmp_path: Path) -> None:
    with pytest.raises(LayoutBackendError, match="needs weights"):
        get_backend("layoutparser")
    (tmp_path / "model_final.pth").write_bytes(b"x")
    with pytest.raises(LayoutBackendError, match="config.yaml"):
        get_backend("layoutparser", tmp_path)
    (tmp_path / "config.yaml").write_text("MODEL: {}\n")
    assert model_files(tmp_path) == (tmp_path / "config.yaml", tmp_path / "model_final.pth")
    assert model_files(tmp_path / "model_final.pth") == (tmp_path / "config.yaml", tmp_path / "model_final.pth")


@pytest.mark.skipif(HAS_LAYOUTPARSER, reason="layoutparser is installed here")
def test_layoutparser_not_installed_gives_the_install_command(tmp_path: Path) -> None:
    (tmp_path / "model_final.pth").write_bytes(b"x")
    (tmp_path / "config.yaml").write_text("MODEL: {}\n")
    with pytest.raises(LayoutBackendError, match="pip install 'layoutparser"):
        get_backend("layoutparser", tmp_path)


def test_unreadable_pdf_raises_extraction_error(tmp_path: Path) -> None:
    with pytest.raises(ExtractionError):
        detect_layout(tmp_path / "absent.pdf", doc_id="X")


@pytest.mark.skipif(not HAS_TORCHVISION, reason=f"needs torch and torchvision: {fasterrcnn_backend.INSTALL}")
def test_fasterrcnn_loads_a_saved_state_dict_and_detects(table_and_figure_pdf: Path, tmp_path: Path) -> None:
    import torch
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.detection.fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None, num_classes=6)
    weights = tmp_path / "random.pth"
    torch.save({"model": model.state_dict()}, weights)  # the checkpoint form training scripts write
    backend = fasterrcnn_backend.FasterRCNNLayoutBackend(weights, min_score=0.0)
    with pymupdf.open(table_and_figure_pdf) as doc:
        regions = backend.detect(doc[0])
    assert regions, "an untrained model still proposes boxes at min_score=0"
    for region in regions:
        assert region.kind in PUBLAYNET_KINDS and region.raw_kind == region.kind
        assert 0.0 <= region.score <= 1.0
        x0, y0, x1, y1 = region.bbox
        assert 0 <= x0 <= x1 <= 400.5 and 0 <= y0 <= y1 <= 560.5  # page points, not pixels

    wrong = tmp_path / "wrong.pth"
    torch.save(torchvision.models.detection.fasterrcnn_resnet50_fpn(
        weights=None, weights_backbone=None, num_classes=3).state_dict(), wrong)
    with pytest.raises(LayoutBackendError, match="do not fit the model"):
        fasterrcnn_backend.FasterRCNNLayoutBackend(wrong)
    garbage = tmp_path / "garbage.pth"
    garbage.write_bytes(b"not a checkpoint")
    with pytest.raises(LayoutBackendError, match="cannot read layout weights"):
        fasterrcnn_backend.FasterRCNNLayoutBackend(garbage)


# --------------------------------------------------------------------------- which pages the model runs on


def _retag(src: Path, dst: Path, tag: str) -> Path:
    """``src`` with its ``tag`` element re-tagged as a Div: the tags no longer account for that content."""
    with pikepdf.open(src) as pdf:
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/S") == pikepdf.Name("/" + tag):
                obj.S = pikepdf.Name.Div
        pdf.save(dst)
    return dst


def test_pages_the_tags_account_for_are_not_laid_out(table_and_figure_pdf: Path) -> None:
    regions, pages = layout_file(table_and_figure_pdf, doc_id="L1", page_offset=2)
    assert regions == []  # the chart is a tagged Figure and the table a tagged Table
    assert pages == [{"doc_id": "L1", "page": 3, "ran": False, "reason": "covered_by_tags", "backend": "pymupdf"}]
    conform(pages, LAYOUT_PAGES_SCHEMA, "layout_pages")


def test_an_image_or_a_table_the_tags_miss_gets_the_model(table_and_figure_pdf: Path, tmp_path: Path) -> None:
    image = _retag(table_and_figure_pdf, tmp_path / "figure-as-div.pdf", "Figure")
    regions, pages = layout_file(image, doc_id="L1")
    assert [(p["ran"], p["reason"]) for p in pages] == [(True, "untagged_image")]
    assert any(r["kind"] == "figure" and _iou(r["bbox"], IMAGE_RECT) > 0.9 for r in regions)
    table = _retag(table_and_figure_pdf, tmp_path / "table-as-div.pdf", "Table")
    regions, pages = layout_file(table, doc_id="L1")
    assert [(p["ran"], p["reason"]) for p in pages] == [(True, "table_candidate")]
    assert any(r["kind"] == "table" for r in regions)


def test_a_text_only_page_is_skipped_and_every_page_runs_when_asked(tagged_pdf: Path) -> None:
    regions, pages = layout_file(tagged_pdf, doc_id="T")
    assert [(p["page"], p["ran"], p["reason"]) for p in pages] == [(1, False, "covered_by_tags"),
                                                                  (2, False, "text_only")]
    regions, pages = layout_file(tagged_pdf, doc_id="T", all_pages=True)
    assert [(p["ran"], p["reason"]) for p in pages] == [(True, "every_page")] * 2
    assert {r["page"] for r in regions} == {1, 2}


def test_a_file_whose_pages_need_no_model_never_loads_it(tagged_pdf: Path) -> None:
    """A worker that lays out only text pages does not hold the model (~50 MB)."""
    from extractors.layout import clear_backend_cache
    from extractors.layout.base import _cached_backend

    clear_backend_cache()
    regions, pages = layout_file(tagged_pdf, doc_id="T")
    assert regions == [] and not any(p["ran"] for p in pages)
    assert _cached_backend.cache_info().currsize == 0


def test_the_stage_numbers_pages_on_across_files_and_records_every_page(table_and_figure_pdf: Path,
                                                                        tagged_pdf: Path, tmp_path: Path) -> None:
    untagged = _retag(table_and_figure_pdf, tmp_path / "figure-as-div.pdf", "Figure")
    doc = {"doc_id": "D", "criterion": "table_structure", "root": "/", "files": [str(tagged_pdf), str(untagged)]}
    out = layout_document("r1", "pymupdf", None, "evidence", layout_item_of(doc, [doc]))
    assert out["errors"] == []
    assert [(p["page"], p["reason"]) for p in out["layout_pages"]] == [
        (1, "covered_by_tags"), (2, "text_only"), (3, "untagged_image")]
    assert out["layout_regions"] and {r["page"] for r in out["layout_regions"]} == {3}
    assert all(r["run_id"] == "r1" for r in out["layout_pages"] + out["layout_regions"])


def test_tuned_sessions_run_on_one_thread_and_find_what_the_default_sessions_find(table_and_figure_pdf: Path) -> None:
    from pymupdf.layout import DocumentLayoutAnalyzer

    with pymupdf.open(table_and_figure_pdf) as doc:
        get_backend("pymupdf").detect(doc[0])  # the first page to lay out builds the model
    assert getattr(pymupdf._get_layout, "accessbench_tuned", False)
    # No table-grid network (it fills only predict(return_raw=True)'s groups); the default model has one.
    tuned_layout: Any = pymupdf._get_layout
    assert tuned_layout.accessbench_model._model.table_grid_extractor is None
    options = pymupdf_backend._make_session(str(Path(pymupdf.__file__).parent / "layout" / "resources" / "onnx"
                                                 / "feature_imf1.onnx")).get_session_options()
    assert options.intra_op_num_threads == 1 and options.enable_cpu_mem_arena is False
    default = DocumentLayoutAnalyzer.get_model()  # pymupdf-layout's own sessions
    with pymupdf.open(table_and_figure_pdf) as doc:
        page = doc[0]  # one Page object: `doc[0]` makes a new one, without the regions
        page.get_layout(filter_img_bboxes=True, expand_by_vectors=True)
        tuned = page.layout_information
    with pymupdf.open(table_and_figure_pdf) as doc:
        tuned_fn, pymupdf._get_layout = pymupdf._get_layout, default.predict
        try:
            page = doc[0]
            page.get_layout(filter_img_bboxes=True, expand_by_vectors=True)
        finally:
            pymupdf._get_layout = tuned_fn
        assert page.layout_information == tuned
    assert default._model.table_grid_extractor is not None and any(row[4] == "table" for row in tuned)


def test_the_model_keeps_nothing_of_a_page_and_runs_its_networks_one_worker_at_a_time(
        table_and_figure_pdf: Path) -> None:
    """The image features of the last page (~55 MB) are dropped once it is laid out; every session's
    inference is exclusive among the run's workers (`common.exclusive`)."""
    backend = get_backend("pymupdf")
    with pymupdf.open(table_and_figure_pdf) as doc:
        assert {r.kind for r in backend.detect(doc[0])} >= {"table", "figure"}
    extractor = pymupdf._get_layout.accessbench_model._model.feature_extractor  # type: ignore[attr-defined]
    assert isinstance(extractor._session, pymupdf_backend._OneAtATime)
    assert extractor._combined is None and extractor._logits is None
    assert all(getattr(extractor, name, None) is None for name in pymupdf_backend.PAGE_OUTPUTS)


@pytest.mark.heavy  # seconds of CPU: make test runs it, make test-fast leaves it out
def test_in_a_pool_the_model_is_held_for_one_document_at_a_time(table_and_figure_pdf: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker of a pool (a shared lock, `common.exclusive`) builds the model for a document's pages and drops
    it after them; the regions are those of a process that keeps it."""
    import threading

    from common import exclusive

    kept = detect_layout(table_and_figure_pdf, doc_id="d")
    assert getattr(pymupdf._get_layout, "accessbench_tuned", False)  # no pool: kept
    monkeypatch.setattr(exclusive, "_lock", threading.Lock())
    monkeypatch.setattr(exclusive, "WAIT_S", 5.0)  # a block inside another must not wait for the lock
    started = time.monotonic()
    assert detect_layout(table_and_figure_pdf, doc_id="d") == kept
    assert time.monotonic() - started < 60 and not exclusive._warned
    assert not getattr(pymupdf._get_layout, "accessbench_tuned", False)
    assert detect_layout(table_and_figure_pdf, doc_id="d") == kept  # built again for the next document


def test_the_layout_model_loads_only_in_processes_that_lay_out_pages(table_and_figure_pdf: Path) -> None:
    """pymupdf imports its layout model at import; extractors defers it to the layout backend."""
    import subprocess
    import sys

    script = (
        "import sys, io, contextlib, corpus.screening, pymupdf\n"
        "assert pymupdf._get_layout is None and sys.modules['pymupdf.layout'] is None\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), pymupdf.open(sys.argv[1]) as doc:\n"
        "    doc[0].find_tables()\n"
        "assert out.getvalue() == '', out.getvalue()  # no 'consider pymupdf_layout' hint\n"
        "from extractors.layout import get_backend\n"
        "backend = get_backend('pymupdf')  # checked (as the stage does up front), no model built\n"
        "assert not getattr(pymupdf._get_layout, 'accessbench_tuned', False)\n"
        "with pymupdf.open(sys.argv[1]) as doc:\n"
        "    kinds = {r.kind for r in backend.detect(doc[0])}  # the first page to lay out builds it\n"
        "assert {'table', 'figure'} <= kinds, kinds\n"
        "assert getattr(pymupdf._get_layout, 'accessbench_tuned', False)\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", script, str(table_and_figure_pdf)], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]


@pytest.mark.heavy  # seconds of CPU: make test runs it, make test-fast leaves it out
def test_records_are_the_same_without_pymupdf4llm_as_with_it(table_and_figure_pdf: Path) -> None:
    """common.layout_deferral keeps pymupdf4llm (and onnxruntime) out of every process and makes the settings
    its import made; layout, extraction and renders stay as they were with it imported (the plain path)."""
    import subprocess
    import sys

    script = (
        "import sys, json, tempfile\n"
        "if sys.argv[2] == 'plain':\n"
        "    import pymupdf\n"  # imported before the deferral: pymupdf4llm comes with it, as it used to
        "import extractors\n"
        "from extractors.layout import layout_file\n"
        "from extractors.pages import render_pages\n"
        "from tasks.benchmark.work.extract import extract_file\n"
        "assert (sys.modules.get('pymupdf4llm') is None) == (sys.argv[2] == 'deferred')\n"
        "tmp = tempfile.mkdtemp()\n"
        "out = [layout_file(sys.argv[1], doc_id='D', all_pages=True), extract_file(sys.argv[1], 'D', 0, 0,\n"
        "       __import__('pathlib').Path(tmp), 72, []), render_pages(sys.argv[1], doc_id='D', out_dir=tmp)]\n"
        "import pymupdf\n"
        "tools = pymupdf.TOOLS\n"
        "out.append([tools.unset_quad_corrections(), tools.mupdf_display_errors(), tools.mupdf_display_warnings()])\n"
        "print(json.dumps(out, sort_keys=True, default=str).replace(tmp, 'TMP'))\n"
    )
    outputs = []
    for mode in ("plain", "deferred"):
        result = subprocess.run([sys.executable, "-c", script, str(table_and_figure_pdf), mode], capture_output=True,
                                text=True, cwd=Path(__file__).resolve().parents[2], timeout=300)
        assert result.returncode == 0, result.stderr[-2000:]
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1] and '"kind": "table"' in outputs[0]


def test_a_backend_is_checked_without_loading_its_model(tmp_path: Path) -> None:
    """What the CLI checks before a run: the name, the weights, the packages; no model is built."""
    from extractors.layout import check_backend, clear_backend_cache
    from extractors.layout.base import _cached_backend

    clear_backend_cache()
    check_backend("pymupdf")
    assert _cached_backend.cache_info().currsize == 0
    with pytest.raises(LayoutBackendError, match="drop the weights argument"):
        check_backend("pymupdf", tmp_path)
    with pytest.raises(LayoutBackendError, match="unknown layout backend 'yolo'"):
        check_backend("yolo")
    with pytest.raises(LayoutBackendError, match="needs weights"):
        check_backend("fasterrcnn")
    with pytest.raises(LayoutBackendError, match="found no weights"):
        check_backend("fasterrcnn", tmp_path / "missing.pth")
    with pytest.raises(LayoutBackendError, match="config.yaml"):
        check_backend("layoutparser", tmp_path)
