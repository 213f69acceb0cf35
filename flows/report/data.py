"""Everything a report shows, read once from the warehouse views for a set of runs.

`collect` returns plain data (lists of dicts, JSON-serialisable) that the Markdown, JSON and HTML
renderers share: benchmark metrics beside the published rows, remediation quality per judge, and
for screening runs (no expected labels) one entry per file with its failures, their evidence
regions and the pages they are on. Text in it comes from PDFs and models: renderers escape it.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from corpus import item_set as item_sets
from flows.report import paper_numbers as paper
from flows.report import tables as tables
from judges.conformance import NOT_CHECKED as PDFUA_NOT_CHECKED
from judges.conformance import checkpoint_view
from judges.criteria import SPECS
from judges.labels import Label
from tasks.benchmark.screening import NOT_CHECKED, VERDICT_ORDER, conformance_of, file_key, verdict_of
from tasks.engine.failures import WARNING_KINDS
from warehouse import catalog
from warehouse.store import ArtifactStore
from warehouse.tables import ALL_TABLES

MAX_REGIONS = 30  # outlined finding kinds per page image; the rest are counted, not drawn
MAX_PAGE_IMAGES = 3  # failed pages shown as images per file, each showing a finding kind not shown yet


def _rows(con: Any, sql: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    result = con.execute(sql, params or {})
    names = [d[0] for d in result.description]
    return [dict(zip(names, values, strict=True)) for values in result.fetchall()]


# Within `reusing_collected()`: the latest `collect`, by home, runs and their recorded state.
_LATEST: dict[tuple[Any, ...], dict[str, Any]] | None = None


@contextlib.contextmanager
def reusing_collected() -> Iterator[None]:
    """Within the block, `collect` reads the warehouse once for the same runs in the same state:
    `accessbench run` reports its run three ways (the Prefect artifact, the HTML file, the terminal)."""
    global _LATEST
    previous, _LATEST = _LATEST, {}
    try:
        yield
    finally:
        _LATEST = previous


def _state_of(home: Path, run_ids: list[str]) -> tuple[Any, ...]:
    """What changes whenever a stage writes the runs' tables: each run's record and its stages' state."""
    store = ArtifactStore(home)
    state: list[Any] = []
    for run_id in run_ids:
        state.append(json.dumps(store.get_run(run_id), sort_keys=True, default=str))
        state.extend((r.stage, r.status, str(r.started), str(r.finished), r.input_hash)
                     for r in store.stage_runs(run_id))
    return tuple(state)


def collect(home: Path, run_ids: list[str]) -> dict[str, Any]:
    """Everything the reports show for `run_ids` (see `reusing_collected`)."""
    if _LATEST is None:
        return _collect(home, run_ids)
    key = (str(Path(home).resolve()), tuple(run_ids), _state_of(home, run_ids))
    if key not in _LATEST:
        _LATEST.clear()
        _LATEST[key] = _collect(home, run_ids)
    return copy.deepcopy(_LATEST[key])


def _collect(home: Path, run_ids: list[str]) -> dict[str, Any]:
    con = catalog.connect(home, ALL_TABLES)
    try:
        p = {"runs": run_ids}
        runs = _rows(con, "SELECT run_id, created, source, source_path, judge, status FROM runs "
                          "WHERE list_contains($runs, run_id) ORDER BY created, run_id", p)
        labelled = {r["run_id"] for r in _rows(con, "SELECT DISTINCT run_id FROM doc_results "
                                                   "WHERE list_contains($runs, run_id)", p)}
        recorded = {r["run_id"]: r for r in _rows(con, "SELECT * FROM item_set WHERE list_contains($runs, run_id)", p)}
        data: dict[str, Any] = {"runs": [{**r, "created": str(r["created"]), "scored": r["run_id"] in labelled,
                                          **_item_set(r, recorded.get(r["run_id"]))} for r in runs]}
        data["item_sets"] = {r["run_id"]: r["item_set"] for r in data["runs"]}
        scored = [r for r in run_ids if r in labelled]
        data["benchmark"] = _benchmark(con, scored, data["item_sets"]) if scored else None
        data["banner"] = tables.synthetic_banner(data)
        data["remediation"] = _remediation(con, run_ids)
        audits = {r["run_id"] for r in runs if r["source"] == "audit"}  # reported by `--format text`
        data["audit_runs"] = sorted(audits)
        data["audits"] = [_audit(con, run_id) for run_id in run_ids if run_id in audits]
        screened = [r for r in run_ids if r not in labelled and r not in audits]
        data["screening"] = [_screening(con, run_id) for run_id in screened]
        data["review_queue"] = _review_queue(con, run_ids)
        data["usage"] = _usage(con, run_ids)
    finally:
        con.close()
    data["sections"] = tables.sections(data)
    return data


