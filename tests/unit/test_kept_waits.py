"""The wait CDF's figures kept from the keys that moved (sim/engine/waits.py) are those of every key's
wait so far walked and sorted, on random runs of enqueues (some due later), serves and a clock
that moves on."""

from __future__ import annotations

import heapq
import random

import pytest

from ckviz.model.snapshot import Waits, wait_so_far
from ckviz.sim.engine.ledger import KeyBook
from ckviz.sim.engine.waits import MAX_LISTS, KeptWaits

BASE = 1_000_000


def walked(books: dict[str, KeyBook], t: int) -> Waits:
    """The definition: every key's wait so far, sorted."""
    waits = []
    for b in books.values():
        age = t - (b.queued[0][0] - BASE) if b.queued else None
        wait = wait_so_far(b.wait_sum_ms, b.dequeued, age)
        if wait is not None:
            waits.append(wait)
    return Waits.of(sorted(waits))


@pytest.mark.parametrize("seed", range(30))
def test_the_kept_figures_are_the_walked_ones_on_random_runs(seed: int) -> None:
    rng = random.Random(seed)
    runs_per_key = rng.choice([3, 8, MAX_LISTS + 8])  # past MAX_LISTS: sorted instead
    books = {f"k{i}": KeyBook(1.0) for i in range(rng.choice([1, 7, 60]))}
    kept, t, moved, serial = KeptWaits(books), 0, set(), 0
    for _ in range(250):
        for _ in range(rng.randint(0, 5)):
            key = rng.choice(list(books))
            b = books[key]
            if rng.random() < 0.55:  # an arrival, now or due later (a delay, a backoff)
                serial += 1
                due = t + (rng.choice([0, 0, 0, 5, 40]) if rng.random() < 0.9 else -3)
                heapq.heappush(b.queued, (BASE + due, f"r{serial}"))
            elif b.queued and b.dequeued < runs_per_key and b.queued[0][0] - BASE <= t:
                due = heapq.heappop(b.queued)[0] - BASE
                b.dequeued += 1
                b.wait_sum_ms += t - due
            else:
                continue
            moved.add(key)
        t += rng.choice([0, 1, 1, 3, 17])
        if rng.random() < 0.02:
            t = max(0, t - 10)  # a clock behind the last frame's: built afresh
        if rng.random() < 0.6:
            handed = None if rng.random() < 0.03 else moved
            assert kept.figures(handed, t, BASE) == walked(books, t)
            moved = set()


def test_a_head_coming_due_moves_its_keys_wait_with_no_queue_moving() -> None:
    books = {"a": KeyBook(1.0), "b": KeyBook(1.0)}
    books["a"].queued = [(BASE + 10, "a0")]  # due at 10
    books["b"].queued = [(BASE + 0, "b0")]
    kept = KeptWaits(books)
    assert kept.figures(None, 5, BASE) == Waits(1, {1: 5.0})  # a not yet waiting
    assert kept.figures(set(), 30, BASE) == Waits(2, {1: 20.0, 2: 30.0})
