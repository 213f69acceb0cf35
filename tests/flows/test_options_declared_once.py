"""The run options are declared once, in `tasks.engine.options`: the CLI's `run` options, the flow's form and the
resolved run all come from that model, so a setting, default, choice or limit cannot drift between them."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from common import backends
from flows.cli.app import EXIT_USAGE, build_parser, main
from flows.cli.options import flag_of
from judges.criteria import CRITERIA
from tasks.engine.context import RunConfig
from tasks.engine.options import AuditOptions, AuditSettings, BenchmarkOptions, Execution, StageSettings


def _run_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    return sub.choices["run"]


def test_every_setting_is_one_run_option_with_its_declared_help() -> None:
    actions = {a.dest: a for a in _run_parser()._actions}  # noqa: SLF001
    for name, info in BenchmarkOptions.model_fields.items():
        if name == "home":  # the global --home
            continue
        assert name in actions, f"{name} has no run option"
        assert flag_of(BenchmarkOptions, name) in actions[name].option_strings
        assert info.description and info.description.split(" (")[0][:30] in actions[name].help.replace("%%", "%")
    assert set(RunConfig.model_fields) - set(StageSettings.model_fields) - set(Execution.model_fields) == {
        "home", "run_id", "source", "source_path", "crop_dpi", "progress"}


def test_the_defaults_are_the_models() -> None:
    run = RunConfig(home=Path("/tmp/h"), run_id="r")
    for name in [*StageSettings.model_fields, *Execution.model_fields]:
        if name in ("criteria", "max_tokens", "concurrency", "timeout_s", "max_error_rate"):
            continue
        model = StageSettings if name in StageSettings.model_fields else Execution
        assert getattr(run, name) == getattr(model(), name), name
    assert (run.max_tokens, run.concurrency, run.timeout_s, run.max_error_rate) == (1500, 8, 60.0, 0.2)
    local = StageSettings(judges=["hybrid:local"])
    assert (local.max_tokens, local.concurrency, local.timeout_s, local.max_error_rate) == (700, 1, 600.0, 0.5)


def test_the_flow_form_offers_the_declared_choices() -> None:
    from flows.benchmark import benchmark_flow

    schema = benchmark_flow.parameters.model_dump()
    definitions = schema.get("definitions") or schema.get("$defs") or {}
    form = next(d for d in definitions.values() if "layout_backend" in d.get("properties", {}))["properties"]
    assert form["layout_backend"]["enum"] == list(backends.LAYOUT_BACKENDS)
    assert form["tag_tree_backend"]["enum"] == list(backends.TAG_TREE_BACKENDS)
    assert form["repeats"]["minimum"] == 1 and "stochastic" in form["repeats"]["description"]


@pytest.mark.parametrize(("argv", "words"), [
    (["--criteria", "fonts_readabilty"], "did you mean 'fonts_readability'"),
    (["--layout-backend", "pymupfd"], "did you mean 'pymupdf'"),
    (["--repeats", "0"], "--repeats: must be ≥ 1 (got 0)"),
    (["--max-error-rate", "1.5"], "--max-error-rate: must be ≤ 1"),
    (["--timeout", "0"], "--timeout: must be > 0"),
    (["--runner", "ssh://x"], "--runner: runner 'ssh://x'"),
])
def test_a_bad_option_is_one_line_naming_it(argv: list[str], words: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(tmp_path / "h"), "run", *argv]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_help_names_what_the_issue_found_missing() -> None:
    text = _run_parser().format_help()
    for flag in ("--base-docs", "--seed"):
        line = text.split(flag, 1)[1].split("\n  --", 1)[0]
        assert len(line.split()) > 3, f"{flag} has no help"
    assert all(c in text for c in CRITERIA)


def _audit_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    return sub.choices["audit"]


def test_the_audit_has_its_own_settings_and_none_of_the_benchmarks() -> None:
    from tasks.audit.config import AuditConfig
    from tasks.engine.context import RunBase

    own = set(AuditConfig.model_fields) - set(RunBase.model_fields)
    assert not own & (set(StageSettings.model_fields) - set(AuditSettings.model_fields))
    actions = {a.dest: a for a in _audit_parser()._actions}  # noqa: SLF001
    for name in AuditOptions.model_fields:
        if name in ("home", "backoff_base_s"):
            continue
        assert flag_of(AuditOptions, name) in actions[name].option_strings
    assert flag_of(AuditOptions, "audit_judges") == "--judges" and flag_of(AuditOptions, "question_limit") == "--limit"
    local = AuditSettings(models=["local"])
    assert (local.concurrency, local.timeout_s, local.max_error_rate) == (1, 600.0, 0.5)
    assert (AuditSettings().concurrency, AuditSettings().timeout_s) == (8, 60.0)


@pytest.mark.parametrize(("argv", "words"), [
    (["--variants", "awre"], "did you mean 'aware'"),
    (["--limit", "0"], "--limit: must be ≥ 1"),
    (["--temperature", "3"], "--temperature: must be ≤ 2"),
    (["--models", "openai/x", "--responses", "r.jsonl"], "not both"),
])
def test_a_bad_audit_option_is_one_line_naming_it(argv: list[str], words: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(tmp_path / "h"), "audit", *argv]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_the_audit_flow_rebuilds_the_run_it_was_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import flows.audit as audit
    from tasks.audit.config import AuditConfig

    cfg = AuditConfig(home=tmp_path, run_id="a1", models=["openai/m"], variants=["aware"], repeats=2,
                      question_limit=3, audit_judges=["lexicon"])
    seen: list[AuditConfig] = []
    monkeypatch.setattr(audit, "_run_stages", lambda cfg, names, **_: seen.append(cfg) or [])
    monkeypatch.setattr(audit, "name_this_flow_run", lambda run_id: None)
    audit.audit_flow.fn(**audit.audit_flow_parameters(cfg))
    assert seen[0].to_record() == cfg.to_record()
