"""A benchmark run's options, declared once: type, default, choices, limits and help text.

`StageSettings` is every setting that decides what a benchmark run's stages produce (`AuditSettings` the
same for an audit run; `Execution` where the work runs). The places that used to declare them each read
these models instead:

- the CLI (`accessbench run`): `flows.cli.options.add_options` makes one option per field, its help
  from the description, its choices and range from the field's constraints;
- the flows (`benchmark_flow(options=...)`, `audit_flow(options=...)`): Prefect validates the parameter
  with this model and its UI form shows the same help and choices;
- the resolved run (`tasks.engine.context.RunConfig` subclasses the settings and adds what a run knows only
  once it starts: its data home, corpus source and id).

Validation happens once, here: an out-of-range value, an unknown choice (with a did-you-mean) or a
bad runner address is a `pydantic.ValidationError` that the CLI turns into one line per option.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from common import backends
from common.redact import hide_url_credentials
from judges.criteria import CRITERIA
from judges.inclusivity.base import DEFAULT_JUDGES
from judges.inclusivity.prompts import VARIANTS
from models.config import ModelConfig

# Declared apart, without pydantic, for the stage modules (a worker imports a stage's module, never these classes).
from tasks.engine.stage_hash import STAGE_HASH as STAGE_HASH
from tasks.engine.stage_hash import stage_keys as stage_keys

# Where per-document work runs; checked before Prefect is imported (the CLI must not import it early).
RUNNER_PATTERN = re.compile(r"^(local|dask|dask://[A-Za-z0-9.\-\[\]:]+:\d+)$")


@dataclass(frozen=True)
class Cli:
    """How a field appears on the command line (metadata in the field's `Annotated`)."""

    flag: str | None = None  # default: --the-field-name
    append: bool = False  # repeatable: --judge A --judge B
    many: bool = False  # several values after one flag: --criteria A B
    metavar: str | None = None
    hidden: bool = False  # set by the CLI itself (the global --home), not an option of its own


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(value, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def one_of(choices: Iterable[str], what: str) -> Any:
    """A validator and form enum for a string drawn from `choices` (a registry's names)."""
    names = list(choices)

    def check(value: str) -> str:
        if value not in names:
            raise ValueError(f"unknown {what} {value!r}{did_you_mean(value, names)}; choose from {', '.join(names)}")
        return value

    enum: list[Any] = list(names)
    return AfterValidator(check), Field(json_schema_extra={"enum": enum})


def _criteria(values: list[str] | None) -> list[str] | None:
    for value in values or []:
        if value not in CRITERIA:
            raise ValueError(f"unknown criterion {value!r}{did_you_mean(value, CRITERIA)}; criteria: "
                             f"{', '.join(CRITERIA)}")
    return list(dict.fromkeys(values)) if values else values


def _variants(values: list[str]) -> list[str]:
    for value in values:
        if value not in VARIANTS:
            raise ValueError(f"unknown variant {value!r}{did_you_mean(value, VARIANTS)}; variants: "
                             f"{', '.join(VARIANTS)}")
    return list(dict.fromkeys(values))


def check_runner(runner: str) -> str:
    if not RUNNER_PATTERN.match(runner):
        raise ValueError(f"runner {runner!r}: use local, dask (a LocalCluster on this machine) or "
                         "dask://HOST:PORT (an existing Dask scheduler)")
    return runner


# The judge kinds that call a model and are shown the evidence as extracted (every layout region, every crop).
MODEL_JUDGE_KINDS = ("llm", "hybrid")


def uses_local_model(specs: Iterable[str]) -> bool:
    """Whether a judge spec names the packaged local model (`llm:local`, `hybrid:local/...`)."""
    return any(spec.partition(":")[2].split("/")[0] == "local" for spec in specs if ":" in spec)


_LAYOUT = one_of(backends.LAYOUT_BACKENDS, "layout backend")
_TAG_TREE = one_of(backends.TAG_TREE_BACKENDS, "tag-tree backend")
_TRANSCRIPT = one_of(backends.TRANSCRIPT_BACKENDS, "transcript backend")
_VISION = one_of(("auto", "on", "off"), "vision setting")
_EVIDENCE = one_of(("paper", "enriched"), "evidence mode")
_CACHE = one_of(("on", "off", "read", "write"), "cache mode")
# An endpoint's credentials (http://user:KEY@host/v1) never reach a stored record: the option keeps the redacted
# URL and only the model transport gets the whole one back (common/redact.py).
_ENDPOINT = AfterValidator(hide_url_credentials)

# LLM settings a user may leave unset (their default None means "by the judges' kind"): a small local
# model on a few cores gets one call at a time, a shorter reply and minutes per call; a hosted model the
# model layer's defaults (`models.config.ModelConfig`: 8 concurrent calls of 60 s).
_CALL_DEFAULTS = ModelConfig()
LLM_DEFAULTS = {"max_tokens": (1500, 700), "concurrency": (_CALL_DEFAULTS.concurrency, 1),
                "timeout_s": (_CALL_DEFAULTS.timeout_s, 600.0), "max_error_rate": (0.2, 0.5)}  # (hosted, local)


def _optional_evidence(value: str | None) -> str | None:
    return value if value is None else _EVIDENCE[0].func(value)


def cores() -> int:
    """The cores this process may run on (its CPU affinity, else the machine's count): one worker per core
    keeps every core busy, and each worker more only adds its memory (a page render, the layout model)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on macOS
        return max(1, os.cpu_count() or 1)


class Execution(BaseModel):
    """Where a run's per-document work happens: never part of a stage's inputs, so a resumed run may change it."""

    model_config = ConfigDict(extra="forbid")

    workers: int = Field(default_factory=cores, ge=1,
                         description="processes for per-document work, or Dask workers with --runner dask "
                                     "(default: one per core this process may use)")
    runner: Annotated[str, AfterValidator(check_runner), Cli(metavar="local|dask|dask://HOST:PORT")] = Field(
        "local", description="where per-document work runs: local worker processes, a Dask LocalCluster, or an "
                             "existing Dask scheduler (needs: pip install -e '.[dask]')")


class StageSettings(BaseModel):
    """Everything that decides a benchmark run's outputs (and so its stages' input hashes)."""

    model_config = ConfigDict(extra="forbid", validate_default=False)
    _calls: ModelConfig | None = PrivateAttr(None)

    criteria: Annotated[list[str] | None, AfterValidator(_criteria), Cli(many=True, metavar="CRITERION"),
                        Field(json_schema_extra={"items": {"enum": list(CRITERIA)}})] = Field(
        None, description=f"criteria to evaluate (default: every criterion the judges cover): {', '.join(CRITERIA)}")
    judges: Annotated[list[str], Cli(flag="--judge", append=True, metavar="JUDGE")] = Field(
        default_factory=lambda: ["rules"], min_length=1,
        description="rules (default, offline) | llm:<litellm model id> (e.g. llm:openai/gpt-4o) | hybrid:<model id> | "
                    "checker:outloud|page|pdfua|verapdf (an existing checker, findings mapped to labels); repeat it "
                    "to run several judges on the same evidence")
    repeats: int = Field(3, ge=1, description="repeats for stochastic judges; the rules judge runs once")
    api_base: Annotated[str | None, _ENDPOINT] = Field(
        None, description="OpenAI-compatible endpoint for LLM judges (vLLM, Ollama, a proxy)")
    vision: Annotated[str, _VISION[0], _VISION[1]] = Field(
        "auto", description="send page, figure and table images to LLM judges (auto: as the paper did for its five "
                            "models, else by model family and litellm's table)")
    evidence: Annotated[str | None, AfterValidator(_optional_evidence),
                        Field(json_schema_extra={"enum": ["paper", "enriched", None]})] = Field(
        None, description="what LLM judges see: paper (raw evidence, the default for llm:) or enriched (plus "
                          "AccessBench's extracted findings, the default for hybrid:)")
    cache: Annotated[str, _CACHE[0], _CACHE[1]] = Field(
        "on", description="LLM response cache (on: a rerun costs nothing)")
    # None until validated: `_resolve_llm_defaults` fills these by the judges' kind (so a run never sees None).
    max_error_rate: float = Field(  # type: ignore[assignment]
        None, ge=0, le=1, description="fail the judge stage when more than this share of a judge's pages fail "
                                      "(default 0.2; 0.5 for the local model)")
    temperature: float = Field(0.7, ge=0, le=2, description="LLM temperature")
    max_tokens: int = Field(  # type: ignore[assignment]
        None, ge=1, description="LLM reply limit (default 1500; 700 for the local model)")
    concurrency: int = Field(None, ge=1,  # type: ignore[assignment]
                             description="concurrent LLM calls per model (default 8; 1 for the local model)")
    timeout_s: Annotated[float, Cli(flag="--timeout")] = Field(  # type: ignore[assignment]
        None, gt=0, description="seconds one LLM call may take (default 60; 600 for the local model)")
    checker_path: Annotated[str | None, Cli(metavar="PATH")] = Field(
        None, description="the veraPDF launcher for --judge checker:verapdf (default: verapdf on PATH)")
    disabled_rules: Annotated[list[str], Cli(flag="--disable-rule", append=True, metavar="RULE_ID")] = Field(
        default_factory=list, description="switch a rules-catalog check off (an id or a prefix; see: accessbench "
                                          "rules); repeatable")
    dpi: int = Field(72, ge=10, description="page image resolution")
    layout_backend: Annotated[str, _LAYOUT[0], _LAYOUT[1]] = Field(
        "pymupdf", description="layout detector (pymupdf: the offline model bundled with PyMuPDF)")
    layout_weights: str | None = Field(None, description="local weights for fasterrcnn (a .pth) or layoutparser "
                                                         "(a folder)")
    tag_tree_backend: Annotated[str, _TAG_TREE[0], _TAG_TREE[1], Cli(flag="--tag-tree")] = Field(
        "pikepdf", description="tag-tree reader (pdfix needs pdfix-sdk: pip install -e '.[pdfix]')")
    transcript_backend: Annotated[str, _TRANSCRIPT[0], _TRANSCRIPT[1], Cli(flag="--transcript")] = Field(
        "emulated", description="screen-reader transcript: emulated from the tag tree, or Amazon Transcribe of "
                                "recorded audio beside each PDF (bucket from $ACCESSBENCH_TRANSCRIBE_BUCKET)")
    seed: int = Field(0, description="seed of the synthetic benchmark (which documents and defects it draws) and "
                                     "of --sample")
    limit: Annotated[int | None, Cli(metavar="N")] = Field(
        None, ge=1, description="only N items of the dataset or synthetic benchmark, taken in turn from each "
                                "criterion and expected label (to try a run small)")
    sample: Annotated[int | None, Cli(metavar="N")] = Field(
        None, ge=1, description="a random sample of N items, stratified by criterion and expected label, drawn "
                                "with --seed")
    base_docs: int = Field(3, ge=1, description="base documents of the synthetic benchmark (each gets its "
                                                "defective variants)")
    doc_timeout_s: Annotated[float, Cli(flag="--doc-timeout")] = Field(
        120.0, gt=0, description="seconds allowed per document in render and extract")
    # Limits on what one input may cost; a document over one gets a `limit` error row.
    max_file_mb: float = Field(512.0, gt=0, description="limit: bytes read for one input file, in MiB")
    max_pages: int = Field(2000, ge=1, description="limit: pages of one document")
    max_page_megapixels: float = Field(16.0, ge=0.01, description="limit: pixels of one page render or crop; "
                                                                  "larger pages render at a lower dpi")
    max_stream_mb: float = Field(256.0, gt=0, description="limit: decoded size of one PDF stream (content, font, "
                                                          "CMap, XMP, image), in MiB; decompression bombs over it "
                                                          "are refused")
    worker_memory_mb: float = Field(1536.0, gt=0, description="limit: memory one document worker may allocate, in "
                                                              "MiB (past it: a limit error row)")
    follow_symlinks: bool = Field(False, description="--pdfs: also read files that symlinks point to outside the "
                                                     "folder (skipped by default)")

    @model_validator(mode="after")
    def _limit_or_sample(self) -> StageSettings:
        if self.limit is not None and self.sample is not None:
            raise ValueError("pass --limit (the first N items) or --sample (N drawn at random), not both")
        return self

    @model_validator(mode="after")
    def _resolve_llm_defaults(self) -> StageSettings:
        """Fill the LLM settings left unset by the judges' kind (hosted or the packaged local model)."""
        local = uses_local_model(self.judges)
        for name, (hosted, small) in LLM_DEFAULTS.items():
            if getattr(self, name) is None:
                setattr(self, name, small if local else hosted)
        return self

    def model_calls(self) -> ModelConfig:
        """How the run's model judges (`llm:`, the LLM tier of `hybrid:`) call their models: resolved from these
        settings once, then the same object for every judge spec's check and build."""
        if self._calls is None:
            self._calls = ModelConfig(api_base=self.api_base, temperature=self.temperature,
                                      max_tokens=self.max_tokens, concurrency=self.concurrency,
                                      timeout_s=self.timeout_s, cache=self.cache)
        return self._calls


class BenchmarkOptions(StageSettings, Execution):
    """What a user asks of a benchmark run: the settings plus the corpus, the run id and the data home."""

    dataset: Annotated[str | None, Cli(metavar="FOLDER")] = Field(
        None, description="folder in the upstream layout (contains data/dataset.json); $VARS and ~ are expanded "
                          "where the run executes")
    pdfs: Annotated[str | None, Cli(metavar="FOLDER")] = Field(None, description="folder of unlabelled PDFs to screen")
    run_id: str = Field("", description="name the run; an existing run id resumes that run (empty: a new run)")
    home: Annotated[str | None, Cli(hidden=True)] = Field(
        None, description="data home (default: $ACCESSBENCH_HOME where the run executes)")

    def settings(self) -> dict[str, Any]:
        """The stage settings and execution of these options (what a RunConfig takes besides its source)."""
        return self.model_dump(include={*StageSettings.model_fields, *Execution.model_fields} - {"criteria"})

    @model_validator(mode="after")
    def _one_source(self) -> BenchmarkOptions:
        self.judges = list(dict.fromkeys(self.judges))  # --judge rules --judge rules: one judge
        if self.dataset and self.pdfs:
            raise ValueError("pass dataset or pdfs, not both")
        if self.pdfs and (self.limit is not None or self.sample is not None):
            raise ValueError("--limit and --sample choose labelled items: use them with --dataset or the synthetic "
                             "benchmark")
        if self.run_id:
            from warehouse.store import check_run_id

            check_run_id(self.run_id)
        return self


# --fail-on: when a screening run (or a report of one) exits non-zero for CI.
FAIL_ON = ("fails", "warnings", "never")
_FAIL_ON = one_of(FAIL_ON, "--fail-on threshold")


class CommandOptions(BaseModel):
    """What the `run` command does around the flow (never part of a run's settings or the flow's form)."""

    model_config = ConfigDict(extra="forbid")

    dry_run: bool = Field(False, description="print the documents, pages, model calls, estimated tokens and cost "
                                             "per judge, and stop before any stage runs")
    fail_on: Annotated[str, _FAIL_ON[0], _FAIL_ON[1]] = Field(
        "never", description="exit 4 when a screened file fails or could not be checked (fails), also when one "
                             "passes with warnings (warnings), or never (default); for CI")
    page_images: bool = Field(False, description="HTML report: show each screened file's failing pages as images "
                                                 "with the failing regions outlined (rendered from the PDFs; off "
                                                 "by default: it costs more than the screening)")


class AuditSettings(BaseModel):
    """Everything that decides an audit run's outputs: who answers, which questions, how answers are judged."""

    model_config = ConfigDict(extra="forbid")
    _calls: dict[str, ModelConfig] = PrivateAttr(default_factory=dict)

    models: Annotated[list[str], Cli(many=True, metavar="MODEL")] = Field(
        default_factory=list, description="litellm model ids to answer the questions (e.g. openai/gpt-4.1 "
                                          "ollama/llama3.1); none: the --responses file, else the shipped fixture "
                                          "responses")
    variants: Annotated[list[str], AfterValidator(_variants), Cli(many=True, metavar="VARIANT"),
                        Field(json_schema_extra={"items": {"enum": list(VARIANTS)}})] = Field(
        default_factory=lambda: list(VARIANTS), min_length=1,
        description="base question, and/or the accessibility-aware system prompt (default: both)")
    audit_judges: Annotated[list[str], Cli(flag="--judges", many=True, metavar="JUDGE")] = Field(
        default_factory=lambda: list(DEFAULT_JUDGES), min_length=1,
        description="lexicon | embedding[:<packaged model>] | llm:<litellm model id> (default: lexicon embedding)")
    questions_path: Annotated[str | None, Cli(flag="--questions", metavar="FILE")] = Field(
        None, description="questions file (JSON list or JSONL: question_id, text, theme, note)")
    responses_path: Annotated[str | None, Cli(flag="--responses", metavar="FILE")] = Field(
        None, description="JSONL of responses run elsewhere: model, variant, question_id, text")
    api_base: Annotated[str | None, _ENDPOINT] = Field(
        None, description="OpenAI-compatible endpoint (vLLM, Ollama, a proxy) of the audited models")
    judge_api_base: Annotated[str | None, _ENDPOINT] = Field(
        None, description="OpenAI-compatible endpoint of the llm: judges (default: the provider named in the judge's "
                          "model id)")
    # None until validated: `_resolve_llm_defaults` fills these by the models' kind.
    concurrency: int = Field(  # type: ignore[assignment]
        None, ge=1, description="concurrent calls per model (default 8; 1 for the local model)")
    timeout_s: Annotated[float, Cli(flag="--timeout")] = Field(  # type: ignore[assignment]
        None, gt=0, description="seconds per model call (default 60; 600 for the local model)")
    temperature: float = Field(0.1, ge=0, le=2, description="sampling temperature of the audited models (default "
                                                            "0.1, the study's)")
    max_tokens: int = Field(512, ge=1, description="answer length limit of the audited models (default 512, the "
                                                   "study's)")
    repeats: int = Field(1, ge=1, description="answers per model, variant and question (default 1); metrics pool "
                                              "them")
    question_limit: Annotated[int | None, Cli(flag="--limit", metavar="N")] = Field(
        None, ge=1, description="only the first N questions (to try a model quickly)")
    max_error_rate: float = Field(  # type: ignore[assignment]
        None, ge=0, le=1, description="fail the responses stage when more than this share of a model's answers "
                                      "fail, and the judgments stage when an llm: judge cannot judge more than this "
                                      "share of the responses (default 0.2; 0.5 for the local model)")
    backoff_base_s: Annotated[float, Cli(hidden=True)] = Field(
        1.0, ge=0, description="first retry's wait after a failed model call, in seconds")

    def uses_local_model(self) -> bool:
        """Whether an audited model or an llm: judge is the packaged local model."""
        return (any(m == "local" or m.startswith("local/") for m in self.models)
                or uses_local_model(self.audit_judges))

    def respondent_calls(self) -> ModelConfig:
        """How the audited models are called (their --api-base, --temperature, --max-tokens), resolved once."""
        if "respondents" not in self._calls:
            self._calls["respondents"] = ModelConfig(
                api_base=self.api_base, temperature=self.temperature, max_tokens=self.max_tokens,
                concurrency=self.concurrency, timeout_s=self.timeout_s, backoff_base_s=self.backoff_base_s)
        return self._calls["respondents"]

    def judge_calls(self) -> ModelConfig:
        """How the llm: category judges call their models (--judge-api-base; their temperature and reply length
        are the judge's protocol), resolved once."""
        if "judges" not in self._calls:
            self._calls["judges"] = ModelConfig(api_base=self.judge_api_base, concurrency=self.concurrency,
                                                timeout_s=self.timeout_s, backoff_base_s=self.backoff_base_s)
        return self._calls["judges"]

    @model_validator(mode="after")
    def _resolve_llm_defaults(self) -> AuditSettings:
        local = self.uses_local_model()
        for name in ("concurrency", "timeout_s", "max_error_rate"):
            if getattr(self, name) is None:
                hosted, small = LLM_DEFAULTS[name]
                setattr(self, name, small if local else hosted)
        return self


class AuditOptions(AuditSettings):
    """What a user asks of an audit run: the settings plus the run id and the data home."""

    run_id: str = Field("", description="name the run; an existing run id resumes that run (re-run a stage with: "
                                        "accessbench rerun --run ID --stage STAGE)")
    home: Annotated[str | None, Cli(hidden=True)] = Field(
        None, description="data home (default: $ACCESSBENCH_HOME where the run executes)")

    def settings(self) -> dict[str, Any]:
        """The audit settings of these options (what an AuditConfig takes besides its home and run id)."""
        return self.model_dump(include=set(AuditSettings.model_fields))

    @model_validator(mode="after")
    def _one_source(self) -> AuditOptions:
        if self.models and self.responses_path:
            raise ValueError("pass --models (ask models now) or --responses (import answers), not both")
        if self.run_id:
            from warehouse.store import check_run_id

            check_run_id(self.run_id)
        return self


def cli_meta(model: type[BaseModel], name: str) -> Cli:
    for item in model.model_fields[name].metadata:
        if isinstance(item, Cli):
            return item
    return Cli()


def settings_of(values: Mapping[str, Any], model: type[BaseModel] = StageSettings) -> dict[str, Any]:
    """The entries of `values` that are fields of `model`."""
    return {k: v for k, v in values.items() if k in model.model_fields}
