"""The real enqueue / dequeue / ack scripts of one discipline, added to a trip through its door."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ckviz.disciplines.base import Tuning
from ckviz.disciplines.registry import IN_REDIS, make_discipline
from ckviz.disciplines.vtime import VtimeDequeue, version_of
from ckviz.model.clock import T0, WALL_NOW
from ckviz.model.queue import DequeuedRun, PlannedRun
from ckviz.store.runqueue import Trip
from ckviz.store.scripts import Door

# Disciplines whose state lives in Redis: every consumer calls the same atomic scripts.
SERVER_SIDE: tuple[str, ...] = IN_REDIS


@dataclass(frozen=True, slots=True)
class Served:
    """One dequeue call's runs, and the floor it reported (vtime; None otherwise)."""

    runs: list[DequeuedRun]
    floor: float | None


class QueueOps:
    """Which scripts a discipline calls; the same for every agent of a stress run, each of
    whose queues is opened with `door`."""

    def __init__(self, discipline: str, tuning: Tuning) -> None:
        self.version = version_of(discipline)
        self.door: Door = make_discipline(discipline, tuning=tuning).door

    def enqueue(self, trip: Trip, run: PlannedRun, offset_ms: int) -> int:
        return trip.enqueue(run, T0 + offset_ms)

    def dequeue(self, trip: Trip, max_count: int) -> int:
        """Its reply decodes to `Served` through `served()`."""
        return trip.dequeue(max_count, WALL_NOW)

    def ack(self, trip: Trip, run: DequeuedRun) -> int:
        return trip.ack(run.run_id, run.key)

    def read_state(self, trip: Trip, listing_limit: int) -> int:
        return trip.read_state(listing_limit)

    @staticmethod
    def served(reply: Any) -> Served:
        if isinstance(reply, VtimeDequeue):
            return Served(reply.runs, reply.floor)
        return Served(list(reply), None)
