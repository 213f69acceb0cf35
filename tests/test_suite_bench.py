"""benchmarks/suite.py's load sampler starts, samples and stops (a run of the suite ends in its report)."""

from __future__ import annotations

import time

from benchmarks.suite import _LoadSampler


def test_the_load_sampler_stops_and_reports_the_mean_and_maximum() -> None:
    sampler = _LoadSampler()
    sampler.start()
    time.sleep(1.2)
    mean, peak = sampler.stop()
    assert not sampler.is_alive()
    assert 0.0 <= mean <= peak
