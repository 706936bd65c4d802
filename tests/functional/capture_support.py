"""Traffic for the capture tests: a known workload fed in real time, by one thread, to a run
queue on the real layout (live-core's producer, under the test's prefix), which dequeues and
acks too and records when each run was really dequeued and acked."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import redis

from ckviz.live.producer import Producer as LiveProducer
from ckviz.model.queue import PlannedRun
from tests.functional.live_support import TrafficThread, live_queue


@dataclass
class Produced:
    """What the producer did: each run's real dequeue and ack times (epoch ms), as a span: the
    command sent (`*_sent`) and its reply read (`dequeued`, `acked`). The server made the change
    within it; a loaded machine can stretch it (the thread descheduled around a command)."""

    start_ms: int
    dequeued: dict[str, float] = field(default_factory=dict)
    acked: dict[str, float] = field(default_factory=dict)
    dequeue_sent: dict[str, float] = field(default_factory=dict)
    ack_sent: dict[str, float] = field(default_factory=dict)

    def hold_span(self, run_id: str) -> tuple[float, float]:
        """The shortest and the longest the run can really have been held."""
        return (
            self.ack_sent[run_id] - self.dequeued[run_id],
            self.acked[run_id] - self.dequeue_sent[run_id],
        )


def workload(
    keys: int, runs_per_key: int, gap_ms: int, hold_ms: int, after_ms: int
) -> list[PlannedRun]:
    """A first run at 0 (queued when the producer is made: the queue exists), then runs of
    `keys` keys from `after_ms` on, `gap_ms` apart in turn, each held about `hold_ms`."""
    runs = [PlannedRun("tenant:0", "run_first", 0, hold_ms)]
    for i in range(keys * runs_per_key):
        key = f"tenant:{i % keys}"  # a ':' in a concurrency key, as real ones have
        runs.append(PlannedRun(key, f"run_{i:04d}", after_ms + i * gap_ms, hold_ms + 3 * (i % 4)))
    return runs


class Producer(TrafficThread):
    """Enqueues each run at start + its arrival (its score exactly that), dequeues what the
    env limit allows, acks each run once its hold has passed."""

    def __init__(self, client: redis.Redis, prefix: str, runs: list[PlannedRun], limit: int = 3):
        super().__init__()
        self.queue = LiveProducer(client, live_queue(prefix), env_limit=limit)
        self.queue.open()
        self.runs = runs
        self.limit = limit
        self.produced = Produced(int(time.time() * 1000))
        self._pending = list(runs)
        self._enqueue_due(self.produced.start_ms)  # the queue exists

    def _enqueue_due(self, now: float) -> None:
        start, pending = self.produced.start_ms, self._pending
        while pending and start + pending[0].arrival_ms <= now:
            run = pending.pop(0)
            self.queue.enqueue(run.run_id, run.key, start + run.arrival_ms)

    def _run(self) -> None:
        made, held = self.produced, {}  # run id -> (run, release ms)
        by_id = {run.run_id: run for run in self.runs}
        while (self._pending or held) and not self.stop.is_set():
            now = time.time() * 1000
            self._enqueue_due(now)
            for rid, (run, release) in list(held.items()):
                if release <= now:
                    made.ack_sent[rid] = time.time() * 1000
                    self.queue.ack(rid, run.key)
                    del held[rid]
                    made.acked[rid] = time.time() * 1000
            sent = time.time() * 1000
            for taken, _ in self.queue.dequeue(self.limit, int(now)):
                run = by_id[taken]
                at = time.time() * 1000
                made.dequeued[run.run_id] = at
                made.dequeue_sent[run.run_id] = sent
                held[run.run_id] = (run, at + run.hold_ms)
            time.sleep(0.001)


def trace_header(text: str) -> dict[str, str]:
    """A capture's comment lines, `name: value` by name."""
    found = {}
    for line in text.splitlines():
        if line.startswith("# ") and ": " in line:
            name, _, value = line[2:].partition(": ")
            found[name] = value
    return found
