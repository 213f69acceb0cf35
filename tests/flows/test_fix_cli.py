"""`accessbench fix` from the command line: one file (judged in a scratch home, output only at --out), a
finished run's documents (--run, --doc), the before → after report and the list of what remains, and the
refusals (the original as --out, a file and a run at once, a run that does not exist)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from flows.cli import main
from tasks.fix import judge_folder, linked_run
from tests.extractors.conftest import compile_typst
from tests.judges.twins import PREAMBLE, prose, remove_sources

pytestmark = pytest.mark.slow

ARTICLE = (PREAMBLE + "= Introduction\n" + prose(3) + "\n\n== Background of the work\n" + prose(3, 1) + "\n\n"
           + "= Methods\n" + prose(2, 2) + "\n")


def _skip_and_no_lang(pdf: pikepdf.Pdf) -> None:
    """H2 retagged H4 (a level skip) and the document /Lang dropped."""
    for element in _walk(pdf.Root.StructTreeRoot):
        if element.get("/S") == "/H2":
            element.S = pikepdf.Name.H4
    del pdf.Root["/Lang"]


def _walk(node: Any) -> list[pikepdf.Dictionary]:
    found = []
    k = node.get("/K")
    for kid in (k if isinstance(k, pikepdf.Array) else [k] if k is not None else []):
        if isinstance(kid, pikepdf.Dictionary) and "/S" in kid:
            found.append(kid)
            found += _walk(kid)
    return found


def _skip_one_level(pdf: pikepdf.Pdf) -> None:
    """H2 retagged H3: the first H1 is followed by an H3."""
    for element in _walk(pdf.Root.StructTreeRoot):
        if element.get("/S") == "/H2":
            element.S = pikepdf.Name.H3


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fixcli") / "pdfs"
    folder.mkdir()
    for name, edit in (("skip", _skip_and_no_lang), ("skip3", _skip_one_level)):
        clean = compile_typst(ARTICLE, folder / f"{name}-clean.pdf")
        with pikepdf.open(clean) as pdf:
            edit(pdf)
            pdf.save(folder / f"{name}.pdf")
        clean.unlink()
    remove_sources(folder)
    return folder


def _json(capsys: pytest.CaptureFixture[str], code: int) -> dict[str, Any]:
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def test_one_file_in_a_scratch_home(pdfs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ACCESSBENCH_HOME", raising=False)
    original = pdfs / "skip.pdf"
    digest = hashlib.sha256(original.read_bytes()).hexdigest()
    report = _json(capsys, main(["fix", str(original), "--out", str(tmp_path / "fixed.pdf"), "--lang", "en",
                                 "--format", "json"]))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fixed.pdf"], "fix wrote outside --out"
    assert hashlib.sha256(original.read_bytes()).hexdigest() == digest
    assert report["scratch_home"] is True and report["fixed_run"] != report["original_run"]
    rules = report["rules"]
    assert rules["semantic_tagging.heading_nesting.level_skip"] == {"before": 1, "after": 0}
    assert rules["semantic_tagging.structural_hierarchy.lang_missing_advisory"] == {"before": 1, "after": 0}
    (file,) = report["files"]
    assert file["labels_before"]["semantic_tagging"] == "failed"
    assert file["labels_after"]["semantic_tagging"] == "passed"
    assert all(item["reason"] for item in report["remaining"])
    with pikepdf.open(tmp_path / "fixed.pdf") as pdf:
        assert str(pdf.Root.Lang) == "en"


def test_without_lang_the_language_stays_a_finding(pdfs: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(capsys, main(["--home", str(tmp_path / "home"), "fix", str(pdfs / "skip.pdf"), "--out",
                                 str(tmp_path / "out" / "fixed.pdf"), "--format", "json"]))
    left = [x for x in report["remaining"] if x["rule_id"].endswith("lang_missing_advisory")]
    assert left and "--lang" in left[0]["reason"] and left[0]["reason"].startswith("needs meaning")
    assert linked_run(tmp_path / "home", report["fixed_run"]) == report["original_run"]


def test_a_finished_run(pdfs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    judge_folder(home, "screened", pdfs)
    out = tmp_path / "fixed"
    code = main(["--home", str(home), "fix", "--run", "screened", "--doc", "skip3.pdf", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert sorted(p.name for p in out.iterdir()) == ["skip3.pdf"]
    assert "heading_levels: heading on page 1: H3 → H2" in text
    assert "labels before → after" in text and "findings per rule before → after" in text
    assert "linked to run screened" in text
    fixed_run = next(line.split()[3].rstrip(",") for line in text.splitlines() if line.startswith("re-judged"))
    assert linked_run(home, fixed_run) == "screened"
    assert main(["--home", str(home), "runs"]) == 0
    assert fixed_run in capsys.readouterr().out


def test_refusals(pdfs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = pdfs / "skip.pdf"
    home = ["--home", str(tmp_path / "home")]
    assert main([*home, "fix", str(original), "--out", str(original)]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert main([*home, "fix", str(original), "--run", "x", "--out", str(tmp_path / "o")]) == 2
    assert main([*home, "fix", "--run", "nope", "--out", str(tmp_path / "o")]) == 3
    assert "no run 'nope'" in capsys.readouterr().err
    assert main([*home, "fix", str(tmp_path / "missing.pdf"), "--out", str(tmp_path / "o.pdf")]) == 3
