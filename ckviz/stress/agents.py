"""The threads of a stress run: one producer, N consumers, one read-only watcher. Each has
its own connection (its own RunQueue) and never waits for another's turn."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ckviz.model.clock import T0, WALL_NOW
from ckviz.model.queue import DequeuedRun, PlannedRun
from ckviz.sim.engine import LISTING_LIMIT  # the watcher lists state whole up to it
from ckviz.store.runqueue import RunQueue, Trip
from ckviz.stress.latency import Latencies
from ckviz.stress.ledger import SharedBooks
from ckviz.stress.ops import QueueOps
from ckviz.stress.plan import Arrival, StressPlan, fresh_key

# A test-only fault, called by a consumer after each run it is served (never set by the CLI).
Hook = Callable[[RunQueue, QueueOps, DequeuedRun], None]
BATCH = 50  # enqueues per producer trip
IDLE_S = 0.001  # an agent with nothing to do sleeps this long instead of spinning


class Agent(threading.Thread):
    """A daemon thread (it dies with the process); an exception stops the whole run."""

    def __init__(
        self, name: str, queue: RunQueue, ops: QueueOps, ledger: SharedBooks, stop: threading.Event
    ) -> None:
        super().__init__(name=f"ckviz-stress-{name}", daemon=True)
        self.queue = queue
        self.ops = ops
        self.ledger = ledger
        self.stop = stop
        self.error: BaseException | None = None
        self.latency = Latencies()  # each of this agent's round trips

    def timed_send(self, trip: Trip) -> list[Any]:
        started = time.perf_counter()
        replies = trip.send()
        self.latency.record(time.perf_counter() - started)
        return replies

    def run(self) -> None:
        try:
            self.work()
        except BaseException as exc:  # handed to the main thread, which raises it
            self.error = exc
            self.stop.set()

    def work(self) -> None:
        raise NotImplementedError


class Producer(Agent):
    """Enqueues the declared runs in scenario order while the consumers already dequeue,
    then one batch of fresh keys per consumer call, as the step harness mints them; then the
    declared runs again, round after round, until --seconds stops production. A round starts
    once at most one round's worth of runs is waiting, so the backlog stays bounded."""

    def __init__(self, plan: StressPlan, *args: object) -> None:
        super().__init__("producer", *args)  # type: ignore[arg-type]
        self.plan = plan
        self.rounds = 0
        self.rounds_span = RoundsSpan.of(plan)

    def work(self) -> None:
        while self._room_for_a_round() and self.rounds_span.ready_by_wall_now(self.rounds):
            for start in range(0, len(self.plan.declared), BATCH):
                if self._stopping():
                    break
                batch = self.plan.declared[start : start + BATCH]
                self._send(self.rounds_span.again(batch, self.rounds))
            if self.rounds == 0:
                self._fresh_keys()
            self.rounds += 1
        self.ledger.producer_done()

    def _stopping(self) -> bool:
        return self.ledger.stopped or self.stop.is_set()

    def _room_for_a_round(self) -> bool:
        while self.ledger.waiting() > len(self.plan.declared):
            if self._stopping():
                return False
            time.sleep(IDLE_S)
        return not self._stopping()

    def _fresh_keys(self) -> None:
        plan, n = self.plan, 0
        for batch in range(plan.fresh_batches):
            while self.ledger.calls < batch and not (self.ledger.stopped or self.stop.is_set()):
                time.sleep(IDLE_S)
            if self.ledger.stopped or self.stop.is_set():
                return
            arrivals = []
            for _ in range(plan.fresh_per_call):
                key = fresh_key(n)
                arrivals.append(Arrival(PlannedRun(key, f"{key}-0", 0, 0), plan.fresh_start + n))
                n += 1
            self._send(arrivals)

    def _send(self, arrivals: Sequence[Arrival]) -> None:
        trip = self.queue.trip()
        for a in arrivals:
            self.ops.enqueue(trip, a.run, a.offset_ms)
        self.ledger.sending((a.run.key, a.run.run_id) for a in arrivals)
        self.timed_send(trip)
        self.ledger.sent(a.run.key for a in arrivals)


