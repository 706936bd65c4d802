"""Water-filling and the run's owed/got tally: the properties the definition promises, and
the linear tally equal to sharing out every instant one by one (docs/fairness.md)."""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import groupby

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ckviz import fairness
from ckviz.fairness import OwnLimit, Tally, key_service, water_fill
from ckviz.model.snapshot import DequeueEvent

KEYS = ["a", "b", "c", "d", "e"]


@st.composite
def shares(draw: st.DrawFn) -> tuple[int, dict[str, int], dict[str, float]]:
    """Dequeues no more than the keys' rooms add up to (an instant cannot serve more)."""
    keys = KEYS[: draw(st.integers(1, len(KEYS)))]
    rooms = {k: draw(st.integers(0, 6)) for k in keys}
    weights = {k: float(draw(st.integers(1, 4))) for k in keys}
    dequeues = draw(st.integers(0, sum(rooms.values())))
    return dequeues, rooms, weights


@given(shares())
def test_allocations_add_up_to_the_dequeues(
    case: tuple[int, dict[str, int], dict[str, float]],
) -> None:
    dequeues, rooms, weights = case
    assert sum(water_fill(dequeues, rooms, weights).values()) == pytest.approx(dequeues, abs=1e-9)


@given(shares())
def test_no_key_gets_more_than_its_room(case: tuple[int, dict[str, int], dict[str, float]]) -> None:
    dequeues, rooms, weights = case
    for key, share in water_fill(dequeues, rooms, weights).items():
        assert -1e-12 <= share <= rooms[key] + 1e-9


@given(shares(), st.sampled_from(KEYS), st.integers(1, 5))
def test_raising_one_keys_demand_never_raises_anothers(
    case: tuple[int, dict[str, int], dict[str, float]], raised: str, more: int
) -> None:
    dequeues, rooms, weights = case
    if raised not in rooms:
        return
    before = water_fill(dequeues, rooms, weights)
    after = water_fill(dequeues, {**rooms, raised: rooms[raised] + more}, weights)
    for key in rooms:
        if key != raised:
            assert after[key] <= before[key] + 1e-9


def slow_service(
    events: Sequence[DequeueEvent],
    weights: Mapping[str, float],
    waiting_since: Mapping[str, int],
    own_limit: OwnLimit | None,
    per_call: int | None,
) -> dict[str, tuple[float, int, float, int]]:
    """The definition read literally: every instant, recount each key's room and water-fill."""
    arrivals: dict[str, list[int]] = {}
    for e in events:
        arrivals.setdefault(e.key, []).append(e.arrival_ms)
    for key, since in waiting_since.items():
        arrivals.setdefault(key, []).append(since)
    for times in arrivals.values():
        times.sort()
    served = dict.fromkeys(arrivals, 0)
    tally = {k: [0.0, 0, 0.0, 0] for k in arrivals}
    releases: dict[str, list[int]] = {k: [] for k in arrivals}
    for now, batch in groupby(
        sorted(events, key=lambda e: e.dequeued_ms), key=lambda e: e.dequeued_ms
    ):
        serves = list(batch)
        rooms = {}
        for k, ts in arrivals.items():
            room = bisect_right(ts, now) - served[k]
            if own_limit is not None:
                while releases[k] and releases[k][0] <= now:
                    heapq.heappop(releases[k])
                room = min(room, own_limit.cap - len(releases[k]))
            room = room if per_call is None else min(room, per_call)
            if room > 0:
                rooms[k] = room
        if rooms:
            together = len(rooms) >= 2
            for k, share in water_fill(len(serves), rooms, weights).items():
                tally[k][0] += share
                tally[k][2] += share if together else 0.0
            for e in serves:
                tally[e.key][1] += 1
                tally[e.key][3] += together
        for e in serves:
            served[e.key] += 1
            if own_limit is not None:
                heapq.heappush(releases[e.key], now + own_limit.holds[e.run_id])
    return {k: (t[0], int(t[1]), t[2], int(t[3])) for k, t in tally.items()}


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[DequeueEvent], dict[str, float], dict[str, int]]:
    """A dequeue log in time order (several runs per instant), arrivals before dequeues."""
    keys = KEYS[: draw(st.integers(1, len(KEYS)))]
    events, t = [], 0
    for i in range(draw(st.integers(0, 40))):
        t += draw(st.integers(0, 3))
        key = draw(st.sampled_from(keys))
        events.append(DequeueEvent(key, f"{key}#{i}", t - draw(st.integers(0, min(t, 20))), t))
    weights = {k: float(draw(st.integers(1, 3))) for k in keys}
    waiting = {k: draw(st.integers(0, t + 5)) for k in keys if draw(st.booleans())}
    return events, weights, waiting


@settings(max_examples=300)
@given(runs(), st.sampled_from([None, 1, 2]), st.sampled_from([None, 1]))
@pytest.mark.slow
def test_the_running_tally_is_the_instant_by_instant_definition(
    run: tuple[list[DequeueEvent], dict[str, float], dict[str, int]],
    cap: int | None,
    per_call: int | None,
) -> None:
    events, weights, waiting = run
    holds = {e.run_id: sum(map(ord, e.run_id)) % 4 for e in events}  # 0..3 ms, fixed per run
    own = OwnLimit(cap, holds) if cap else None
    fast = key_service(events, weights, waiting, own, per_call)
    slow = slow_service(events, weights, waiting, own, per_call)
    assert set(fast) == set(slow)
    for key, (owed, got, owed_beside, got_beside) in slow.items():
        s = fast[key]
        assert s.owed == pytest.approx(owed, abs=1e-9)
        assert s.owed_beside_others == pytest.approx(owed_beside, abs=1e-9)
        assert (s.got, s.got_beside_others) == (got, got_beside)


@given(runs())
def test_what_is_owed_adds_up_to_what_was_dequeued(
    run: tuple[list[DequeueEvent], dict[str, float], dict[str, int]],
) -> None:
    events, weights, waiting = run
    service = key_service(events, weights, waiting)
    assert sum(s.owed for s in service.values()) == pytest.approx(len(events), abs=1e-9)
    assert sum(s.got for s in service.values()) == len(events)


class EagerTally(Tally):
    """The tally with an exact heap entry posted at every room change: what the lazy one
    (entries kept as lower bounds, brought up to date when they would cap) must equal."""

    def _update(self, key: str) -> None:
        super()._update(key)
        room = self.room[key]
        if room and self.posted[key] != room:
            self._post(key, room)


@settings(max_examples=300)
@given(runs(), st.sampled_from([None, 1, 2]), st.sampled_from([None, 1]), st.integers(1, 7))
@pytest.mark.slow
def test_the_lazy_heap_gives_the_same_floats_as_an_exact_one(
    run: tuple[list[DequeueEvent], dict[str, float], dict[str, int]],
    cap: int | None,
    per_call: int | None,
    thirds: int,
) -> None:
    events, weights, waiting = run
    weights = {k: w * thirds / 3 for k, w in weights.items()}  # weights that round
    holds = {e.run_id: sum(map(ord, e.run_id)) % 4 for e in events}
    own = OwnLimit(cap, holds) if cap else None
    lazy = key_service(events, weights, waiting, own, per_call)
    fairness.Tally = EagerTally  # type: ignore[misc]  # key_service's books, for one call
    try:
        eager = key_service(events, weights, waiting, own, per_call)
    finally:
        fairness.Tally = Tally  # type: ignore[misc]
    assert list(lazy.items()) == list(eager.items())  # bit for bit, in the same order