def _item_set(run: dict[str, Any], recorded: dict[str, Any] | None) -> dict[str, Any]:
    """The run's item set as the corpus stage recorded it (corpus.item_set), else named from its source."""
    if run["source"] == "audit":
        return {"item_set": "inclusivity questions", "self_labelled": False}
    label = recorded["label"] if recorded else item_sets.fallback_label(run["source"], run.get("source_path"))
    return {"item_set": label, "self_labelled": item_sets.is_synthetic(label)}


def _review_queue(con: Any, run_ids: list[str]) -> list[dict[str, Any]]:
    """Pages the hybrid judge asks a person to look at (`accessbench review`)."""
    return _rows(con, "SELECT run_id, item_id, judge, doc_id, criterion, page, label, tier_labels, reason, repeats "
                      "FROM review_queue WHERE list_contains($runs, run_id) ORDER BY ALL", {"runs": run_ids})


def _usage(con: Any, run_ids: list[str]) -> list[dict[str, Any]]:
    """Model calls per run, judge and model: tokens in and out, cost, cached calls."""
    return _rows(con, """
        SELECT run_id, judge, coalesce(model, '') AS model, count(*) AS calls,
               count(*) FILTER (WHERE cached) AS cached, count(*) FILTER (WHERE error IS NOT NULL) AS failed,
               coalesce(sum(tokens_in), 0) AS tokens_in, coalesce(sum(tokens_out), 0) AS tokens_out,
               sum(cost_usd) AS cost_usd
        FROM llm_calls WHERE list_contains($runs, run_id) GROUP BY ALL ORDER BY ALL""", {"runs": run_ids})


