"""What code above sim/ sees of a run, whichever clock drives it (sim/clocks.py opens one).

Two clocks drive the same books, invariant checks, recording and snapshot builder:
- the logical-millisecond clock (`Driver`, SPEC 5): instants of release, arrive, serve, close;
- the step clock (`StepRunner`, the micro-benchmark's spec 6 and 10): calls, acks after
  `hold_steps`, arrivals between calls.
A round is one serve attempt (ms) or one step of calls; an instant is everything at one `t`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ckviz.model.clock import Unit
from ckviz.model.snapshot import FULL_VIEW, ConsumerService, DequeueEvent, Snapshot, ViewRequest
from ckviz.sim.engine.dequeues import Dequeues
from ckviz.sim.engine.ledger import Ledger
from ckviz.sim.engine.lifecycle import KeyLife
from ckviz.store.runqueue import RunQueue


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What only the step clock counts as it goes (the micro-benchmark's spec 6): contention per
    call, the calls made, the drain, serves per declared key, and the floor it ended with (a
    discipline in Redis that keeps one)."""

    contention: Mapping[str, int]  # serves while >= 2 keys had backlog, per key
    contended: set[str]  # keys with backlog during such a call
    declared: tuple[str, ...]  # minted keys get no row of their own
    victims: tuple[str, ...]
    calls: int
    drain_step: int
    key_serves: dict[str, int]
    floor: float | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished run's facts; metrics.outcome_metrics turns them into the results' figures."""

    unit: Unit
    events: Sequence[DequeueEvent]  # the dequeues as events, when the engine kept them
    weights: dict[str, float]
    total_runs: int  # runs of the workload (ms): fewer dequeued means the run did not finish
    t: int
    round_trips: int
    commands_sent: int
    service: tuple[ConsumerService, ...]
    dequeues: Dequeues  # what the figures read
    per_key_cap: int | None = None
    holds: Mapping[str, int] = field(default_factory=dict)  # run id -> hold (kept events')
    steps: StepOutcome | None = None
    lifecycle: Mapping[str, KeyLife] | None = None  # per key, with the run lifecycle only
    settled: int | None = None  # with it: runs done for good (served last, dead or expired)


Progress = Callable[[int, int], None]  # (runs dequeued so far, the clock's time) as a run goes


class Counting:
    """What both clocks count the same way: the dequeues in their books, and the round trips
    and commands over every consumer's connection."""

    ledger: Ledger
    queues: Sequence[RunQueue]  # c1's connection first

    @property
    def events(self) -> list[DequeueEvent]:
        """Every dequeue so far, in order (the ledger's, shared; times in the clock's unit)."""
        return self.ledger.events

    @property
    def round_trips(self) -> int:
        """Round trips of the run, over every consumer's connection."""
        return sum(q.round_trips for q in self.queues)

    @property
    def commands_sent(self) -> int:
        return sum(q.commands_sent for q in self.queues)


class Engine(Protocol):
    """One run on one clock: stepped by the app's lanes, run whole by a cell."""

    unit: Unit
    done: bool
    ledger: Ledger  # the books (the app's fairness reads the runs handed out so far)

    @property
    def t(self) -> int:
        """Where the clock stands (ms, or the next step)."""
        ...

    @property
    def events(self) -> Sequence[DequeueEvent]:
        """Every dequeue so far, in order."""
        ...

    def step(self) -> None:
        """One round: a serve attempt (ms), or one step's calls (steps)."""
        ...

    def step_instant(self, watched: bool = True) -> None:
        """Step until the clock moves on (or the run ends)."""
        ...

    def run(self, progress: Progress | None = None) -> None:
        """Step to the end, unwatched; `progress` hears how far it is now and then."""
        ...

    def snapshot(self, view: ViewRequest = FULL_VIEW) -> Snapshot:
        """An immutable picture of this moment (snapshot.py builds it)."""
        ...

    def waiting_since(self) -> dict[str, int]:
        """Per key with runs still queued: since when (its clock) it has waited."""
        ...

    def contention_counts(self) -> Mapping[str, int] | None:
        """Contended serves counted as the run went (the step clock); None: walk the events."""
        ...

    def outcome(self) -> Outcome:
        """The run's facts for the results."""
        ...
