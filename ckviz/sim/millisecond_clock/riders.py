"""Dequeues that ride with the next trip (driver.py): ones sure to take exactly one run,
and ones sure to take nothing; their replies are checked and recorded when that trip returns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ckviz.model.invariants import ONE_PLACE, BrokenInvariant
from ckviz.model.queue import DequeuedRun
from ckviz.sim.engine.consumers import Consumer

Record = Callable[[DequeuedRun, Consumer], None]


def record_ridden(
    replies: Sequence[Any],
    expected_one: Sequence[tuple[int, Consumer]],
    expected_empty: Sequence[tuple[int, str, Consumer]],
    t: int,
    checking: bool,
    record: Record,
) -> None:
    """Record the ridden dequeues' runs in serve order (before the trip's last dequeue), and
    raise for one that took other than it was sure to (checked: one run; always: nothing)."""
    for slot, consumer in expected_one:  # in serve order, before the trip's last dequeue
        ridden = consumer.plan.taken(replies[slot])
        consumer.called(len(ridden))
        if len(ridden) != 1 and checking:
            detail = f"a dequeue sure to take one run took {len(ridden)}"
            raise BrokenInvariant(ONE_PLACE, t, [], detail)
        # Unchecked, a server someone else changed is followed as it is: a ridden dequeue
        # that took nothing left the state as it was, like the ones after it.
        for run in ridden:
            record(run, consumer)
    for slot, why, consumer in expected_empty:
        runs = consumer.plan.taken(replies[slot])
        consumer.called(len(runs))
        if runs:
            taken = [run.run_id for run in runs]
            detail = f"a dequeue that should have taken nothing took {taken}"
            raise BrokenInvariant(why, t, sorted({r.key for r in runs}), detail)


def takes_are_certain(plain_lua_order: bool, consumers: int, roomy_queue_limit: bool) -> bool:
    """Whether a dequeue with a free env slot and a run queued is sure to take exactly one.

    The age-ordered dequeue.lua (`plain_lua_order`: the store's own door, no lifecycle run
    that may be unready or expire) always does: its first candidate is a non-empty CK queue
    whose head is ready (every timestamp is below WALL_NOW) and that holds fewer runs than the
    env, so fewer than a queue limit that is not below the env's (`roomy_queue_limit`). With
    several consumers each dequeue goes out on its own connection, so none rides. Only while
    `run()` steps unwatched; a rescoring plan needs each reply first.
    """
    return plain_lua_order and consumers == 1 and roomy_queue_limit