def _benchmark(con: Any, run_ids: list[str], item_set_of: dict[str, str]) -> dict[str, Any]:
    p = {"runs": run_ids}
    accuracy = _rows(con, """
        SELECT a.run_id, a.judge, a.model, a.criterion, a.n, a.accuracy, a.accuracy_sd, a.repeats,
               p.macro_precision, p.macro_recall, p.macro_f1, p.macro_f1_sd,
               x.accuracy AS accuracy_ex_ct, x.accuracy_sd AS accuracy_sd_ex_ct, px.macro_f1 AS macro_f1_ex_ct
        FROM accuracy_by_criterion a
        LEFT JOIN prf_by_criterion p USING (run_id, judge, model, criterion)
        LEFT JOIN accuracy_by_criterion_ex_ct x USING (run_id, judge, model, criterion)
        LEFT JOIN prf_by_criterion_ex_ct px USING (run_id, judge, model, criterion)
        WHERE list_contains($runs, a.run_id) ORDER BY a.run_id, a.judge, a.model, a.criterion""", p)
    by_label = _rows(con, """
        WITH per_repeat AS (
            SELECT run_id, judge, model, expected_label, repeat, avg(correct::INT) AS acc, count(*) AS n
            FROM doc_results WHERE list_contains($runs, run_id) GROUP BY ALL)
        SELECT run_id, judge, model, expected_label, max(n) AS n, avg(acc) AS accuracy,
               stddev_pop(acc) AS accuracy_sd, count(*) AS repeats
        FROM per_repeat GROUP BY ALL ORDER BY ALL""", p)
    leaderboard = _rows(con, """
        WITH ex AS (
            SELECT run_id, judge, model, repeat, avg(correct::INT) AS acc FROM doc_results_ex_ct GROUP BY ALL),
        ex_mean AS (SELECT run_id, judge, model, avg(acc) AS accuracy_ex_ct FROM ex GROUP BY ALL),
        f1_ex AS (SELECT run_id, judge, model, avg(macro_f1) AS macro_f1_ex_ct FROM prf_by_criterion_ex_ct
                  GROUP BY ALL)
        SELECT l.*, e.accuracy_ex_ct, f.macro_f1_ex_ct,
               (SELECT count(*) FROM unjudged u WHERE u.run_id = l.run_id AND u.judge = l.judge
                AND u.model = l.model) AS unjudged
        FROM leaderboard l LEFT JOIN ex_mean e USING (run_id, judge, model)
        LEFT JOIN f1_ex f USING (run_id, judge, model)
        WHERE list_contains($runs, l.run_id) ORDER BY l.accuracy DESC, l.run_id, l.judge""", p)
    confusion = _rows(con, """
        SELECT c.run_id, c.judge, c.model, c.criterion, c.expected_label, c.label, c.n, r.repeats
        FROM confusion_matrix c JOIN (SELECT run_id, judge, model, count(DISTINCT repeat) AS repeats
                                      FROM doc_results GROUP BY ALL) r USING (run_id, judge, model)
        WHERE list_contains($runs, c.run_id) ORDER BY ALL""", p)
    averages = _rows(con, """
        WITH per AS (SELECT run_id, judge, model, criterion, repeat, avg(correct::INT) AS acc FROM doc_results
                     WHERE list_contains($runs, run_id) GROUP BY ALL),
             rep AS (SELECT run_id, judge, model, repeat, avg(acc) AS acc FROM per GROUP BY ALL)
        SELECT r.run_id, r.judge, r.model, avg(r.acc) AS accuracy, coalesce(stddev_pop(r.acc), 0) AS accuracy_sd,
               (SELECT count(DISTINCT (d.doc_id, d.criterion)) FROM doc_results d WHERE d.run_id = r.run_id
                AND d.judge = r.judge AND d.model = r.model) AS n,
               (SELECT count(DISTINCT d.criterion) FROM doc_results d WHERE d.run_id = r.run_id
                AND d.judge = r.judge AND d.model = r.model) AS criteria,
               count(*) AS repeats, any_value(f.macro_precision) AS macro_precision,
               any_value(f.macro_recall) AS macro_recall, any_value(f.macro_f1) AS macro_f1
        FROM rep r LEFT JOIN (SELECT run_id, judge, model, avg(macro_precision) AS macro_precision,
                                     avg(macro_recall) AS macro_recall, avg(macro_f1) AS macro_f1
                              FROM prf_by_criterion GROUP BY ALL) f USING (run_id, judge, model)
        GROUP BY ALL ORDER BY ALL""", p)
    coverage = _rows(con, """
        SELECT run_id, judge, model, count(DISTINCT (doc_id, criterion)) AS items,
               count(DISTINCT criterion) AS criteria,
               md5(array_to_string(list_sort(list(DISTINCT doc_id || '/' || criterion)), ',')) AS scope
        FROM doc_results WHERE list_contains($runs, run_id) GROUP BY ALL""", p)
    published = {
        "citation": paper.CITATION,
        "models": list(paper.PAPER_MODELS),
        "accuracy": [{"criterion": c, "model": m, "accuracy": a, "accuracy_sd": sd}
                     for (c, m), (a, sd) in paper.accuracy_by_criterion().items()],
        "macro_prf": [{"criterion": c, "model": m, "macro_precision": pr, "macro_recall": rc, "macro_f1": f1}
                      for (c, m), (pr, rc, f1) in paper.macro_prf().items()],
        "by_label": [{"expected_label": lab, "model": m, "accuracy": a, "accuracy_sd": sd}
                     for (lab, m), (a, sd) in paper.accuracy_by_label().items()],
    }
    for row in leaderboard:
        row["paper_model"] = paper.paper_model(row["model"])
    for rows in (accuracy, by_label, averages, leaderboard):
        for row in rows:
            row["item_set"] = item_set_of.get(row["run_id"], "")
            tables.add_interval(row)
    ranked = tables.rank_by_scope(leaderboard, coverage)
    per_item = _rows(con, """
        SELECT run_id, judge, model, doc_id, criterion, avg(correct::INT) AS correct FROM doc_results
        WHERE list_contains($runs, run_id) GROUP BY ALL""", p)
    return {"accuracy": accuracy, "by_label": by_label, "averages": averages,
            "leaderboard": ranked, "comparisons": tables.paired_comparisons(ranked, per_item),
            "confusion": confusion, "published": published,
            "paper_tables": tables.paper_tables(accuracy, by_label, averages, published, paper.paper_model,
                                                item_set_of),
            "flags": _flags(con, run_ids),
            "errors": tables.fold_errors(_errors(con, run_ids)),
            "checkers": _checkers(con, run_ids), "checkers_vs_meaning": _checkers_vs_meaning(con, run_ids)}


# The stages that extract and assemble AccessBench's evidence, whose time a checker's own is shown beside.
EVIDENCE_STAGES = ("render", "layout", "extract", "transcript", "inputs")


def _checkers(con: Any, run_ids: list[str]) -> list[dict[str, Any]]:
    """Each checker judge of the runs: its version and mapping, the documents it checked or was kept from by
    the Cannot Tell protocol, its own seconds per document, and AccessBench's evidence stages per document."""
    rows = _rows(con, """
        SELECT run_id, judge, model, any_value(checker) AS checker, any_value(version) AS version,
               count(*) AS documents, count(*) FILTER (WHERE ran) AS checked,
               count(*) FILTER (WHERE NOT ran) AS withheld, count(*) FILTER (WHERE error IS NOT NULL) AS errors,
               avg(seconds) AS seconds_mean, median(seconds) AS seconds_median, max(seconds) AS seconds_max,
               sum(findings) AS findings
        FROM checker_runs WHERE list_contains($runs, run_id) GROUP BY ALL ORDER BY ALL""", {"runs": run_ids})
    own = {run_id: _evidence_seconds_per_document(con, run_id) for run_id in {r["run_id"] for r in rows}}
    for row in rows:
        row["mapping"] = f"judges/checkers/{row['checker']}.toml"
        row["accessbench_seconds"] = own[row["run_id"]]
    return rows


