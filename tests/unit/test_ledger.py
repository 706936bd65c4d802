"""The books' set of active keys: right as keys come and go, and no bigger than it must be."""

from __future__ import annotations

import sys

from ckviz.model.queue import PlannedRun
from ckviz.sim.engine.ledger import Ledger

BASE = 1_000


def test_active_keys_follow_enqueues_and_acks_and_the_set_shrinks_after_a_drain() -> None:
    runs = [PlannedRun(f"k{i}", f"k{i}#0", 0, 5) for i in range(4000)]
    ledger = Ledger({r.key: 1.0 for r in runs}, runs)
    for run in ledger.arrivals_due(0):
        ledger.enqueued(run, BASE + run.arrival_ms)
    assert ledger.active == {r.key for r in runs}
    full_size = sys.getsizeof(ledger.active)
    for run in runs:
        ledger.dequeued(0, run.key, run.run_id)
    for run in ledger.releases_due(5)[:-3]:
        ledger.acked(run)
    assert ledger.active == {r.key for r in runs[-3:]}
    # walking a set costs its table's size: the one left must not be the 4,000 keys' table
    assert sys.getsizeof(ledger.active) * 10 < full_size


def test_runs_arriving_now_get_books_and_add_up_as_planned_ones_do() -> None:
    ledger = Ledger({"a": 1.0}, [])
    first, minted = PlannedRun("a", "a-0", 0, 3), PlannedRun("fresh-0", "fresh-0-0", 2, 3)
    ledger.arrive_now(first, BASE)
    ledger.arrive_now(minted, BASE + 1)
    assert list(ledger.books) == ["a", "fresh-0"]  # declared first, then met
    assert ledger.total_runs == 2 and ledger.to_arrive_count == 0 and ledger.queued_count == 2
    assert ledger.arrivals_due(10) == []  # handed out already
    waited = ledger.dequeued(4, "fresh-0", "fresh-0-0").wait_sum_ms
    assert waited == 2  # served at 4, arrived at 2 (steps)
    assert ledger.releases_due(6) == [] and ledger.releases_due(7) == [minted]
