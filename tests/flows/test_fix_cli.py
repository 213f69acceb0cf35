"""`accessbench fix` from the command line: one file (judged in a scratch home, output only at --out), a
finished run's documents (--run, --doc), the before → after report and the list of what remains (in the
terminal and as fix.html), the `fixes` table through `accessbench sql`, --model, and the refusals (the
original as --out, a file and a run at once, a run that does not exist, a model without credentials)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from flows.cli.app import main
from judges.llm.scripted_server import ScriptedServer
from models.client import ModelResponse
from repairs.fix import judge_folder, linked_run, run_findings
from tests.extractors.conftest import compile_typst
from tests.judges.twins import PREAMBLE, prose, remove_sources
from tests.llm.conftest import _server, server  # noqa: F401 - the scripted OpenAI-compatible server
from warehouse import catalog
from warehouse.tables import ALL_TABLES

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


def test_without_lang_the_language_is_detected_from_the_text(pdfs: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(capsys, main(["--home", str(tmp_path / "home"), "fix", str(pdfs / "skip.pdf"), "--out",
                                 str(tmp_path / "out" / "fixed.pdf"), "--format", "json"]))
    assert report["rules"]["semantic_tagging.structural_hierarchy.lang_missing_advisory"] == {"before": 1, "after": 0}
    (file,) = report["files"]
    (change,) = file["remedies"]["document_lang"]["changes"]
    assert change.startswith("document /Lang en (detected from the text")
    assert linked_run(tmp_path / "home", report["fixed_run"]) == report["original_run"]
    # a kept home gets the before → after page in its reports; nothing is written beside --out's file
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["fixed.pdf"]
    assert report["report"] == str(tmp_path / "home" / "reports" / "fix-fixed.html")
    page = Path(report["report"]).read_text(encoding="utf-8")
    assert '<html lang="en">' in page and "lang_missing_advisory" in page


def test_a_finished_run(pdfs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    judge_folder(home, "screened", pdfs)
    # what fix repairs are the run's `findings` rows of the rules judge, each once
    _, rows = catalog.query(home, ALL_TABLES, "select rule_id from findings where run_id = 'screened' "
                                              "and judge = 'rules' and rule_id is not null")
    listed = Counter(f.rule_id for _, found in run_findings(home, "screened").values() for f in found)
    assert listed == Counter(rule_id for rule_id, in rows) and "semantic_tagging.heading_nesting.level_skip" in listed
    out = tmp_path / "fixed"
    code = main(["--home", str(home), "fix", "--run", "screened", "--doc", "skip3.pdf", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert sorted(p.name for p in out.iterdir()) == ["fix.html", "skip3.pdf"]
    assert "heading_levels: heading on page 1: H3 → H2" in text
    assert "labels before → after" in text and "findings per rule before → after" in text
    assert "linked to run screened" in text
    fixed_run = next(line.split()[3].rstrip(",") for line in text.splitlines() if line.startswith("re-judged"))
    assert linked_run(home, fixed_run) == "screened"
    assert main(["--home", str(home), "runs"]) == 0
    assert fixed_run in capsys.readouterr().out
    assert main(["--home", str(home), "sql", "select remedy, original_run_id from fixes where run_id = "
                 f"'{fixed_run}'"]) == 0
    rows = capsys.readouterr().out
    assert "heading_levels" in rows and "screened" in rows
    page = (out / "fix.html").read_text(encoding="utf-8")
    for part in ("Labels before → after", "Findings per rule before → after", "What remains for a person",
                 '<th scope="col">before</th>', "<caption>", 'class="skip"', "semantic_tagging.heading_nesting"):
        assert part in page, part
    assert "screened" in page and fixed_run in page


class FakeModel:
    model = "fake/model"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages: list[dict[str, Any]], params: dict[str, Any] | None = None, repeat: int = 0,
                 context: dict[str, Any] | None = None) -> Any:
        self.calls += 1
        return ModelResponse(text="A red rectangle standing for the share of tagged files", tokens_in=None,
                             tokens_out=None, cost_usd=None, latency_s=0.0, cached=False,
                             params_sent=dict(params or {}))


def _figure_without_alt(folder: Path) -> Path:
    """A tagged paper whose first Figure has no /Alt (its caption: Share of tagged files)."""
    from tests.extractors.conftest import red_png

    folder.mkdir()
    source = (PREAMBLE + "= Figures\n" + prose(3) + "\n\n#figure(image(\"red.png\", width: 6cm, alt: \"x\"), "
              "caption: [Share of tagged files])\n\n" + prose(2, 1) + "\n\n#figure(image(\"red.png\", width: "
              "6cm, alt: \"A second red rectangle, the share of untagged files\"), caption: [Share of untagged "
              "files])\n\n" + prose(1, 2) + "\n")
    clean = compile_typst(source, folder / "fig-clean.pdf", {"red.png": red_png()})
    with pikepdf.open(clean) as pdf:
        first = next(e for e in _walk(pdf.Root.StructTreeRoot) if e.get("/S") == "/Figure")
        del first["/Alt"]
        pdf.save(folder / "fig.pdf")
    clean.unlink()
    remove_sources(folder)
    return folder / "fig.pdf"


def test_model_drafts_are_listed_for_review(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import repairs.fix

    folder = _figure_without_alt(tmp_path / "in").parent
    model = FakeModel()
    seen: list[str] = []

    def fake_draft_model(home: Path, spec: str) -> FakeModel:
        seen.append(spec)
        return model

    monkeypatch.setattr(repairs.fix, "draft_model", fake_draft_model)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-sent")  # the usage check asks for it; the model is faked
    report = _json(capsys, main(["--home", str(tmp_path / "home"), "fix", str(folder / "fig.pdf"), "--out",
                                 str(tmp_path / "fig.fixed.pdf"), "--model", "llm:openai/some-model",
                                 "--format", "json"]))
    assert seen == ["llm:openai/some-model"] and model.calls >= 1
    assert report["rules"]["alt_text_quality.descriptiveness.missing_alt"] == {"before": 1, "after": 0}
    drafted = [d for d in report["drafts"] if d["remedy"] == "alt_text_draft"]
    assert drafted and "fake/model" in drafted[0]["draft"]
    page = Path(report["report"]).read_text(encoding="utf-8")
    assert "Drafts to review" in page and "A red rectangle standing for the share" in page


def test_refusals(pdfs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = pdfs / "skip.pdf"
    home = ["--home", str(tmp_path / "home")]
    assert main([*home, "fix", str(original), "--out", str(original)]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert main([*home, "fix", str(original), "--run", "x", "--out", str(tmp_path / "o")]) == 2
    assert main([*home, "fix", "--run", "nope", "--out", str(tmp_path / "o")]) == 3
    assert "no run 'nope'" in capsys.readouterr().err
    assert main([*home, "fix", str(tmp_path / "missing.pdf"), "--out", str(tmp_path / "o.pdf")]) == 3
    capsys.readouterr()
    assert main([*home, "fix", str(original), "--out", str(tmp_path / "o.pdf"), "--model", "local"]) == 2
    assert "accessbench model start" in capsys.readouterr().err
    assert not (tmp_path / "o.pdf").exists()


def _bomb(source: Path, target: Path) -> None:
    """`source` with an unused Flate stream of 3 MiB of zeros (a few KB in the file)."""
    import zlib

    with pikepdf.open(source) as pdf:
        stream = pikepdf.Stream(pdf, b"")
        stream.write(zlib.compress(b"\0" * (3 * 2**20), 9), filter=pikepdf.Name.FlateDecode)
        pdf.Root.Bomb = pdf.make_indirect(stream)
        pdf.save(target)


def test_refused_files_are_one_line_each_and_never_reported_repaired(pdfs: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    _bomb(pdfs / "skip.pdf", tmp_path / "bomb.pdf")
    (tmp_path / "notes.pdf").write_text("meeting notes, not a PDF\n")
    home = ["--home", str(tmp_path / "home")]
    code = main([*home, "fix", str(tmp_path / "bomb.pdf"), "--out", str(tmp_path / "bomb.fixed.pdf"),
                 "--max-stream-mb", "1"])
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    (line,) = [x for x in err.splitlines() if x.strip()]
    assert "bomb.pdf: not repaired, limit:" in line and "stream limit" in line
    assert "repaired" not in out and not (tmp_path / "bomb.fixed.pdf").exists()
    assert main([*home, "fix", str(tmp_path / "notes.pdf"), "--out", str(tmp_path / "n.pdf"), "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["refused"] == [{"file": str((tmp_path / "notes.pdf").resolve()), "kind": "not_pdf",
                                           "reason": "not a PDF (no %PDF- header in its first 1,024 bytes)"}]
    assert len(err.strip().splitlines()) == 1


def test_a_file_the_run_refused_is_not_repaired(pdfs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                ) -> None:
    home = tmp_path / "home"
    folder = tmp_path / "screened"
    folder.mkdir()
    _bomb(pdfs / "skip.pdf", folder / "bomb.pdf")
    (folder / "skip3.pdf").write_bytes((pdfs / "skip3.pdf").read_bytes())
    from repairs.guards import FixLimits

    judge_folder(home, "strict", folder, limits=FixLimits(max_stream_mb=1))  # the run refused bomb.pdf: a limit row
    code = main(["--home", str(home), "fix", "--run", "strict", "--out", str(tmp_path / "fixed"), "--format", "json"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 1, err
    (refused,) = report["refused"]
    assert refused["file"].endswith("bomb.pdf") and refused["kind"] == "pipeline" and "limit" in refused["reason"]
    assert [Path(f["fixed"]).name for f in report["files"]] == ["skip3.pdf"]
    assert not (tmp_path / "fixed" / "bomb.pdf").exists()
    page = (tmp_path / "fixed" / "fix.html").read_text(encoding="utf-8")
    assert "Files left as they are" in page and "bomb.pdf" in page and "every finding was repaired" not in page


def test_out_inside_the_screened_folder_never_replaces_an_input(pdfs: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "screened"
    (folder / "a").mkdir(parents=True)
    (folder / "b").mkdir()
    for sub in ("a", "b"):
        (folder / sub / "paper.pdf").write_bytes((pdfs / "skip3.pdf").read_bytes())
    (folder / "screened__a__paper.pdf").write_bytes((pdfs / "skip.pdf").read_bytes())  # what a derived name would be
    digests = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*.pdf")}
    home = tmp_path / "home"
    judge_folder(home, "nested", folder)
    code = main(["--home", str(home), "fix", "--run", "nested", "--out", str(folder), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    fixed = sorted(Path(f["fixed"]).name for f in report["files"])
    assert len(fixed) == 3 and len(set(fixed)) == 3
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in digests} == digests
    # the same again: the copies exist now, so without --force nothing is replaced
    assert main(["--home", str(home), "fix", "--run", "nested", "--out", str(folder)]) == 2
    assert "--force" in capsys.readouterr().err


def test_a_declared_language_the_text_contradicts_is_reported_by_the_run(tmp_path: Path) -> None:
    from warehouse import catalog as warehouse
    from warehouse.tables import ALL_TABLES

    folder = tmp_path / "pdfs"
    folder.mkdir()
    clean = compile_typst(ARTICLE, folder / "clean.pdf")
    with pikepdf.open(clean) as pdf:
        pdf.Root.Lang = pikepdf.String("fi")  # the text is English
        pdf.save(folder / "finnish.pdf")
    clean.unlink()
    remove_sources(folder)
    judge_folder(tmp_path / "home", "langs", folder, ["semantic_tagging"])
    _, rows = warehouse.query(tmp_path / "home", ALL_TABLES, "select issues from judgments where run_id = 'langs' "
                                                            "and judge = 'rules'")
    issues = [i for (page,) in rows for i in (json.loads(page) if isinstance(page, str) else page or [])]
    problems = [i["problem"] for i in issues if i.get("rule_id", "").endswith("lang_mismatch")]
    assert problems and "declares /Lang fi but the text reads as en" in problems[0]


DRAFTED = "A red rectangle standing for the share of tagged files"


def test_a_model_draft_is_in_the_call_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          server: ScriptedServer,  # noqa: F811
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """`fix --model` drafts through the one model builder, and each call is an `llm_calls` row of the re-judge run
    (issue 57): what was sent (the caption), what came back, the model and the purpose."""
    import repairs.fix
    from judges.llm.scripted_server import chat
    from models.config import ModelConfig

    figure = _figure_without_alt(tmp_path / "in")
    server.responder = lambda body: chat(DRAFTED, prompt_tokens=30, completion_tokens=12)
    real = repairs.fix.draft_model
    # The provider is the scripted server on 127.0.0.1 (fix takes the model layer's defaults otherwise).
    monkeypatch.setattr(repairs.fix, "draft_model", lambda home, spec: real(
        home, spec, ModelConfig(api_base=server.api_base, backoff_base_s=0.01)))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-stored")
    home = tmp_path / "home"
    report = _json(capsys, main(["--home", str(home), "fix", str(figure), "--out", str(tmp_path / "fig.fixed.pdf"),
                                 "--model", "llm:openai/test-model", "--format", "json"]))
    assert report["rules"]["alt_text_quality.descriptiveness.missing_alt"] == {"before": 1, "after": 0}
    rows = _json(capsys, main(["--home", str(home), "sql", "select run_id, study, purpose, judge, model, page, reply, "
                               "messages, tokens_in, error from llm_calls where study = 'fix'", "--format", "json"]))
    assert isinstance(rows, list) and len(rows) == server.calls >= 1
    (row,) = rows
    assert (row["run_id"], row["purpose"], row["judge"], row["model"]) == (
        report["fixed_run"], "draft_alt_text", "fix", "openai/test-model")
    assert row["reply"] == DRAFTED and "Share of tagged files" in row["messages"] and row["tokens_in"] == 30
    assert row["page"] == 1 and row["error"] is None
    assert main(["--home", str(home), "calls", "list", "--run", report["fixed_run"]]) == 0
    assert f"{len(rows)} call(s)" in capsys.readouterr().out  # `accessbench calls` lists fix's calls too
    assert not any(b"sk-test-never-stored" in p.read_bytes() for p in home.rglob("*") if p.is_file())
