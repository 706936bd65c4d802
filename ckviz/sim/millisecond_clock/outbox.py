"""The outbox (the glossary's): the trip being filled with an instant's acks, arrivals and
dequeue attempts, sent when the driver (driver.py) must see a reply; the dequeues that ride
it (riders.py); and ckIndex as the last trip read it, or as the outbox's writes project it
(projection.py). Its reads travel at the trip's end (trip_reads.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ckviz.model.queue import DequeuedRun, IndexEntry, PlannedRun
from ckviz.sim.engine.consumers import Consumer
from ckviz.sim.engine.ledger import KeyBook
from ckviz.sim.engine.life_commands import PlainRuns
from ckviz.sim.engine.view import IndexPeek
from ckviz.sim.millisecond_clock.projection import Projections
from ckviz.sim.millisecond_clock.riders import record_ridden
from ckviz.sim.millisecond_clock.trip_reads import TripReads
from ckviz.store.runqueue import RunQueue, Trip

RecordDequeue = Callable[[DequeuedRun, Consumer | None], None]  # None: by no consumer's call


class Outbox:
    """The trip being filled (`trip`, made anew on `home` after each send), with the dequeues
    riding it and ckIndex as last read (`index_read`) or peeked at for a snapshot (`peek`)."""

    def __init__(
        self,
        home: RunQueue,
        reads: TripReads,
        life: PlainRuns | None,
        peek: IndexPeek,
        record: RecordDequeue,
        checking: bool,
    ) -> None:
        """`life`: the lifecycle's per-trip hooks (None: the scenario has none, so they are
        not called); `record` puts a dequeue in the books; `checking`: invariants are."""
        self._home = home  # trips are made on it: its door reads the state
        self.trip = home.trip()
        self.reads = reads
        self._life = life
        self.peek = peek  # ckIndex as a snapshot reads it
        self._record = record
        self._checking = checking
        # ckIndex writes since the last read, and a projection awaiting Redis's word on it
        self.projections = Projections()
        self.index_read: Sequence[IndexEntry] = ()
        self.index_stale = False  # a trip ran since `index_read` was read
        # slots of dequeues predicted to take nothing, the invariant behind that, and whose
        # call it was
        self.expect_empty: list[tuple[int, str, Consumer]] = []
        # slots of dequeues sure to take exactly one run (riders.takes_are_certain)
        self.expect_one: list[tuple[int, Consumer]] = []

    def __len__(self) -> int:
        return len(self.trip)

    def by(self, queue: RunQueue) -> Trip:
        """The trip, its calls made on `queue`'s connection (sim/engine/consumers.py)."""
        return self.trip.by(queue)

    def reheaded(self, key: str) -> None:
        """An ack or an enqueue points `key`'s ckIndex entry at its CK queue's head."""
        self.projections.writes.reheaded.add(key)

    def rank_after_writes(self, books: Mapping[str, KeyBook]) -> None:
        """ckIndex as it stands after the trip's writes, projected from the last read; the
        trip carries the read that confirms it (projection.py)."""
        self.index_read = self.projections.rank_on(self.trip, self.index_read, books)

    def send(self, via: RunQueue, t: int, read_index: bool) -> list[Any]:
        """Send the trip on `via`'s connection, with its reads at its end (ckIndex's if
        asked); the ridden dequeues are recorded, the projections confirmed."""
        outbox, self.trip = self.trip, self._home.trip()
        expected_one, expected_empty = self.expect_one, self.expect_empty
        if expected_one or expected_empty:
            self.expect_one, self.expect_empty = [], []
        self.reads.ask(outbox, read_index)
        life = self._life
        if life is not None:
            life.before_send(outbox, t)
        replies = outbox.send(via)
        if life is not None:
            life.replies(replies, t, self._fast_served)  # before any dequeue's
        self.projections.writes.clear()
        index = self.reads.take(replies)
        self.index_stale = index is None
        if index is not None:
            self.index_read = index
        self.peek.forget()  # the trip may have changed ckIndex
        if expected_one or expected_empty:
            record_ridden(replies, expected_one, expected_empty, t, self._checking, self._record)
        self.projections.confirm(replies, t)  # after the takes: they explain a difference
        return replies

    def _fast_served(self, run: PlannedRun) -> None:
        """The enqueue handed `run` straight to a worker: a serve at once, by no consumer."""
        self._record(DequeuedRun(run.run_id, 0, run.key), None)
