"""Word pools for the synthetic papers: topics, sentence templates, names and references.

A seeded :class:`random.Random` combines these into titles, paragraphs and reference lists,
so a seed alone fixes every word of a document. The pools hold no typst markup characters;
the markup builders escape text anyway, so editing a pool cannot break compilation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    """Vocabulary for one research area; sentences are assembled from these slots."""

    field: str
    subject: str
    data: str
    measure: str
    unit: str
    groups: tuple[str, ...]
    method: str
    steps: tuple[str, ...]  # processing stages, drawn as the pipeline diagram
    site: str  # what an aerial image of the study area shows


TOPICS: tuple[Topic, ...] = (
    Topic("urban mobility", "protected cycle lanes", "municipal traffic counts", "weekly cyclist volume",
          "counts per week", ("Harbour", "Old Town", "Riverside", "Northgate", "Station"),
          "interrupted time series", ("Counters", "Cleaning", "Seasonal model", "Estimates"), "city district"),
    Topic("hydrology", "small upland catchments", "stream gauge records", "peak discharge",
          "cubic metres per second", ("Alder Beck", "Fell Burn", "Moss Gill", "Stony Rill"),
          "regional regression", ("Gauges", "Quality control", "Regression", "Flood maps"), "upland catchment"),
    Topic("education research", "peer tutoring schemes", "anonymised course records", "pass rate",
          "percent", ("Algebra", "Statistics", "Chemistry", "Programming", "Writing"),
          "matched cohort comparison", ("Records", "Matching", "Comparison", "Report"), "university campus"),
    Topic("energy systems", "rooftop solar arrays", "inverter telemetry", "daily yield",
          "kilowatt hours", ("Array A", "Array B", "Array C", "Array D"), "clear-sky normalisation",
          ("Inverters", "Filtering", "Normalisation", "Yield"), "solar farm"),
    Topic("public health", "community vaccination clinics", "clinic appointment logs", "attendance",
          "visits per day", ("Eastfield", "Brookside", "Millbank", "Southport"), "difference in differences",
          ("Clinic logs", "Linkage", "Estimation", "Dashboard"), "market town"),
    Topic("software engineering", "code review practices", "pull request histories", "defect density",
          "defects per thousand lines", ("Parser", "Scheduler", "Storage", "Web client"),
          "mixed effects modelling", ("Repositories", "Mining", "Modelling", "Findings"), "office campus"),
    Topic("ecology", "hedgerow restoration", "pollinator transect surveys", "visit frequency",
          "visits per hour", ("Site 1", "Site 2", "Site 3", "Site 4", "Site 5"),
          "generalised additive modelling", ("Transects", "Counts", "Smoothing", "Trends"), "farmland"),
    Topic("human-computer interaction", "voice-driven form filling", "usability session recordings",
          "task completion time", "seconds", ("Form A", "Form B", "Form C", "Form D"),
          "within-subject study", ("Sessions", "Coding", "Statistics", "Guidelines"), "research park"),
)

TITLE_TEMPLATES = (
    "Measuring the Effect of {Subject} with {Data}",
    "{Subject} Revisited: Evidence from {Data}",
    "What {Data} Reveal about {Subject}",
    "Applying {Method} to {Subject}",
    "Towards Reliable Estimates of {Measure} for {Subject}",
)

FIRST_NAMES = ("Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Farah", "Goran", "Hana", "Ines", "Jonas",
               "Kwame", "Lena", "Mateo", "Noor", "Olga", "Priya", "Rafael", "Saoirse", "Tomasz", "Yuki")
LAST_NAMES = ("Abbott", "Berger", "Castillo", "Demir", "Eriksen", "Fontaine", "Gallo", "Haddad", "Ivanova",
              "Jansen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quinn", "Rossi")
INSTITUTES = ("Institute for Applied Data Studies", "Department of Environmental Science",
              "School of Computing and Design", "Centre for Policy Evaluation", "Faculty of Engineering")

SENTENCES = (
    "Earlier work on {subject} relied mostly on short observation windows.",
    "We draw on {data} collected over {n} months.",
    "The main outcome is {measure}, reported in {unit}.",
    "Our {method} separates the effect of {subject} from seasonal variation.",
    "Practitioners in {field} have long asked whether {subject} deliver lasting change.",
    "Missing records were rare and were handled by listwise deletion.",
    "Estimates changed little when the analysis window was shortened by a quarter.",
    "The pattern held across all sites, although its size varied.",
    "We report uncertainty as intervals rather than single thresholds.",
    "Differences of this size matter for planning decisions in {field}.",
    "The largest gain appeared where the baseline was weakest.",
    "Two sites showed no measurable change, which we discuss below.",
    "Our sample covers {n} units, larger than most previous studies.",
    "All processing scripts are released alongside the data.",
    "These results suggest that {subject} deserve wider evaluation.",
    "A sensitivity check with an alternative specification gave the same ranking.",
)

FOOTNOTES = (
    "Counts were rounded to the nearest whole unit before analysis.",
    "One site changed its recording system during the study; both systems were reconciled.",
    "The replication package lists every software version used.",
    "Units with fewer than {n} observations were excluded.",
    "Ethical approval covered secondary use of the {data}.",
)

CALLOUTS = (
    ("Definition", "We call a change lasting when {measure} stays above its baseline for {n} consecutive weeks."),
    ("Key point", "Effects were largest where {subject} replaced an older arrangement rather than adding to it."),
    ("Data note", "The {data} are public; identifying details were removed before release."),
)

LIST_ITEMS = (
    "a cleaned and documented version of the {data}",
    "a reproducible {method} pipeline",
    "site-level estimates of {measure}",
    "a checklist for future evaluations of {subject}",
    "an open description of every exclusion rule",
    "guidance on interpreting {measure} for decision makers",
)

STEP_ITEMS = (
    "collect the {data} for every site",
    "remove duplicate and out-of-range records",
    "fit the {method} to each site separately",
    "pool the site estimates of {measure}",
    "check the pooled estimate against a held-out year",
)

SECTION_PLANS = (
    # (H1 title, H2 subsection titles)
    ("Introduction", ("Background", "Research questions")),
    ("Data and methods", ("Study sites", "Analysis")),
    ("Results", ("Main estimates", "Robustness")),
    ("Discussion", ("Limitations",)),
    ("Conclusion", ()),
)

LINK_TARGETS = (
    ("the project data archive", "https://data.example.org/{slug}/archive"),
    ("the public code repository", "https://code.example.net/{slug}"),
    ("the study preregistration", "https://registry.example.com/studies/{slug}"),
    ("the supplementary tables", "https://supplement.example.org/{slug}/tables"),
)

JOURNALS = ("Journal of Applied Evidence", "Methods in Field Research", "Review of Open Data",
            "Transactions on Measurement")
REF_TITLES = (
    "Long-term monitoring of {subject}", "Pitfalls in analysing {data}", "A practical guide to {method}",
    "Variation in {measure} across regions", "Designing fair evaluations in {field}",
)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def fill(template: str, topic: Topic, rng: random.Random) -> str:
    """Substitute a topic's words (and a random count) into a template."""
    return template.format(
        subject=topic.subject, data=topic.data, measure=topic.measure, unit=topic.unit,
        method=topic.method, field=topic.field, n=rng.randint(12, 48),
        Subject=topic.subject.title(), Data=topic.data.title(), Measure=topic.measure.title(),
        Method=topic.method.title(),
    )


def paragraph(topic: Topic, rng: random.Random, sentences: int) -> str:
    return " ".join(fill(s, topic, rng) for s in rng.sample(SENTENCES, sentences))


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