@dataclass(frozen=True, slots=True)
class RoundsSpan:
    """Where a later round's message timestamps go: after round 0 (its declared runs and its
    fresh keys), each round one declared span after the last, so every round's runs are newer
    than every earlier round's. A round whose runs would not be ready by the dequeue's `now`
    (WALL_NOW) is not sent: a future head is never served, and the run would end unserved."""

    first: int  # round 0's declared runs start here (ms after t0)
    after_round_0: int  # ms after t0 past every round-0 timestamp
    span: int  # ms one declared round spans

    @classmethod
    def of(cls, plan: StressPlan) -> RoundsSpan:
        offsets = [a.offset_ms for a in plan.declared] or [0]
        fresh_end = plan.fresh_start + plan.fresh_batches * plan.fresh_per_call
        first, last = min(offsets), max(offsets)
        return cls(first, max(last, fresh_end) + 1, last - first + 1)

    def ready_by_wall_now(self, rounds: int) -> bool:
        return T0 + self.after_round_0 + rounds * self.span < WALL_NOW

    def again(self, arrivals: Sequence[Arrival], rounds: int) -> Sequence[Arrival]:
        """The declared runs as round `rounds` sends them: run ids of their own (`~r<n>` after
        the scenario's, so a run id's key is still everything before its last `~0#`)."""
        if rounds == 0:
            return arrivals
        shift = self.after_round_0 + (rounds - 1) * self.span - self.first
        return [
            Arrival(replace(a.run, run_id=f"{a.run.run_id}~r{rounds}"), a.offset_ms + shift)
            for a in arrivals
        ]


class ConsumerAgent(Agent):
    """Dequeue, hold, ack: each trip carries the acks that are due, the refeeds of keys the
    last call served, and the next dequeue call."""

    def __init__(self, index: int, plan: StressPlan, hook: Hook | None, *args: object) -> None:
        super().__init__(f"consumer-{index}", *args)  # type: ignore[arg-type]
        self.index = index
        self.plan = plan
        self.hook = hook
        self.calls = 0
        self.serves = 0
        self._held: list[tuple[DequeuedRun, int]] = []  # run, the own call that served it
        self._declared = Counter(a.run.key for a in plan.declared)

    def work(self) -> None:
        last: list[DequeuedRun] = []
        while True:
            trip = self.queue.trip()
            finishing = self.stop.is_set() or self.ledger.all_served()
            self._ack_due(trip, everything=finishing)
            refed = self._refeed(trip, last)
            if finishing:
                self._send(trip, refed)
                return
            slot = self.ops.dequeue(trip, self.plan.max_count)
            served = self.ops.served(self._send(trip, refed)[slot])
            self.calls += 1
            self.serves += len(served.runs)
            self.ledger.on_call(self.index, served.runs, served.report)
            for run in served.runs:
                self._held.append((run, self.calls))
                if self.hook is not None:
                    self.hook(self.queue, self.ops, run)
            last = served.runs
            if not served.runs:
                time.sleep(IDLE_S)

    def _ack_due(self, trip: Trip, everything: bool) -> None:
        hold = self.plan.hold_calls
        due = [r for r, at in self._held if everything or at + hold <= self.calls]
        if not due:
            return
        self._held = [(r, at) for r, at in self._held if not everything and at + hold > self.calls]
        self.ledger.releasing(due)  # before the acks leave: the books never run behind
        for run in due:
            self.ops.ack(trip, run)

    def _refeed(self, trip: Trip, served: list[DequeuedRun]) -> list[str]:
        refed = []
        for run in served:
            if run.key not in self.plan.refeed:
                continue
            declared = self._declared[run.key]
            run_id = self.ledger.take_refeed(run.key, declared, self.plan.refeed_budget)
            if run_id is None:
                break
            offset = self.plan.refeed_start + self.ledger.refeeds
            self.ops.enqueue(trip, PlannedRun(run.key, run_id, 0, 0), offset)
            refed.append(run.key)
        return refed

    def _send(self, trip: Trip, refed: list[str]) -> list[object]:
        replies = self.timed_send(trip) if len(trip) else []
        self.ledger.sent(refed)
        return replies


class Watcher(Agent):
    """Reads the env's held set and (a discipline in Redis) its state, never writing a key."""

    def work(self) -> None:
        finished_then: Counter[str] = Counter()
        while not self.stop.is_set():
            _, finished = self.ledger.enqueue_marks()
            trip = self.queue.trip()
            digest_slot = trip.inspect((), 0)  # the env's counts, no per-queue listing
            state_slot = None
            if self.ops.reads_state:
                state_slot = self.ops.read_state(trip, LISTING_LIMIT)
            replies = self.timed_send(trip)
            started, _ = self.ledger.enqueue_marks()
            state = replies[state_slot] if state_slot is not None else None
            quiet = _no_enqueue_between(finished_then, started)
            self.ledger.on_watch(replies[digest_slot].env_held, state, quiet)
            finished_then = finished
            time.sleep(IDLE_S)


def _no_enqueue_between(
    finished_then: Counter[str], started: Counter[str]
) -> Callable[[str], bool]:
    """Whether no enqueue of a key was in flight between two reads: every one started by the
    second had finished by the first."""
    return lambda key: started[key] == finished_then[key]
