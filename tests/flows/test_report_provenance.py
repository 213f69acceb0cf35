"""Numbers a reviewer can trust (issue 54): each report says on which items it measured (and warns when they are
the synthetic generator's self-labelled ones), how uncertain each cell is, whether two judges really differ, and
which judgments a judge's own self-checks flagged."""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from common.stats import mcnemar_exact, wilson
from corpus.item_set import SYNTHETIC, label_of
from flows.cli.report import build
from flows.report.paper_numbers import ITEM_SET as PUBLISHED_ITEM_SET
from flows.report.text import render_report
from warehouse.store import ArtifactStore
from warehouse.tables import DOC_LABELS_SCHEMA, DOCUMENTS_SCHEMA, ITEM_SET_SCHEMA, JUDGMENTS_SCHEMA

RUN = "synth"
# 10 alt-text items: rules right on all 10, the model right on the first 3 only (7 discordant pairs).
ITEMS = [(f"d{k}", "alt_text_quality", "passed") for k in range(10)]
MODEL_RIGHT = {"d0", "d1", "d2"}


def _warehouse(home: Path, kind: str = "synthetic") -> Path:
    store = ArtifactStore(home)
    store.record_run({"run_id": RUN, "created": datetime(2026, 1, 1, tzinfo=UTC), "source": kind, "judge": "rules",
                      "config": "{}", "status": "completed", "criteria": ["alt_text_quality"]})
    store.write_table("corpus", RUN, "documents", [
        {"run_id": RUN, "doc_id": doc, "criterion": c, "expected_label": lab, "pages": 1, "source": kind}
        for doc, c, lab in ITEMS], DOCUMENTS_SCHEMA)
    name = "AccessBench-Synthetic" if kind == "synthetic" else "PDF-Accessibility-Benchmark"
    split = "synthetic" if kind == "synthetic" else "dev"
    store.write_table("corpus", RUN, "item_set", [
        {"run_id": RUN, "kind": kind, "name": name, "split": split, "items": len(ITEMS), "of_items": 57,
         "selection": "sample 10, seed 0",
         "label": label_of(kind, name, split, len(ITEMS), 57, "sample 10, seed 0",
                           seed=0 if kind == "synthetic" else None)}], ITEM_SET_SCHEMA)
    labels: list[dict[str, object]] = []
    for doc, c, _ in ITEMS:
        labels.append({"run_id": RUN, "judge": "rules", "model": None, "repeat": 0, "doc_id": doc, "criterion": c,
                       "label": "passed", "pages": 1, "failed_pages": [], "error_pages": 0})
        labels.append({"run_id": RUN, "judge": "llm", "model": "openai/m", "repeat": 0, "doc_id": doc,
                       "criterion": c, "label": "passed" if doc in MODEL_RIGHT else "failed", "pages": 1,
                       "failed_pages": [] if doc in MODEL_RIGHT else [1], "error_pages": 0})
    store.write_table("aggregate", RUN, "doc_labels", labels, DOC_LABELS_SCHEMA)
    store.write_table("judge", RUN, "judgments", [
        {"run_id": RUN, "judge": "llm", "model": "openai/m", "repeat": 0, "doc_id": doc, "criterion": c, "page": 1,
         "label": "passed" if doc in MODEL_RIGHT else "failed", "issues": "[]",
         "flags": json.dumps({"reply_inconsistent": doc in ("d3", "d4"), "label_without_evidence": False})}
        for doc, c, _ in ITEMS], JUDGMENTS_SCHEMA)
    return home


