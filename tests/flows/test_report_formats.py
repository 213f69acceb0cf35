"""`accessbench report --format md|json|html`: numbers from a known warehouse, escaping, drill-down, plots."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image

from flows.cli.app import EXIT_NOT_FOUND, EXIT_OK, main
from flows.cli.report import build, plots_folder
from flows.report import charts
from tests.flows.report_warehouse import AUDIT, BENCH, EVIL_FILE, EVIL_TEXT, SCREEN
from tests.flows.report_warehouse import build as build_warehouse


def _reddish(rgb: tuple[int, ...]) -> bool:
    """Lossy WebP keeps the outline's red well away from white and grey."""
    return rgb[0] > 150 and rgb[1] < 100 and rgb[2] < 100


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_warehouse(tmp_path_factory.mktemp("report-home"))


def test_json_holds_the_known_scores_and_the_screened_files_worst_first(home: Path) -> None:
    data = json.loads(build(home, [BENCH, SCREEN], "json"))
    assert [r["run_id"] for r in data["runs"]] == [BENCH, SCREEN]
    lead = data["benchmark"]["leaderboard"]
    assert len(lead) == 1 and lead[0]["accuracy"] == pytest.approx(4 / 6)
    assert lead[0]["accuracy_ex_ct"] == pytest.approx(4 / 5)  # the Cannot Tell item judged wrong is left out
    alt = next(r for r in data["benchmark"]["accuracy"] if r["criterion"] == "alt_text_quality")
    assert alt["accuracy"] == 0.5 and alt["accuracy_ex_ct"] == pytest.approx(2 / 3)
    by_label = {r["expected_label"]: r["accuracy"] for r in data["benchmark"]["by_label"]}
    assert by_label == {"passed": 1.0, "failed": 0.5, "not_present": 1.0, "cannot_tell": 0.0}
    assert {r["model"] for r in data["benchmark"]["published"]["accuracy"]} >= {"GPT-4 Turbo", "Llama 3.2"}
    files = data["screening"][0]["files"]
    assert [f["file"] for f in files] == [EVIL_FILE, "clean.pdf"]  # one entry per file, worst first
    assert files[0]["failed"] == ["color_contrast", "table_structure"] and files[1]["failed"] == []
    (page,) = files[0]["page_images"]
    assert sorted(r["what"] for r in page["regions"]) == ["table 1", "text at 2.85:1 (needs 4.5:1)"]
    rem = {r["run_id"]: r for r in data["remediation"]}
    assert rem[SCREEN]["failed_judgments"] == 2 and rem[SCREEN]["specificity"] == 1.0


def test_html_is_self_contained_escapes_pdf_and_model_text_and_describes_every_image(home: Path) -> None:
    page = build(home, [BENCH, SCREEN], "html", page_images=True)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # nothing fetched from the network
    assert "<script>" in page and page.count("<script") == 1  # only the report's own sorting script
    assert "onerror" not in page.replace("onerror=alert(1)&gt;", "").replace('onerror=&quot;alert(2)&quot;', "")
    assert "evil &lt;img src=x onerror=alert(1)&gt;.pdf" in page
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in page
    images = re.findall(r"<img ([^>]*)>", page)
    assert len(images) >= 5
    for attrs in images:
        alt = re.search(r'alt="([^"]+)"', attrs)
        assert alt and len(alt.group(1)) > 20, attrs[:200]
        assert 'src="data:image/svg+xml;base64,' in attrs or 'src="data:image/webp;base64,' in attrs
    outlined = next(a for a in images if "failing region" in a)
    assert "2 kind(s) of failing region outlined" in outlined and "color contrast: text at 2.85:1" in outlined
    assert 'loading="lazy"' in outlined and 'src="data:image/webp;base64,' in outlined
    webp = base64.b64decode(re.search(r'base64,([^"]+)"', outlined).group(1))  # type: ignore[union-attr]
    with Image.open(io.BytesIO(webp)) as shown:
        assert shown.format == "WEBP" and shown.size == (200, 100)
        rgb = shown.convert("RGB")
        # the table (10..90 × 10..60 pt) is outlined in its criterion's colour-blind-safe colour at its left edge;
        # the page's middle stays white
        colour = charts.outline_colour("table_structure")
        assert rgb.getpixel((10, 35)) == tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        assert min(rgb.getpixel((95, 80))) >= 240  # type: ignore[arg-type]
    assert '<th scope="col">' in page and '<th scope="row">' in page and "<caption>" in page
    assert "GPT-4 Turbo (published)" in page and 'id="file-screen-' in page and 'href="#file-screen-' in page
    headings = [int(h) for h in re.findall(r"<h([1-6])", page)]
    assert headings[0] == 1 and all(b - a <= 1 for a, b in zip(headings, headings[1:], strict=False))


def test_audit_runs_show_coverage_and_depth_beside_the_published_study(home: Path) -> None:
    data = json.loads(build(home, [AUDIT], "json"))
    (audit,) = data["audits"]
    assert data["screening"] == [] and audit["qlcs"][0]["qlcs"] == pytest.approx((2 / 9 + 0) / 2)
    dlcs = {r["category"]: r["dlcs"] for r in audit["dlcs"]}
    assert dlcs["Vision"] == 0.5 and dlcs["Speech"] == 0.0
    depth3 = {r["category"]: r["share"] for r in audit["depth3"]}
    assert depth3["Vision"] == 0.5 and depth3["Hearing"] == 0.0
    page = build(home, [AUDIT], "html")
    assert "demo/&lt;b&gt;model&lt;/b&gt;" in page and "<b>model" not in page
    assert "Vision 0.50" in page  # the DLCS heatmap's alt text states its cells
    assert "(published, Dash et al. 2025)" in page and "GPT-4.1 (published)" in page
    md = build(home, [AUDIT], "md")
    assert r"lexicon judge: demo/\<b\>model\</b\> | base | 0.111 ± 0.157" in md and "GPT-4.1 \\(published\\)" in md


