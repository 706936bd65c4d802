"""A run's dequeue tape: the same rows, arrivals and figures whether its chunks stayed in
memory or went to disk, and waits counted to the same percentiles as the sorted waits."""

from __future__ import annotations

import random

import pytest

from ckviz.fairness import OwnLimit, key_service
from ckviz.fairness_tenants import tenant_figures
from ckviz.fairness_windows import Windows
from ckviz.metrics import Demand, percentile, ranks, run_metrics
from ckviz.model.snapshot import DequeueEvent
from ckviz.sim.engine import Dequeues, WaitCounts
from ckviz.timeline import service_timeline


def _events(n: int, keys: int, seed: int) -> tuple[list[DequeueEvent], dict[str, int]]:
    """`n` dequeues of `keys` keys in time order (several per instant, waits skewed)."""
    rng = random.Random(seed)
    events, holds, t = [], {}, 0
    for i in range(n):
        t += rng.choice((0, 0, 1, 3))
        arrival = max(0, t - int(rng.expovariate(1 / 40)))
        run_id = f"r{i}"
        events.append(DequeueEvent(f"k{rng.randrange(keys)}", run_id, arrival, t))
        holds[run_id] = rng.randrange(1, 30)
    return events, holds


def _tape(events: list[DequeueEvent], holds: dict[str, int], chunk: int) -> Dequeues:
    tape = Dequeues(chunk=chunk)
    for key, run_id, arrival, dequeued in events:
        tape.add(key, arrival, dequeued, holds[run_id])
    return tape


def test_a_spilled_tape_reads_back_its_rows_and_arrivals_in_order() -> None:
    events, holds = _events(1000, 7, seed=1)
    kept, spilled = _tape(events, holds, chunk=10**6), _tape(events, holds, chunk=64)
    try:
        assert list(spilled.rows()) == list(kept.rows())
        rows = [(e.key, e.arrival_ms, e.dequeued_ms, holds[e.run_id]) for e in events]
        assert list(kept.rows()) == rows
        more = [(5, "k1"), (0, "late")]
        expected = sorted([(e.arrival_ms, e.key) for e in events] + sorted(more))
        expected.sort(key=lambda a: a[0])  # stable: dequeue order, then `more`, at a tie
        assert list(spilled.arrivals(more)) == list(kept.arrivals(more))
        assert [a for a, _ in spilled.arrivals(more)] == [a for a, _ in expected]
    finally:
        spilled.close()


@pytest.mark.parametrize("chunk", [16, 10**6])
def test_every_figure_is_the_same_from_a_spilled_tape_as_from_the_events(chunk: int) -> None:
    events, holds = _events(800, 5, seed=2)
    weights = {"k0": 2.0, "k1": 1.0, "k3": 0.5}
    tape = _tape(events, holds, chunk)
    try:
        demand = Demand(holds=holds, per_key_cap=2)
        assert run_metrics(tape, weights, demand) == run_metrics(events, weights, demand)
        assert service_timeline(tape, weights, "k4") == service_timeline(events, weights, "k4")
        own = OwnLimit(2, holds)
        owner = {"k0": "a", "k1": "a", "k2": "b"}
        assert tenant_figures(tape, owner, None, OwnLimit(2)) == tenant_figures(
            events, owner, None, own
        )
        windowed, from_events = Windows(), Windows()
        assert key_service(tape, weights, None, OwnLimit(2), windows=windowed) == key_service(
            events, weights, None, own, windows=from_events
        )
        assert (windowed.cuts, windowed.owed) == (from_events.cuts, from_events.owed)
    finally:
        tape.close()


def test_waits_counted_give_the_nearest_rank_percentiles_of_the_sorted_waits() -> None:
    rng = random.Random(3)
    for n in (1, 2, 3, 99, 100, 101, 1000):
        waits = [int(rng.paretovariate(1.2)) for _ in range(n)]
        counts = WaitCounts()
        for w in waits:
            counts.add(w)
        ordered = sorted(waits)
        pcts = (0.0, 5.0, 50.0, 95.0, 99.0, 100.0)
        assert counts.ranked(ranks(n, pcts)) == tuple(percentile(ordered, p) for p in pcts)
        assert counts.mean == sum(float(w) for w in waits) / n
        assert counts.most == ordered[-1]


def test_a_dequeue_earlier_than_the_last_is_refused() -> None:
    tape = Dequeues()
    tape.add("a", 0, 5, 1)
    with pytest.raises(ValueError, match="a dequeue at 4 after one at 5"):
        tape.add("a", 0, 4, 1)
