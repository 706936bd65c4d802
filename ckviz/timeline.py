"""Dequeue events -> a compact service timeline: who was served by when, and how long each
waited. `ckviz report` draws its service-over-time and wait-CDF figures from it.

Bounded whatever the run's size: cumulative counts at TIMELINE_POINTS instants and wait
quantiles at WAIT_PERCENTILES, for at most MAX_SERIES series (keys beyond that are pooled into
one "other keys" series), all from logical times, so the same run gives the same timeline.
Made as the results file holds it (model/results.py's TimelineResult): nothing copies it."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from functools import partial

from ckviz.metrics import percentiles
from ckviz.model.results import KeySeriesResult, TimelineResult
from ckviz.model.snapshot import DequeueEvent

TIMELINE_POINTS = 65  # instants 0, makespan/64, ..., makespan
WAIT_PERCENTILES = tuple(range(0, 101, 5))
MAX_SERIES = 12  # keys drawn one by one; a figure with more lines is unreadable anyway


def service_timeline(
    events: Sequence[DequeueEvent], weights: Mapping[str, float], light_key: str | None = None
) -> TimelineResult:
    """The run's timeline; keys in declared order, the pooled rest last."""
    makespan = max((e.dequeued_ms for e in events), default=0)
    t_ms = tuple(makespan * i // (TIMELINE_POINTS - 1) for i in range(TIMELINE_POINTS))
    dequeued_at, waits = _by_key(events, weights)
    shown = _shown_keys(list(dequeued_at), dequeued_at, light_key)
    series = [_series(k, 1, dequeued_at[k], waits[k], t_ms) for k in shown]
    rest = [k for k in dequeued_at if k not in shown]
    if rest:
        pooled_at = [t for k in rest for t in dequeued_at[k]]
        pooled_waits = [w for k in rest for w in waits[k]]
        label = f"{len(rest)} other keys"
        series.append(_series(label, len(rest), pooled_at, pooled_waits, t_ms))
    return TimelineResult(t_ms=list(t_ms), wait_percentiles=list(WAIT_PERCENTILES), series=series)


def _by_key(
    events: Sequence[DequeueEvent], weights: Mapping[str, float]
) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """Each key's dequeue times and waits, in event order; keys declared first, then as met.
    The events are unpacked, not read field by field (a third of the timeline's time went
    on this loop)."""
    dequeued_at: dict[str, list[int]] = {k: [] for k in weights}
    waits: dict[str, list[int]] = {k: [] for k in weights}
    for key, _, arrival_ms, dequeued_ms in events:
        if key not in dequeued_at:
            dequeued_at[key], waits[key] = [], []
        dequeued_at[key].append(dequeued_ms)
        waits[key].append(dequeued_ms - arrival_ms)
    return dequeued_at, waits


def _shown_keys(
    declared: list[str], dequeued_at: Mapping[str, list[int]], light_key: str | None
) -> list[str]:
    """Every key when they fit; else the most served (and the light key), in declared order."""
    if len(declared) <= MAX_SERIES:
        return declared
    room = MAX_SERIES - 1  # one line goes to the pooled rest
    ranked = sorted(declared, key=lambda k: -len(dequeued_at[k]))  # stable: declared order
    chosen = ranked[:room]
    if light_key is not None and light_key in dequeued_at and light_key not in chosen:
        chosen[-1] = light_key
    keep = set(chosen)
    return [k for k in declared if k in keep]


def _series(
    key: str, keys: int, dequeued_at: list[int], waits: list[int], t_ms: tuple[int, ...]
) -> KeySeriesResult:
    """One key (`keys == 1`) or a pool of `keys` keys: runs dequeued by each instant of
    `t_ms` (cumulative), and the nearest-rank wait at each of WAIT_PERCENTILES."""
    times = sorted(dequeued_at)
    ordered = sorted(waits)
    return KeySeriesResult(
        key=key,
        keys=keys,
        served=list(map(partial(bisect_right, times), t_ms)),
        wait_quantiles=list(percentiles(ordered, WAIT_PERCENTILES)),
    )
