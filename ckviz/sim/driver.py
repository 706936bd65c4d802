"""The driver: one logical clock stepping a workload through the real Redis run queue.

SPEC section 5, made steppable. Round trips are saved without changing what the server
sees: commands are queued in an *outbox* and sent together, and a dequeue attempt that is
certain to take nothing (the env is full, or nothing is queued) is still sent, but rides
with the next trip instead of costing its own. The server executes exactly the reference's
command sequence; only the packets differ.
"""

from __future__ import annotations

import copy
import heapq
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ckviz.disciplines.base import Discipline
from ckviz.model.queue import IndexEntry
from ckviz.model.snapshot import DequeueEvent, EventLog, HeldRun, KeyRow, QueueEvent, Snapshot
from ckviz.sim.invariants import (
    ENV_LIMIT,
    HEAD_FIRST,
    LISTING_LIMIT,
    ONE_PLACE,
    BrokenInvariant,
    InvariantChecker,
)
from ckviz.store.digest import QueueDigest
from ckviz.store.runqueue import DequeuedRun, RunQueue
from ckviz.workload import PlannedRun

# Message timestamps are SCORE_BASE + arrival_ms. WALL_NOW stands in for the reference's
# real clock: above every timestamp, and below 1e13 so Lua's 14-digit number formatting
# stays exact.
SCORE_BASE = 1_700_000_000_000
WALL_NOW = SCORE_BASE + 1_000_000_000
MAX_LOGICAL_MS = 600_000
RECENT_LIMIT = 200


@dataclass(slots=True)
class KeyBook:
    """The driver's own account of one key, checked against what Redis hands out."""

    weight: float
    queued: list[tuple[int, str]] = field(default_factory=list)  # heap, Redis order
    to_arrive: int = 0
    dequeued: int = 0
    held: int = 0
    wait_sum_ms: int = 0


@dataclass(frozen=True, slots=True)
class DriverConfig:
    """What a run is: scenario name, seed, limits and caps."""

    scenario: str
    seed: str
    env_limit: int
    weights: dict[str, float]
    max_count: int = 1
    per_key_cap: int | None = None
    total_cap: int | None = None
    max_logical_ms: int = MAX_LOGICAL_MS
    check_invariants: bool = True  # compare the books with Redis after every trip


