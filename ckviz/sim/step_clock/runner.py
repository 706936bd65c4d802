"""The step harness (the micro-benchmark's spec 6 and 10): a run is a sequence of dequeue calls.

Every declared message is enqueued before the first call, in scenario order. Step s: the
arrivals of the step (fresh keys), then one dequeue of up to `max_count` runs (none when the
env is full), then the acks of runs held `hold_steps` steps, walking the in-flight list from
last to first, then the refeeds of keys the call served. One round trip per call: the acks
and refeeds that follow a call travel at the front of the next call's trip (a step with the
env full sends nothing), so the server executes the reference's command sequence in the same
order; only the packets differ.

Several consumers (sim/engine/consumers.py): each step, every consumer makes one call (none when the
env is full at its turn), in an order drawn from the seed and the step, each on its own
connection; the backlog is counted before each call; the acks and refeeds follow the step's
last call.

The books are the engine's (sim/engine/ledger.py), in steps: a run arrives at the step it is
enqueued before (`Ledger.arrive_now`) and holds its slot `hold_steps` steps; checked, each
call's trip carries the digest the invariant checker holds them against, as the millisecond
clock's do.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from functools import partial
from typing import Any

from ckviz.disciplines.base import DequeueReport, OnSteps
from ckviz.disciplines.registry import IN_REDIS, on_steps
from ckviz.inputs.workload import SeedRandom, run_life
from ckviz.model.clock import T0, Unit
from ckviz.model.history import History
from ckviz.model.lifecycle import PLAIN
from ckviz.model.lineup import Lineup
from ckviz.model.queue import DequeuedRun, PlannedRun
from ckviz.model.snapshot import (
    FULL_VIEW,
    ConsumerService,
    LoggedEvent,
    QueueEvent,
    Snapshot,
    ViewRequest,
)
from ckviz.model.steps import FRESH_PREFIX, StepScenario
from ckviz.sim.engine.consumers import Callers, Tally, caller_of, consumer_name, turn_order
from ckviz.sim.engine.history import HistoryRecorder
from ckviz.sim.engine.invariants import LISTING_LIMIT, InvariantChecker, listing
from ckviz.sim.engine.ledger import Ledger
from ckviz.sim.engine.life_commands import EVENT_OF, runs_of
from ckviz.sim.engine.lifecycle import Lifecycle
from ckviz.sim.engine.run import Counting, Outcome, Progress
from ckviz.sim.engine.snapshot import Header, Scene, snapshot_of
from ckviz.sim.step_clock.calls import CallRecord
from ckviz.sim.step_clock.counts import StepCounts
from ckviz.sim.step_clock.scene import RECENT_EVENTS, step_scene
from ckviz.store.runqueue import RunQueue, Trip

STEP_DISCIPLINES: tuple[str, ...] = IN_REDIS  # a call is one script: the order is in Redis


class StepRunner(Counting):
    """The step clock over one (step scenario, discipline) run (an `Engine`); `calls` says what
    each step's calls did, `ledger` holds the books. `t` is the next step."""

    unit: Unit = "step"

    def __init__(
        self,
        scenario: StepScenario,
        discipline: str,
        queue: RunQueue,
        max_count: int | None = None,
        check_invariants: bool = True,
        track_state: bool | None = None,
        more_queues: Sequence[RunQueue] = (),
        seed: str = "",
        history: bool = False,
        lifecycle: Lifecycle | None = None,
        lineup: Lineup | None = None,
    ) -> None:
        """`queue` (and `more_queues`) opened with the discipline's door, its dequeue traced.
        `lifecycle`: the scenario's runs fail, wait, expire or take the fast path.
        `track_state`: read the discipline's state in Redis after every call (default: when
        checking).
        `more_queues`: the connections of consumers c2..cN (c1's is `queue`), who take turns
        in an order drawn from `seed` and the step. `lineup`: a mixed rollout, whose consumers
        run the disciplines it names (each queue opened with its door; `discipline` is the
        mix's label; model/lineup.py and sim/engine/consumers.Callers say who makes which call)."""
        self.scenario = scenario
        self.discipline = discipline
        self.queue = queue
        self.queues = [queue, *more_queues]
        self.mixed = lineup is not None
        named = lineup.per_consumer if lineup is not None else (None,) * len(self.queues)
        several = self.mixed or len(self.queues) > 1  # the event log names who called
        self.consumers = [
            Tally(consumer_name(i), mixed_as=name, named=several) for i, name in enumerate(named)
        ]
        self.callers = Callers(self.consumers, self.queues, seed, self.mixed)
        # the discipline in Redis whose state the trips read: the first flag-on consumer's
        keeper = next((i for i, q in enumerate(self.queues) if q.door.reads is not None), 0)
        self._home = self.queues[keeper]
        keeping = named[keeper] or discipline
        self.seed = seed
        self.max_count = max_count or scenario.harness.max_count
        limit = scenario.env_limit  # no caps: the env limit is the step harness's only limit
        self.header = Header(scenario.name, "", discipline, limit, self.max_count, None, None, T0)
        self.t = 0
        self.done = False
        # declared keys first, then minted ones; a hold in steps is no time to divide a wait by
        self.ledger = Ledger(scenario.weights(), (), holds_known=False)
        self.life = runs_of(
            lifecycle, self.ledger
        )  # sim/engine/life_commands.py, as the ms clock's
        self._lives = {n: s for s in scenario.keys if s.has_lifecycle for n in s.names()}
        self._fails = SeedRandom(f"{seed}/fail")  # which runs fail, as a sampled workload's
        self.calls: list[CallRecord] = []
        # the Events pane's: the dequeues, and with a lifecycle or a mix the acks, nacks,
        # dead-letters and expiries too (a plain step run acks thousands: its log is the serves)
        self.recent: deque[QueueEvent] = deque(maxlen=RECENT_EVENTS)
        # every event, releases too, for a key's own story (the app's runs: they keep history)
        self.whole: list[LoggedEvent] | None = [] if history else None
        self._logs_releases = self.mixed or lifecycle is not None
        self.counts = StepCounts(scenario)  # the backlog, the contention, the drain
        # the per-key limit is the env limit (no per-queue limit in the step harness); the
        # planned runs per key grow as runs arrive
        self.invariants = (
            InvariantChecker(limit, None, None, {}, "step") if check_invariants else None
        )
        # a discipline whose state lives in Redis: that state, its rules, what the app shows
        self.in_redis: OnSteps | None = on_steps(keeping, check_invariants, self.mixed)
        self.track_state = check_invariants if track_state is None else track_state
        self._fresh = 0
        self._refeeds = 0
        self._outbox = self._home.trip()
        # the run's past in time buckets of steps, for the app's pictures
        self.history = HistoryRecorder(scenario.weights()) if history else None
        for spec in scenario.keys:
            for k, key in enumerate(spec.names()):
                for i in range(spec.runs):
                    self._enqueue(key, spec.timestamp(i, k))

    # ---- what a snapshot reads ---------------------------------------------------------

    @property
    def total(self) -> int:
        """Runs enqueued so far (all of them up front, plus arrivals between calls)."""
        return self.ledger.total_runs

    def service(self) -> tuple[ConsumerService, ...]:
        return tuple(c.service() for c in self.consumers)

    def next_consumer(self) -> str:
        """Who calls first at the next step."""
        return self.consumers[turn_order(self.seed, self.t, len(self.consumers))[0]].name

    # ---- stepping -------------------------------------------------------------------

    def run(self, progress: Progress | None = None) -> None:
        """Every step to the end; `progress` hears the serves and the step every 4096 steps."""
        while not self.done:
            self.step()
            if progress is not None and self.t % 4096 == 0:
                progress(len(self.ledger.dequeues), self.t)

    def step_instant(self, watched: bool = True) -> None:
        """A step is the step clock's instant: its calls, then its acks and refeeds."""
        self.step()

    def step(self) -> None:
        """One call per consumer (none when the env is full), then the acks and refeeds."""
        if self.done:
            return
        arrivals = self.scenario.arrivals
        for _ in range(arrivals.fresh_per_call):
            key = f"{FRESH_PREFIX}{self._fresh}"
            self._enqueue(key, arrivals.fresh_start + self._fresh)
            self._fresh += 1
        served: list[DequeuedRun] = []
        order = turn_order(self.seed, self.t, len(self.consumers))
        # the TTL consumer's sweep when due, on the instance whose turn opens the step
        self.life.sweep(self._outbox.by(self.queues[order[0]]), self.t)
        for i in order:
            served += self._call(i)
        self._ack_due()
        self.t += 1  # a refeed arrives for the next call
        for run in served:
            if run.key in arrivals.refeed:
                self._enqueue(run.key, arrivals.refeed_start + self._refeeds)
                self._refeeds += 1
        finished = not self.scenario.between_calls and self.life.all_out()
        if finished or self.t >= self.scenario.harness.max_steps:
            self._finish()

    def _call(self, consumer: int) -> list[DequeuedRun]:
        """Consumer `consumer`'s turn: its call, on its own connection, unless the env is full."""
        backlog = self.counts.backlog()
        called = self.ledger.held_count < self.scenario.env_limit  # burst factor 1
        runs: list[DequeuedRun] = []
        report: DequeueReport | None = None
        digest: Any = None
        if called:  # else the outbox waits for the next call's trip: nothing reads it before
            caller = self.queues[consumer]
            slot = self._outbox.by(caller).dequeue(self.max_count, self.life.now(self.t))
            digest_slot, state_slot = self._reads()
            replies = self._send(caller, backlog)
            runs, report = self._reply(replies[slot], caller)
            if digest_slot is not None:
                digest = replies[digest_slot]
            if self.in_redis is not None and state_slot is not None:
                self.in_redis.read(replies[state_slot])
            self.consumers[consumer].called(len(runs))
        for run in runs:
            self._record(run, backlog, by=self.consumers[consumer])
            self.callers.took(run.run_id, self.consumers[consumer])
        self._expired()  # expired heads the call dropped leave the books first
        if self.invariants is not None and digest is not None:
            self.invariants.check(self.ledger, digest, self.t)
        name = self.consumers[consumer].name
        served, heads = tuple(r.key for r in runs), tuple(r.score for r in runs)
        self.calls.append(CallRecord(self.t, called, backlog, served, report, name, heads))
        if self.in_redis is not None and report is not None:
            self.in_redis.called(self.t, report, self.ledger.books.__contains__)
        return runs

    def _reads(self) -> tuple[int | None, int | None]:
        """Slots of the reads that ride at the end of a call's trip: the digest (checked) and
        the discipline's state (tracked), each of every active key while there are few, else
        of the keys changed since the last trip (as on the millisecond clock)."""
        keys = listing(self.ledger)
        digest_slot = None if self.invariants is None else self._outbox.inspect(*keys)
        state_slot = None
        if self.in_redis is not None and self.track_state:
            state_slot = self._outbox.read_state(LISTING_LIMIT, keys[0])
        return digest_slot, state_slot

    def _finish(self) -> None:
        """The last acks go out, checked like a call's trip, if anything is left to send (and,
        for a discipline in Redis, the floor it ends with)."""
        if self.in_redis is not None or len(self._outbox):
            digest_slot = (
                None if self.invariants is None else self._outbox.inspect(*listing(self.ledger))
            )
            state_slot = None if self.in_redis is None else self._outbox.read_state(0)
            replies = self._send()
            self._expired()
            if self.in_redis is not None and state_slot is not None:
                self.in_redis.read(replies[state_slot])
            if self.invariants is not None and digest_slot is not None:
                self.invariants.check(self.ledger, replies[digest_slot], self.t)
        self.done = True

    # ---- the commands of a step ------------------------------------------------------

    def _enqueue(self, key: str, offset_ms: int) -> None:
        book = self.ledger.books.get(key)
        sent = 0 if book is None else book.to_arrive + len(book.queued) + book.dequeued
        spec = self._lives.get(key)
        life = PLAIN if spec is None else run_life(spec, self._fails)
        run = PlannedRun(key, f"{key}-{sent}", self.t, self.scenario.harness.hold_steps, life)
        trip, enqueuer = self.callers.by_enqueuer(self._outbox, run.run_id)
        timestamp = self.life.arrive(trip, run, self.t, T0 + offset_ms)
        self.ledger.arrive_now(run, timestamp)
        # the whole log's only: the Events pane lists a step run's serves (and releases)
        self._log(("enqueue", self.t, key, run.run_id, caller_of(enqueuer)), shown=False)
        if self.invariants is not None:
            self.invariants.arrived_unplanned(key)
        self.counts.arrived(key)
        if self.history is not None:
            self.history.enqueued(key, self.t)

    def _reply(
        self, reply: Any, caller: RunQueue
    ) -> tuple[list[DequeuedRun], DequeueReport | None]:
        """The runs of a dequeue reply, and the report of a discipline in Redis (its door's
        reader made it; a flag-off caller's is plain runs)."""
        if self.in_redis is None or caller.door.dequeue_reply is None:
            return list(reply), None
        report: DequeueReport = reply
        return report.runs, report

    def _ack_due(self) -> None:
        """The runs held `hold_steps` steps, acked last served first (as the reference walks
        its in-flight list)."""
        for run in reversed(self.ledger.releases_due(self.t)):
            trip, holder = self.callers.by_holder(self._outbox, run.run_id)
            outcome = self.life.release(trip, run, self.t)
            if holder is not None:
                holder.released(outcome)
            if self.invariants:
                self.invariants.released(run.run_id)
            by = caller_of(holder)
            self._log((EVENT_OF[outcome], self.t, run.key, run.run_id, by), self._logs_releases)
            if self.in_redis is not None:
                self.in_redis.acked(run.key)

    def _send(self, via: RunQueue | None = None, backlog: int = 0) -> list[Any]:
        """Send the outbox (on `via`'s connection); the lifecycle's replies (a sweep's, the
        fast path's) are read before the dequeue's."""
        outbox: Trip
        outbox, self._outbox = self._outbox, self._home.trip()
        self.life.before_send(outbox, self.t)
        replies = outbox.send(via)
        self.life.replies(replies, self.t, partial(self._served_fast, backlog))
        return replies

    def _served_fast(self, backlog: int, run: PlannedRun) -> None:
        """The enqueue handed `run` straight to a worker: a serve at once, by no call."""
        self._record(DequeuedRun(run.run_id, 0, run.key), backlog, fast=True)

    # ---- books ----------------------------------------------------------------------

    def _record(
        self, run: DequeuedRun, backlog: int, fast: bool = False, by: Tally | None = None
    ) -> None:
        """A serve: by a call (`by`'s), or (`fast`) on the fast path at its enqueue."""
        ledger, t = self.ledger, self.t
        self._log(("dequeue", t, run.key, run.run_id, caller_of(by)))
        if self.invariants is not None:
            self.invariants.on_dequeued(t, run.key, run.run_id)
        book = ledger.dequeued(t, run.key, run.run_id)
        self.life.served(run.key, run.run_id, t, fast)
        counts = self.counts
        counts.served(run.key, book, backlog)
        if self.history is not None:
            self.history.dequeued(run.key, t)
        if not self.scenario.between_calls and counts.drain_step < 0 and self.life.all_out():
            counts.drain_step = t
        if self.invariants is not None:
            self.invariants.within_limits(t, run.key, book.held, ledger.held_count)

    def _expired(self) -> None:
        """Expired heads the last trip's dequeues dropped leave the books; with the runs its
        sweep expired, they go to the event log."""
        self.life.dropped()
        for key, run_id in self.life.take_expired():
            self._log(("expire", self.t, key, run_id, None))

    def _log(self, event: LoggedEvent, shown: bool = True) -> None:
        """An event for the whole log, and (`shown`) for the Events pane's."""
        if shown:
            self.recent.append(QueueEvent(*event))
        if self.whole is not None:
            self.whole.append(event)

    # ---- what the lanes and the results read --------------------------------------------

    def snapshot(self, view: ViewRequest = FULL_VIEW) -> Snapshot:
        """Where the run stands after its last call (sim/engine/snapshot.py, step_scene.py)."""
        return snapshot_of(self, view)

    def scene(self, view: ViewRequest) -> Scene:
        return step_scene(self, view)

    def history_view(self, t: int) -> History | None:
        return None if self.history is None else self.history.view(t)

    def waiting_since(self) -> dict[str, int]:
        return self.counts.waiting_since(self.ledger.books)

    def contention_counts(self) -> dict[str, int]:
        return self.counts.contention

    def outcome(self) -> Outcome:
        floor = None if self.in_redis is None else self.in_redis.floor
        steps = self.counts.outcome(self.ledger.books, self.calls, floor)
        weights = dict.fromkeys(self.ledger.books, 1.0)  # minted keys count, at weight 1
        trips, sent = self.round_trips, self.commands_sent
        service, tape = self.service(), self.ledger.dequeues
        facts = (self.events, weights, self.total, self.t, trips, sent, service, tape)
        tallies = self.life.tallies
        settled = None if tallies is None else self.ledger.settled
        return Outcome("step", *facts, steps=steps, lifecycle=tallies, settled=settled)
