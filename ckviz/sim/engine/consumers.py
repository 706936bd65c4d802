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
from ckviz.model.lineup import enqueuer
from ckviz.model.snapshot import ConsumerService
from ckviz.sim.engine.serving import ServePlan, serve_plan
from ckviz.store.runqueue import RunQueue, Trip


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
    mixed_as: str | None = None  # in a mixed rollout: the discipline it runs (lineup.py)
    # whether the event log names its calls: it is one of several consumers (with one, the
    # name would say nothing)
    named: bool = False
    # counted in a mixed rollout only: the runs it enqueued, and those it finished
    enqueued: int = 0
    acked: int = 0
    nacked: int = 0
    dead_lettered: int = 0

    @property
    def called_as(self) -> str:
        """Who it is in the event log: `c1` and its discipline in a mixed rollout, else `c1`."""
        return self.name if self.mixed_as is None else f"{self.name} {self.mixed_as}"

    def called(self, took: int) -> None:
        """One of its dequeue calls came back with `took` runs."""
        self.calls += 1
        self.empty_calls += not took
        self.dequeued += took

    def service(self) -> ConsumerService:
        counts = (self.calls, self.empty_calls, self.dequeued)
        finished = (self.acked, self.nacked, self.dead_lettered)
        return ConsumerService(self.name, *counts, self.mixed_as, self.enqueued, *finished)

    def released(self, outcome: str) -> None:
        """It finished a run it held: `ack`, `nack` or `dead_letter` (counted in a mix)."""
        if self.mixed_as is None:
            return
        if outcome == "ack":
            self.acked += 1
        elif outcome == "nack":
            self.nacked += 1
        else:
            self.dead_lettered += 1


def caller_of(tally: Tally | None) -> str | None:
    """Who made a call, as the event log names it: `c2 baseline` in a mixed rollout, `c2`
    among several consumers of one discipline, nobody when there is one consumer."""
    return None if tally is None or not tally.named else tally.called_as


@dataclass(slots=True, kw_only=True)
class Consumer(Tally):
    """One consumer of the millisecond driver: its connection, its discipline (one object
    for all when the state is in Redis) and that discipline's serve plan."""

    queue: RunQueue
    discipline: Discipline
    plan: ServePlan


def consumers_of(
    lanes: Sequence[tuple[Discipline, RunQueue]], mixed: bool = False
) -> list[Consumer]:
    """c1..cN from (discipline, connection) pairs; one serve plan per distinct discipline.
    `mixed`: a mixed rollout, whose consumers say which discipline each runs."""
    plans: dict[int, ServePlan] = {}
    out = []
    named = mixed or len(lanes) > 1
    for i, (discipline, queue) in enumerate(lanes):
        plan = plans.setdefault(id(discipline), serve_plan(discipline))
        mixed_as = discipline.name if mixed else None
        out.append(
            Consumer(
                name=consumer_name(i),
                queue=queue,
                discipline=discipline,
                plan=plan,
                mixed_as=mixed_as,
                named=named,
            )
        )
    return out


def state_keeper(consumers: Sequence[Consumer]) -> Consumer:
    """The consumer whose door reads the discipline's state in Redis (the trips' reads and
    checks go through it): in a mixed rollout the first flag-on one, else c1."""
    return next((c for c in consumers if c.queue.door.reads is not None), consumers[0])


class Callers:
    """Who makes each call other than a dequeue in a mixed rollout (model/lineup.py), through
    whose door: an enqueue by the consumer the seed draws for the run; an ack, nack or
    dead-letter by the one whose dequeue took it (a fast-path run, which no dequeue took, by
    the one that enqueued it). Outside a mix every door is one, and the outbox is used as is;
    with several consumers there, the one whose dequeue took a run is still named as finishing
    it."""

    def __init__(
        self, tallies: Sequence[Tally], queues: Sequence[RunQueue], seed: str, mixed: bool
    ) -> None:
        self.tallies, self.queues, self.seed, self.mixed = tallies, queues, seed, mixed
        self._index = {id(tally): i for i, tally in enumerate(tallies)}
        self._taken_by: dict[str, int] = {}  # run id -> the consumer that took it

    def by_enqueuer(self, outbox: Trip, run_id: str) -> tuple[Trip, Tally | None]:
        """The outbox, through the door of the consumer that enqueues `run_id`, and that
        consumer (None outside a mix)."""
        if not self.mixed:
            return outbox, None
        i = self._enqueuer(run_id)
        self.tallies[i].enqueued += 1
        return outbox.by(self.queues[i]), self.tallies[i]

    def took(self, run_id: str, consumer: Tally | None) -> None:
        """`consumer`'s dequeue took `run_id` (None: the fast path handed it out): kept
        where consumers are named, to name the one that finishes the run."""
        if consumer is not None and consumer.named:
            self._taken_by[run_id] = self._index[id(consumer)]

    def by_holder(self, outbox: Trip, run_id: str) -> tuple[Trip, Tally | None]:
        """The outbox, through the door of the consumer holding `run_id` in a mix, and that
        consumer, to name it and count what it did with the run (None: one consumer, or a
        run no dequeue took outside a mix)."""
        i = self._taken_by.pop(run_id, None)
        if not self.mixed:
            return outbox, None if i is None else self.tallies[i]
        i = self._enqueuer(run_id) if i is None else i
        return outbox.by(self.queues[i]), self.tallies[i]

    def _enqueuer(self, run_id: str) -> int:
        return enqueuer(self.seed, run_id, len(self.queues))


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
        self._count = len(self.consumers)
        self._order = turn_order(seed, 0, self._count)
        self._turn = 0
        self._empty_streak = 0
        # The consumer whose turn it is: kept as the turn passes (a serve attempt reads it
        # several times), and always c1 when it is the only one.
        self.current = self.consumers[self._order[0]]

    def __len__(self) -> int:
        return self._count

    def begin(self, moment: int) -> None:
        """A new instant (or step): a fresh seeded order, starting from its first consumer."""
        if self._count > 1:  # (one consumer's order is itself: no shuffle drawn per instant)
            self._order = turn_order(self.seed, moment, self._count)
            self.current = self.consumers[self._order[0]]
        self._turn = 0
        self._empty_streak = 0

    def first_at(self, moment: int) -> Consumer:
        """Who opens the instant `moment` (a preview: the current order is untouched)."""
        return self.consumers[turn_order(self.seed, moment, self._count)[0]]

    def end_turn(self, took: int) -> bool:
        """The current consumer's call took `took` runs; the turn passes on. Whether serving
        goes on at this instant."""
        self._turn += 1
        self._empty_streak = 0 if took else self._empty_streak + 1
        if self._count > 1:
            self.current = self.consumers[self._order[self._turn % self._count]]
        return self._empty_streak < self._count

    def service(self) -> tuple[ConsumerService, ...]:
        return tuple(c.service() for c in self.consumers)