class Driver:
    """Steps one (scenario, seed, discipline) run; `snapshot()` shows where it stands."""

    def __init__(
        self,
        config: DriverConfig,
        workload: Sequence[PlannedRun],
        discipline: Discipline,
        queue: RunQueue,
    ) -> None:
        self.config = config
        self.workload = list(workload)
        self.discipline = discipline
        self.queue = queue
        self.t = 0
        self.step_count = 0
        self.done = False
        self.events: list[DequeueEvent] = []
        self.recent: deque[QueueEvent] = deque(maxlen=RECENT_LIMIT)
        self.books = {key: KeyBook(weight) for key, weight in config.weights.items()}
        for run in self.workload:
            self.books[run.key].to_arrive += 1
        self.invariants: InvariantChecker | None = None
        if config.check_invariants:
            planned = {key: book.to_arrive for key, book in self.books.items()}
            self.invariants = InvariantChecker(
                config.env_limit, config.per_key_cap, config.total_cap, planned
            )
        self._active: set[str] = set()  # keys with runs queued or held, as the books say
        self._touched: set[str] = set()  # keys a script may have changed since the last digest
        self._queued_keys = 0  # keys with runs queued
        self._digest: QueueDigest | None = None  # from the last trip, until checked
        self._hold_by_id = {run.run_id: run.hold_ms for run in self.workload}
        self._next_arrival = 0
        self._releases: list[tuple[int, int, PlannedRun]] = []  # (release_ms, seq, run)
        self._holds: dict[str, int] = {}  # run id -> release time
        self._instant_open = False  # released and arrived at self.t, now serving
        self._outbox = queue.trip()
        # outbox slots of dequeues predicted to take nothing, with the invariant behind that
        self._expect_empty: list[tuple[int, str]] = []
        self._index_read: tuple[IndexEntry, ...] = ()
        self._index_rescored: tuple[IndexEntry, ...] = ()
        self._order: tuple[str, ...] = ()
        self._queued_total = 0

    # ---- stepping -------------------------------------------------------------------

    def step(self) -> None:
        """One dequeue round: open the instant if needed, then one serve attempt."""
        if self.done:
            return
        self.step_count += 1
        if not self._instant_open:
            self._open_instant()
        if not self._serve_once():
            self._close_instant()

    def step_instant(self) -> None:
        """Step until the logical clock moves on (or the run ends)."""
        start = self.t
        self.step()
        while not self.done and self._instant_open and self.t == start:
            self.step()

    def run(self) -> None:
        """Step to the end."""
        while not self.done:
            self.step()

    # ---- the four phases of an instant ------------------------------------------------

    def _open_instant(self) -> None:
        self._release()
        self._arrive()
        self._instant_open = True

    def _release(self) -> None:
        while self._releases and self._releases[0][0] <= self.t:
            _, _, run = heapq.heappop(self._releases)
            self._outbox.ack(run.run_id, run.key)
            del self._holds[run.run_id]
            book = self.books[run.key]
            book.held -= 1
            if not book.held and not book.queued:
                self._active.discard(run.key)
            self._touched.add(run.key)
            self.recent.append(QueueEvent("ack", self.t, run.key, run.run_id))

    def _arrive(self) -> None:
        while (
            self._next_arrival < len(self.workload)
            and self.workload[self._next_arrival].arrival_ms <= self.t
        ):
            run = self.workload[self._next_arrival]
            self._next_arrival += 1
            timestamp = SCORE_BASE + run.arrival_ms
            self._outbox.enqueue(run, timestamp)
            book = self.books[run.key]
            self._queued_keys += not book.queued
            heapq.heappush(book.queued, (timestamp, run.run_id))
            book.to_arrive -= 1
            self._queued_total += 1
            self._active.add(run.key)
            self._touched.add(run.key)
            self.recent.append(QueueEvent("enqueue", self.t, run.key, run.run_id))

    def _serve_once(self) -> bool:
        """One serve attempt; False when the instant's serving is over."""
        cap = self.config.total_cap
        if cap is not None and len(self._holds) >= cap:
            return False
        self._index_rescored = ()
        if self.discipline.rescores:
            if len(self._outbox):
                self._send(read_index=True)
                self._check()
            if self._index_read:
                self._rescore(self.discipline.order(self._index_read, SCORE_BASE + self.t))
        room = self.config.max_count
        if cap is not None:  # a batch may not carry the held runs past the total cap
            room = min(room, cap - len(self._holds))
        slot = self._outbox.dequeue(room, WALL_NOW)
        if self._certainly_empty():
            why = ENV_LIMIT if len(self._holds) >= self.config.env_limit else ONE_PLACE
            self._expect_empty.append((slot, why))  # sent with the next trip
            return False
        replies = self._send(read_index=True)
        taken: list[DequeuedRun] = replies[slot]
        for run in taken:
            self._record_dequeue(run)
        self._check()
        return bool(taken)

    def _certainly_empty(self) -> bool:
        return len(self._holds) >= self.config.env_limit or self._queued_total == 0

    def _rescore(self, order: list[str]) -> None:
        n = len(order)
        self._outbox.rescore(order, WALL_NOW)
        keys = {e.member: e.key for e in self._index_read}
        self._order = tuple(keys[m] for m in order)
        self._index_rescored = tuple(
            IndexEntry(m, keys[m], float(WALL_NOW - (n - i))) for i, m in enumerate(order)
        )

    def _close_instant(self) -> None:
        self._instant_open = False
        ends = [a for a in (self._next_arrival_ms(), self._earliest_release()) if a is not None]
        all_out = len(self.events) >= len(self.workload)
        if all_out or not ends:
            self._finish()
            return
        self.t = max(self.t + 1, min(ends))
        if self.t > self.config.max_logical_ms:
            self._finish()

    def _finish(self) -> None:
        if len(self._outbox):
            self._send()
            self._check()
        self.done = True

    # ---- bookkeeping --------------------------------------------------------------------

    def _send(self, read_index: bool = False) -> list[Any]:
        """Send the outbox, with a ckIndex read at its end if asked (and the invariant digest,
        which then carries that read: one command either way)."""
        outbox, self._outbox = self._outbox, self.queue.trip()
        expected_empty, self._expect_empty = self._expect_empty, []
        digest_slot = index_slot = None
        if self.invariants is not None:
            # every active key while there are few, else only those this trip may change
            few = len(self._active) <= LISTING_LIMIT
            keys, limit = (self._active, LISTING_LIMIT) if few else (self._touched, 0)
            digest_slot = outbox.inspect(keys, limit, read_index)
            self._touched = set()
        elif read_index:
            index_slot = outbox.read_index()
        replies = outbox.send()
        if digest_slot is not None:
            self._digest, index = replies[digest_slot]
            if index is not None:
                self._index_read = tuple(index)
        elif index_slot is not None:
            self._index_read = tuple(replies[index_slot])
        for slot, why in expected_empty:
            if replies[slot]:
                taken = [run.run_id for run in replies[slot]]
                detail = f"a dequeue that should have taken nothing took {taken}"
                raise BrokenInvariant(why, self.t, sorted({r.key for r in replies[slot]}), detail)
        return replies

    def _check(self) -> None:
        """Check the last trip's digest against the books, once its replies are recorded."""
        if self.invariants is not None and self._digest is not None:
            digest, self._digest = self._digest, None
            self.invariants.check(self, digest)

    @property
    def held_count(self) -> int:
        return len(self._holds)

    @property
    def queued_count(self) -> int:
        return self._queued_total

    @property
    def queued_keys(self) -> int:
        return self._queued_keys

    @property
    def to_arrive_count(self) -> int:
        return len(self.workload) - self._next_arrival

    def _record_dequeue(self, run: DequeuedRun) -> None:
        if self.invariants is not None:
            self.invariants.on_dequeued(self.t, run.key, run.run_id)
        book = self.books[run.key]
        if not book.queued or book.queued[0][1] != run.run_id:
            head = book.queued[0][1] if book.queued else "nothing"
            detail = f"Redis dequeued {run.run_id} but the head of the key is {head}"
            raise BrokenInvariant(HEAD_FIRST, self.t, [run.key], detail)
        timestamp, _ = heapq.heappop(book.queued)
        self._queued_total -= 1
        self._queued_keys -= not book.queued
        self._touched.add(run.key)
        arrival = timestamp - SCORE_BASE
        planned = PlannedRun(run.key, run.run_id, arrival, self._hold_by_id[run.run_id])
        event = DequeueEvent(run.key, run.run_id, arrival, self.t)
        self.events.append(event)
        book.dequeued += 1
        book.held += 1
        book.wait_sum_ms += event.wait_ms
        release = self.t + planned.hold_ms
        self._holds[run.run_id] = release
        heapq.heappush(self._releases, (release, len(self.events), planned))
        self.recent.append(QueueEvent("dequeue", self.t, run.key, run.run_id))
        if self.invariants is not None:
            self.invariants.within_limits(self.t, run.key, book.held, len(self._holds))
        self.discipline.on_serviced(run.key)

    def _next_arrival_ms(self) -> int | None:
        if self._next_arrival < len(self.workload):
            return self.workload[self._next_arrival].arrival_ms
        return None

    def _earliest_release(self) -> int | None:
        return self._releases[0][0] if self._releases else None

    # ---- what the UI reads --------------------------------------------------------------

    def _preview_order(self) -> tuple[str, ...]:
        """The order the next serve attempt would put ckIndex in, from the last read, computed
        on a copy so the discipline's own state is untouched (SFQ's floor, DRR's deficits)."""
        if self.done or not self._index_read:
            return ()
        if not self.discipline.rescores:
            return _age_order(self._index_read)
        preview = copy.deepcopy(self.discipline)
        order = preview.order(self._index_read, SCORE_BASE + self.t)
        keys = {e.member: e.key for e in self._index_read}
        return tuple(keys[m] for m in order)

    def snapshot(self) -> Snapshot:
        """An immutable picture of this moment."""
        cfg = self.config
        rows = tuple(
            KeyRow(
                key,
                b.weight,
                len(b.queued),
                b.to_arrive,
                b.dequeued,
                b.held,
                float(b.queued[0][0]) if b.queued else None,
                b.wait_sum_ms,
            )
            for key, b in self.books.items()
        )
        held = tuple(
            HeldRun(run.key, run.run_id, release)
            for release, _, run in sorted(self._releases, key=lambda r: (r[0], r[1]))
        )
        return Snapshot(
            scenario=cfg.scenario,
            seed=cfg.seed,
            discipline=self.discipline.name,
            step=self.step_count,
            t=self.t,
            done=self.done,
            env_limit=cfg.env_limit,
            max_count=cfg.max_count,
            per_key_cap=cfg.per_key_cap,
            total_cap=cfg.total_cap,
            total_runs=len(self.workload),
            index_read=self._index_read,
            index_rescored=self._index_rescored,
            keys=rows,
            held=held,
            discipline_state=self.discipline.state(),
            order=self._order if self.discipline.rescores else _age_order(self._index_read),
            next_order=self._preview_order(),
            rescores=self.discipline.rescores,
            events=EventLog(self.events, len(self.events)),
            recent=tuple(self.recent),
            round_trips=self.queue.round_trips,
            score_base=SCORE_BASE,
        )


def _age_order(index: tuple[IndexEntry, ...]) -> tuple[str, ...]:
    """What the Lua itself will serve first: lowest score, ties by member."""
    return tuple(e.key for e in sorted(index, key=lambda e: (e.score, e.member)))
