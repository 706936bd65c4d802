"""Dequeue events -> fairness and wait figures (SPEC section 7), exactly as the reference sums."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ckviz.fairness import (
    UNDER_FAIR,
    UNDER_HALF,
    KeyService,
    OwnLimit,
    key_service,
)
from ckviz.fairness_intervals import resampled_attainment
from ckviz.fairness_judged import most_underserved, share_below, starved_keys
from ckviz.fairness_windows import Windows
from ckviz.model.results import KeyLifecycleResult, KeyRowResult, MetricsResult, StepMetricsResult
from ckviz.model.snapshot import DequeueEvent
from ckviz.sim.engine import Dequeues, Engine, KeyLife, Outcome, WaitCounts, as_dequeues


def lifecycle_figures(tally: KeyLife) -> KeyLifecycleResult:
    waits = sorted(tally.success_waits)
    n = len(waits)
    return KeyLifecycleResult(
        attempts=tally.attempts,
        retries=tally.retries,
        expired=tally.expired,
        dead_lettered=tally.dead_lettered,
        delayed=tally.delayed,
        fast_path=tally.fast_path,
        succeeded=n,
        success_wait_mean=plain_sum([float(w) for w in tally.success_waits]) / n if n else None,
        success_wait_p50=percentile(waits, 50) if n else None,
        success_wait_p99=percentile(waits, 99) if n else None,
        success_wait_max=waits[-1] if n else None,
    )


@dataclass(frozen=True, slots=True)
class Demand:
    """What the demand-aware figures need beyond the events: each run's hold (slowdown, and
    with a per-key cap, when a key waits on itself), the cap, and keys left waiting."""

    holds: Mapping[str, int] | None = None  # run id -> hold
    per_key_cap: int | None = None
    waiting_since: Mapping[str, int] | None = None
    per_call: int | None = None  # the step harness: one run per key per call


def percentile(sorted_values: Sequence[int], pct: float) -> int:
    """The reference's nearest-rank percentile: sorted[ceil(pct/100 * n) - 1], clamped."""
    n = len(sorted_values)
    if n == 0:
        return 0
    return sorted_values[max(0, min(n - 1, math.ceil(pct / 100 * n) - 1))]


def percentiles(sorted_values: Sequence[int], pcts: tuple[float, ...]) -> tuple[int, ...]:
    """percentile at each of `pcts` (a timeline asks 21 per series): the ranks are worked out
    once per length, as a run's keys often have the same number of runs."""
    if not sorted_values:
        return (0,) * len(pcts)
    return tuple([sorted_values[i] for i in ranks(len(sorted_values), pcts)])


@lru_cache(maxsize=4096)
def ranks(n: int, pcts: tuple[float, ...]) -> tuple[int, ...]:
    """percentile's index at each of `pcts` in a sorted list of `n` (n > 0)."""
    return tuple(max(0, min(n - 1, math.ceil(p / 100 * n) - 1)) for p in pcts)


def plain_sum(values: Sequence[float]) -> float:
    """Left-to-right float sum, as JavaScript's loop does (not fsum, not 3.12's sum)."""
    total = 0.0
    for v in values:
        total += v
    return total


def jain(values: Sequence[float]) -> float:
    """Jain's index (sum x)^2 / (n * sum x^2); 1 when empty or all zero."""
    if not values:
        return 1.0
    squares = plain_sum([v * v for v in values])
    if squares == 0:
        return 1.0
    total = plain_sum(values)
    return total * total / (len(values) * squares)


def contention(
    events: Dequeues | Sequence[DequeueEvent],
    weights: Mapping[str, float],
    *,
    waiting_since: Mapping[str, int] | None = None,
) -> dict[str, float]:
    """Per contended key: its share of the contention window over its fair (weighted) share.

    `waiting_since` (for a run still in progress) gives, per key with runs still queued, the
    arrival of its oldest one: that key counts as waiting from then on, served or not yet.
    """
    tape = as_dequeues(events)
    waiting = waiting_since or {}
    keys_seen = dict.fromkeys([*tape.keys, *waiting])
    weights = {**{k: 1.0 for k in keys_seen if k not in weights}, **weights}
    arriving = tape.arrivals((since, key) for key, since in waiting.items())
    # One walk over dequeues and arrivals together (linear in both): a key waits while more
    # of its runs have arrived than were served; each waiting key is marked contended once.
    backlog: dict[str, int] = dict.fromkeys(keys_seen, 0)  # arrived - served
    keys_waiting = 0
    unmarked: set[str] = set()  # waiting keys not yet known to be contended
    counted: dict[str, int] = {}
    contended: set[str] = set()
    window = 0
    coming = next(arriving, None)
    for served, _, now, _ in tape.rows():  # unpacked: quicker than reading field by field
        while coming is not None and coming[0] <= now:
            key = coming[1]
            coming = next(arriving, None)
            backlog[key] += 1
            if backlog[key] == 1:
                keys_waiting += 1
                if key not in contended:
                    unmarked.add(key)
        if keys_waiting >= 2:
            window += 1
            counted[served] = counted.get(served, 0) + 1
            if unmarked:
                contended |= unmarked
                unmarked.clear()
        backlog[served] -= 1
        if backlog[served] == 0:
            keys_waiting -= 1
            unmarked.discard(served)
    return share_over_weight(counted, window, contended, weights)


