"""The run lifecycle as a snapshot carries it (docs/lifecycle.md): per key, the runs waiting
for their retry time (or their delay) and when the first comes due, and the retry, expiry and
dead-letter tallies; the TTL queue's next expiries. Built for the rows a view carries only, so
a snapshot of a large run stays cheap: a row walks its own key's queued runs, the expiries one
pass over the TTL entries still pending.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from ckviz.model.snapshot import KeyLifeRow, LifeView
from ckviz.sim.engine.ledger import Ledger
from ckviz.sim.engine.life_commands import DriverLife, PlainRuns

NEXT_EXPIRIES = 3  # the TTL queue's entries a snapshot carries


def life_view(runs: PlainRuns, ledger: Ledger, t: int, keys: Iterable[str]) -> LifeView | None:
    """The lifecycle at `t` for `keys` (None: the scenario's runs have no lifecycle)."""
    if not isinstance(runs, DriverLife):
        return None
    life = runs.life
    rows = {}
    for key in keys:
        if key in ledger.books:
            tally = life.keys.get(key)
            waiting, next_due = _waiting(ledger, key, t)
            rows[key] = KeyLifeRow(
                waiting,
                next_due,
                tally.retries if tally else 0,
                tally.expired if tally else 0,
                tally.dead_lettered if tally else 0,
            )
    pending = life.ttl_pending
    soonest = heapq.nsmallest(NEXT_EXPIRIES, pending.items(), key=lambda e: (e[1][1], e[0]))
    expiries = tuple((key, run_id, life.tick_of(at)) for run_id, (key, at) in soonest)
    return LifeView(rows, expiries, len(pending), life.next_sweep(t))


def _waiting(ledger: Ledger, key: str, t: int) -> tuple[int, int | None]:
    """How many of `key`'s queued runs are not due at `t`, and when the first of them is."""
    due = ledger.due
    if not due:
        return 0, None
    later = [at for _, run_id in ledger.books[key].queued if (at := due.get(run_id, t)) > t]
    return len(later), min(later, default=None)
