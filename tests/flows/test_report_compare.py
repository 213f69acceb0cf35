"""Reports people can compare: the paper's tables side by side, one section list in every format, the error
analysis, like-with-like leaderboards, repeats made explicit, the audit's κ and Table 7, readable screening."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pymupdf
import pytest

from flows.cli.report import build
from flows.report.audit import model_name, published
from flows.report.paper_numbers import PAPER_MODELS
from flows.report.text import render_report
from tests.flows.report_warehouse import AUDIT, BENCH, SCREEN, write_judgments
from tests.flows.report_warehouse import build as build_warehouse
from warehouse.store import ArtifactStore
from warehouse.tables import (
    CHECKER_RUNS_SCHEMA,
    DOC_LABELS_SCHEMA,
    DOCUMENTS_SCHEMA,
    JUDGMENTS_SCHEMA,
    LLM_CALLS_SCHEMA,
    PAGES,
    REVIEW_QUEUE_SCHEMA,
    TEXT_SPANS,
)

pytestmark = pytest.mark.heavy  # whole reports built over a warehouse, 16 screened files (not in make test-fast)

SMALL = "small"  # a second scored run on 2 of the 6 items, with an LLM judge, 3 repeats, a review queue
CREATED = datetime(2026, 1, 2, tzinfo=UTC)


def _small_run(home: Path) -> None:
    store = ArtifactStore(home)
    store.record_run({"run_id": SMALL, "created": CREATED, "source": "dataset", "judge": "hybrid", "config": "{}",
                      "status": "completed", "criteria": []})
    items = [("t1", "table_structure", "passed"), ("t2", "table_structure", "failed")]
    store.write_table("corpus", SMALL, "documents", [
        {"run_id": SMALL, "doc_id": d, "criterion": c, "expected_label": e, "pages": 1, "source": "dataset"}
        for d, c, e in items], DOCUMENTS_SCHEMA)
    # t2 judged passed (wrong) in every repeat; t1 right.
    store.write_table("aggregate", SMALL, "doc_labels", [
        {"run_id": SMALL, "judge": "hybrid", "model": "demo/m", "repeat": r, "doc_id": d, "criterion": c,
         "label": "passed", "pages": 1, "failed_pages": [], "error_pages": 0}
        for r in range(3) for d, c, _ in items], DOC_LABELS_SCHEMA)
    store.write_table("judge", SMALL, "judgments", [
        {"run_id": SMALL, "judge": "hybrid", "model": "demo/m", "repeat": r, "doc_id": d, "criterion": c, "page": 1,
         "label": "passed", "summary": "headers look fine to me" if d == "t2" else "ok", "tokens_in": 100,
         "tokens_out": 20, "cost_usd": 0.001} for r in range(3) for d, c, _ in items], JUDGMENTS_SCHEMA)
    store.write_table("judge", SMALL, "llm_calls", [
        {"run_id": SMALL, "call_id": f"c{r}{d}", "judge": "hybrid", "model": "demo/m", "doc_id": d, "criterion": c,
         "page": 1, "repeat": r, "attempt": 0, "cached": False, "tokens_in": 100, "tokens_out": 20,
         "cost_usd": 0.001} for r in range(3) for d, c, _ in items], LLM_CALLS_SCHEMA)
    store.write_table("judge", SMALL, "review_queue", [
        {"run_id": SMALL, "item_id": "rq1", "judge": "hybrid", "doc_id": "t2", "criterion": "table_structure",
         "page": 1, "label": "passed", "reason": "rules and model disagree", "repeats": 3}], REVIEW_QUEUE_SCHEMA)


CHECKED = "checked"  # a run with the rules judge and two checker judges on two base papers' variants


def _checker_run(home: Path) -> None:
    store = ArtifactStore(home)
    store.record_run({"run_id": CHECKED, "created": CREATED, "source": "dataset", "judge": "rules", "config": "{}",
                      "status": "completed", "criteria": []})
    items = [("p1", "P", "passed"), ("f1", "P", "failed"), ("p2", "Q", "passed"), ("f2", "Q", "failed"),
             ("c2", "Q", "cannot_tell")]
    store.write_table("corpus", CHECKED, "documents", [
        {"run_id": CHECKED, "doc_id": d, "criterion": "table_structure", "expected_label": e, "base_doc": b,
         "pages": 1, "source": "dataset"} for d, b, e in items], DOCUMENTS_SCHEMA)
    # Both checkers pass both variants of P; on Q, pdfua fails the failed variant (so Q is not listed).
    said = {(m, d): "cannot_tell" if d == "c2" else "passed" for m in ("outloud 0.2.1", "pdfua 0.1.3")
            for d, _, _ in items} | {("pdfua 0.1.3", "f2"): "failed"}
    store.write_table("aggregate", CHECKED, "doc_labels", [
        {"run_id": CHECKED, "judge": judge, "model": model, "repeat": 0, "doc_id": d, "criterion": "table_structure",
         "label": label, "pages": 1, "failed_pages": [], "error_pages": 0}
        for judge, model in (("rules", None), ("checker", "outloud 0.2.1"), ("checker", "pdfua 0.1.3"))
        for d, _, e in items for label in [e if judge == "rules" else said[(model, d)]]], DOC_LABELS_SCHEMA)
    store.write_table("judge", CHECKED, "checker_runs", [
        {"run_id": CHECKED, "judge": "checker", "model": f"{c} {v}", "doc_id": d, "criterion": "table_structure",
         "checker": c, "version": v, "ran": d != "c2", "reason": "the protocol withholds table_tags" if d == "c2"
         else None, "files": 1, "seconds": None if d == "c2" else s, "findings": 2, "failing": 0}
        for c, v, s in (("outloud", "0.2.1", 0.5), ("pdfua", "0.1.3", 0.25)) for d, _, _ in items],
        CHECKER_RUNS_SCHEMA)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = build_warehouse(tmp_path_factory.mktemp("compare-home"))
    _small_run(home)
    _checker_run(home)
    return home


def test_checkers_stand_beside_the_other_judges_with_their_version_time_and_blind_spots(home: Path) -> None:
    data = json.loads(build(home, [CHECKED], "json"))
    bench = data["benchmark"]
    ranked = [(r["rank"], tables_judge(r)) for r in bench["leaderboard"]]
    assert ranked == [(1, "rules"), (2, "checker pdfua 0.1.3"), (3, "checker outloud 0.2.1")]
    assert sorted(c["name"] for c in bench["paper_tables"][0]["columns"] if c["source"] == "ours") == [
        "checker outloud 0.2.1", "checker pdfua 0.1.3", "rules"]
    assert {(r["model"], r["documents"], r["checked"], r["withheld"], r["seconds_mean"])
            for r in bench["checkers"]} == {("outloud 0.2.1", 5, 4, 1, 0.5), ("pdfua 0.1.3", 5, 4, 1, 0.25)}
    meaning = bench["checkers_vs_meaning"]
    assert meaning["pairs"] == 2 and [(r["base_doc"], r["labels"]) for r in meaning["alike"]] == [
        ("P", {"checker outloud 0.2.1": "passed", "checker pdfua 0.1.3": "passed"})]
    assert {r["checker"]: (r["alike"], r["pairs"]) for r in meaning["per_checker"]} == {
        "checker outloud 0.2.1": (2, 2), "checker pdfua 0.1.3": (1, 2)}
    for fmt in ("md", "html"):
        out = build(home, [CHECKED], fmt)
        assert "1 of 2 base documents" in out and "judges/checkers/pdfua.toml" in out
        assert re.search(r"checker pdfua 0\.1\.3[^\n]*0\.25, 0\.25, 0\.25", out)


def tables_judge(row: dict[str, str]) -> str:
    return f"{row['judge']} {row.get('model') or ''}".strip()


def test_tables_3_to_5_put_our_judges_first_with_an_average_then_the_five_published_models(home: Path) -> None:
    data = json.loads(build(home, [BENCH], "json"))
    t3, t4, t5 = data["benchmark"]["paper_tables"]
    names = [c["name"] for c in t3["columns"]]
    assert names == ["rules", *(f"{m} (published)" for m in PAPER_MODELS)]
    assert [c["source"] for c in t3["columns"]] == ["ours"] + ["published"] * 5
    rows = {r["row"]: r["cells"] for r in t3["rows"]}
    assert list(rows) == ["alt_text_quality", "table_structure", "average"]
    assert rows["average"][0]["accuracy"] == pytest.approx(0.75)  # mean of 0.5 and 1.0 over criteria
    published = rows["alt_text_quality"][1]  # GPT-4 Turbo, published: over the paper's own 20 alt-text items
    assert {k: published[k] for k in ("accuracy", "accuracy_sd", "n")} == {"accuracy": 0.70, "accuracy_sd": 0.04,
                                                                           "n": 20}
    assert published["ci_low"] < 0.70 < published["ci_high"]
    assert {r["row"] for r in t4["rows"]} >= {"average"} and len(t5["rows"]) == 4
    md = build(home, [BENCH], "md")
    header = next(line for line in md.splitlines() if line.startswith("| criterion | rules |"))
    assert header.count(r"\(published\)") == 5
    assert re.search(r"^\| average \| 0\.750 \\\(n=6, 95% CI 0\.36–0\.94\\\) \| 0\.850 ± 0\.040 \\\(n=125, 95% CI "
                     r"0\.78–0\.90\\\) \|", md, re.M)
    assert re.search(r"^\| alt\\_text\\_quality \| [0-9./]+ \\\(n=4\\\) \| 0\.57/0\.70/0\.62 \\\(n=20\\\) \|",
                     md, re.M)  # Table 4
    page = build(home, [BENCH], "html")
    assert page.count('class=published>') >= 15 and 'scope="colgroup"' in page  # Table 4: P/R/F1 per judge
    text = render_report(home, BENCH)
    assert "Table 3" in text and "average" in text
    for out in (md, page, " ".join(text.split())):  # the averages say what they average over
        assert "over the 2 criteria scored here" in out and "published one is over all 7" in out


def test_regions_of_one_finding_kind_merge_into_the_boxes_they_cover() -> None:
    from flows.report.tables import fold_regions

    lines = [{"criterion": "color_contrast", "what": f"text at {2 + i / 10}:1 (needs 4.5:1)",
              "bbox": [50.0, 100.0 + 12 * i, 300.0, 110.0 + 12 * i]} for i in range(5)]
    far = {"criterion": "color_contrast", "what": "text at 3.9:1 (needs 4.5:1)", "bbox": [50.0, 600.0, 90.0, 610.0]}
    # a box reached only once two others have merged: [0, 0, 10, 10] and [20, 0, 30, 10] join through [9, 0, 21, 10]
    chain = [{"criterion": "table_structure", "what": "table", "bbox": b}
             for b in ([0.0, 0.0, 10.0, 10.0], [20.0, 0.0, 30.0, 10.0], [9.0, 0.0, 21.0, 10.0])]
    contrast, tables = fold_regions([*lines, far, *chain])
    assert contrast["count"] == 6 and contrast["boxes"] == [[50.0, 100.0, 300.0, 158.0], [50.0, 600.0, 90.0, 610.0]]
    assert tables["boxes"] == [[0.0, 0.0, 30.0, 10.0]]


def test_md_json_and_html_hold_the_same_sections(home: Path) -> None:
    runs = [BENCH, SMALL, SCREEN, AUDIT, CHECKED]
    data = json.loads(build(home, runs, "json"))
    ids = [s["id"] for s in data["sections"]]
    titles = [s["title"] for s in data["sections"]]
    md_titles = [line[3:].replace("\\", "") for line in build(home, runs, "md").splitlines()
                 if line.startswith("## ")]
    page = build(home, runs, "html")
    html_ids = re.findall(r'<section aria-labelledby="([^"]+)">', page)
    assert md_titles == titles and html_ids == ids
    for wanted in ("by-label", "confusion", "paper-tables", "errors", "remediation", "review-queue", "usage",
                   "screening-screen", "audit-audit", "checkers", "checkers-meaning"):
        assert wanted in ids
    assert data["review_queue"][0]["item_id"] == "rq1" and "rq1" in page and "rq1" in build(home, runs, "md")


def test_every_format_lists_the_items_a_judge_got_wrong_with_its_reason_and_call(home: Path) -> None:
    data = json.loads(build(home, [SMALL], "json"))
    (wrong,) = data["benchmark"]["errors"]
    # Repeats as people count them (1, 2, 3), not the stored zero-based index.
    assert (wrong["doc_id"], wrong["expected"], wrong["got"], wrong["repeats"]) == ("t2", "failed", "passed", [1, 2, 3])
    assert wrong["reason"] == "headers look fine to me" and wrong["call_id"] == "c0t2"
    for fmt in ("md", "html"):
        out = build(home, [SMALL], fmt)
        assert "headers look fine to me" in out and "accessbench calls show c0t2" in out
    text = render_report(home, SMALL)
    assert "error analysis" in text and "c0t2" in text and "headers look fine" in text


def test_hybrid_run_reports_its_review_queue_and_token_and_cost_totals(home: Path) -> None:
    usage = json.loads(build(home, [SMALL], "json"))["usage"]
    assert usage == [{"run_id": SMALL, "judge": "hybrid", "model": "demo/m", "calls": 6, "cached": 0, "failed": 0,
                      "tokens_in": 600, "tokens_out": 120, "cost_usd": pytest.approx(0.006)}]
    md = build(home, [SMALL], "md")
    assert "| total |  | 6 | 0 | 0 | 600 | 120 | 0.0060 |" in md
    text = render_report(home, SMALL)
    assert "review queue" in text and "rules and model disagree" in text and "0.0060" in text


def test_leaderboard_ranks_only_judges_scored_on_the_same_items_and_shows_coverage(home: Path) -> None:
    lead = json.loads(build(home, [BENCH, SMALL], "json"))["benchmark"]["leaderboard"]
    # `small` is right on 1 of 2 items (0.5), `bench` on 4 of 6 (0.667): different items, so no common ranking
    assert [(r["run_id"], r["scope"], r["rank"], r["items"], r["criteria"]) for r in lead] == [
        (BENCH, 1, 1, 6, 2), (SMALL, 2, 1, 2, 1)]
    assert lead[0]["caveat"] == "" and "other scope (2 items, 1 criteria)" in lead[1]["caveat"]
    md = build(home, [BENCH, SMALL], "md")
    assert "6 items, 2 criteria" in md and "ranked only among its own rows" in md


def test_confusion_matrices_say_they_count_over_the_repeats(home: Path) -> None:
    data = json.loads(build(home, [SMALL], "json"))
    cell = next(c for c in data["benchmark"]["confusion"] if c["expected_label"] == "failed")
    assert cell["n"] == 3 and cell["repeats"] == 3  # one item, three repeats
    for out in (build(home, [SMALL], "md"), build(home, [SMALL], "html"), render_report(home, SMALL)):
        assert "counts over 3 repeats" in " ".join(out.split())


def test_audit_report_has_kappa_and_table_7_rows_and_one_name_per_published_model(home: Path) -> None:
    assert model_name("Qwen2.5-0_5B-Instruct") == model_name("Qwen2.5-0.5B-Instruct") == "Qwen2.5-0.5B-Instruct"
    assert model_name("Phi-4-mini") == "Phi-4-mini-instruct" and model_name("GPT-4.1") == "GPT-4.1"
    for table in ("table3_qlcs", "table4_dlcs", "table5_depth3", "table7_aware_prompt_qlcs"):
        names = {r["model"] for r in published(table)}
        assert names <= {r["model"] for r in published("table3_qlcs")} | {"gpt-oss-20b"}, table
    qwen = [r["model"] for r in published("table3_qlcs") if r["model"].startswith("Qwen")]
    assert qwen[:3] == ["Qwen2.5-0.5B-Instruct", "Qwen2.5-1.5B-Instruct", "Qwen2.5-3B-Instruct"]
    assert qwen[-1] == "Qwen2.5-72B-Instruct"
    assert len({r["model"] for r in published("table4_dlcs")}) == 17
    audit = json.loads(build(home, [AUDIT], "json"))["audits"][0]
    assert {r["dimension"] for r in audit["published"]["agreement"]} == {"coverage", "depth"}
    aware = {r["model"]: r for r in audit["published"]["aware"]}
    assert aware["Llama-3.1-8B-Instruct"]["qlcs_base"] == pytest.approx(0.508)  # joined with Table 3
    md = build(home, [AUDIT], "md")
    assert "Judge agreement (κ)" in md
    assert "| published | GPT-4.1 vs Qwen2.5-72B-Instruct |  |  | 0.711 | 0.630 |" in md
    assert r"| aware | 0.562 | \+0.054 |" in md
    page = build(home, [AUDIT], "html")
    assert "coverage κ" in page and "aware prompt (published" in page and "0.630" in page
    rows = [line for line in md.splitlines() if r"Llama-3.1-8B-Instruct \(published\)" in line]
    assert [r.split(" | ")[1] for r in rows] == ["base", "aware"]  # aware right below its base row


FILES, PAGES_PER_FILE = 16, 6
WORDS = "accessible documents need tagged structure, alternative text and enough contrast for all readers"


def _screening_home(home: Path) -> Path:
    """16 screened PDFs of 6 text pages each; every page fails contrast on 20 grey lines and fonts once."""
    store = ArtifactStore(home)
    run = "many"
    store.record_run({"run_id": run, "created": CREATED, "source": "pdfs", "judge": "rules", "config": "{}",
                      "status": "completed", "criteria": []})
    pdfs = home / "pdfs"
    pdfs.mkdir(parents=True)
    docs, labels, judgments, pages, spans = [], [], [], [], []
    for f in range(FILES):
        name = f"paper-{f:02d}.pdf"
        with pymupdf.open() as pdf:
            for n in range(PAGES_PER_FILE):
                page = pdf.new_page()
                for line in range(56):  # a full page of text: page images of real weight
                    grey = (0.6, 0.6, 0.6) if line < 20 else (0, 0, 0)
                    page.insert_text((56, 92 + 12 * line), f"File {f} page {n + 1} line {line}: " + WORDS,
                                     fontsize=9, color=grey)
            pdf.save(pdfs / name)
        for criterion in ("color_contrast", "fonts_readability"):
            doc = f"{name}-{criterion}"
            docs.append({"run_id": run, "doc_id": doc, "criterion": criterion, "expected_label": None,
                         "files": [name], "root": str(pdfs), "pages": PAGES_PER_FILE, "source": "pdfs"})
            labels.append({"run_id": run, "judge": "rules", "model": None, "repeat": 0, "doc_id": doc,
                           "criterion": criterion, "label": "failed", "pages": PAGES_PER_FILE,
                           "failed_pages": list(range(1, PAGES_PER_FILE + 1)), "error_pages": 0})
            for n in range(1, PAGES_PER_FILE + 1):
                problem = ("20 text lines below 4.5:1" if criterion == "color_contrast"
                           else f"Page {n}: font Helvetica is not embedded")
                judgments.append({"run_id": run, "judge": "rules", "model": None, "repeat": 0, "doc_id": doc,
                                  "criterion": criterion, "page": n, "label": "failed", "issues": json.dumps([{
                                      "sub_criterion": "s", "location": f"Page {n}", "problem": problem,
                                      "remediation": "fix it"}])})
                pages.append({"run_id": run, "doc_id": doc, "page": n, "width_pt": 612.0, "height_pt": 792.0,
                              "rotation": 0, "dpi": 72.0, "width_px": 612, "height_px": 792,
                              "image_path": str(home / "missing.png"), "has_text": True, "char_count": 10,
                              "image_count": 0})
                if criterion == "color_contrast":
                    spans += [{"run_id": run, "doc_id": doc, "page": n, "span_index": i, "block": 0, "line": i,
                               "font_name": "Helvetica", "size": 10.0, "bold": False, "italic": False,
                               "superscript": False, "color": "#999999", "alpha": 1.0, "render_invisible": False,
                               "clipped": False, "unmapped_chars": 0, "text": "grey", "char_count": 4,
                               "bbox": [56.0, 84.0 + 12 * i, 540.0, 94.0 + 12 * i], "contrast_ratio": 2.8,
                               "threshold": 4.5, "passes": False} for i in range(20)]
    store.write_table("corpus", run, "documents", docs, DOCUMENTS_SCHEMA)
    store.write_table("aggregate", run, "doc_labels", labels, DOC_LABELS_SCHEMA)
    write_judgments(store, run, judgments, screened=True)
    store.write_table("render", run, "pages", pages, PAGES.schema)
    store.write_table("extract", run, "text_spans", spans, TEXT_SPANS.schema)
    return home


def test_screening_report_of_16_files_folds_repeats_and_stays_under_2_mb(tmp_path: Path) -> None:
    home = _screening_home(tmp_path / "home")
    data = json.loads(build(home, ["many"], "json"))
    files = data["screening"][0]["files"]
    assert len(files) == FILES
    first = files[0]
    fonts = first["criteria"]["fonts_readability"]["issues"]
    assert len(fonts) == 1 and fonts[0]["pages"] == list(range(1, PAGES_PER_FILE + 1))  # once, with its pages
    (image,) = first["page_images"]  # every page repeats the first page's findings: one image
    (contrast,) = image["regions"]  # 20 failing lines, one kind: one region, merged into one box
    assert contrast["count"] == 20 and len(contrast["boxes"]) == 1
    assert first["pages_not_shown"] == PAGES_PER_FILE - 1
    page = build(home, ["many"], "html", page_images=True)
    assert len(page.encode()) < 2_000_000, len(page.encode())
    assert "1–6" in page  # pages as a list
    legends = re.findall(r'</figure><p class="note">Legend[^<]*</p><ol><li>(.*?)</li></ol>', page)
    assert legends and all("and 19 more like it" in legend for legend in legends)
    images = re.findall(r'<img src="data:image/webp;base64,[^"]+" alt="[^"]*" width="(\d+)"[^>]*loading="lazy"',
                        page)
    assert len(images) == FILES and all(int(w) >= 1150 for w in images)  # 595 pt (A4) at 144 dpi, from the PDF
    md = build(home, ["many"], "md")
    assert md.count("font Helvetica is not embedded") == FILES  # one row per document, not one per page
