"""Metrics on hand-made dequeue events (SPEC section 7)."""

from __future__ import annotations

import pytest

from ckviz.metrics import (
    Demand,
    contention,
    jain,
    percentile,
    percentiles,
    plain_sum,
    run_metrics,
)
from ckviz.model.snapshot import DequeueEvent


def ev(key: str, arrival: int, dequeued: int, i: int = 0) -> DequeueEvent:
    return DequeueEvent(key, f"{key}~0#{i}", arrival, dequeued)


def test_percentile_is_nearest_rank() -> None:
    values = list(range(1, 11))
    assert percentile(values, 50) == 5
    assert percentile(values, 99) == 10
    assert percentile(values, 0) == 1
    assert percentile([], 50) == 0


@pytest.mark.parametrize("n", [0, 1, 2, 7, 20, 101])
def test_percentiles_are_percentile_at_each(n: int) -> None:
    values = sorted((i * 7919) % 1000 for i in range(n))  # repeats and gaps
    pcts = (0, 5, 33.3, 50, 95, 99, 100)
    assert percentiles(values, pcts) == tuple(percentile(values, p) for p in pcts)
    assert percentiles(values, pcts) == percentiles(values, pcts)  # the ranks cached: the same


def test_jain_bounds() -> None:
    assert jain([]) == 1.0
    assert jain([0.0, 0.0]) == 1.0
    assert jain([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert jain([1.0, 0.0]) == pytest.approx(0.5)


def test_plain_sum_is_left_to_right() -> None:
    values = [1e16, 1.0, -1e16]
    assert plain_sum(values) == 0.0  # fsum would say 1.0


def test_no_contention_means_share_one() -> None:
    events = [ev("a", 0, 0), ev("b", 10, 10)]  # never two keys waiting at once
    m = run_metrics(events, {"a": 1.0, "b": 1.0})
    assert contention(events, {"a": 1.0, "b": 1.0}) == {}
    assert m.contention_worst_share_over_weight == 1.0
    assert m.contention_jain == 1.0


def test_starved_key_gets_zero_share() -> None:
    # a serves three times while b waits from t=0; b only gets served after a is done
    events = [ev("a", 0, 0, 0), ev("a", 0, 1, 1), ev("a", 0, 2, 2), ev("b", 0, 3)]
    ratios = contention(events, {"a": 1.0, "b": 1.0})
    # window = the 3 a-events (b waiting) + b's own event (b still waiting at t=3, a done: 1 key)
    assert ratios == {"a": pytest.approx(2.0), "b": 0.0}
    assert run_metrics(events, {"a": 1.0, "b": 1.0}).contention_worst_share_over_weight == 0.0


def test_weights_change_the_expected_share() -> None:
    events = [
        ev("a", 0, 0, 0),
        ev("a", 0, 1, 1),
        ev("a", 0, 2, 2),
        ev("b", 0, 3, 0),
        ev("b", 0, 3, 1),
    ]
    ratios = contention(events, {"a": 3.0, "b": 1.0})
    # window: the three a-events (b waiting too); by t=3 only b has work. a got the whole
    # window against an expected 3/4, b none of its 1/4.
    assert ratios["a"] == pytest.approx(1 / (3 / 4))
    assert ratios["b"] == 0.0
    unweighted = contention(events, {"a": 1.0, "b": 1.0})
    assert unweighted["a"] == pytest.approx(2.0)


def test_in_instant_order_is_kept() -> None:
    # same dequeue time: the walk keeps the given (dequeue) order, not key order
    events = [ev("b", 0, 5), ev("a", 0, 5)]
    ratios = contention(events, {"a": 1.0, "b": 1.0})
    assert ratios == {"a": 0.0, "b": 2.0}


def test_per_key_waits_and_makespan() -> None:
    events = [ev("a", 0, 10, 0), ev("a", 5, 30, 1), ev("b", 0, 7)]
    m = run_metrics(events, {"a": 1.0, "b": 1.0})
    a = m.per_key[0]
    assert (a.dequeued, a.mean_wait, a.wait_p50, a.wait_max) == (2, 17.5, 10, 25)
    assert m.makespan_ms == 30
    assert m.worst_wait_max == 25
    assert m.total_dequeued == 3


def test_a_rows_slowdown_is_its_mean_wait_over_its_mean_hold() -> None:
    # a waits 0 and 10 ms over holds of 20 and 40 ms: 5 / 30; b is never served
    events = [ev("a", 0, 0, 0), ev("a", 0, 10, 1)]
    holds = {"a~0#0": 20, "a~0#1": 40}
    m = run_metrics(events, {"a": 1.0, "b": 1.0}, Demand(holds=holds))
    a, b = m.per_key
    assert (a.key, a.mean_wait, a.slowdown) == ("a", 5.0, 5.0 / 30.0)
    assert (b.key, b.dequeued, b.slowdown) == ("b", 0, None)
    assert run_metrics(events, {"a": 1.0}).per_key[0].slowdown is None  # no holds known