def _evidence_seconds_per_document(con: Any, run_id: str) -> float | None:
    """Wall seconds of the run's evidence stages (render → inputs) per document, each stage's time taken from the
    run whose outputs it reused; None when a stage's time is not known."""
    stages = {(r["run_id"], r["stage"]): r for r in _rows(
        con, "SELECT run_id, stage, status, started, finished, reused_from FROM stage_runs")}
    total = 0.0
    for stage in EVIDENCE_STAGES:
        row, hops = stages.get((run_id, stage)), 0
        while row is not None and row.get("reused_from") and hops < 8:
            row, hops = stages.get((row["reused_from"], stage)), hops + 1
        if row is None or row["started"] is None or row["finished"] is None:
            return None
        total += (row["finished"] - row["started"]).total_seconds()
    documents = _rows(con, "SELECT count(*) AS n FROM documents WHERE run_id = $run", {"run": run_id})[0]["n"]
    return total / documents if documents else None


def _checkers_vs_meaning(con: Any, run_ids: list[str]) -> dict[str, Any]:
    """The base documents whose passed and failed variants every checker labels alike: what a checker sees
    (PDF/UA syntax) does not change where the experts' label does (meaning)."""
    rows = _rows(con, """
        SELECT l.run_id, l.judge, l.model, d.criterion, d.base_doc, d.expected_label, l.label
        FROM doc_labels l JOIN documents d ON d.run_id = l.run_id AND d.doc_id = l.doc_id
        WHERE list_contains($runs, l.run_id) AND l.judge = 'checker' AND d.base_doc IS NOT NULL
              AND l.repeat = 0 AND d.expected_label IN ('passed', 'failed')
        ORDER BY ALL""", {"runs": run_ids})
    variants: dict[tuple[str, str, str], dict[str, dict[str, str]]] = defaultdict(lambda: defaultdict(dict))
    for row in rows:
        variants[(row["run_id"], row["criterion"], row["base_doc"])][tables.judge_name(row)][
            row["expected_label"]] = row["label"]
    pairs, alike = 0, []
    per_checker: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (run_id, criterion, base), by_checker in sorted(variants.items()):
        labels = {name: (got["passed"], got["failed"]) for name, got in by_checker.items()
                  if "passed" in got and "failed" in got}
        if not labels:
            continue
        pairs += 1
        for name, (on_passed, on_failed) in labels.items():
            per_checker[name][0] += on_passed == on_failed
            per_checker[name][1] += 1
        if all(on_passed == on_failed for on_passed, on_failed in labels.values()):
            alike.append({"run_id": run_id, "criterion": criterion, "base_doc": base,
                          "labels": {name: on_passed for name, (on_passed, _) in sorted(labels.items())}})
    return {"pairs": pairs, "alike": alike,
            "per_checker": [{"checker": name, "alike": n, "pairs": of}
                            for name, (n, of) in sorted(per_checker.items())]}


def _flags(con: Any, run_ids: list[str]) -> list[dict[str, Any]]:
    """Per judge: its judgments, and how many carry each self-check flag (judges.llm.flags: a reply whose label
    contradicts its own sub-criteria or issues, a label given without evidence, invented values …)."""
    rows = _rows(con, "SELECT run_id, judge, coalesce(model, '') AS model, flags FROM judgments "
                      "WHERE list_contains($runs, run_id)", {"runs": run_ids})
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in rows:
        entry = out.setdefault((row["run_id"], row["judge"], row["model"]),
                               {"run_id": row["run_id"], "judge": row["judge"], "model": row["model"],
                                "judgments": 0, "flags": {}})
        entry["judgments"] += 1
        try:
            flags = json.loads(row["flags"] or "{}")
        except ValueError:
            flags = {}
        for name, on in (flags.items() if isinstance(flags, dict) else []):
            if on is True:
                entry["flags"][name] = entry["flags"].get(name, 0) + 1
    return [out[k] for k in sorted(out)]