class _Reports:
    """The reports of one warehouse, each format built on first use: `reports["json"]`, `"md"`, `"html"`, and
    `"text"` (the terminal report, `render_report`). Only read by the tests that share them."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._built: dict[str, str] = {}

    def __getitem__(self, fmt: str) -> str:
        if fmt not in self._built:
            self._built[fmt] = render_report(self.home, RUN) if fmt == "text" else build(self.home, [RUN], fmt)
        return self._built[fmt]


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> _Reports:
    """The synthetic run's warehouse (`_warehouse`) and its reports, built once for the module: building a
    report reads the whole warehouse (half a second a format), and these tests only read what it says."""
    return _Reports(_warehouse(tmp_path_factory.mktemp("provenance")))


def test_wilson_and_mcnemar_match_known_values() -> None:
    low, high = wilson(0.85, 125)  # type: ignore[misc]
    assert (round(low, 3), round(high, 3)) == (0.777, 0.902)
    assert wilson(1.0, 12)[0] == pytest.approx(0.757, abs=1e-3)  # type: ignore[index]  # 12 of 12: not "1.000 sure"
    assert wilson(None, 3) is None and wilson(0.5, 0) is None
    assert mcnemar_exact(0, 7) == pytest.approx(2 / 2**7)  # 7 discordant pairs all one way
    assert mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(0, 0) == 1.0


def test_every_format_names_the_synthetic_item_set_and_warns_beside_published_rows(synthetic: _Reports) -> None:
    data = json.loads(synthetic["json"])
    (run,) = data["runs"]
    assert run["item_set"].startswith(SYNTHETIC) and run["self_labelled"] is True
    assert "seed 0" in run["item_set"] and "10 of 57 items" in run["item_set"]
    assert "generator's own" in data["banner"]
    for table in data["benchmark"]["paper_tables"]:
        assert SYNTHETIC in table["title"] and PUBLISHED_ITEM_SET in table["title"]
        assert {c["item_set"] for c in table["columns"] if c["source"] == "published"} == {PUBLISHED_ITEM_SET}
    benchmark_sections = [s["title"] for s in data["sections"] if s["id"] != "runs"]
    assert benchmark_sections and all(SYNTHETIC in title for title in benchmark_sections)
    md, page, text = synthetic["md"], synthetic["html"], synthetic["text"]
    for out in (md.replace("\\", ""), html.unescape(page), text):  # md escapes brackets: \(self-labelled\)
        assert "synthetic (self-labelled)" in out and "generator's own" in out
    assert md.index("generator's own") < md.index("## Runs")  # in the headline, before any table
    assert html.unescape(page).index("generator's own") < html.unescape(page).index('<main id="main">')
    assert text.index("generator's own") < text.index("accuracy —")
    assert all(SYNTHETIC in title for title in re.findall(r"<caption>([^<]*)</caption>", page)
               if "Table" in title or "ranked" in title or "per criterion" in title)


def test_a_dataset_run_names_its_split_and_gets_no_synthetic_banner(tmp_path: Path) -> None:
    home = _warehouse(tmp_path, kind="dataset")
    data = json.loads(build(home, [RUN], "json"))
    assert data["runs"][0]["item_set"] == ("dataset:PDF-Accessibility-Benchmark (split dev, 10 of 57 items, "
                                           "sample 10, seed 0)")
    assert not data["banner"] and "generator's own" not in build(home, [RUN], "md")


def test_json_carries_n_and_a_95_interval_per_cell(synthetic: _Reports) -> None:
    bench = json.loads(synthetic["json"])["benchmark"]
    for rows in (bench["accuracy"], bench["by_label"], bench["averages"], bench["leaderboard"]):
        for row in rows:
            assert row["n"] == 10 and row["ci_low"] <= row["accuracy"] <= row["ci_high"]
            assert (row["ci_low"], row["ci_high"]) == pytest.approx(wilson(row["accuracy"], 10))
    t3 = bench["paper_tables"][0]
    rules = next(k for k, c in enumerate(t3["columns"]) if c.get("judge") == "rules")
    ours = {r["row"]: r["cells"][rules] for r in t3["rows"]}
    assert ours["alt_text_quality"]["n"] == 10 and ours["alt_text_quality"]["ci_high"] == 1.0
    assert ours["alt_text_quality"]["ci_low"] == pytest.approx(0.722, abs=1e-3)  # 10 of 10 right
    published = next(r["cells"] for r in t3["rows"] if r["row"] == "alt_text_quality")[2]  # GPT-4 Turbo
    assert t3["columns"][2]["name"] == "GPT-4 Turbo (published)"
    assert published["n"] == 20 and published["ci_low"] < published["accuracy"] < published["ci_high"]


def test_the_leaderboard_compares_judges_on_the_same_items(synthetic: _Reports) -> None:
    (pair,) = json.loads(synthetic["json"])["benchmark"]["comparisons"]
    assert (pair["judge_a"], pair["judge_b"], pair["n"]) == ("rules", "llm openai/m", 10)
    assert (pair["only_a"], pair["only_b"], pair["both_right"]) == (7, 0, 3)
    assert pair["p_value"] == pytest.approx(mcnemar_exact(7, 0)) and pair["verdict"] == "differ (p < 0.05)"
    assert pair["difference"] == pytest.approx(0.7)
    for out in (synthetic["md"], synthetic["html"], synthetic["text"]):
        assert "McNemar" in out and "0.016" in out


def test_flagged_judgments_are_counted_per_judge_in_every_format(synthetic: _Reports) -> None:
    data = json.loads(synthetic["json"])
    (llm,) = [f for f in data["benchmark"]["flags"] if f["judge"] == "llm"]
    assert llm["judgments"] == 10 and llm["flags"] == {"reply_inconsistent": 2}
    assert "flags" in [s["id"] for s in data["sections"]]
    words = "label contradicts the reply's own sub-criteria or issues"
    for out in (synthetic["md"], synthetic["html"], synthetic["text"]):
        assert words in html.unescape(out)


def test_the_average_note_says_what_each_judges_average_covers(synthetic: _Reports) -> None:
    from flows.report.tables import average_note

    bench = json.loads(synthetic["json"])["benchmark"]
    note = average_note(bench["paper_tables"], bench["averages"])  # both judges scored one criterion
    assert "over the 1 criterion scored here" in note and "equals that criterion's accuracy" in note
    mixed = average_note(bench["paper_tables"], [{"criteria": 1}, {"criteria": 7}])
    assert "each" in mixed.lower() and "1, 7 criteria" in mixed


def test_wide_tables_scroll_inside_the_page(synthetic: _Reports) -> None:
    page = synthetic["html"]
    table4 = page.index("Table 4 —")
    region = page.rindex('<div class="wide" role="region"', 0, table4)
    assert 'tabindex="0"' in page[region:table4] and "</div>" not in page[region:table4]
    assert ".wide{overflow-x:auto" in page
