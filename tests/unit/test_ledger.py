"""The books' set of active keys: right as keys come and go, and no bigger than it must be."""

from __future__ import annotations

import sys

from ckviz.model.queue import PlannedRun
from ckviz.sim.ledger import Ledger

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