def _errors(con: Any, run_ids: list[str]) -> list[dict[str, Any]]:
    """Each (item, repeat) a judge got wrong, with the judge's reason (from the first page that gave the wrong
    label, or why the item has no judgment) and the model call behind that page, if a model made one."""
    rows = _rows(con, """
        WITH wrong AS (SELECT * FROM doc_results WHERE list_contains($runs, run_id) AND NOT correct),
        pages AS (
            SELECT w.run_id, w.judge, w.model, w.repeat, w.doc_id, w.criterion, min(j.page) AS page
            FROM wrong w JOIN judgments j ON j.run_id = w.run_id AND j.judge = w.judge
                 AND coalesce(j.model, '') = w.model AND j.repeat = w.repeat AND j.doc_id = w.doc_id
                 AND j.criterion = w.criterion AND j.label = w.label
            GROUP BY ALL),
        calls AS (
            SELECT run_id, judge, coalesce(model, '') AS model, repeat, doc_id, criterion, page,
                   arg_max(call_id, attempt) AS call_id
            FROM llm_calls WHERE list_contains($runs, run_id) GROUP BY ALL)
        SELECT w.run_id, w.judge, w.model, w.repeat, w.doc_id, w.criterion, w.expected_label, w.label, p.page,
               j.summary, u.reason AS unjudged_reason, c.call_id,
               (SELECT string_agg(f.problem, '; ' ORDER BY f.seq) FROM findings f
                WHERE f.run_id = j.run_id AND f.judge = j.judge AND f.model IS NOT DISTINCT FROM j.model
                  AND f.repeat = j.repeat AND f.doc_id = j.doc_id AND f.criterion = j.criterion AND f.page = j.page
                  AND coalesce(f.problem, '') <> '') AS problems
        FROM wrong w
        LEFT JOIN pages p USING (run_id, judge, model, repeat, doc_id, criterion)
        LEFT JOIN judgments j ON j.run_id = w.run_id AND j.judge = w.judge AND coalesce(j.model, '') = w.model
             AND j.repeat = w.repeat AND j.doc_id = w.doc_id AND j.criterion = w.criterion AND j.page = p.page
        LEFT JOIN unjudged u USING (run_id, judge, model, repeat, doc_id, criterion)
        LEFT JOIN calls c ON c.run_id = w.run_id AND c.judge = w.judge AND c.model = w.model
             AND c.repeat = w.repeat AND c.doc_id = w.doc_id AND c.criterion = w.criterion AND c.page = p.page
        ORDER BY w.run_id, w.judge, w.model, w.criterion, w.doc_id, w.repeat""", {"runs": run_ids})
    for row in rows:
        row["reason"] = row.pop("summary") or row.pop("problems") or row.pop("unjudged_reason") or ""
        row.pop("problems", None)
        row.pop("unjudged_reason", None)
    return rows


def _audit(con: Any, run_id: str) -> dict[str, Any]:
    """An inclusivity audit run's QLCS, DLCS and Depth@3 beside the study's published rows."""
    from flows.report.audit import model_name, model_order
    from flows.report.audit import published as dash

    p = {"run": run_id}
    base = {r["model"]: float(r["qlcs"]) for r in dash("table3_qlcs")}

    def ours(sql: str) -> list[dict[str, Any]]:
        """Our rows, each with the published name of its model (if the study had it), models in order."""
        rows = _rows(con, sql, p)
        for row in rows:
            name = model_name(str(row["model"]).rsplit("/", 1)[-1])
            row["published_model"] = name if name in base else None
        return sorted(rows, key=lambda r: (model_order(r["published_model"] or str(r["model"])), r["judge"]))

    return {
        "run_id": run_id,
        "agreement": _rows(con, "SELECT judge_a, judge_b, n, coverage_agreement, coverage_kappa, depth_kappa "
                                "FROM judge_agreement WHERE run_id = $run ORDER BY ALL", p),
        "prompt_effect": _rows(con, "SELECT judge, model, qlcs_base, qlcs_aware, delta, pairs, unpaired "
                                    "FROM prompt_effect WHERE run_id = $run ORDER BY ALL", p),
        "qlcs": ours("SELECT judge, model, variant, qlcs, qlcs_sd, responses FROM qlcs WHERE run_id = $run "
                     "ORDER BY ALL"),
        "dlcs": ours("SELECT judge, model, variant, category, dlcs FROM dlcs WHERE run_id = $run"),
        "depth3": ours("SELECT judge, model, variant, category, share FROM depth_at_k WHERE run_id = $run AND k = 3"),
        "published": {"qlcs": [{"model": r["model"], "qlcs": float(r["qlcs"])} for r in dash("table3_qlcs")],
                      "aware": [{"model": r["model"], "qlcs_base": base.get(r["model"]),
                                 "qlcs_aware": float(r["qlcs_aware"]), "delta": float(r["delta"])}
                                for r in dash("table7_aware_prompt_qlcs")],
                      "agreement": [{"dimension": r["dimension"], "metric": r["metric"], "kappa": float(r["kappa"]),
                                     "judges": r["judges"]} for r in dash("table6_judge_agreement")],
                      "dlcs": [{"model": r["model"], "category": r["category"], "dlcs": float(r["dlcs"])}
                               for r in dash("table4_dlcs")],
                      "depth3": [{"model": r["model"], "category": r["category"], "share": float(r["share"])}
                                 for r in dash("table5_depth3")]},
    }


