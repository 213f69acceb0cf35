"""Every setting the CLI records reaches the flow it starts: `run` hands the benchmark flow its options
through `flow_parameters`, and a setting the flow had no parameter for was silently dropped
(`--disable-rule` and `--timeout` were). The options are declared once (`tasks.engine.options`): the flow's one
`options` parameter and the CLI's `run` options are both made from that model."""

from __future__ import annotations

from pathlib import Path

from flows.benchmark import benchmark_flow, flow_parameters
from tasks.engine.context import RunConfig
from tasks.engine.options import BenchmarkOptions

# Settings that reach the flow another way (the data home and the source as home/dataset/pdfs) or that
# the flow derives itself.
NOT_OPTIONS = {"source", "source_path", "home", "crop_dpi", "progress"}


def test_every_recorded_setting_is_an_option_of_the_benchmark_flow(tmp_path: Path) -> None:
    cfg = RunConfig(home=tmp_path, run_id="r1", source="synthetic", timeout_s=5.0,
                    disabled_rules=["fonts_readability.size.below_floor"])
    missing = set(cfg.to_record()) - NOT_OPTIONS - set(BenchmarkOptions.model_fields)
    assert not missing, f"settings the flow drops: {sorted(missing)}"
    assert set(benchmark_flow.parameters.properties) == {"options", "progress"}
    options = flow_parameters(cfg)["options"]
    assert options.disabled_rules == ["fonts_readability.size.below_floor"] and options.timeout_s == 5.0
    assert options.run_id == "r1" and options.home == str(tmp_path)


def test_the_flow_builds_the_run_configuration_it_was_given(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    import flows.benchmark as benchmark

    seen: list[RunConfig] = []
    monkeypatch.setattr(benchmark, "_run_stages", lambda cfg, names, **_: seen.append(cfg) or [])
    monkeypatch.setattr(benchmark, "name_this_flow_run", lambda run_id: None)
    monkeypatch.setattr(type(benchmark.BENCHMARK), "check", lambda self, cfg: None)
    benchmark.benchmark_flow.fn(BenchmarkOptions(home=str(tmp_path), run_id="r1", criteria=["fonts_readability"],
                                                 timeout_s=7.0, disabled_rules=["fonts_readability.size"]))
    assert seen[0].timeout_s == 7.0 and seen[0].disabled_rules == ["fonts_readability.size"]
    assert seen[0].criteria == ["fonts_readability"] and seen[0].home == tmp_path


def test_a_round_trip_through_the_flow_parameters_keeps_the_run(tmp_path: Path) -> None:
    """What the CLI records and what the flow rebuilds from its parameters are the same run."""
    import flows.benchmark as benchmark

    cfg = RunConfig(home=tmp_path, run_id="r2", source="pdfs", source_path=str(tmp_path / "in"),
                    judges=["rules", "llm:local"], criteria=["semantic_tagging"], dpi=96, workers=3)
    seen: list[RunConfig] = []
    import pytest

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(benchmark, "_run_stages", lambda cfg, names, **_: seen.append(cfg) or [])
        patch.setattr(benchmark, "name_this_flow_run", lambda run_id: None)
        patch.setattr(type(benchmark.BENCHMARK), "check", lambda self, cfg: None)
        benchmark.benchmark_flow.fn(**flow_parameters(cfg))
    recorded = {k: v for k, v in cfg.to_record().items() if k != "progress"}
    assert {k: v for k, v in seen[0].to_record().items() if k != "progress"} == recorded
