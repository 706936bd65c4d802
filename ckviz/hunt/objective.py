"""The hunt's objective: how badly a discipline treats the worst-served key of a workload.

For each key, over the serves made while it had work waiting and at least one other key did
too: the serves it got, divided by the serves it deserved, where each such serve owes every
waiting key its weight's share of the weights then waiting. 1.0 is fair, 0.1 is a key getting
a tenth of what it was owed, 0.0 a key never served while others were. A key is judged only
once it was owed at least `MIN_OWED` serves: over a shorter stretch even a perfectly fair
discipline serves someone else first, and that is not starvation.

This is the results' contention share per key, measured over each key's own waiting time
instead of one window shared by all keys, so a key that waits through a long backlog cannot
be averaged away by the moments it did not wait.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import redis

from ckviz.hunt.space import HuntCase
from ckviz.metrics import run_metrics
from ckviz.model.matrix import Treatment
from ckviz.model.snapshot import DequeueEvent
from ckviz.sim.session import open_cell


@dataclass(frozen=True, slots=True)
class Verdict:
    """A discipline's treatment of one workload."""

    discipline: str
    worst_share: float  # contention share / fair share of the worst-served key (1 = fair)
    worst_key: str | None
    worst_key_mean_wait_ms: float | None
    contention_worst: float  # the results' contention_worst_share_over_weight, for comparison

    @property
    def starvation(self) -> float:
        """What the search maximises: 0 for a fair run, 1 for a key never served."""
        return 1.0 - self.worst_share


def evaluate(
    client: redis.Redis, prefix: str, case: HuntCase, discipline: str, check: bool = True
) -> Verdict:
    """Run `case` under `discipline` on the server, in the namespace `prefix`, to its end."""
    scenario = case.scenario
    treatment = Treatment(discipline=discipline)
    with open_cell(client, scenario, case.seed, treatment, prefix, 1, check) as driver:
        driver.run()
        snapshot = driver.snapshot()
    waiting = {
        row.key: int(row.true_head) - snapshot.score_base
        for row in snapshot.keys
        if row.true_head is not None
    }
    events = list(snapshot.events)
    ratios = owed_ratios(events, scenario.weights(), waiting)
    results_figure = run_metrics(events, scenario.weights()).contention_worst_share_over_weight
    if not ratios:
        return Verdict(discipline, 1.0, None, None, results_figure)
    worst_key = min(ratios, key=lambda k: ratios[k])  # first in declared order on a tie
    waits = [e.wait_ms for e in events if e.key == worst_key]
    mean = sum(waits) / len(waits) if waits else None
    return Verdict(discipline, ratios[worst_key], worst_key, mean, results_figure)


MIN_OWED = 3.0


def owed_ratios(
    events: Sequence[DequeueEvent],
    weights: Mapping[str, float],
    waiting_since: Mapping[str, int] | None = None,
) -> dict[str, float]:
    """Per judged key: serves got / serves owed while it waited beside others (see above).

    `waiting_since` gives, for keys with runs never dequeued, their oldest arrival: such a
    key waits from then to the end.
    """
    arrivals: dict[str, list[int]] = {}
    for event in events:
        arrivals.setdefault(event.key, []).append(event.arrival_ms)
    for key, since in (waiting_since or {}).items():
        arrivals.setdefault(key, []).append(since)
    for times in arrivals.values():
        times.sort()
    served = dict.fromkeys(arrivals, 0)
    got = dict.fromkeys(arrivals, 0)
    owed = dict.fromkeys(arrivals, 0.0)
    for event in sorted(events, key=lambda e: e.dequeued_ms):  # stable: in-instant order
        now = event.dequeued_ms
        waiting = [k for k, ts in arrivals.items() if bisect_right(ts, now) > served[k]]
        if len(waiting) >= 2:
            total = sum(weights.get(k, 1.0) for k in waiting)
            for k in waiting:
                owed[k] += weights.get(k, 1.0) / total
            got[event.key] += 1
        served[event.key] += 1
    return {k: got[k] / owed[k] for k in arrivals if owed[k] >= MIN_OWED}
