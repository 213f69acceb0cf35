"""Metric views of the inclusivity audit over `category_judgments`.

Voided verdicts (an error, or an LLM snippet not found in the response) have null coverage and
are left out of every view, so QLCS is the share of a response's *judged* categories that it
covers (covered / 9 when nothing was voided), averaged over the responses of a model and variant.
κ uses the closed form 1 − observed / chance disagreement, with squared distance as the weight:
for 0/1 coverage that is Cohen's κ, for depth 0–3 the quadratic-weighted κ.
"""

from __future__ import annotations

AUDIT_METRIC_INPUTS = frozenset({"category_judgments"})

AUDIT_VERDICTS = """
SELECT run_id, judge, model, variant, question_id, response_id, category, covered, depth
FROM category_judgments WHERE error IS NULL AND covered IS NOT NULL AND depth IS NOT NULL
"""

QLCS = """
WITH per_response AS (
    SELECT run_id, judge, model, variant, response_id, avg(covered::INT) AS share, count(*) AS judged
    FROM audit_verdicts GROUP BY ALL
)
SELECT run_id, judge, model, variant, avg(share) AS qlcs, coalesce(stddev_samp(share), 0) AS qlcs_sd,
       count(*) AS responses, sum(judged) AS verdicts
FROM per_response GROUP BY ALL ORDER BY ALL
"""

DLCS = """
SELECT run_id, judge, model, variant, category, avg(covered::INT) AS dlcs, count(*) AS responses
FROM audit_verdicts GROUP BY ALL ORDER BY ALL
"""

DEPTH_AT_K = """
WITH groups AS (
    SELECT run_id, judge, model, variant, category, count(*) AS n FROM audit_verdicts GROUP BY ALL
), counts AS (
    SELECT run_id, judge, model, variant, category, depth AS k, count(*) AS c FROM audit_verdicts GROUP BY ALL
)
SELECT g.run_id, g.judge, g.model, g.variant, g.category, ks.k::INTEGER AS k,
       coalesce(c.c, 0)::DOUBLE / g.n AS share, g.n AS responses
FROM groups g CROSS JOIN (SELECT range AS k FROM range(0, 4)) ks
LEFT JOIN counts c ON c.run_id = g.run_id AND c.judge = g.judge AND c.model = g.model AND c.variant = g.variant
    AND c.category = g.category AND c.k = ks.k
ORDER BY ALL
"""

# The aware prompt's effect over *paired* questions: those a judge has judged in both variants for the model
# (repeats averaged per question first). A question with one variant only (a failed call, an import with
# gaps) is left out of qlcs_base, qlcs_aware and delta alike, and counted in `unpaired`; `pairs` is the n.
PROMPT_EFFECT = """
WITH per_response AS (
    SELECT run_id, judge, model, variant, question_id, response_id, avg(covered::INT) AS share
    FROM audit_verdicts GROUP BY ALL
), per_question AS (
    SELECT run_id, judge, model, variant, question_id, avg(share) AS share, count(*) AS responses
    FROM per_response GROUP BY ALL
), paired AS (
    SELECT b.run_id, b.judge, b.model, b.question_id, b.share AS base, a.share AS aware,
           b.responses AS responses_base, a.responses AS responses_aware
    FROM per_question b JOIN per_question a ON a.run_id = b.run_id AND a.judge = b.judge AND a.model = b.model
        AND a.question_id = b.question_id
    WHERE b.variant = 'base' AND a.variant = 'aware'
), asked AS (
    SELECT run_id, judge, model, count(DISTINCT question_id) AS questions FROM per_question GROUP BY ALL
)
SELECT p.run_id, p.judge, p.model, avg(p.base) AS qlcs_base, avg(p.aware) AS qlcs_aware,
       avg(p.aware - p.base) AS delta, count(*) AS pairs, any_value(q.questions) - count(*) AS unpaired,
       sum(p.responses_base) AS responses_base, sum(p.responses_aware) AS responses_aware
FROM paired p JOIN asked q ON q.run_id = p.run_id AND q.judge = p.judge AND q.model = p.model
GROUP BY p.run_id, p.judge, p.model
ORDER BY ALL
"""


def _kappa(a: str, b: str) -> str:
    chance = f"var_pop({a}) + var_pop({b}) + pow(avg({a}) - avg({b}), 2)"
    return f"CASE WHEN {chance} = 0 THEN NULL ELSE 1 - avg(pow({a} - {b}, 2)) / ({chance}) END"


JUDGE_AGREEMENT = f"""
WITH pairs AS (
    SELECT x.run_id, x.judge AS judge_a, y.judge AS judge_b,
           x.covered::INT::DOUBLE AS ca, y.covered::INT::DOUBLE AS cb, x.depth::DOUBLE AS da, y.depth::DOUBLE AS db
    FROM audit_verdicts x JOIN audit_verdicts y
      ON x.run_id = y.run_id AND x.response_id = y.response_id AND x.category = y.category AND x.judge < y.judge
)
SELECT run_id, judge_a, judge_b, count(*) AS n, avg((ca = cb)::INT) AS coverage_agreement,
       {_kappa("ca", "cb")} AS coverage_kappa, {_kappa("da", "db")} AS depth_kappa
FROM pairs GROUP BY ALL ORDER BY ALL
"""

AUDIT_METRIC_VIEWS: list[tuple[str, str]] = [
    ("audit_verdicts", AUDIT_VERDICTS),
    ("qlcs", QLCS),
    ("dlcs", DLCS),
    ("depth_at_k", DEPTH_AT_K),
    ("prompt_effect", PROMPT_EFFECT),
    ("judge_agreement", JUDGE_AGREEMENT),
]
