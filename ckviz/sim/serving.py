"""The door between the driver and a discipline: what a serve attempt adds to a trip.

Before each dequeue the driver asks the discipline's serve plan what to do. Python
disciplines (client-side rescoring) need a fresh ckIndex read and write their order back as
scores; the baseline, and a discipline whose state lives in Redis, leave the order to the
dequeue script (their scripts and keys come with the discipline's `Door`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from ckviz.disciplines.base import Discipline
from ckviz.model.arithmetic import rescore_scores
from ckviz.model.queue import IndexEntry
from ckviz.store.runqueue import Trip


class Rescore(NamedTuple):
    """An order written into ckIndex: the members best first, their keys and their scores."""

    members: list[str]
    order: tuple[str, ...]  # the keys, best first
    scores: list[int]

    @property
    def entries(self) -> tuple[IndexEntry, ...]:
        """ckIndex as rescored (built when a snapshot asks, not on every serve)."""
        return tuple(map(IndexEntry, self.members, self.order, map(float, self.scores)))


class ServePlan(Protocol):
    """What a discipline adds to the trip before each dequeue."""

    rescores: bool  # whether it needs a fresh ckIndex read and rewrites the scores

    def before_dequeue(
        self, trip: Trip, index: tuple[IndexEntry, ...], now: int, wall_now: int
    ) -> Rescore | None:
        """Add what goes before the dequeue to `trip`; `index` is ckIndex as last read."""
        ...

    def next_order(self, index: tuple[IndexEntry, ...], now: int) -> tuple[str, ...]:
        """The keys in the order the next dequeue would see them (no side effects)."""
        ...


class LuaOrder:
    """The dequeue script orders ckIndex itself: lowest score first. Nothing to add."""

    rescores = False

    def before_dequeue(
        self, trip: Trip, index: tuple[IndexEntry, ...], now: int, wall_now: int
    ) -> Rescore | None:
        return None

    def next_order(self, index: tuple[IndexEntry, ...], now: int) -> tuple[str, ...]:
        return age_order(index)


class Rescoring:
    """A Python discipline ranks ckIndex as read and the trip writes that rank as scores."""

    rescores = True

    def __init__(self, discipline: Discipline) -> None:
        self.discipline = discipline

    def before_dequeue(
        self, trip: Trip, index: tuple[IndexEntry, ...], now: int, wall_now: int
    ) -> Rescore | None:
        if not index:
            return None
        order = self.discipline.advance(index, now)
        scores = rescore_scores(len(order), wall_now)
        trip.rescore(order, scores)
        keys = {e.member: e.key for e in index}
        return Rescore(order, tuple([keys[m] for m in order]), scores)

    def next_order(self, index: tuple[IndexEntry, ...], now: int) -> tuple[str, ...]:
        if not index:
            return ()
        keys = {e.member: e.key for e in index}
        return tuple(keys[m] for m in self.discipline.order(index, now))


def serve_plan(discipline: Discipline) -> ServePlan:
    """The plan the discipline's door asks for."""
    return Rescoring(discipline) if discipline.door.rescores else LuaOrder()


def age_order(index: Sequence[IndexEntry]) -> tuple[str, ...]:
    """What the Lua itself will serve first: lowest score, ties by member."""
    return tuple(e.key for e in sorted(index, key=lambda e: (e.score, e.member)))
