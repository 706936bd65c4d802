"""The books of one run: what ckviz believes Redis holds, per key and in all.

Every run is in exactly one place: to arrive, queued, held, or done (acked); with the run
lifecycle also dead-lettered or expired, and a nacked run is queued again. Either clock
records each enqueue, dequeue, ack and nack here as it sends it (the millisecond clock's runs
are planned up front and handed out by `arrivals_due`; the step clock's arrive as their step
comes, `arrive_now`); the invariant checker holds these books against the digest Redis
returns. Nothing here talks to Redis, so several consumers can share a ledger.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from ckviz.model.invariants import HEAD_FIRST, BrokenInvariant
from ckviz.model.queue import PlannedRun, RunStream
from ckviz.model.snapshot import DequeueEvent, HeldRun, dequeue_event
from ckviz.sim.engine.dequeues import Dequeues

DequeueSink = Callable[[str, str, int, int], None]  # key, run id, arrival, dequeued


@dataclass(slots=True)
class KeyBook:
    """The books of one key, checked against what Redis hands out."""

    weight: float
    queued: list[tuple[int, str]] = field(default_factory=list)  # heap, Redis order
    to_arrive: int = 0
    dequeued: int = 0
    held: int = 0
    wait_sum_ms: int = 0
    nacked: int = 0  # serves that ended in a nack (their runs were queued again)
    expired: int = 0  # runs that expired queued, never served
    seeded: int = 0  # runs holding a slot when the run began (a forked start), never served


class Ledger:
    """Per-key books, the dequeues in order, and the runs holding a slot until when.

    The dequeues go on a compact tape (sim/engine/dequeues.py) the figures read; the app (and a
    test) also keeps them as events, with each served run's hold (`keep_events`)."""

    def __init__(
        self,
        weights: Mapping[str, float],
        workload: Sequence[PlannedRun] | RunStream,
        holds_known: bool = True,
    ) -> None:
        """`workload`: every run up front (kept in `workload`, for the app and the tests), or a
        stream read as the clock reaches it (a trace: only the runs in the system are kept).
        `holds_known`: the runs' holds are times the figures read (the step clock's steps
        held are not)."""
        self.books = {key: KeyBook(weight) for key, weight in weights.items()}
        if isinstance(workload, RunStream):
            self.workload: list[PlannedRun] = []
            self.total_runs = workload.total
            self._per_key = dict(workload.per_key)
            source: Iterator[PlannedRun] = workload.runs
        else:
            self.workload = list(workload)
            self.total_runs = len(self.workload)
            self._per_key = {}
            for run in self.workload:
                self._per_key[run.key] = self._per_key.get(run.key, 0) + 1
            source = iter(self.workload)
        for key, count in self._per_key.items():
            self.books[key].to_arrive += count
        self._source = source
        self._coming: PlannedRun | None = next(source, None)  # the next run to arrive
        self._handed = 0  # runs handed out by arrivals_due (or arrived now)
        self.dequeues = Dequeues(holds_known)
        self.keep_events = True  # a cell's figures read the tape only: it keeps none
        self.on_dequeue: DequeueSink | None = None  # told each dequeue (--events writes it)
        self.served_holds: dict[str, int] = {}  # run id -> hold, of every run dequeued (kept)
        self.events: list[DequeueEvent] = []  # (kept)
        self.holds: dict[str, int] = {}  # run id -> release time
        self.releases: list[tuple[int, int, PlannedRun]] = []  # heap of (release_ms, seq, run)
        self.active: set[str] = set()  # keys with runs queued or held
        self._active_peak = 0  # the most keys `active` has held since it was last rebuilt
        self.touched: set[str] = set()  # keys changed since the driver last took them
        self.queues_moved: set[str] = set()  # keys whose queue changed since the view looked
        self.queued_count = 0
        self.queued_keys = 0  # keys with runs queued
        self._planned: dict[str, PlannedRun] = {}  # the runs arrived and not yet done
        # the run lifecycle's places and times (docs/lifecycle.md); empty without it
        self.due: dict[str, int] = {}  # run id -> when its current attempt became due
        self.wakes: list[int] = []  # heap of instants a queued run's future score comes due
        self.nacks = 0
        self.dead_lettered: set[str] = set()
        self.expired: set[str] = set()
        self.settled = 0  # runs done for good: served for the last time, dead or expired
        self.seeded = 0  # runs held from the start (a forked start's), outside the workload

    @property
    def held_count(self) -> int:
        return len(self.holds)

    @property
    def runs_in_system(self) -> int:
        """Runs arrived and not done for good: all the books keep of the workload (a stream's
        runs not yet arrived are still in the file)."""
        return len(self._planned)

    @property
    def to_arrive_count(self) -> int:
        return self.total_runs - self._handed

    def planned_per_key(self) -> dict[str, int]:
        """Runs per key in the workload and held from the start (what the books must always
        add up to)."""
        planned = {key: book.seeded for key, book in self.books.items()}
        for key, count in self._per_key.items():
            planned[key] += count
        return planned

    def seed_held(self, runs: Sequence[PlannedRun]) -> None:
        """Runs already holding their slots when the run begins (a forked start: ckviz
        whatif), each until its hold ends; never dequeued, so no event of theirs."""
        for run in runs:
            book = self.books[run.key]
            book.held += 1
            book.seeded += 1
            self.seeded += 1
            self._planned[run.run_id] = run
            self.holds[run.run_id] = run.hold_ms
            heapq.heappush(self.releases, (run.hold_ms, -self.seeded, run))
            self.active.add(run.key)
            self.touched.add(run.key)

    def arrivals_due(self, t: int) -> list[PlannedRun]:
        """The runs that arrive by `t`, each handed out once, in workload order."""
        due: list[PlannedRun] = []
        run, planned, source = self._coming, self._planned, self._source
        while run is not None and run.arrival_ms <= t:
            due.append(run)
            planned[run.run_id] = run
            run = next(source, None)
        self._coming = run
        self._handed += len(due)
        return due

    def releases_due(self, t: int) -> list[PlannedRun]:
        """The held runs whose hold ends by `t`, earliest first."""
        releases = self.releases
        due = []
        while releases and releases[0][0] <= t:
            due.append(heapq.heappop(releases)[2])
        return due

    def next_arrival_ms(self) -> int | None:
        return None if self._coming is None else self._coming.arrival_ms

    def earliest_release(self) -> int | None:
        return self.releases[0][0] if self.releases else None

    def arrive_now(self, run: PlannedRun, timestamp: int) -> None:
        """A run no plan held arrives and is enqueued now (the step clock's: `arrival_ms` is
        its step, `hold_ms` its hold in steps); a key met for the first time gets its books
        (weight 1). Only for a ledger whose planned runs have all arrived."""
        book = self.books.get(run.key)
        if book is None:
            book = self.books[run.key] = KeyBook(1.0)
        self.workload.append(run)
        self.total_runs += 1
        self._handed += 1  # handed out at once
        self._per_key[run.key] = self._per_key.get(run.key, 0) + 1
        self._planned[run.run_id] = run
        book.to_arrive += 1
        self.enqueued(run, timestamp)

    def enqueued(self, run: PlannedRun, timestamp: int) -> None:
        book = self.books[run.key]
        self.queued_keys += not book.queued
        heapq.heappush(book.queued, (timestamp, run.run_id))
        self.queues_moved.add(run.key)
        book.to_arrive -= 1
        self.queued_count += 1
        self.active.add(run.key)
        self._active_peak = max(self._active_peak, len(self.active))
        self.touched.add(run.key)

    def wake_at(self, t: int) -> None:
        """A queued run's score comes due at `t` (a delayed run's, a retry's)."""
        heapq.heappush(self.wakes, t)

    def next_wake(self, after: int) -> int | None:
        """The first instant past `after` at which a queued run's score comes due."""
        wakes = self.wakes
        while wakes and wakes[0] <= after:
            heapq.heappop(wakes)
        return wakes[0] if wakes else None

    def nacked(self, run: PlannedRun, score: int, due_ms: int) -> None:
        """A held run failed and is queued again at `score`, due at `due_ms`."""
        self._unhold(run)
        book = self.books[run.key]
        book.nacked += 1
        self.nacks += 1
        self.queued_keys += not book.queued
        heapq.heappush(book.queued, (score, run.run_id))
        self.queues_moved.add(run.key)
        self.queued_count += 1
        self.active.add(run.key)
        self.due[run.run_id] = due_ms

    def dead_letter(self, run: PlannedRun) -> None:
        """A held run failed past its last attempt: in the dead-letter queue for good."""
        self._unhold(run)
        self.dead_lettered.add(run.run_id)
        self._planned.pop(run.run_id, None)  # done for good
        self.settled += 1
        self._maybe_idle(run.key)

    def expire(self, key: str, run_id: str) -> None:
        """A queued run expired (a sweep took it, or a dequeue dropped it): never served."""
        book = self.books[key]
        entry = next(e for e in book.queued if e[1] == run_id)
        book.queued.remove(entry)
        heapq.heapify(book.queued)
        self.queues_moved.add(key)
        book.expired += 1
        self.queued_count -= 1
        self.queued_keys -= not book.queued
        self.expired.add(run_id)
        self._planned.pop(run_id, None)  # done for good
        self.settled += 1
        self.touched.add(key)
        self._maybe_idle(key)

    def planned(self, run_id: str) -> PlannedRun:
        return self._planned[run_id]

    def is_queued(self, key: str, run_id: str) -> bool:
        return any(e[1] == run_id for e in self.books[key].queued)

    def _unhold(self, run: PlannedRun) -> None:
        del self.holds[run.run_id]
        self.books[run.key].held -= 1
        self.touched.add(run.key)

    def _maybe_idle(self, key: str) -> None:
        book = self.books[key]
        if not book.held and not book.queued:
            self.active.discard(key)
            self._shrink_active()

    def acked(self, run: PlannedRun) -> None:
        del self.holds[run.run_id]
        self._planned.pop(run.run_id, None)  # done: the books keep only runs in the system
        book = self.books[run.key]
        book.held -= 1
        if not book.held and not book.queued:
            self.active.discard(run.key)
            self._shrink_active()
        self.touched.add(run.key)

    def _shrink_active(self) -> None:
        # A set keeps the table of its largest size, and walking it costs that size: once
        # 10,000 keys have drained, every check of the 7 still active would walk 32,768 slots.
        if len(self.active) * 8 < self._active_peak:
            self.active = set(self.active)
            self._active_peak = len(self.active)

    def dequeued(self, t: int, key: str, run_id: str) -> KeyBook:
        """Move a run Redis handed out from queued to held; its hold ends at t + hold.

        Head-first holds only while this ledger's driver is the key's one dequeuer: a run
        another consumer took would still sit at the head of these books and the next one
        would look out of order. Several consumers sharing a ledger must record every
        consumer's dequeues here, in the order Redis served them.
        """
        book = self.books[key]
        queued = book.queued
        if not queued or queued[0][1] != run_id:
            head = queued[0][1] if queued else "nothing"
            detail = f"Redis dequeued {run_id} but the head of the key is {head}"
            raise BrokenInvariant(HEAD_FIRST, t, [key], detail)
        heapq.heappop(queued)
        self.queues_moved.add(key)
        self.queued_count -= 1
        self.queued_keys -= not queued
        self.touched.add(key)
        planned = self._planned[run_id]  # its arrival: the timestamp less the clock's base
        due = self.due.get(run_id, planned.arrival_ms) if self.due else planned.arrival_ms
        hold = planned.hold_ms
        self.dequeues.add(key, due, t, hold)
        if self.keep_events:
            self.events.append(dequeue_event((key, run_id, due, t)))
            self.served_holds[run_id] = hold
        if self.on_dequeue is not None:
            self.on_dequeue(key, run_id, due, t)
        book.dequeued += 1
        book.held += 1
        book.wait_sum_ms += t - due  # the event's wait_ms
        release = t + hold
        self.holds[run_id] = release
        heapq.heappush(self.releases, (release, len(self.dequeues), planned))
        return book

    def oldest_arrival(self, key: str) -> int | None:
        """When the key's longest-waiting queued run arrived (None: nothing queued). Redis
        serves a key's runs by timestamp, which need not be the order they arrived in (the step
        clock's refeeds), so every queued run is looked at: a step scenario's few."""
        queued = self.books[key].queued
        return min((self._planned[run_id].arrival_ms for _, run_id in queued), default=None)

    def held_runs(self) -> tuple[HeldRun, ...]:
        """The runs holding a slot, the earliest release first (then serve order)."""
        releases = sorted(self.releases, key=lambda r: (r[0], r[1]))
        return tuple(HeldRun(run.key, run.run_id, release) for release, _, run in releases)

    def waiting_since(self, score_base: int) -> dict[str, int]:
        """Every key with runs queued: its oldest queued run's arrival."""
        return {k: b.queued[0][0] - score_base for k, b in self.books.items() if b.queued}

    def take_queues_moved(self) -> set[str]:
        """The keys whose queue changed since the last call, and forget them."""
        moved, self.queues_moved = self.queues_moved, set()
        return moved

    def take_touched(self) -> set[str]:
        """The keys changed since the last call (a digest counts these), and forget them."""
        touched, self.touched = self.touched, set()
        return touched
