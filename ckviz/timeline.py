"""Dequeue events -> a compact service timeline: who was served by when, and how long each
waited. `ckviz report` draws its service-over-time and wait-CDF figures from it.

Bounded whatever the run's size: cumulative counts at TIMELINE_POINTS instants and wait
quantiles at WAIT_PERCENTILES, for at most MAX_SERIES series (keys beyond that are pooled into
one "other keys" series), all from logical times, so the same run gives the same timeline.
Made as the results file holds it (model/results.py's TimelineResult): nothing copies it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ckviz.metrics import ranks
from ckviz.model.results import KeySeriesResult, TimelineResult
from ckviz.model.snapshot import DequeueEvent
from ckviz.sim.engine import Dequeues, WaitCounts, as_dequeues

TIMELINE_POINTS = 65  # instants 0, makespan/64, ..., makespan
WAIT_PERCENTILES = tuple(range(0, 101, 5))
MAX_SERIES = 12  # keys drawn one by one; a figure with more lines is unreadable anyway


def service_timeline(
    events: Dequeues | Sequence[DequeueEvent],
    weights: Mapping[str, float],
    light_key: str | None = None,
) -> TimelineResult:
    """The run's timeline; keys in declared order, the pooled rest last."""
    tape = as_dequeues(events)
    makespan = tape.last
    t_ms = tuple(makespan * i // (TIMELINE_POINTS - 1) for i in range(TIMELINE_POINTS))
    keys = list(dict.fromkeys([*weights, *tape.keys]))  # declared first, then as met
    shown = _shown_keys(keys, tape, light_key)
    rest = [k for k in keys if k not in set(shown)]
    served = _served_by(tape, t_ms, shown)
    series = [_series(k, 1, served[k], tape.waits_of(k)) for k in shown]
    if rest:
        pooled = WaitCounts()
        for key in rest:
            pooled.merge(tape.waits_of(key))
        series.append(_series(f"{len(rest)} other keys", len(rest), served[None], pooled))
    return TimelineResult(t_ms=list(t_ms), wait_percentiles=list(WAIT_PERCENTILES), series=series)


def _served_by(
    tape: Dequeues, t_ms: tuple[int, ...], shown: list[str]
) -> dict[str | None, list[int]]:
    """Per shown key (None: the rest pooled), its runs dequeued by each of `t_ms`, counted
    in one walk over the dequeues in time order."""
    lines: dict[str | None, int] = {key: i for i, key in enumerate(shown)}
    pooled = len(shown)
    counts = [0] * (pooled + 1)
    at: list[list[int]] = []  # the counts at each instant of t_ms passed
    for key, _, now, _ in tape.rows():
        while len(at) < len(t_ms) and t_ms[len(at)] < now:
            at.append(list(counts))
        counts[lines.get(key, pooled)] += 1
    while len(at) < len(t_ms):
        at.append(list(counts))
    lines[None] = pooled
    return {key: [c[line] for c in at] for key, line in lines.items()}


def _shown_keys(declared: list[str], tape: Dequeues, light_key: str | None) -> list[str]:
    """Every key when they fit; else the most served (and the light key), in declared order."""
    if len(declared) <= MAX_SERIES:
        return declared
    room = MAX_SERIES - 1  # one line goes to the pooled rest
    ranked = sorted(declared, key=lambda k: -tape.got(k))  # stable: declared order
    chosen = ranked[:room]
    if light_key is not None and light_key in declared and light_key not in chosen:
        chosen[-1] = light_key
    keep = set(chosen)
    return [k for k in declared if k in keep]


def _series(key: str, keys: int, served: list[int], waits: WaitCounts) -> KeySeriesResult:
    """One key (`keys == 1`) or a pool of `keys` keys: runs dequeued by each instant of the
    timeline (cumulative), and the nearest-rank wait at each of WAIT_PERCENTILES."""
    quantiles = waits.ranked(ranks(waits.n, WAIT_PERCENTILES)) if waits.n else None
    return KeySeriesResult(
        key=key,
        keys=keys,
        served=served,
        wait_quantiles=list(quantiles or (0,) * len(WAIT_PERCENTILES)),
    )