def share_over_weight(
    counted: Mapping[str, int], window: int, contended: set[str], weights: Mapping[str, float]
) -> dict[str, float]:
    """Per contended key (zero counts included): its share of the `window` counted serves over
    its weighted fair share among the contended keys."""
    if window == 0:
        return {}
    # Declared key order: sums run left to right, so the order is part of the result.
    keys = [k for k in weights if k in contended]
    weight_total = plain_sum([weights[k] for k in keys])
    return {key: (counted.get(key, 0) / window) / (weights[key] / weight_total) for key in keys}


def shares_so_far(
    engine: Engine, events: Sequence[DequeueEvent], weights: Mapping[str, float]
) -> dict[str, float]:
    """Per contended key, its share over weight so far: counted per call as the step clock
    goes, else walked from the events with every key's oldest queued run counted as waiting
    (the snapshot carries a few rows; the books know every key)."""
    counted = engine.contention_counts()
    if counted is None:
        return contention(events, weights, waiting_since=engine.waiting_since())
    counts = {k: float(counted.get(k, 0)) for k in weights}
    total = sum(counts.values())
    return {k: c * len(counts) / total for k, c in counts.items()} if total else {}


def outcome_metrics(
    outcome: Outcome, waiting: Mapping[str, int] | None = None, wall_clock_ms: float = 0.0
) -> MetricsResult:
    """A finished run's figures, on either clock, as the results file holds them (the one
    type: nothing copies them on the way): the step clock counted contention per call as it
    went (and its minted keys get no row of their own); the millisecond clock's is walked
    from the dequeues. `waiting`: the engine's keys left with runs (a step run's);
    `wall_clock_ms`: the run's time, as measured by whoever ran it."""
    tape = outcome.dequeues
    if outcome.steps is None:
        demand = Demand(per_key_cap=outcome.per_key_cap, waiting_since=waiting or None)
        m = run_metrics(tape, outcome.weights, demand)
    else:
        s = outcome.steps
        m = step_run_metrics(tape, outcome.weights, s.contention, s.contended, waiting)
        declared = set(s.declared)
        m.per_key = [k for k in m.per_key if k.key in declared]
    m.redis_round_trips, m.wall_clock_ms = outcome.round_trips, wall_clock_ms
    tallies = outcome.lifecycle
    if tallies is not None:  # a scenario with the run lifecycle: each key's tallies
        for k in m.per_key:
            k.lifecycle = lifecycle_figures(tallies[k.key])
    return m


def run_metrics(
    events: Dequeues | Sequence[DequeueEvent],
    weights: Mapping[str, float],
    demand: Demand | None = None,
) -> MetricsResult:
    """Every per-run figure the results carry, from the dequeues alone (no round trips, no
    time measured: the outcome's, outcome_metrics; events in hand: their holds in `demand`)."""
    demand = demand or Demand()
    tape = as_dequeues(events, demand.holds)
    return _figures(tape, weights, contention(tape, weights), demand)


def _figures(
    tape: Dequeues, weights: Mapping[str, float], ratios: Mapping[str, float], demand: Demand
) -> MetricsResult:
    """The per-run figures from the dequeues and the contended keys' share over weight."""
    values = list(ratios.values())
    windows = Windows()
    service = _service(tape, weights, demand, windows)
    resamples = resampled_attainment(service, windows)
    per_key = per_key_metrics(tape, weights, ratios, service)
    served = [k for k in per_key if k.dequeued]
    worst = most_underserved(service)
    return MetricsResult(
        total_dequeued=len(tape),
        redis_round_trips=0,
        wall_clock_ms=0.0,
        contention_worst_share_over_weight=min(values) if values else 1.0,
        contention_jain=jain(values),
        makespan_ms=tape.last,
        worst_wait_p99=max((k.wait_p99 for k in served), default=0),
        worst_wait_max=max((k.wait_max for k in served), default=0),
        per_key=per_key,
        most_underserved_key=worst[0] if worst else None,
        most_underserved_attainment=worst[1] if worst else None,
        share_of_keys_below_0_5=share_below(service, UNDER_HALF),
        share_of_keys_below_0_9=share_below(service, UNDER_FAIR),
        starved_keys=starved_keys(service),
        attainment_resamples=resamples,
    )


