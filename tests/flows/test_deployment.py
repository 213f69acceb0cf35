"""The scheduled deployment's parameters: a new run per schedule tick, the rest fixed."""

from __future__ import annotations

import argparse
from pathlib import Path

from deployments.benchmark import parameters
from tasks.context import RunConfig


def test_deployment_parameters_start_a_new_run_each_time(tmp_path: Path) -> None:
    args = argparse.Namespace(dataset=str(tmp_path), pdfs=None, home=str(tmp_path / "home"),
                              criteria=["semantic_tagging"], judge=["rules"])
    config = parameters(args)["config"]
    assert config["run_id"] == "" and config["source"] == "dataset" and config["source_path"] == str(tmp_path)
    cfg = RunConfig.from_record(config)
    assert cfg.criteria == ["semantic_tagging"] and cfg.home == tmp_path / "home" and cfg.judges == ["rules"]
    assert "OPENAI_API_KEY" not in str(config)  # no secrets in Prefect parameters