def _remediation(con: Any, run_ids: list[str]) -> list[dict[str, Any]]:
    return _rows(con, """
        SELECT run_id, judge, coalesce(model, '') AS model, count(*) AS failed_judgments,
               avg(specificity) AS specificity, avg(actionability) AS actionability,
               avg(technical_validity) AS technical_validity, count(technical_validity) AS checkable,
               avg(score) AS score, count(*) FILTER (WHERE len(invalid) > 0) AS with_invalid
        FROM remediation_scores WHERE list_contains($runs, run_id) GROUP BY ALL ORDER BY ALL""", {"runs": run_ids})


def _screening(con: Any, run_id: str) -> dict[str, Any]:
    """One entry per screened file (a run holds one document per file and criterion), most urgent first, with
its overall verdict (`tasks.benchmark.screening`: fails, passes, could not be checked) and the verdict's reason."""
    p = {"run": run_id}
    docs = _rows(con, "SELECT doc_id, any_value(files) AS files, any_value(root) AS root, max(pages) AS pages "
                      "FROM documents WHERE run_id = $run GROUP BY doc_id", p)
    source = {d["doc_id"]: _source_pdf(d) for d in docs}
    labels = _rows(con, """
        SELECT doc_id, criterion, judge, model, label, reason FROM doc_labels
        WHERE run_id = $run AND repeat = (SELECT min(repeat) FROM doc_labels WHERE run_id = $run)
        ORDER BY doc_id, criterion, judge""", p)
    judgments = _rows(con, """
        SELECT doc_id, criterion, judge, model, page, label, remediation, summary, error FROM judgments
        WHERE run_id = $run AND repeat = (SELECT min(repeat) FROM judgments WHERE run_id = $run)
        ORDER BY doc_id, criterion, judge, page""", p)
    findings = _findings(con, run_id)
    errors = _rows(con, "SELECT DISTINCT doc_id, stage, kind, message FROM errors WHERE run_id = $run", p)
    conformance_rows = _rows(con, "SELECT doc_id, rule_id, clause, matterhorn, status FROM conformance "
                                  "WHERE run_id = $run", p)
    by_doc_conformance: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in conformance_rows:
        by_doc_conformance[row["doc_id"]].append(row)
    pdfua = conformance_of(conformance_rows)
    key_of = {d["doc_id"]: file_key(d["files"], d["doc_id"]) for d in docs}
    by_file: dict[str, dict[str, Any]] = {}

    def entry(doc_id: str) -> dict[str, Any]:
        key = key_of.get(doc_id, doc_id)
        return by_file.setdefault(key, {"file": key, "doc_ids": [], "pages": None, "criteria": {}, "errors": [],
                                        "error_kinds": [], "warning_errors": []})

    for doc in docs:
        found = entry(doc["doc_id"])
        found["doc_ids"].append(doc["doc_id"])
        found["pages"] = max(found["pages"] or 0, doc["pages"] or 0) or None
    for row in labels:
        judged = entry(row["doc_id"])["criteria"].setdefault(row["criterion"], {"labels": [], "issues": []})
        judged["labels"].append({"judge": row["judge"], "model": row["model"] or "", "label": row["label"],
                                 "reason": row["reason"]})
    failed_pages: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for row in judgments:
        failed = row["label"] == Label.FAILED
        found = entry(row["doc_id"])
        # A page that did not fail still shows its warnings (a rule finding that fails nothing: no /Lang, no title).
        rows = findings.get(_judged(row), [])
        issues = _issues(row, rows) if failed else [i for i in rows
                                                    if tables.severity_of(i, failed=False) == tables.WARNING]
        if not failed and not issues:
            continue
        judged = found["criteria"].setdefault(row["criterion"], {"labels": [], "issues": []})
        if failed:
            failed_pages[found["file"]].add((row["doc_id"], row["page"]))
        for issue in issues:
            judged["issues"].append({"judge": row["judge"], "model": row["model"] or "", "page": row["page"],
                                     **issue, "severity": tables.severity_of(issue, failed=failed)})
    for row in errors:
        message = f"{row['stage']}: {row['message']}"
        if message not in entry(row["doc_id"])["errors"]:
            entry(row["doc_id"])["errors"].append(message)
        if row["kind"] not in WARNING_KINDS:
            entry(row["doc_id"])["error_kinds"].append((row["kind"], row["message"] or ""))
        elif message not in entry(row["doc_id"]).setdefault("warning_errors", []):
            entry(row["doc_id"])["warning_errors"].append(message)
    regions = _regions(con, run_id)
    pages = {(r["doc_id"], r["page"]): r for r in _rows(con, """
        SELECT doc_id, page, width_pt, height_pt, width_px, height_px, image_path FROM pages WHERE run_id = $run""", p)}
    files = []
    for key, found in by_file.items():
        found["doc_id"] = found["doc_ids"][0] if found["doc_ids"] else key
        found["failed"] = sorted(c for c, j in found["criteria"].items()
                                 if any(lab["label"] == Label.FAILED for lab in j["labels"]))
        checked_doc = next((d for d in found["doc_ids"] if d in pdfua), None)
        found["conformance"] = pdfua[checked_doc]["verdict"] if checked_doc else PDFUA_NOT_CHECKED
        found["conformance_failed"] = pdfua[checked_doc]["failed"] if checked_doc else []
        found["checkpoints"] = checkpoint_view(by_doc_conformance[checked_doc]) if checked_doc else []
        found["verdict"], found["reason"] = verdict_of(
            {c: [lab["label"] for lab in j["labels"]] for c, j in found["criteria"].items()}, found.pop("error_kinds"),
            pdfua.get(checked_doc) if checked_doc else None)
        for judged in found["criteria"].values():
            judged["issues"] = tables.fold_issues(judged["issues"])
        found["warnings"] = tables.file_warnings(found)
        found["error_count"] = sum(1 for j in found["criteria"].values() for i in j["issues"]
                                   if i["severity"] == tables.ERROR)
        found["fix_first"] = tables.fix_first(found)
        found["first_issue"] = tables.step_text(found["fix_first"][0]) if found["fix_first"] else None
        if found["verdict"] == NOT_CHECKED:  # no finding was looked for: not "0 errors"
            found["error_count"] = None
        # One image per failed page, outlining one region per finding kind of every criterion that failed there.
        by_page: dict[int, dict[str, Any]] = {}
        for doc_id, page in sorted(failed_pages[key], key=lambda dp: (dp[1], dp[0])):
            if (doc_id, page) not in pages:
                continue
            shown = by_page.setdefault(page, {
                **{k: pages[(doc_id, page)][k] for k in ("page", "width_pt", "height_pt", "width_px", "height_px",
                                                         "image_path")},
                "source_pdf": source.get(doc_id), "regions": []})
            shown["regions"].extend(regions.get((doc_id, page), []))
        for shown in by_page.values():
            shown["regions"] = tables.fold_regions(shown["regions"])
        found["page_images"] = _pages_to_show(by_page)
        found["pages_not_shown"] = len(by_page) - len(found["page_images"])
        files.append(found)
    # Most urgent first: files that could not be checked, then those that fail, then those that pass.
    files.sort(key=lambda e: (VERDICT_ORDER[e["verdict"]], -len(e["failed"]), -len(e["errors"]), e["file"]))
    return {"run_id": run_id, "files": files}


