"""Deficit round robin over the active keys, one quantum of credit per visit."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from ckviz.disciplines.base import by_priority, weight_of
from ckviz.model.decision import Rank
from ckviz.model.queue import DisciplineState, IndexEntry, columns_of
from ckviz.store.scripts import RESCORED

_COST = 1.0  # every run costs one unit of deficit


class _Visit(NamedTuple):
    """What a visit of the ring would leave: the ring, the cursor, the deficits topped up."""

    ring: list[str]
    cursor: int
    top_ups: dict[str, float]
    winner: str


class DeficitRoundRobin:
    """A ring of keys and a cursor; a key is served while its deficit covers a run."""

    name = "drr"
    door = RESCORED

    def __init__(self, quantum: float = 1.0, weights: Mapping[str, float] | None = None) -> None:
        self.quantum = quantum
        self.weights = dict(weights or {})
        self.deficit: dict[str, float] = {}
        self.ring: list[str] = []
        self.cursor = 0

    def _synced_ring(self, active: Sequence[IndexEntry]) -> tuple[list[str], int]:
        # the keys still active, in ring order, then the newcomers in ckIndex order
        keys = columns_of(active)[1]
        present = set(keys)
        ring = [key for key in self.ring if key in present]
        known = set(self.ring)
        for key in keys:
            if key not in known:
                ring.append(key)
                known.add(key)
        return ring, self.cursor if self.cursor < len(ring) else 0

    def _visit(self, active: Sequence[IndexEntry]) -> _Visit:
        ring, cursor = self._synced_ring(active)
        top_ups: dict[str, float] = {}
        for _ in range(len(ring)):
            key = ring[cursor]
            deficit = self.deficit.get(key, 0.0)
            if deficit < _COST:
                deficit += self.quantum * weight_of(self.weights, key)
                top_ups[key] = deficit
            if deficit >= _COST:
                return _Visit(ring, cursor, top_ups, key)
            cursor = (cursor + 1) % len(ring)
        return _Visit(ring, cursor, top_ups, ring[cursor])

    @staticmethod
    def _rank(active: Sequence[IndexEntry], visit: _Visit) -> list[str]:
        size = len(visit.ring)
        position = {key: (i - visit.cursor) % size for i, key in enumerate(visit.ring)}

        def priority(key: str) -> float:
            if key == visit.winner:
                return -1
            return position.get(key, size)

        return by_priority(active, priority)

    def order(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        return self._rank(active, self._visit(active))

    def advance(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        visit = self._visit(active)
        self.ring, self.cursor = visit.ring, visit.cursor
        self.deficit.update(visit.top_ups)
        return self._rank(active, visit)

    def rank_of(self, key: str) -> Rank:
        """Its turn in the ring from the cursor (the cursor's key, whose deficit covers a run,
        is 0), then its deficit."""
        ring = self.ring
        turn = (ring.index(key) - self.cursor) % len(ring) if key in ring else len(ring)
        return (("turn", turn), ("deficit", self.deficit.get(key, 0.0)))

    def on_serviced(self, key: str) -> None:
        self.deficit[key] = self.deficit.get(key, 0.0) - _COST
        if self.deficit[key] < _COST and key in self.ring:
            # Wrap at once (SPEC section 6): a cursor left past the end would point at
            # whichever key the next order() appends, not at the ring's start.
            self.cursor = (self.ring.index(key) + 1) % len(self.ring)

    def state(self, keys: Collection[str] | None = None) -> DisciplineState:
        cursor_key = self.ring[self.cursor] if self.cursor < len(self.ring) else "-"
        ring = self.ring if keys is None else [key for key in self.ring if key in keys]
        per_key = tuple((key, (("deficit", self.deficit.get(key, 0.0)),)) for key in ring)
        return DisciplineState(self.name, (("cursor", cursor_key),), per_key)
