"""The fairness of a run in progress, kept as it goes (fairness.ServiceSoFar), equals
key_service over the dequeues so far with every queued run counted, at any moment: after
every dequeue, in the middle of an instant too."""

from __future__ import annotations

import random

import pytest

from ckviz.fairness import OwnLimit, key_service
from ckviz.fairness_so_far import ServiceSoFar, SoFar, headline
from ckviz.model.snapshot import DequeueEvent

KEYS = {"heavy": 1.0, "a": 1.0, "b": 2.0, "c": 1.0}


def a_run(
    seed: int, slots: int = 3
) -> tuple[list[tuple[int, str, str]], list[DequeueEvent], dict[str, int]]:
    """Arrivals (time, key, run id), the dequeues a random discipline made of them with
    `slots` slots, and each run's hold."""
    rng = random.Random(seed)
    arrivals = [(0, "heavy", f"heavy#{i}") for i in range(12)]
    arrivals += [(rng.randrange(40), k, f"{k}#{i}") for k in ("a", "b", "c") for i in range(5)]
    arrivals.sort(key=lambda a: a[0])
    holds = {run: rng.randrange(1, 6) for _, _, run in arrivals}
    events: list[DequeueEvent] = []
    queued: dict[str, list[tuple[int, str]]] = {k: [] for k in KEYS}
    busy: list[int] = []  # release times
    arrived = 0
    for t in range(200):
        busy = [r for r in busy if r > t]
        while arrived < len(arrivals) and arrivals[arrived][0] <= t:
            at, key, run = arrivals[arrived]
            queued[key].append((at, run))
            arrived += 1
        while len(busy) < slots and any(queued.values()):
            key = rng.choice([k for k, q in queued.items() if q])
            at, run = queued[key].pop(0)
            events.append(DequeueEvent(key, run, at, t))
            busy.append(t + holds[run])
    return arrivals, events, holds


def expected(
    arrivals: list[tuple[int, str, str]], events: list[DequeueEvent], t: int, own: OwnLimit | None
) -> SoFar:
    served = {e.run_id for e in events}
    queued: dict[str, list[int]] = {}
    for at, key, run in arrivals:
        if at <= t and run not in served:
            queued.setdefault(key, []).append(at)
    return headline(key_service(events, KEYS, None, own, None, queued))


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("capped", [False, True])
def test_kept_as_it_goes_equals_recomputed_at_every_dequeue(seed: int, capped: bool) -> None:
    arrivals, events, holds = a_run(seed)
    own = OwnLimit(2, holds) if capped else None
    tally = ServiceSoFar(KEYS, own)
    handed = 0
    judged = 0
    for i in range(len(events) + 1):
        t = events[i - 1].dequeued_ms if i else 0  # mid-instant: more may come at t
        while handed < len(arrivals) and arrivals[handed][0] <= t:
            tally.arrived(arrivals[handed][0], arrivals[handed][1])
            handed += 1
        tally.dequeued(events[i - 1 : i] if i else [])
        got, want = tally.so_far(t), expected(arrivals, events[:i], t, own)
        assert got.underserved == want.underserved, (i, got, want)
        assert got.attainment == pytest.approx(want.attainment)
        assert got.jain == pytest.approx(want.jain)
        judged += got.attainment is not None
    assert judged > len(events) // 2  # the figures were judged for most of the run


def test_an_instant_is_shared_out_once_whole() -> None:
    # heavy and a have room at each instant; two dequeues an instant, so a is owed 1 each
    tally = ServiceSoFar({"heavy": 1.0, "a": 1.0})
    for key in ["heavy"] * 9 + ["a"] * 4:
        tally.arrived(0, key)
    for t in range(3):
        tally.dequeued([DequeueEvent("heavy", f"h{t}", 0, t)])  # half of the instant
        assert tally.so_far(t).underserved is None  # a owed 1, 2, 3 (judged from 3 on)
        tally.dequeued([DequeueEvent("heavy", f"h{t}+", 0, t)])
    assert tally.so_far(2) == tally.so_far(3)  # booked at 3 as at 2
    assert tally.so_far(3).underserved == "a" and tally.so_far(3).attainment == 0.0
    tally.dequeued([DequeueEvent("heavy", "h3", 0, 3), DequeueEvent("a", "a0", 0, 3)])
    now = tally.so_far(3)
    assert now.underserved == "a" and now.attainment == pytest.approx(1 / 4)
    assert now.jain == pytest.approx((1 / 4 + 7 / 4) ** 2 / (2 * ((1 / 4) ** 2 + (7 / 4) ** 2)))
