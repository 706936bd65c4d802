"""The real enqueue / dequeue / ack scripts of one discipline, added to a trip."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ckviz.model.clock import T0, WALL_NOW
from ckviz.model.queue import DequeuedRun, PlannedRun
from ckviz.sim.steps import VERSIONS
from ckviz.store import vtime
from ckviz.store.keys import KeyLayout
from ckviz.store.runqueue import Trip
from ckviz.store.vtime import VtimeDequeue, VtimeKnobs

# Disciplines whose state lives in Redis: every consumer calls the same atomic scripts.
SERVER_SIDE: tuple[str, ...] = ("baseline", "vtime", "vtime-v17")


@dataclass(frozen=True, slots=True)
class Served:
    """One dequeue call's runs, and the floor it reported (vtime; None otherwise)."""

    runs: list[DequeuedRun]
    floor: float | None


class QueueOps:
    """Which scripts a discipline calls; the same for every agent of a stress run."""

    def __init__(
        self, discipline: str, layout: KeyLayout, env_limit: int, knobs: VtimeKnobs
    ) -> None:
        self.version = VERSIONS.get(discipline)
        self.layout = layout
        self.env_limit = env_limit
        self.knobs = knobs

    def enqueue(self, trip: Trip, run: PlannedRun, offset_ms: int) -> int:
        if self.version is None:
            return trip.enqueue(run, T0 + offset_ms)
        return vtime.enqueue(trip, self.layout, run, T0 + offset_ms, self.version, self.knobs)

    def dequeue(self, trip: Trip, max_count: int) -> int:
        """Its reply decodes to `Served` through `served()`."""
        if self.version is None:
            return trip.dequeue(max_count, WALL_NOW)
        return vtime.dequeue(
            trip,
            self.layout,
            self.env_limit,
            max_count,
            WALL_NOW,
            self.version,
            self.knobs,
            trace=False,
        )

    def ack(self, trip: Trip, run: DequeuedRun) -> int:
        if self.version is None:
            return trip.ack(run.run_id, run.key)
        return vtime.ack(trip, self.layout, run.run_id, run.key, self.version, self.knobs)

    def read_state(self, trip: Trip, listing_limit: int) -> int:
        return vtime.read_state(trip, self.layout, listing_limit)

    @staticmethod
    def served(reply: Any) -> Served:
        if isinstance(reply, VtimeDequeue):
            return Served(reply.runs, reply.floor)
        return Served(list(reply), None)