def _source_pdf(doc: dict[str, Any]) -> str | None:
    """The PDF a one-file document was read from, while it is still there (the report renders its pages)."""
    files = doc.get("files") or []
    if len(files) != 1 or not doc.get("root"):
        return None
    path = Path(doc["root"]) / files[0]
    return str(path) if path.is_file() else None


def _pages_to_show(by_page: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Up to MAX_PAGE_IMAGES pages, each showing a finding kind no page before it showed (the first page of each
    kind); a finding repeated on 30 pages is shown once, its pages listed in the issues table."""
    shown: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for page in sorted(by_page):
        kinds = {(r["criterion"], tables.finding_kind(r["what"])) for r in by_page[page]["regions"]}
        if (kinds - seen or (not kinds and not shown)) and len(shown) < MAX_PAGE_IMAGES:
            shown.append(by_page[page])
            seen |= kinds
    return shown


FINDING_TEXT = ("sub_criterion", "location", "problem", "remediation", "rule_id")


def _judged(row: dict[str, Any]) -> tuple[Any, ...]:
    """The page judgment a findings row or a judgments row belongs to (one repeat of a run)."""
    return row["doc_id"], row["criterion"], row["judge"], row["model"] or "", row["page"]


def _findings(con: Any, run_id: str) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    """The `findings` rows of a run's first repeat, by page judgment, each in its judgment's order."""
    out: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in _rows(con, """
            SELECT doc_id, criterion, judge, model, page, sub_criterion, location, problem, remediation, rule_id
            FROM findings
            WHERE run_id = $run AND repeat = (SELECT min(repeat) FROM judgments WHERE run_id = $run)
            ORDER BY doc_id, criterion, judge, model, page, seq""", {"run": run_id}):
        out[_judged(row)].append({k: str(row[k] or "") for k in FINDING_TEXT})
    return out


def _issues(row: dict[str, Any], found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A failed page's findings; its summary and remediation as one when it has none (a model's bare reply)."""
    return found or [{"sub_criterion": "", "location": f"page {row['page']}", "problem": row["summary"] or "",
                      "remediation": row["remediation"] or "", "rule_id": ""}]


# Per criterion: the evidence rows whose boxes show where a Failed page fails (PDF points, top-left), from
# each criterion's spec (judges.criteria).
REGION_SQL: dict[str, str] = {spec.name: spec.outline_sql
                              for spec in sorted(SPECS, key=lambda spec: spec.outline_rank) if spec.outline_sql}
RANK = {spec.name: spec.outline_rank for spec in SPECS}


def _rows_on_pages(con: Any, sql: str, params: dict[str, Any], pages: set[tuple[str, int]]
                   ) -> list[dict[str, Any]]:
    """The rows of `sql` (with `doc_id` and `page` columns) on `pages`, in the query's order. The query runs as
    written and its rows are kept in Arrow: only those on `pages` become Python objects (a run's failing text spans
    are hundreds of thousands of rows, the pages a report outlines a few dozen)."""
    if not pages:
        return []
    import pyarrow as pa
    import pyarrow.compute as pc

    table = con.sql(sql, params=params).to_arrow_table()
    keys = pc.binary_join_element_wise(pc.cast(table.column("doc_id"), pa.string()),
                                       pc.cast(table.column("page"), pa.string()), "\x00")
    wanted = pa.array([f"{doc_id}\x00{page}" for doc_id, page in pages], pa.string())
    return table.filter(pc.is_in(keys, value_set=wanted)).to_pylist()


def _regions(con: Any, run_id: str) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """(doc, page) → boxes to outline where a criterion failed on that page: the boxes of its failing findings
    (`findings.bbox`, named by their rule), or, where none of them has a box, the evidence rows of the
    criterion's spec (`outline_sql`: every figure, table, failing span … of the page)."""
    from judges.rules.catalog import catalog

    failed = {(r["doc_id"], r["page"], r["criterion"]) for r in _rows(con, """
        SELECT DISTINCT doc_id, page, criterion FROM judgments WHERE run_id = $run AND label = 'failed'""",
        {"run": run_id})}
    rules = catalog()
    out: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    boxed: set[tuple[str, int, str]] = set()
    for row in _rows(con, """
        SELECT f.doc_id, f.page, f.criterion, f.bbox, f.rule_id, f.problem FROM findings f
        JOIN judgments j ON j.run_id = f.run_id AND j.judge = f.judge AND j.model IS NOT DISTINCT FROM f.model
             AND j.repeat = f.repeat AND j.doc_id = f.doc_id AND j.criterion = f.criterion AND j.page = f.page
        WHERE f.run_id = $run AND j.label = 'failed' AND f.severity = 'error' AND len(f.bbox) >= 4
          AND f.repeat = (SELECT min(repeat) FROM judgments WHERE run_id = $run)
        ORDER BY f.doc_id, f.page, f.criterion, f.judge, f.model, f.seq""", {"run": run_id}):
        rule = rules.get(row["rule_id"] or "")
        out[(row["doc_id"], row["page"])].append({"criterion": row["criterion"], "bbox": list(row["bbox"][:4]),
                                                  "what": rule.title if rule else row["problem"] or "finding"})
        boxed.add((row["doc_id"], row["page"], row["criterion"]))
    for criterion, sql in REGION_SQL.items():
        for row in _rows_on_pages(con, sql, {"run": run_id}, {(doc_id, page) for doc_id, page, c in failed
                                                             if c == criterion and (doc_id, page, c) not in boxed}):
            key = (row["doc_id"], row["page"])
            if (*key, criterion) in failed and (*key, criterion) not in boxed and row["bbox"] \
                    and len(row["bbox"]) >= 4:
                out[key].append({"criterion": criterion, "bbox": [float(v) for v in row["bbox"][:4]],
                                 "what": row["what"]})
    for regions in out.values():  # the few large boxes (tables, figures) numbered before the many small ones
        regions.sort(key=lambda r: RANK.get(r["criterion"], len(RANK)))
    return out
