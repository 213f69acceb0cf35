"""Defect classes of Unicode mapping (PDF/UA-1 7.21.7, Matterhorn 10-001) as pass/fail twins: a paper that
typst writes (its ToUnicode CMaps are right) and that file with its CMaps rewritten by pikepdf. All files
go through the whole pipeline once with the rules judge; each fail twin must fail fonts_readability with a
finding that carries the expected rule id, the pass twin must pass it, and every issue row has a rule id.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from tests.extractors.conftest import compile_typst
from tests.extractors.test_fonts import emptied_cmap, rewrite_tounicode, shifted_cmap, spaced_cmap
from tests.judges.twins import judge_pdfs, remove_sources

pytestmark = pytest.mark.slow

CRITERION = "fonts_readability"
PAPER = """#set document(title: "Glyph mappings")
#set text(lang: "en", size: 10.5pt)
#set page(width: 420pt, height: 595pt)
= Introduction
Accessible documents let every reader reach the same content: a screen reader speaks the text that the
Unicode mapping of each glyph names, so that mapping has to name the letters printed on the page. Office
workflows often fail here; affine fonts with ligatures (fi, fl, ffi) and quotes "like these" must not.

== Method
We measured the effect $E = m c^2$ and the sum $sum_(i=1)^n x_i^2 <= alpha beta$ over forty
documents. Each paragraph here is ordinary body text, long enough to wrap over several lines, set in one
typeface with *bold words* and _emphasis_ where the argument needs them.

== Results
Nothing in this text is a heading, a caption or a label; it is running prose that quickly judges the
wizard's jumbo vexing quiz of forty-two boxes. The numbers 0123456789 appear as well.
"""

Edit = Callable[[pikepdf.Pdf], None]
# name, the edit that makes the fail twin (None: the pass twin), the rule id it must raise
CASES: list[tuple[str, Edit | None, str | None]] = [
    ("paper", None, None),
    # (a) the mapping shifted by one code: every glyph names the letter of another glyph
    ("shifted", rewrite_tounicode(shifted_cmap), "fonts_readability.unicode_mapping.wrong_mapping"),
    # (b) every code mapped to a space: the words are drawn, a screen reader hears silence
    ("spaced", rewrite_tounicode(spaced_cmap), "fonts_readability.unicode_mapping.textless_glyphs"),
    # (b') every code mapped to nothing: MuPDF reports U+FFFD for such codes, so they are unmapped
    ("emptied", rewrite_tounicode(emptied_cmap), "fonts_readability.unicode_mapping.unmapped"),
]


def _make(folder: Path) -> None:
    folder.mkdir(parents=True)
    source = compile_typst(PAPER, folder / "paper.pdf")
    for name, edit, _ in CASES:
        if edit is None:
            continue
        with pikepdf.open(source) as pdf:
            edit(pdf)
            pdf.save(folder / f"{name}.pdf")
    remove_sources(folder)


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("font-defects")
    _make(root / "pdfs")
    judged = judge_pdfs(root / "pdfs", root / "home", [CRITERION])
    return {Path(file).stem: result for (file, criterion), result in judged.items() if criterion == CRITERION}


def test_the_typst_paper_passes(labels: dict[str, dict[str, Any]]) -> None:
    assert labels["paper"]["label"] == "passed", labels["paper"]["issues"]


@pytest.mark.parametrize(("name", "rule_id"), [(n, r) for n, e, r in CASES if e is not None])
def test_the_rewritten_mapping_fails_with_its_rule(name: str, rule_id: str,
                                                   labels: dict[str, dict[str, Any]]) -> None:
    result = labels[name]
    assert result["label"] == "failed", result["issues"]
    assert rule_id in {i.get("rule_id") for i in result["issues"]}, result["issues"]
    assert all(i.get("rule_id") for i in result["issues"]), result["issues"]
