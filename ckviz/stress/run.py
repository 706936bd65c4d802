"""One stress run: open a connection per agent, let them loose, stop them, settle the books."""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field

import redis

from ckviz.disciplines.registry import tuning_for
from ckviz.errors import CkvizError, InvariantViolation
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario
from ckviz.outputs.interrupts import INTERRUPTS
from ckviz.store.prefix import delete_prefix
from ckviz.store.runqueue import RunQueue
from ckviz.stress.agents import Agent, ConsumerAgent, Hook, Producer, Watcher
from ckviz.stress.latency import Latencies, LatencySummary
from ckviz.stress.ledger import SharedBooks
from ckviz.stress.ops import QueueOps
from ckviz.stress.plan import StressPlan, plan_for

JOIN_S = 10.0  # how long a stopping agent may take to finish its trip
MIN_GRACE_S = 5.0


@dataclass(slots=True)
class StressReport:
    """What a stress run did and what its checks found (not deterministic: real concurrency)."""

    plan: StressPlan
    discipline: str
    seconds: float  # from the first enqueue to the last consumer's exit
    calls: list[int]  # per consumer
    serves: list[int]  # per consumer
    ledger: SharedBooks
    cut_by_time: bool  # production stopped at --seconds
    refeeds: int = 0
    notes: list[str] = field(default_factory=list)
    rounds: int = 1  # times the producer sent the scenario's runs
    latency: dict[str, LatencySummary] = field(default_factory=dict)  # per kind of call
    interrupted: bool = False  # stopped by ctrl+c / SIGTERM / SIGHUP: the figures so far

    @property
    def served(self) -> int:
        return len(self.ledger.served)

    @property
    def throughput(self) -> float:
        """Runs dequeued per second."""
        return self.served / self.seconds if self.seconds > 0 else 0.0

    @property
    def ok(self) -> bool:
        return not sum(self.ledger.violations.values())


def run_stress(
    client: redis.Redis,
    prefix: str,
    scenario: Scenario | StepScenario,
    discipline: str,
    consumers: int,
    seconds: float,
    hook: Hook | None = None,
) -> StressReport:
    """Run `scenario` with `consumers` concurrent consumers under `prefix`, whose keys are
    deleted at the end whatever happens. `hook` is a test-only fault."""
    plan = plan_for(scenario)
    # its knobs as a cell of `scenario` would have them (no treatment: no flags)
    ops = QueueOps(discipline, tuning_for(discipline, scenario, Treatment(discipline=discipline)))
    queues = [
        RunQueue(client, prefix, plan.env_limit, per_key_limit=plan.queue_limit, door=ops.door)
        for _ in range(consumers + 2)
    ]
    ledger = SharedBooks(plan.env_limit, plan.per_key_limit, ops.rules)
    if plan.refeed:
        ledger.open_refeeds()
    stop = threading.Event()
    agents: list[Agent] = []
    try:
        for queue in queues:  # setup writes the limits; after it the watcher only reads
            queue.open()
        eaters = [
            ConsumerAgent(i, plan, hook, queues[i], ops, ledger, stop) for i in range(consumers)
        ]
        producer = Producer(plan, queues[-2], ops, ledger, stop)
        watcher = Watcher("watcher", queues[-1], ops, ledger, stop)
        agents = [producer, *eaters, watcher]
        # a stop request ends the wait and the figures so far are kept: polled from before the
        # first agent starts (a stop between their start and the wait was a bare interrupt)
        with INTERRUPTS.polled():
            started = time.monotonic()
            for agent in agents:
                agent.start()
            cut = _wait(eaters, ledger, stop, started, seconds)
            elapsed = time.monotonic() - started
            stop.set()
            _join(agents)
        interrupted = INTERRUPTS.requested
        if not interrupted:  # runs left queued by a stop are no invariant broken
            _settle(client, queues[0], ledger)
        report = StressReport(
            plan,
            discipline,
            elapsed,
            [c.calls for c in eaters],
            [c.serves for c in eaters],
            ledger,
            cut,
            ledger.refeeds,
            rounds=producer.rounds,
            latency=_latencies(producer, eaters, watcher),
            interrupted=interrupted,
        )
    finally:
        stop.set()
        _join(agents)
        for queue in queues:
            queue.close()
        with contextlib.suppress(redis.RedisError, OSError):
            delete_prefix(client, prefix)
    return report


def _latencies(
    producer: Producer, eaters: list[ConsumerAgent], watcher: Watcher
) -> dict[str, LatencySummary]:
    """Per kind of call: a consumer's trip (its acks due and one dequeue call), the
    producer's enqueue trip (up to BATCH runs), the watcher's read."""
    consumers = Latencies()
    for eater in eaters:
        consumers = consumers.merged(eater.latency)
    return {
        "dequeue": consumers.summary(),
        "enqueue": producer.latency.summary(),
        "watch": watcher.latency.summary(),
    }


def _wait(
    eaters: list[ConsumerAgent],
    ledger: SharedBooks,
    stop: threading.Event,
    started: float,
    seconds: float,
) -> bool:
    """Until every consumer is done: production stops at `seconds`, consumers at `seconds`
    plus a grace to drain. True if the clock stopped production."""
    cut = False
    grace = max(MIN_GRACE_S, seconds)
    while any(c.is_alive() for c in eaters) and not stop.is_set() and not INTERRUPTS.requested:
        elapsed = time.monotonic() - started
        if elapsed >= seconds and ledger.producing:
            ledger.stop_producing()
            cut = True
        if elapsed >= seconds + grace:
            break
        time.sleep(0.01)
    return cut


def _join(agents: list[Agent]) -> None:
    for agent in agents:
        if agent.is_alive():
            agent.join(JOIN_S)
    errors = [a.error for a in agents if a.error is not None]
    for agent in agents:
        agent.error = None  # raised once
    if errors:
        first = errors[0]
        if isinstance(first, CkvizError):
            raise first
        raise InvariantViolation(f"a stress agent failed: {type(first).__name__}: {first}")


def _settle(client: redis.Redis, queue: RunQueue, ledger: SharedBooks) -> None:
    k = queue.keys
    pipe = client.pipeline(transaction=False)
    pipe.zcard(k.env_queue)
    pipe.scard(k.env_held)
    pipe.zcard(k.ck_index)
    queued, held, indexed = pipe.execute()
    ledger.settle(int(queued), int(held), int(indexed))
