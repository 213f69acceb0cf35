"""Metric views over `doc_labels` joined with the corpus's expected labels.

Every figure is computed per repeat first, then summarised as mean and *population* SD over the
repeats (ddof = 0), as the paper's Table 3 reports its LLM runs. Every expected (document, criterion)
of a run is in the denominator of every judge of the run: one without a usable judgment is labelled
`unjudged` and counts as wrong (view `unjudged` says why). Macro precision/recall/F1 average over
the labels that occur among the expected or the predicted labels of a criterion (`unjudged` is not a
label: it only costs recall).
"""

from __future__ import annotations

# `model` is '' (not null) for judges without one, so views join on it with plain equality.
METRIC_INPUTS = frozenset({"doc_labels", "documents", "errors"})  # the views below need these tables

UNJUDGED = "unjudged"

DOC_RESULTS = f"""
WITH judged AS (
    SELECT DISTINCT run_id, judge, coalesce(model, '') AS model, repeat FROM doc_labels
), expected AS (
    SELECT run_id, doc_id, criterion, expected_label FROM documents WHERE expected_label IS NOT NULL
)
SELECT j.run_id, j.judge, j.model, j.repeat, e.doc_id, e.criterion, e.expected_label,
       CASE WHEN l.label IS NULL OR l.label = '{UNJUDGED}' THEN '{UNJUDGED}' ELSE l.label END AS label,
       coalesce(l.label = e.expected_label, false) AS correct
FROM judged j
JOIN expected e ON e.run_id = j.run_id
LEFT JOIN doc_labels l ON l.run_id = j.run_id AND l.judge = j.judge AND coalesce(l.model, '') = j.model
     AND l.repeat = j.repeat AND l.doc_id = e.doc_id AND l.criterion = e.criterion
"""

# Why each unjudged item has no label: the aggregate stage's reason, else the document's first error.
UNJUDGED_VIEW = f"""
SELECT r.run_id, r.judge, r.model, r.repeat, r.doc_id, r.criterion, r.expected_label,
       coalesce(any_value(l.reason), min(e.stage || ': ' || e.message), 'no judgment was recorded') AS reason
FROM doc_results r
LEFT JOIN doc_labels l ON l.run_id = r.run_id AND l.judge = r.judge AND coalesce(l.model, '') = r.model
     AND l.repeat = r.repeat AND l.doc_id = r.doc_id AND l.criterion = r.criterion
LEFT JOIN errors e ON e.run_id = r.run_id AND e.doc_id = r.doc_id
WHERE r.label = '{UNJUDGED}'
GROUP BY ALL ORDER BY ALL
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
       coalesce(stddev_pop(acc), 0) AS accuracy_sd, count(*) AS repeats
FROM per_repeat GROUP BY ALL ORDER BY ALL
"""


def _prf(source: str) -> str:
    return f"""
WITH labels AS (
    SELECT DISTINCT run_id, judge, model, repeat, criterion, expected_label AS lab FROM {source}
    UNION
    SELECT DISTINCT run_id, judge, model, repeat, criterion, label AS lab FROM {source}
    WHERE label <> '{UNJUDGED}'
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
    coalesce(stddev_pop(f1), 0) AS macro_f1_sd, count(*) AS repeats
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
       coalesce(stddev_pop(a.acc), 0) AS accuracy_sd, any_value(f1.macro_f1) AS macro_f1, count(*) AS repeats
FROM acc a LEFT JOIN f1 USING (run_id, judge, model)
GROUP BY ALL ORDER BY accuracy DESC
"""

METRIC_VIEWS: list[tuple[str, str]] = [
    ("doc_results", DOC_RESULTS),
    ("doc_results_ex_ct", DOC_RESULTS_EX_CT),
    ("unjudged", UNJUDGED_VIEW),
    ("accuracy_by_criterion", _accuracy("doc_results", "criterion")),
    ("accuracy_by_label", _accuracy("doc_results", "criterion, expected_label")),
    ("accuracy_by_criterion_ex_ct", _accuracy("doc_results_ex_ct", "criterion")),
    ("prf_by_criterion", _prf("doc_results")),
    ("prf_by_criterion_ex_ct", _prf("doc_results_ex_ct")),
    ("confusion_matrix", CONFUSION),
    ("leaderboard", LEADERBOARD),
]
