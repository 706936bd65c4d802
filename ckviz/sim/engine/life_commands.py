"""The millisecond driver's lifecycle commands (docs/lifecycle.md): what it adds to its trips
for a scenario with the run lifecycle, and what it reads back. The decisions and the books
are lifecycle.py's, shared with the step clock.

Within an instant: the releases (ack, nack or dead-letter), then the TTL sweep when one is
due, then the arrivals (each enqueue's reply says whether it took the fast path), then the
serve attempts, whose `now` is the logical clock's (`SCORE_BASE + t`) so a future score waits
for its time. A dequeue that meets an expired head drops it without saying so: a trip whose
dequeues may have done that ends with a read of those runs' scores in the env queue, and a run
gone from it that no dequeue handed out was dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from ckviz.model.clock import SCORE_BASE, WALL_NOW
from ckviz.model.queue import PlannedRun
from ckviz.sim.engine.ledger import Ledger
from ckviz.sim.engine.lifecycle import KeyLife, Lifecycle
from ckviz.store.runqueue import Trip

FastServe = Callable[[PlannedRun], None]  # record a run the fast path handed to a worker
# a release's outcome as the event log names it
EVENT_OF: dict[str, Literal["ack", "nack", "dead"]] = {
    "ack": "ack",
    "nack": "nack",
    "dead_letter": "dead",
}


class PlainRuns:
    """Runs without a lifecycle, as ckviz ran them before it: enqueued at their arrival, acked
    when their hold ends, served by a dequeue whose `now` is above every timestamp."""

    tallies: Mapping[str, KeyLife] | None = None
    certain = True  # a dequeue's take may be predicted (sim/millisecond_clock/driver.py)
    projected = (
        True  # ckIndex after a trip's writes may be projected (sim/millisecond_clock/projection.py)
    )
    drops = 0  # expired heads dequeues dropped so far

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def now(self, t: int) -> int:
        return WALL_NOW

    def release(self, trip: Trip, run: PlannedRun, t: int) -> str:
        trip.ack(run.run_id, run.key)
        self.ledger.acked(run)
        return "ack"

    def sweep(self, trip: Trip, t: int) -> None:
        return None

    def arrive(self, trip: Trip, run: PlannedRun, t: int, timestamp: int | None = None) -> int:
        """The run's enqueue; its score (`timestamp`, else its arrival on the ms clock, less
        its age when it was already waiting at a forked start)."""
        score = SCORE_BASE + run.arrival_ms - run.life.age_ms if timestamp is None else timestamp
        trip.enqueue(run, score)
        return score

    def before_send(self, trip: Trip, t: int) -> None:
        return None

    def replies(self, replies: list[Any], t: int, fast: FastServe) -> None:
        return None

    def dropped(self) -> None:
        return None

    def take_expired(self) -> list[tuple[str, str]]:
        """(key, run id) of the runs expired since the last call (the event log's)."""
        return []

    def served(self, key: str, run_id: str, t: int, fast: bool) -> None:
        return None

    def all_out(self) -> bool:
        """Every run dequeued: the run is over (its holds are not waited for)."""
        return len(self.ledger.dequeues) >= self.ledger.total_runs

    def next_instant(self, t: int) -> int | None:
        return None


class DriverLife(PlainRuns):
    """One driver's lifecycle slots in the trip being built, and their replies."""

    certain = False  # a future head or an expired one takes nothing
    projected = False  # nacks, sweeps, drops and the fast path move ckIndex their own ways

    def __init__(self, lifecycle: Lifecycle, ledger: Ledger) -> None:
        super().__init__(ledger)
        self.life = lifecycle
        self.tallies = lifecycle.keys
        self.ledger = ledger
        self._sweep: int | None = None  # the sweep's slot in the trip being built
        self._enqueues: list[tuple[int, PlannedRun]] = []  # enqueues offered the fast path
        self._probe: tuple[int, list[tuple[str, str]]] | None = None  # (slot, runs asked)
        self._probed: list[tuple[list[tuple[str, str]], list[Any]]] = []  # to read after

    def now(self, t: int) -> int:
        """The dequeue's and the client's `now`: the logical clock, so future scores wait."""
        return self.life.now(t)

    def release(self, trip: Trip, run: PlannedRun, t: int) -> str:
        """The run's hold ended: its ack, nack or dead-letter goes into the trip; which."""
        decided = self.life.release(run, t)
        if decided.outcome == "ack":
            trip.ack(run.run_id, run.key)
            self.ledger.acked(run)
        elif decided.outcome == "dead_letter":
            trip.dead_letter(run.key, run.run_id)
            self.ledger.dead_letter(run)
        else:
            assert decided.payload is not None and decided.score is not None
            trip.nack(run.key, run.run_id, decided.payload, decided.score)
            self.life.requeued(self.ledger, run, decided.score, t)
        return decided.outcome

    def served(self, key: str, run_id: str, t: int, fast: bool) -> None:
        """A serve of the run (by a dequeue, or on the fast path); its last settles it."""
        if self.life.served(self.ledger.planned(run_id), t, fast):
            self.ledger.settled += 1

    def sweep(self, trip: Trip, t: int) -> None:
        """The TTL consumer's sweep, when one is due at `t` (and none waits in the trip)."""
        if self._sweep is None and self.life.sweep_now(t):
            self._sweep = trip.expire_ttl(self.now(t), self.life.sweep.per_sweep)

    def arrive(self, trip: Trip, run: PlannedRun, t: int, timestamp: int | None = None) -> int:
        """The run's first enqueue; its score (the books queue it until a reply says it
        took the fast path)."""
        plain = SCORE_BASE + run.arrival_ms - run.life.age_ms if timestamp is None else timestamp
        sent = self.life.enqueue(self.ledger, run, t, plain)
        slot = trip.enqueue(run, sent.score, sent.ttl_expires_at, sent.fast_path_at)
        if sent.fast_path_at is not None:
            self._enqueues.append((slot, run))
        return sent.score

    def before_send(self, trip: Trip, t: int) -> None:
        """A trip that may drop expired heads ends by asking where those runs are."""
        due = self.life.due_to_expire(self.ledger, t)
        if due:
            self._probe = (trip.env_scores([run_id for _, run_id in due]), due)

    def replies(self, replies: list[Any], t: int, fast: FastServe) -> None:
        """The sweep's and the enqueues' replies, in trip order (before any dequeue's)."""
        if self._sweep is not None:
            self.life.swept_runs(self.ledger, replies[self._sweep], t)
        for slot, run in self._enqueues:
            if replies[slot]:
                fast(run)
        if self._probe is not None:
            slot, asked = self._probe
            self._probed.append((asked, replies[slot]))
        self._sweep, self._enqueues, self._probe = None, [], None

    def dropped(self) -> None:
        """Runs asked about that are neither queued (by Redis) nor handed out (by the books)
        were dropped by a dequeue; read once the trip's dequeues are recorded."""
        for asked, scores in self._probed:
            for (key, run_id), score in zip(asked, scores, strict=True):
                if score is None and self.ledger.is_queued(key, run_id):
                    self.life.dropped_by_dequeue(self.ledger, key, run_id)
                    self.drops += 1
        self._probed = []

    def take_expired(self) -> list[tuple[str, str]]:
        taken, self.life.expired_now = self.life.expired_now, []
        return taken

    def all_out(self) -> bool:
        """Every run done for good: served for the last time, dead-lettered or expired."""
        return self.ledger.settled >= self.ledger.total_runs

    def next_instant(self, t: int) -> int | None:
        """The next instant the lifecycle needs: a future score coming due, or a sweep."""
        times = [x for x in (self.ledger.next_wake(t), self.life.next_sweep(t)) if x is not None]
        return min(times, default=None)


def runs_of(lifecycle: Lifecycle | None, ledger: Ledger) -> PlainRuns:
    """The driver's runs: plain, or with the scenario's lifecycle."""
    return PlainRuns(ledger) if lifecycle is None else DriverLife(lifecycle, ledger)