def test_html_writes_its_charts_as_svg_and_png_for_papers(home: Path) -> None:
    build(home, [BENCH], "html")
    folder = plots_folder(home, [BENCH])
    names = {p.name for p in folder.iterdir()}
    assert {"accuracy_by_criterion.svg", "accuracy_by_criterion.png"} <= names
    assert any(n.startswith("confusion-bench-rules-table-structure") and n.endswith(".png") for n in names)
    assert (folder / "accuracy_by_criterion.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_markdown_escapes_cells_so_model_text_cannot_add_columns_links_or_html(home: Path) -> None:
    md = build(home, [SCREEN], "md")
    row = next(line for line in md.splitlines() if "grey note" in line)
    assert row.count(" | ") == 6  # seven cells (fix order, severity …): the | in the model text is escaped
    assert re.search(r"(?<!\\)[<>\[\]|]", row[1:-1].replace(" | ", "")) is None  # no unescaped markup in a cell
    assert r"\[link\]\(javascript:alert\(3\)\)" in row and r"\<img src=x" in row
    assert EVIL_TEXT not in md


def test_cli_writes_formats_to_out_and_rejects_unknown_runs(home: Path, capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    out = home / "out" / "r.json"
    assert main(["--home", str(home), "report", "--run", BENCH, "--run", SCREEN, "--format", "json",
                 "--out", str(out)]) == EXIT_OK
    assert [r["run_id"] for r in json.loads(out.read_text())["runs"]] == [BENCH, SCREEN]
    assert main(["--home", str(home), "report", "--run", BENCH]) == EXIT_OK  # text stays the default
    assert "alt_text_quality" in capsys.readouterr().out
    assert main(["--home", str(home), "report", "--run", "nope", "--format", "html"]) == EXIT_NOT_FOUND
    assert "no run 'nope'" in capsys.readouterr().err


@pytest.mark.heavy
def test_a_run_reads_its_report_data_once_and_again_when_a_stage_changes_it(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import UTC, datetime

    from flows.report import data as report_data
    from warehouse.store import ArtifactStore, StageRun

    home = build_warehouse(tmp_path / "home")
    reads: list[list[str]] = []
    real = report_data._collect
    monkeypatch.setattr(report_data, "_collect", lambda h, runs: reads.append(runs) or real(h, runs))
    report_data.collect(home, [BENCH])
    report_data.collect(home, [BENCH])
    assert len(reads) == 2  # outside `accessbench run`: every call reads the warehouse
    with report_data.reusing_collected():
        first = report_data.collect(home, [BENCH])
        first["runs"].clear()  # each caller gets its own copy
        assert report_data.collect(home, [BENCH])["runs"] and len(reads) == 3
        now = datetime.now(UTC)
        ArtifactStore(home).record_stage(StageRun(BENCH, "judge", "completed", now, now, "new"))
        report_data.collect(home, [BENCH])
        assert len(reads) == 4  # a stage of the run changed: read again
        report_data.collect(home, [BENCH, SCREEN])
        assert len(reads) == 5  # other runs: read


def test_a_failing_finding_with_a_box_is_outlined_there_instead_of_every_evidence_row(tmp_path: Path) -> None:
    from warehouse.store import ArtifactStore
    from warehouse.tables import FINDINGS_SCHEMA

    home = build_warehouse(tmp_path / "home")
    store = ArtifactStore(home)
    findings = store.read_rows("judge", SCREEN, "findings")
    for row in findings:  # the table finding names its rule and the box the rule measured
        if row["criterion"] == "table_structure":
            row.update(rule_id="table_structure.tagging.untagged_table", bbox=[20.0, 30.0, 80.0, 55.0])
    store.write_table("judge", SCREEN, "findings", findings, FINDINGS_SCHEMA)
    (page,) = json.loads(build(home, [SCREEN], "json"))["screening"][0]["files"][0]["page_images"]
    by_criterion = {r["criterion"]: r for r in page["regions"]}
    # the rule's box and title, not the `tables` row's box (10..90 × 10..60) the spec's outline SQL gives
    assert by_criterion["table_structure"]["boxes"] == [[20.0, 30.0, 80.0, 55.0]]
    assert by_criterion["table_structure"]["what"] == "Drawn data table not tagged as a Table"
    # a criterion whose findings have no box keeps its evidence rows' outlines
    assert by_criterion["color_contrast"]["what"] == "text at 2.85:1 (needs 4.5:1)"


def test_page_images_are_drawn_only_when_asked(home: Path) -> None:
    """The screened files' page images cost more than the screening (issue 56): the default report names the
    command that adds them, and draws none; --page-images draws them."""
    plain = build(home, [BENCH, SCREEN], "html")
    assert "failing region outlined" not in plain and "data:image/webp" not in plain
    assert f"accessbench report --run {SCREEN} --format html --page-images" in plain
    asked = build(home, [BENCH, SCREEN], "html", page_images=True)
    assert "data:image/webp" in asked and "--page-images" not in asked
    out = home.parent / "asked.html"
    assert main(["--home", str(home), "report", "--run", SCREEN, "--format", "html", "--page-images",
                 "--out", str(out)]) == 0
    assert "data:image/webp" in out.read_text(encoding="utf-8")
