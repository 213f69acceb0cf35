"""Decision rules of the rules judge for colour contrast: a failing and a passing case per rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.contrast import judge_contrast


def span(text: str, ratio: float, run: int, *, large: bool = False, size: float = 10.0) -> dict[str, Any]:
    threshold = 3.0 if large else 4.5
    return {"text": text, "size": size, "bold": False, "color": "#aaaaaa", "background_color": "#ffffff",
            "contrast_ratio": ratio, "large_text": large, "threshold": threshold, "passes": ratio >= threshold,
            "char_count": len(text), "glyphs": len("".join(text.split())), "run": run, "bbox": [50, 50, 200, 62]}


def bundle(failing: list[dict[str, Any]], *, visible: int = 3000, figures: list[dict[str, Any]] | None = None,
           image: Path | None = None) -> PageBundle:
    values = {"spans": failing, "failing": failing, "visible_chars": visible, "document_visible_chars": visible,
              "failing_chars": sum(s["char_count"] for s in failing), "invisible_chars": 0,
              "min_ratio": min((s["contrast_ratio"] for s in failing), default=12.0), "figures": figures or []}
    evidence = {"color_values": values, "page_image": {"width_pt": 200.0, "height_pt": 200.0, "has_text": True}}
    return PageBundle("color_contrast", 3, evidence, str(image) if image else None)


def test_page_without_failing_text_passes_with_a_justification() -> None:
    result = judge_contrast(bundle([]))
    assert result.label is Label.PASSED and "4.5:1" in result.summary


def test_withheld_or_scanned_cannot_tell() -> None:
    assert judge_contrast(PageBundle("color_contrast", 1, {})).label is Label.CANNOT_TELL
    scan = PageBundle("color_contrast", 1, {"color_values": {"visible_chars": 0, "document_visible_chars": 0}})
    assert judge_contrast(scan).label is Label.CANNOT_TELL


def test_faint_sentence_fails_small_text_with_location_and_fix() -> None:
    result = judge_contrast(bundle([span("The results were clear in every region", 2.1, 0)]))
    assert result.label is Label.FAILED and result.sub_criteria["small_text"] == "failed"
    issue = result.issues[0]
    assert "Page 3" in issue.location and "The results" in issue.location and "4.5:1" in issue.remediation


def test_faint_line_split_over_spans_is_one_run() -> None:
    words = [span(w, 2.6, 0) for w in ("“How do ", "people of ", "different ", "backgrounds")]
    assert judge_contrast(bundle(words)).sub_criteria["small_text"] == "failed"


def test_isolated_label_words_are_specks() -> None:
    labels = [span(w, 2.65, i) for i, w in enumerate(("BOTANY", "BLOCKCHAIN", "DATA", "TAXONOMY"))]
    result = judge_contrast(bundle(labels))
    assert result.label is Label.PASSED


def test_many_specks_together_fail() -> None:
    labels = [span(f"w{i}x", 2.0, i) for i in range(60)]
    result = judge_contrast(bundle(labels, visible=2000))
    assert result.sub_criteria["small_text"] == "failed" and "fragments" in result.issues[0].problem


def test_faint_heading_fails_large_text() -> None:
    result = judge_contrast(bundle([span("Results", 1.9, 0, large=True, size=18.0)]))
    assert result.sub_criteria["large_text"] == "failed" and "3.0:1" in result.issues[0].problem


def test_a_large_ornament_below_a_word_is_a_speck() -> None:
    bullet = span("•", 1.9, 0, large=True, size=18.0)
    assert judge_contrast(bundle([bullet])).sub_criteria["large_text"] == "passed"


def page_with_figure(tmp_path: Path, mark: int) -> Path:
    """A white page (1 px per pt) with a light grey figure holding a bar of the given grey value."""
    pixels = np.full((200, 200, 3), 255, dtype=np.uint8)
    pixels[40:160, 40:160] = 235
    pixels[60:140, 80:100] = mark
    path = tmp_path / "page.png"
    Image.fromarray(pixels).save(path)
    return path


FIGURE = {"figure": 0, "bbox": [40, 40, 160, 160], "kind": "image", "small": False, "is_artifact": False,
          "caption": "Figure 1: Weekly volume"}


def test_washed_out_figure_fails_graphics(tmp_path: Path) -> None:
    result = judge_contrast(bundle([], figures=[FIGURE], image=page_with_figure(tmp_path, mark=200)))
    assert result.sub_criteria["graphics"] == "failed"
    assert "Figure 1" in result.issues[0].location and "1.4.11" in result.issues[0].problem


def test_figure_with_dark_marks_passes_graphics(tmp_path: Path) -> None:
    result = judge_contrast(bundle([], figures=[FIGURE], image=page_with_figure(tmp_path, mark=40)))
    assert result.label is Label.PASSED and result.sub_criteria["graphics"] == "passed"


def test_decorative_artifact_figure_is_exempt(tmp_path: Path) -> None:
    decorative = {**FIGURE, "is_artifact": True}
    result = judge_contrast(bundle([], figures=[decorative], image=page_with_figure(tmp_path, mark=200)))
    assert result.label is Label.PASSED and result.sub_criteria["decorative_exempt"] == "passed"


def test_figure_without_page_image_cannot_be_measured_but_text_still_judged() -> None:
    result = judge_contrast(bundle([], figures=[FIGURE]))
    assert result.label is Label.PASSED and result.sub_criteria["graphics"] == "cannot_tell"
