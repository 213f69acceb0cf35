"""Every setting the CLI records reaches the flow it starts: `run` hands the benchmark flow its settings
through `flow_parameters`, and a setting the flow has no parameter for was silently dropped
(`--disable-rule` and `--timeout` were)."""

from __future__ import annotations

from pathlib import Path

from flows.benchmark import benchmark_flow, flow_parameters
from tasks.context import RunConfig

# Settings that reach the flow another way (the data home and the source as home/dataset/pdfs) or that
# the flow derives itself.
NOT_PARAMETERS = {"source", "source_path", "home", "crop_dpi"}


def test_every_recorded_setting_is_a_parameter_of_the_benchmark_flow(tmp_path: Path) -> None:
    cfg = RunConfig(home=tmp_path, run_id="r1", source="synthetic", timeout_s=5.0,
                    disabled_rules=["fonts_readability.size.below_floor"])
    missing = set(cfg.to_record()) - NOT_PARAMETERS - set(benchmark_flow.parameters.properties)
    assert not missing, f"settings the flow drops: {sorted(missing)}"
    params = flow_parameters(cfg)
    assert params["disabled_rules"] == ["fonts_readability.size.below_floor"] and params["timeout_s"] == 5.0


def test_the_flow_builds_the_run_configuration_it_was_given(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    import flows.benchmark as benchmark

    seen: list[RunConfig] = []
    monkeypatch.setattr(benchmark, "_run_stages", lambda cfg, names, **_: seen.append(cfg) or [])
    monkeypatch.setattr(benchmark, "name_this_flow_run", lambda run_id: None)
    monkeypatch.setattr(type(benchmark.BENCHMARK), "check", lambda self, cfg: None)
    benchmark.benchmark_flow.fn(home=str(tmp_path), run_id="r1", criteria=["fonts_readability"],
                                timeout_s=7.0, disabled_rules=["fonts_readability.size"])
    assert seen[0].timeout_s == 7.0 and seen[0].disabled_rules == ["fonts_readability.size"]
