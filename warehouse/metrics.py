"""Metric views over `doc_labels` joined with the corpus's expected labels.

Every figure is computed per repeat first, then summarised as mean and sample SD over repeats,
as the paper reports its LLM runs. Macro precision/recall/F1 average over the labels that occur
among the expected or the predicted labels of a criterion.
"""

from __future__ import annotations

# `model` is '' (not null) for judges without one, so views join on it with plain equality.
METRIC_INPUTS = frozenset({"doc_labels", "documents"})  # the views below need these tables

DOC_RESULTS = """
SELECT l.run_id, l.judge, coalesce(l.model, '') AS model, l.repeat, l.doc_id, l.criterion,
       d.expected_label, l.label, (l.label = d.expected_label) AS correct
FROM doc_labels l
JOIN documents d ON d.run_id = l.run_id AND d.doc_id = l.doc_id
WHERE d.expected_label IS NOT NULL
"""

# The same with the protocol-settled Cannot Tell items left out.
DOC_RESULTS_EX_CT = "SELECT * FROM doc_results WHERE expected_label <> 'cannot_tell'"


def _accuracy(source: str, keys: str) -> str:
    return f"""
WITH per_repeat AS (
    SELECT run_id, judge, model, {keys}, repeat, avg(correct::INT) AS acc, count(*) AS n
    FROM {source} GROUP BY ALL
)
SELECT run_id, judge, model, {keys}, max(n) AS n, avg(acc) AS accuracy,
       coalesce(stddev_samp(acc), 0) AS accuracy_sd, count(*) AS repeats
FROM per_repeat GROUP BY ALL ORDER BY ALL
"""


def _prf(source: str) -> str:
    return f"""
WITH labels AS (
    SELECT DISTINCT run_id, judge, model, repeat, criterion, expected_label AS lab FROM {source}
    UNION
    SELECT DISTINCT run_id, judge, model, repeat, criterion, label AS lab FROM {source}
),
counts AS (
    SELECT l.run_id, l.judge, l.model, l.repeat, l.criterion, l.lab,
           sum((r.label = l.lab AND r.expected_label = l.lab)::INT) AS tp,
           sum((r.label = l.lab AND r.expected_label <> l.lab)::INT) AS fp,
           sum((r.label <> l.lab AND r.expected_label = l.lab)::INT) AS fn
    FROM labels l JOIN {source} r USING (run_id, judge, model, repeat, criterion)
    GROUP BY ALL
),
per_label AS (
    SELECT *,
        CASE WHEN tp + fp = 0 THEN 0 ELSE tp / (tp + fp) END AS precision,
        CASE WHEN tp + fn = 0 THEN 0 ELSE tp / (tp + fn) END AS recall
    FROM counts
),
per_repeat AS (
    SELECT run_id, judge, model, repeat, criterion,
        avg(precision) AS precision, avg(recall) AS recall,
        avg(CASE WHEN precision + recall = 0 THEN 0 ELSE 2 * precision * recall / (precision + recall) END) AS f1
    FROM per_label GROUP BY ALL
)
SELECT run_id, judge, model, criterion,
    avg(precision) AS macro_precision, avg(recall) AS macro_recall, avg(f1) AS macro_f1,
    coalesce(stddev_samp(f1), 0) AS macro_f1_sd, count(*) AS repeats
FROM per_repeat GROUP BY ALL ORDER BY ALL
"""


CONFUSION = """
SELECT run_id, judge, model, criterion, expected_label, label, count(*) AS n
FROM doc_results GROUP BY ALL ORDER BY ALL
"""

LEADERBOARD = """
WITH acc AS (
    SELECT run_id, judge, model, repeat, avg(correct::INT) AS acc, count(*) AS n
    FROM doc_results GROUP BY ALL
), f1 AS (
    SELECT run_id, judge, model, avg(macro_f1) AS macro_f1 FROM prf_by_criterion GROUP BY ALL
)
SELECT a.run_id, a.judge, a.model, max(a.n) AS n, avg(a.acc) AS accuracy,
       coalesce(stddev_samp(a.acc), 0) AS accuracy_sd, any_value(f1.macro_f1) AS macro_f1
FROM acc a LEFT JOIN f1 USING (run_id, judge, model)
GROUP BY ALL ORDER BY accuracy DESC
"""

METRIC_VIEWS: list[tuple[str, str]] = [
    ("doc_results", DOC_RESULTS),
    ("doc_results_ex_ct", DOC_RESULTS_EX_CT),
    ("accuracy_by_criterion", _accuracy("doc_results", "criterion")),
    ("accuracy_by_label", _accuracy("doc_results", "criterion, expected_label")),
    ("accuracy_by_criterion_ex_ct", _accuracy("doc_results_ex_ct", "criterion")),
    ("prf_by_criterion", _prf("doc_results")),
    ("prf_by_criterion_ex_ct", _prf("doc_results_ex_ct")),
    ("confusion_matrix", CONFUSION),
    ("leaderboard", LEADERBOARD),
]
