"""The driver: one logical clock stepping a workload through the real Redis run queue.

SPEC section 5, made steppable. Round trips are saved without changing what the server
sees: commands are queued in an *outbox* and sent together, and a dequeue attempt that is
certain to take nothing (the env is full, or nothing is queued) is still sent, but rides
with the next trip instead of costing its own; a rescoring discipline ranks ckIndex as
projected after the outbox's writes (projection.py), confirmed by the read the same trip
carries. The server executes exactly the reference's command sequence; only the packets
differ.

Several consumers (sim/engine/consumers.py) take turns at the dequeue, each on its own connection;
enqueues and acks ride with the next trip, whoever sends it. With more than one, a dequeue goes
out in its own turn: the ride-alongs are single-consumer savings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ckviz.disciplines.base import Discipline
from ckviz.model.arithmetic import batch_room, queue_limit
from ckviz.model.clock import SCORE_BASE, WALL_NOW, Unit
from ckviz.model.history import History
from ckviz.model.invariants import ENV_LIMIT, ONE_PLACE
from ckviz.model.queue import DequeuedRun, PlannedRun, RunStream
from ckviz.model.snapshot import (
    FULL_VIEW,
    ConsumerService,
    Snapshot,
    ViewRequest,
)
from ckviz.sim.engine.collector import roomy_young_generation
from ckviz.sim.engine.consumers import (
    Callers,
    Consumer,
    Turns,
    caller_of,
    consumers_of,
    state_keeper,
)
from ckviz.sim.engine.history import HistoryRecorder
from ckviz.sim.engine.invariants import InvariantChecker
from ckviz.sim.engine.ledger import Ledger
from ckviz.sim.engine.life_commands import EVENT_OF, runs_of
from ckviz.sim.engine.lifecycle import Lifecycle
from ckviz.sim.engine.run import Counting, Outcome, Progress
from ckviz.sim.engine.serving import Rescore, ServePlan
from ckviz.sim.engine.snapshot import Header, Scene, snapshot_of
from ckviz.sim.engine.view import IndexPeek, KeyView, MovedQueues, QueuedKeys
from ckviz.sim.millisecond_clock.config import DriverConfig
from ckviz.sim.millisecond_clock.event_log import EventLog
from ckviz.sim.millisecond_clock.outbox import Outbox
from ckviz.sim.millisecond_clock.riders import takes_are_certain
from ckviz.sim.millisecond_clock.scene import driver_scene
from ckviz.sim.millisecond_clock.trip_reads import TripReads
from ckviz.store.runqueue import RunQueue
from ckviz.store.scripts import LUA_ORDER

RECENT_LIMIT = 200
# rounds between two words to a progress reporter (a ms or so of work; under load a Ctrl-C
# waited 4096 rounds, about a minute, for a cell to stop)
PROGRESS_ROUNDS = 512


class Driver(Counting):
    """The logical-millisecond clock over one (scenario, seed, discipline) run (an `Engine`);
    `snapshot()` shows where it stands."""

    unit: Unit = "ms"
    score_base = SCORE_BASE  # a message's timestamp is this plus its arrival ms

    def __init__(
        self,
        config: DriverConfig,
        workload: Sequence[PlannedRun] | RunStream,
        discipline: Discipline,
        queue: RunQueue,
        more_consumers: Sequence[tuple[Discipline, RunQueue]] = (),
        history: bool = False,
        lifecycle: Lifecycle | None = None,
        held_at_start: Sequence[PlannedRun] = (),
    ) -> None:
        """`discipline` and `queue` are consumer c1's; `more_consumers` c2..cN's (a discipline
        whose state lives in Redis is one object for all, a client-side one each their own).
        `lifecycle`: the scenario's runs fail, wait, expire or take the fast path.
        `held_at_start`: runs holding their slots when the run begins (a forked start)."""
        self.config = c = config
        self.mixed = c.lineup is not None  # a mixed rollout (model/lineup.py)
        label = c.lineup.label if c.lineup is not None else discipline.name
        run = (c.scenario, c.seed, label, c.env_limit, c.max_count)
        self.header = Header(*run, c.per_key_cap, c.total_cap, SCORE_BASE)  # for its pictures
        consumers = consumers_of([(discipline, queue), *more_consumers], self.mixed)
        self.turns = Turns(consumers, config.seed)
        self.queues = [each.queue for each in consumers]  # c1's first
        self.callers = Callers(consumers, self.queues, c.seed, self.mixed)
        self._solo = len(consumers) == 1  # else each dequeue goes on its own connection
        keeper = state_keeper(consumers)
        # the run's past in time buckets, for the app's pictures (headless runs skip it)
        self.history = HistoryRecorder(config.weights) if history else None
        self.discipline = discipline
        self.plan = keeper.plan  # what the discipline adds before each dequeue; its state reads
        self.queue = queue  # c1's connection; the display's reads go on it
        self.ledger = Ledger(config.weights, workload)
        self.life = runs_of(lifecycle, self.ledger)
        if held_at_start:
            self._seed(keeper.queue, held_at_start)
        # Without a lifecycle its per-trip hooks (the sweep, its clock, what it adds to a trip
        # and reads back, the served runs it tallies) are no-ops: they are not called.
        self._lifecycle_on = lifecycle is not None
        moved = MovedQueues(self.ledger.take_queues_moved)  # for the rows and the next order
        self.key_view = KeyView(self.ledger.books, moved.reader(), moved.lazy_reader())
        self.queued = QueuedKeys(self.ledger, moved, queue)  # ckIndex's, for a next order
        self.t = 0
        self.step_count = 0
        self.done = False
        self.recent = EventLog(RECENT_LIMIT, whole=history)  # the app's event log
        self.invariants: InvariantChecker | None = None
        if config.check_invariants:
            planned = self.ledger.planned_per_key()
            self.invariants = InvariantChecker(c.env_limit, c.per_key_cap, c.total_cap, planned)
        self.reads = reads = TripReads(self.ledger, self.plan, self.invariants, self.mixed)
        life, checking = (self.life if self._lifecycle_on else None), config.check_invariants
        record = self._record_dequeue
        self.outbox = Outbox(keeper.queue, reads, life, IndexPeek(queue), record, checking)
        self.instant_open = False  # released and arrived at self.t, now serving
        self._takes_are_certain = takes_are_certain(
            discipline.door == LUA_ORDER and self.life.certain,
            len(self.turns),
            queue_limit(config.per_key_cap, config.env_limit) >= config.env_limit,
        )
        self._ride_takes = False
        self.caller: Consumer | None = None  # whose dequeue call the last serve attempt made
        self.rescore: Rescore | None = None  # what the last serve attempt wrote, if anything
        self.last_rescore: Rescore | None = None  # the order the snapshot shows

    def _seed(self, home: RunQueue, held: Sequence[PlannedRun]) -> None:
        """Runs already held at t=0: in Redis's held sets and in the books, before anything."""
        trip = home.trip()
        for run in held:
            trip.hold_from_start(run.run_id, run.key)
        trip.send()
        self.ledger.seed_held(held)

    @property
    def workload(self) -> list[PlannedRun]:
        return self.ledger.workload

    # ---- stepping -------------------------------------------------------------------

    def step(self) -> None:
        """One dequeue round: open the instant if needed, then one serve attempt."""
        if self.done:
            return
        self.step_count += 1
        if not self.instant_open:
            self._open_instant()
        if not self._serve_once():
            self._close_instant()

    def step_instant(self, watched: bool = True) -> None:
        """Step until the logical clock moves on (or the run ends). Unwatched (no snapshot
        until the instant is over), dequeues may ride with the next trip as in `run()`; the
        instant's end sends them all, so the books are whole again when this returns."""
        start = self.t
        self._ride_takes = not watched and self._takes_are_certain
        try:
            self.step()
            while not self.done and self.instant_open and self.t == start:
                self.step()
        finally:
            self._ride_takes = False

    def run(self, progress: Progress | None = None, until_dequeued: int | None = None) -> None:
        """Step to the end (or until at least `until_dequeued` runs are out, for a benchmark).
        Unwatched, so a dequeue sure to take one run may ride with the next trip too (its
        reply is recorded when that trip returns). `progress` hears the runs dequeued and the
        logical time every PROGRESS_ROUNDS rounds."""
        self._ride_takes = self._takes_are_certain
        stop = until_dequeued
        dequeues = self.ledger.dequeues
        rounds = 0
        try:
            with roomy_young_generation():  # sim/engine/collector.py: why
                while not self.done and (stop is None or len(dequeues) < stop):
                    self.step()
                    rounds += 1
                    if progress is not None and rounds % PROGRESS_ROUNDS == 0:
                        progress(len(dequeues), self.t)
        finally:
            self._ride_takes = False

    # ---- the four phases of an instant ------------------------------------------------

    def _open_instant(self) -> None:
        self.turns.begin(self.t)
        self._release()
        if self._lifecycle_on:  # this instant's first
            self.life.sweep(self.outbox.by(self.turns.current.queue), self.t)
        self._arrive()
        self.instant_open = True

    def _release(self) -> None:
        for run in self.ledger.releases_due(self.t):
            trip, holder = self.callers.by_holder(self.outbox.trip, run.run_id)
            outcome = self.life.release(trip, run, self.t)
            if holder is not None:
                holder.released(outcome)
            if self.invariants:
                self.invariants.released(run.run_id)
            self.outbox.reheaded(run.key)
            self.recent.add(EVENT_OF[outcome], self.t, run.key, run.run_id, caller_of(holder))

    def _arrive(self) -> None:
        for run in self.ledger.arrivals_due(self.t):
            trip, enqueuer = self.callers.by_enqueuer(self.outbox.trip, run.run_id)
            timestamp = self.life.arrive(trip, run, self.t)
            self.outbox.reheaded(run.key)
            self.ledger.enqueued(run, timestamp)
            if self.history is not None:
                self.history.enqueued(run.key, self.t)
            self.recent.add("enqueue", self.t, run.key, run.run_id, caller_of(enqueuer))

    def _serve_once(self) -> bool:
        """One serve attempt; False when the instant's serving is over."""
        cap = self.config.total_cap
        held = len(self.ledger.holds) + len(self.outbox.expect_one)
        if cap is not None and held >= cap:
            self.caller = None  # no call
            return self._settle()
        self.rescore = None
        self.caller = consumer = self.turns.current
        plan = consumer.plan
        # a lifecycle's scores may lie ahead: its clock's (else every score is in the past)
        wall_now = self.life.now(self.t) if self._lifecycle_on else WALL_NOW
        if plan.rescores:  # (the others leave the order to the dequeue script: nothing to add)
            self._rescore(plan, wall_now)
        room = batch_room(self.config.max_count, held, cap)
        slot = self.outbox.by(consumer.queue).dequeue(room, wall_now)
        if self._certainly_empty(held):
            why = ENV_LIMIT if held >= self.config.env_limit else ONE_PLACE
            self.outbox.expect_empty.append((slot, why, consumer))  # sent with the next trip
            if not self._solo:  # on its own consumer's connection, now
                self._send(read_index=plan.rescores)  # the next rescore ranks what is there
                self._check()
            return self._settle()
        if self._ride_takes and room == 1:  # sure to take exactly one run (see __init__)
            self.outbox.expect_one.append((slot, consumer))  # sent and recorded with the next trip
            return self.turns.end_turn(1)
        # Only a rescoring plan ranks ckIndex as read; the Lua orders it itself for the others,
        # so reading all K entries per trip would make every dequeue cost O(K) for nothing.
        replies = self._send(read_index=plan.rescores)
        taken: list[DequeuedRun] = plan.taken(replies[slot])
        consumer.called(len(taken))
        for run in taken:
            self._record_dequeue(run, consumer)
        dropped = self.life.drops
        self._check()
        # an expired head a call dropped is progress too: the next call may serve or drop more
        return self.turns.end_turn(len(taken) + self.life.drops - dropped)

    def _rescore(self, plan: ServePlan, wall_now: int) -> None:
        """The discipline's order of what Redis holds now, written into ckIndex ahead of the
        dequeue."""
        outbox = self.outbox
        if len(outbox):
            self._rank_after_writes()
        now = SCORE_BASE + self.t
        rescore = plan.before_dequeue(outbox.trip, outbox.index_read, now, wall_now)
        if rescore is not None:
            self.last_rescore = self.rescore = rescore
            outbox.projections.writes.rescored(rescore.members, rescore.scores)

    def _rank_after_writes(self) -> None:
        """Give the discipline ckIndex as it stands after the outbox's writes: projected from
        the last read, confirmed by the same trip (projection.py), checked or not; read
        when the lifecycle wrote it (its nacks, sweeps and drops are not projected)."""
        if self.outbox.index_stale or not self.life.projected:
            self._send(read_index=True)
            self._check()
        else:
            self.outbox.rank_after_writes(self.ledger.books)

    def _settle(self) -> bool:
        """End the instant's serving: dequeues that rode along are sent and recorded first,
        so the books know every hold before the clock moves. Always False."""
        if self.outbox.expect_one:
            self._send()
            self._check()
        return False

    def _certainly_empty(self, held: int) -> bool:
        """Whether the dequeue just added is sure to take nothing, so it may wait for the next
        trip. Judged from this driver's books: sound only while this driver makes every
        dequeue (and ack) of its namespace. Its consumers share the one ledger, so it holds for
        them; a client outside the driver could free a slot or queue a run that the books do
        not know of, and the deferred dequeue would then take a run too late."""
        queued = self.ledger.queued_count - len(self.outbox.expect_one)
        return held >= self.config.env_limit or queued == 0

    def _close_instant(self) -> None:
        self.instant_open = False
        ledger, life = self.ledger, self.life
        all_out = life.all_out()
        lifes = life.next_instant(self.t) if self._lifecycle_on else None
        next_ones = (ledger.next_arrival_ms(), ledger.earliest_release(), lifes)
        ends = [a for a in next_ones if a is not None]
        if all_out or not ends:
            self._finish()
            return
        self.t = max(self.t + 1, min(ends))
        if self.t > self.config.max_logical_ms:
            self._finish()

    def _finish(self) -> None:
        if len(self.outbox):
            self._send()
            self._check()
        self.done = True

    # ---- bookkeeping --------------------------------------------------------------------

    def _send(self, read_index: bool = False) -> list[Any]:
        """Send the outbox (outbox.py) on the connection of whose turn it is."""
        return self.outbox.send(self.turns.current.queue, self.t, read_index)

    def _check(self) -> None:
        """Check the last trip's reads against the books, once its replies are recorded."""
        if self._lifecycle_on:
            self.life.dropped()  # the books first learn which expired heads a dequeue dropped
            for key, run_id in self.life.take_expired():
                self.recent.add("expire", self.t, key, run_id)
        self.reads.check(self.t)

    def _record_dequeue(self, run: DequeuedRun, consumer: Consumer | None) -> None:
        t, key, run_id, invariants = self.t, run.key, run.run_id, self.invariants
        if invariants is not None:
            invariants.on_dequeued(t, key, run_id)
        book = self.ledger.dequeued(t, key, run_id)
        if consumer is not None and consumer.named:  # to name who finishes it
            self.callers.took(run_id, consumer)
        if self._lifecycle_on:
            self.life.served(key, run_id, t, consumer is None)
        if self.history is not None:
            self.history.dequeued(key, t)
        self.recent.add("dequeue", t, key, run_id, caller_of(consumer))
        if invariants is not None:
            invariants.within_limits(t, key, book.held, len(self.ledger.holds))
        if consumer is not None:
            consumer.discipline.on_serviced(key)  # its own state only (sim/engine/consumers.py)

    # ---- what the lanes and the results read --------------------------------------------

    def waiting_since(self) -> dict[str, int]:
        return self.ledger.waiting_since(SCORE_BASE)

    def contention_counts(self) -> None:  # the metrics walk the events
        return None

    def outcome(self) -> Outcome:
        c, ledger = self.config, self.ledger
        holds = ledger.served_holds  # slowdown, per-key caps
        trips, sent = self.round_trips, self.commands_sent
        facts = (self.events, dict(c.weights), ledger.total_runs, self.t, trips, sent)
        tallies = self.life.tallies
        settled = None if tallies is None else ledger.settled
        return Outcome(
            "ms",
            *facts,
            self.service(),
            ledger.dequeues,
            c.per_key_cap,
            holds,
            lifecycle=tallies,
            settled=settled,
        )

    # ---- what the UI reads (sim/engine/snapshot.py and driver_scene.py draw the picture) --------

    def snapshot(self, view: ViewRequest = FULL_VIEW) -> Snapshot:
        """An immutable picture of this moment, with the per-key rows `view` asks for."""
        return snapshot_of(self, view)

    def scene(self, view: ViewRequest) -> Scene:
        return driver_scene(self, view)

    def history_view(self, t: int) -> History | None:
        return None if self.history is None else self.history.view(t)

    def service(self) -> tuple[ConsumerService, ...]:
        return self.turns.service()