def _service(
    tape: Dequeues, weights: Mapping[str, float], demand: Demand, windows: Windows | None = None
) -> dict[str, KeyService]:
    own = None
    if demand.per_key_cap is not None and tape.holds_known:
        own = OwnLimit(demand.per_key_cap)
    return key_service(tape, weights, demand.waiting_since, own, demand.per_call, None, windows)


def step_figures(
    serves: Dequeues | Sequence[DequeueEvent],
    victims: Sequence[str],
    contention_counts: Mapping[str, int],
    drain_step: int,
    calls: int,
) -> StepMetricsResult:
    """The reference micro-benchmark's figures (its harness: a call per step), in steps:
    victim waits are steps since arrival (the step itself for runs enqueued up front); -1
    where no victim was served or the queue never drained. `calls`: dequeue calls made."""
    chosen = set(victims)
    rows = as_dequeues(serves).rows()
    waits = [dequeued - arrival for key, arrival, dequeued, _ in rows if key in chosen]
    ordered = sorted(waits)
    counts = [float(c) for c in contention_counts.values() if c > 0]
    return StepMetricsResult(
        victim_first_serve=waits[0] if waits else -1,
        victim_wait_p50=percentile(ordered, 50) if waits else -1,
        victim_wait_p95=percentile(ordered, 95) if waits else -1,
        victim_wait_p99=percentile(ordered, 99) if waits else -1,
        jain_nonzero=jain(counts) if counts else None,
        drain_step=drain_step,
        calls=calls,
    )


def step_run_metrics(
    serves: Dequeues | Sequence[DequeueEvent],
    weights: Mapping[str, float],
    contention_counts: Mapping[str, int],
    contended: set[str],
    waiting_since: Mapping[str, int] | None = None,
) -> MetricsResult:
    """The per-run figures for a step run: times in steps, contention counted per call."""
    window = sum(contention_counts.values())
    ratios = share_over_weight(contention_counts, window, contended, weights)
    demand = Demand(waiting_since=waiting_since, per_call=1)
    return _figures(as_dequeues(serves), weights, ratios, demand)


def per_key_metrics(
    events: Dequeues | Sequence[DequeueEvent],
    weights: Mapping[str, float],
    ratios: Mapping[str, float],
    service: Mapping[str, KeyService] | None = None,
    holds: Mapping[str, int] | None = None,
) -> list[KeyRowResult]:
    """A row per key of `weights`, in its order, from what the tape folded per key. Each
    row is made once, its demand-aware figures with it (at 100,000 keys a `replace` per row
    cost as much as the rest of the row)."""
    tape = as_dequeues(events, holds)
    owed = service or {}
    total = len(tape)
    rows = []
    for key in weights:
        served = owed.get(key)
        attainment = served.attainment if served else None
        number = tape.keys.get(key)
        held_ms = tape.held[number] if number is not None and tape.holds_known else 0
        waits = tape.waits_of(key)
        rows.append(key_metrics(key, waits, total, weights, ratios, attainment, held_ms))
    return rows


def key_metrics(
    key: str,
    waits: WaitCounts,
    total_events: int,
    weights: Mapping[str, float],
    ratios: Mapping[str, float],
    fair_share_attainment: float | None = None,
    held_ms: int = 0,
) -> KeyRowResult:
    """One key's row; `held_ms`: its served runs' holds in all (0: unknown, no slowdown)."""
    n = waits.n
    mean_wait = waits.mean
    p50, p99 = waits.ranked(ranks(n, (50, 99))) if n else (0, 0)
    return KeyRowResult(
        key=key,
        dequeued=n,
        weight=weights.get(key, 1.0),
        share=n / total_events if total_events else 0.0,
        contention_share_over_weight=ratios.get(key),
        mean_wait=mean_wait,
        wait_p50=p50,
        wait_p99=p99,
        wait_max=waits.most,
        fair_share_attainment=fair_share_attainment,
        slowdown=mean_wait / (held_ms / n) if n and held_ms else None,
    )
