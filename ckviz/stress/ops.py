"""The real enqueue / dequeue / ack scripts of one discipline, added to a trip through its door
(as the engine's clocks add them), and what the discipline checks of its own state under
concurrent callers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ckviz.disciplines.base import DequeueReport, Tuning, UnderConcurrency
from ckviz.disciplines.registry import IN_REDIS, make_discipline, under_concurrency
from ckviz.model.clock import T0, WALL_NOW
from ckviz.model.queue import DequeuedRun, PlannedRun
from ckviz.store.runqueue import Trip
from ckviz.store.scripts import Door

# Disciplines whose state lives in Redis: every consumer calls the same atomic scripts.
SERVER_SIDE: tuple[str, ...] = IN_REDIS


@dataclass(frozen=True, slots=True)
class Served:
    """One dequeue call's runs, and the report of a discipline in Redis (None otherwise)."""

    runs: list[DequeuedRun]
    report: DequeueReport | None


class QueueOps:
    """Which scripts a discipline calls; the same for every agent of a stress run, each of
    whose queues is opened with `door`."""

    def __init__(self, discipline: str, tuning: Tuning) -> None:
        self.door: Door = make_discipline(discipline, tuning=tuning).door
        self.rules: UnderConcurrency | None = under_concurrency(discipline)

    @property
    def reads_state(self) -> bool:
        """The discipline keeps state in Redis that its door can read."""
        return self.door.reads is not None

    def enqueue(self, trip: Trip, run: PlannedRun, offset_ms: int) -> int:
        return trip.enqueue(run, T0 + offset_ms)

    def dequeue(self, trip: Trip, max_count: int) -> int:
        """Its reply decodes to `Served` through `served()`."""
        return trip.dequeue(max_count, WALL_NOW)

    def ack(self, trip: Trip, run: DequeuedRun) -> int:
        return trip.ack(run.run_id, run.key)

    def read_state(self, trip: Trip, listing_limit: int) -> int:
        return trip.read_state(listing_limit)

    def served(self, reply: Any) -> Served:
        """A dequeue's reply: the door's reader made a report of it, or it is the runs."""
        if self.door.dequeue_reply is None:
            return Served(list(reply), None)
        report: DequeueReport = reply
        return Served(report.runs, report)
