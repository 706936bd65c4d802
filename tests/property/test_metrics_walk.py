"""The linear contention walk gives exactly the figures of the plain per-event recount."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ckviz.metrics import contention, plain_sum
from ckviz.model.snapshot import DequeueEvent

pytestmark = pytest.mark.slow


def recount(
    events: Sequence[DequeueEvent],
    weights: Mapping[str, float],
    waiting_since: Mapping[str, int],
) -> dict[str, float]:
    """SPEC section 7 read literally: at every event, recount which keys have work waiting."""
    ordered = sorted(events, key=lambda e: e.dequeued_ms)
    arrivals: dict[str, list[int]] = {}
    for event in ordered:
        arrivals.setdefault(event.key, []).append(event.arrival_ms)
    for key, since in waiting_since.items():
        arrivals.setdefault(key, []).append(since)
    weights = {**{k: 1.0 for k in arrivals if k not in weights}, **weights}
    for times in arrivals.values():
        times.sort()
    served = dict.fromkeys(arrivals, 0)
    counted: dict[str, int] = {}
    contended: set[str] = set()
    window = 0
    for event in ordered:
        waiting = [
            k for k, ts in arrivals.items() if bisect_right(ts, event.dequeued_ms) > served[k]
        ]
        if len(waiting) >= 2:
            window += 1
            counted[event.key] = counted.get(event.key, 0) + 1
            contended.update(waiting)
        served[event.key] += 1
    if window == 0:
        return {}
    keys = [k for k in weights if k in contended]
    total = plain_sum([weights[k] for k in keys])
    return {k: (counted.get(k, 0) / window) / (weights[k] / total) for k in keys}


@st.composite
def logs(draw: st.DrawFn) -> tuple[list[DequeueEvent], dict[str, float], dict[str, int]]:
    keys = [f"k{i}" for i in range(draw(st.integers(1, 5)))]
    events, t = [], 0
    for i in range(draw(st.integers(0, 40))):
        t += draw(st.integers(0, 3))
        key = draw(st.sampled_from(keys))
        events.append(DequeueEvent(key, f"{key}#{i}", t - draw(st.integers(0, min(t, 20))), t))
    weights = {k: float(draw(st.integers(1, 3))) for k in keys if draw(st.booleans())}
    waiting = {k: draw(st.integers(0, t + 5)) for k in keys if draw(st.booleans())}
    return events, weights, waiting


@settings(max_examples=300, deadline=None)
@given(logs())
def test_linear_walk_matches_the_recount(
    log: tuple[list[DequeueEvent], dict[str, float], dict[str, int]],
) -> None:
    events, weights, waiting = log
    assert contention(events, weights, waiting_since=waiting) == recount(events, weights, waiting)
