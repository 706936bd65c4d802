"""A run's own interval: its time cut into windows that add up to the run, resampled the same
way in every run, and the run's figures untouched by the keeping of windows."""

from __future__ import annotations

import random

import pytest

from ckviz.fairness import key_service
from ckviz.fairness_intervals import RESAMPLES, draws, resampled_attainment
from ckviz.fairness_judged import most_underserved
from ckviz.fairness_windows import WINDOWS, Windows
from ckviz.model.snapshot import DequeueEvent


def _run(seed: int, keys: int = 5, runs: int = 40) -> list[DequeueEvent]:
    """Keys arriving at random, served one run an instant in arrival order."""
    rng = random.Random(seed)
    arrivals = sorted((rng.randrange(2000), f"k{rng.randrange(keys)}") for _ in range(runs))
    now, out = 0, []
    for i, (t, k) in enumerate(arrivals):
        now = max(now + 10, t)
        out.append(DequeueEvent(k, f"{k}#{i}", t, now))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_windows_add_up_to_the_run_and_leave_its_figures_alone(seed: int) -> None:
    events, weights = _run(seed), {f"k{i}": 1.0 for i in range(5)}
    plain = key_service(events, weights)
    windows = Windows()
    kept = key_service(events, weights, windows=windows)
    assert kept == plain  # float for float
    for key, service in kept.items():
        per = windows.per_window(kept, key)
        assert len(per) == WINDOWS
        assert sum(o for o, _ in per) == pytest.approx(service.owed)
        assert sum(g for _, g in per) == service.got


def test_every_run_draws_the_same_windows_and_its_resamples_centre_on_it() -> None:
    assert draws() == draws() and len(draws()) == RESAMPLES
    assert all(sum(counts) == WINDOWS for counts in draws())
    events, weights = _run(7, runs=200), {f"k{i}": 1.0 for i in range(5)}
    windows = Windows()
    service = key_service(events, weights, windows=windows)
    resamples = resampled_attainment(service, windows)
    assert resamples is not None and len(resamples) == RESAMPLES
    assert resamples == resampled_attainment(service, windows)  # deterministic
    lowest = most_underserved(service)
    assert lowest is not None
    judged = sorted(v for v in resamples if v is not None)
    assert judged[5] < lowest[1] < judged[-5]  # the run's own figure lies inside its spread
