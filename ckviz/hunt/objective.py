"""The hunt's objective: how badly a discipline treats the worst-served key of a workload.

For each key, over the instants (calls, in the step harness) at which it had work it could
take: the serves it got, divided by the serves it was owed. An instant's serves are owed
max-min fairly, by weight, to the keys that could take one when it began, none beyond its room
(its runs waiting, less what its own per-key cap forbids: a key waiting on its own cap waits
on itself, not on the discipline). 1.0 is fair; 0.1 is a key getting a tenth of what it was
owed. A key is judged once it was owed at least `MIN_OWED` serves: over a shorter stretch even
a perfectly fair discipline serves someone else first, and that is not starvation.

This is the results' contention share per key, measured over each key's own waiting time
instead of one window shared by all keys, so a key that waits through a long backlog cannot
be averaged away by the moments it did not wait; and the serves a key takes while alone count
for it too, so a discipline with memory (SFQ serving a key that is ahead only when nobody else
can be served) is not mistaken for one that starves it.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby

import redis

from ckviz.hunt.space import HuntCase
from ckviz.metrics import outcome_metrics
from ckviz.model.clock import clock_of
from ckviz.model.matrix import Treatment
from ckviz.model.snapshot import DequeueEvent
from ckviz.sim.clocks import EngineOptions, open_engine


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
    treatment = Treatment(discipline=discipline)
    scenario = case.scenario
    options = EngineOptions(check_invariants=check)
    with open_engine(client, scenario, case.seed, treatment, prefix, options) as engine:
        engine.run()
        outcome, waiting = engine.outcome(), engine.waiting_since()
    events = outcome.events
    # the results' figure, weighed as --headless does (a step run's minted keys at weight 1)
    results_figure = outcome_metrics(outcome).contention_worst_share_over_weight
    own_limit = None
    if outcome.per_key_cap is not None:
        own_limit = OwnLimit(min(outcome.per_key_cap, scenario.env_limit), outcome.holds)
    per_call = clock_of(scenario).per_call  # the step clock: one run per key per call
    ratios = owed_ratios(events, scenario.weights(), waiting, own_limit, per_call)
    if not ratios:
        return Verdict(discipline, 1.0, None, None, results_figure)
    worst_key = min(ratios, key=lambda k: ratios[k])  # first in declared order on a tie
    waits = [e.wait_ms for e in events if e.key == worst_key]
    mean = sum(waits) / len(waits) if waits else None
    return Verdict(discipline, ratios[worst_key], worst_key, mean, results_figure)


MIN_OWED = 3.0


@dataclass(frozen=True, slots=True)
class OwnLimit:
    """A per-key cap and each run's hold: a key holding `cap` runs waits on itself, not on the
    discipline, so it is owed nothing while it does."""

    cap: int
    holds: Mapping[str, int]  # run id -> hold (ms)


def owed_ratios(
    events: Sequence[DequeueEvent],
    weights: Mapping[str, float],
    waiting_since: Mapping[str, int] | None = None,
    own_limit: OwnLimit | None = None,
    per_call: int | None = None,
) -> dict[str, float]:
    """Per judged key: serves got / serves owed while it waited beside others (see above).

    Serves are judged an instant (or a call) at a time: the serves of an instant are shared
    out max-min fairly, by weight, among the keys that could take one when it began, each up
    to its room (its runs waiting, less what its own cap or `per_call`, the step harness's one
    run per key per call, forbids). `waiting_since` gives, for keys with runs never dequeued,
    their oldest arrival: such a key waits from then to the end.
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
    releases: dict[str, list[int]] = {k: [] for k in arrivals}  # heaps of held runs' releases
    ordered = sorted(events, key=lambda e: e.dequeued_ms)  # stable: in-instant order
    for now, batch in groupby(ordered, key=lambda e: e.dequeued_ms):
        serves = list(batch)
        rooms = {}
        for k, ts in arrivals.items():
            room = bisect_right(ts, now) - served[k]
            if own_limit is not None:
                room = min(room, own_limit.cap - _held(releases[k], now))
            room = room if per_call is None else min(room, per_call)
            if room > 0:
                rooms[k] = room
        if rooms:
            for k, share in _max_min_fair(len(serves), rooms, weights).items():
                owed[k] += share
            for e in serves:
                got[e.key] += 1
        for e in serves:
            served[e.key] += 1
            if own_limit is not None:
                heapq.heappush(releases[e.key], now + own_limit.holds[e.run_id])
    return {k: got[k] / owed[k] for k in arrivals if owed[k] >= MIN_OWED}


def _max_min_fair(
    serves: int, rooms: Mapping[str, int], weights: Mapping[str, float]
) -> dict[str, float]:
    """`serves` shared by weight among keys, none above its room, the excess passed on.
    Keys stay in `rooms`' order throughout (never a set): float sums in a fixed order keep a
    seeded hunt the same in every process, whatever its string hash seed."""
    share = dict.fromkeys(rooms, 0.0)
    left, open_keys = float(serves), list(rooms)
    while left > 1e-12 and open_keys:
        total = sum(weights.get(k, 1.0) for k in open_keys)
        full = [k for k in open_keys if share[k] + left * weights.get(k, 1.0) / total >= rooms[k]]
        if not full:
            for k in open_keys:
                share[k] += left * weights.get(k, 1.0) / total
            break
        for k in full:
            left -= rooms[k] - share[k]
            share[k] = float(rooms[k])
        open_keys = [k for k in open_keys if k not in full]
    return share


def _held(releases: list[int], now: int) -> int:
    while releases and releases[0] <= now:  # released before this instant's serves
        heapq.heappop(releases)
    return len(releases)
