"""Several consumers at one dequeue, taking turns (issue 10, "several consumers").

Each consumer is a client of the same run queue on its own connection: it calls the dequeue
with the run's max count, and under a client-side discipline it first rescores ckIndex from
its own discipline state (the spike's scheduler lives in the consumer's process, so each
consumer holds its own copy and learns only of the runs its own calls took). What lives in
Redis is one for all: the queues, the env and per-key limits, the state of a discipline that
keeps it there (its tags and floor). The driver keeps one ledger of what every consumer took,
so its books, its invariant checks and its predictions of what a dequeue takes stay whole.

Turns: within an instant of the millisecond driver (a step of the step harness) the consumers
call one at a time, in an order drawn from the cell's seed and the instant (never the wall
clock, never `hash()`), so a run is the same in every process. Turns are serialised: a
consumer's call goes out after the previous one's reply is read, so two client-side rescores
never interleave with each other's dequeue.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ckviz.disciplines.base import Discipline
from ckviz.model.snapshot import ConsumerService
from ckviz.sim.serving import ServePlan, serve_plan
from ckviz.store.runqueue import RunQueue


def turn_order(seed: str, moment: int, count: int) -> list[int]:
    """The consumers' order (indices) at one instant or step: a seeded shuffle of 0..count-1.
    `random.Random` seeds a str through SHA-512, so the order is the same in every process."""
    order = list(range(count))
    if count > 1:
        random.Random(f"{seed}/consumers/{moment}").shuffle(order)
    return order


def consumer_name(index: int) -> str:
    return f"c{index + 1}"


@dataclass(slots=True)
class Tally:
    """What one consumer's calls got."""

    name: str
    calls: int = 0
    empty_calls: int = 0
    dequeued: int = 0

    def called(self, took: int) -> None:
        """One of its dequeue calls came back with `took` runs."""
        self.calls += 1
        self.empty_calls += not took
        self.dequeued += took

    def service(self) -> ConsumerService:
        return ConsumerService(self.name, self.calls, self.empty_calls, self.dequeued)


@dataclass(slots=True, kw_only=True)
class Consumer(Tally):
    """One consumer of the millisecond driver: its connection, its discipline (one object
    for all when the state is in Redis) and that discipline's serve plan."""

    queue: RunQueue
    discipline: Discipline
    plan: ServePlan


def consumers_of(lanes: Sequence[tuple[Discipline, RunQueue]]) -> list[Consumer]:
    """c1..cN from (discipline, connection) pairs; one serve plan per distinct discipline."""
    plans: dict[int, ServePlan] = {}
    out = []
    for i, (discipline, queue) in enumerate(lanes):
        plan = plans.setdefault(id(discipline), serve_plan(discipline))
        out.append(Consumer(name=consumer_name(i), queue=queue, discipline=discipline, plan=plan))
    return out


class Turns:
    """Whose turn it is at the current instant, and whether the instant's serving goes on.

    A turn is one dequeue call. Serving at an instant ends once every consumer has come up
    empty since the last run was taken: with one consumer, at its first empty call (the
    single-consumer driver's rule, unchanged). The driver also ends it at once when its books
    show that no call can take anything (env or total cap full, nothing queued): nothing
    changes those between turns of one instant, so every remaining consumer would come up
    empty too, and their calls are not made.
    """

    def __init__(self, consumers: Sequence[Consumer], seed: str) -> None:
        self.consumers = list(consumers)
        self.seed = seed
        self._order = turn_order(seed, 0, len(self.consumers))
        self._turn = 0
        self._empty_streak = 0

    def __len__(self) -> int:
        return len(self.consumers)

    def begin(self, moment: int) -> None:
        """A new instant (or step): a fresh seeded order, starting from its first consumer."""
        self._order = turn_order(self.seed, moment, len(self.consumers))
        self._turn = 0
        self._empty_streak = 0

    @property
    def current(self) -> Consumer:
        """The consumer whose turn it is."""
        return self.consumers[self._order[self._turn % len(self._order)]]

    def first_at(self, moment: int) -> Consumer:
        """Who opens the instant `moment` (a preview: the current order is untouched)."""
        return self.consumers[turn_order(self.seed, moment, len(self.consumers))[0]]

    def end_turn(self, took: int) -> bool:
        """The current consumer's call took `took` runs; the turn passes on. Whether serving
        goes on at this instant."""
        self._turn += 1
        self._empty_streak = 0 if took else self._empty_streak + 1
        return self._empty_streak < len(self.consumers)

    def service(self) -> tuple[ConsumerService, ...]:
        return tuple(c.service() for c in self.consumers)
