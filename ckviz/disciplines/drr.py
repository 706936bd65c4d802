"""Deficit round robin over the active keys, one quantum of credit per visit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ckviz.disciplines.base import by_priority, fmt, weight_of
from ckviz.model.queue import DisciplineState, IndexEntry

_COST = 1.0  # every run costs one unit of deficit


class DeficitRoundRobin:
    """A ring of keys and a cursor; a key is served while its deficit covers a run."""

    name = "drr"
    rescores = True

    def __init__(self, quantum: float = 1.0, weights: Mapping[str, float] | None = None) -> None:
        self.quantum = quantum
        self.weights = dict(weights or {})
        self.reset()

    def reset(self) -> None:
        self.deficit: dict[str, float] = {}
        self.ring: list[str] = []
        self.cursor = 0

    def _sync_ring(self, active: Sequence[IndexEntry]) -> None:
        present = {e.key for e in active}
        known = set(self.ring)
        for entry in active:
            if entry.key not in known:
                self.ring.append(entry.key)
                known.add(entry.key)
        self.ring = [key for key in self.ring if key in present]
        if self.cursor >= len(self.ring):
            self.cursor = 0

    def _pick(self) -> str:
        for _ in range(len(self.ring)):
            key = self.ring[self.cursor]
            if self.deficit.get(key, 0.0) < _COST:
                top_up = self.quantum * weight_of(self.weights, key)
                self.deficit[key] = self.deficit.get(key, 0.0) + top_up
            if self.deficit[key] >= _COST:
                return key
            self.cursor = (self.cursor + 1) % len(self.ring)
        return self.ring[self.cursor]

    def order(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        self._sync_ring(active)
        winner = self._pick()
        size = len(self.ring)
        position = {key: (i - self.cursor) % size for i, key in enumerate(self.ring)}

        def priority(key: str) -> float:
            if key == winner:
                return -1
            return position.get(key, size)

        return by_priority(active, priority)

    def on_serviced(self, key: str) -> None:
        self.deficit[key] = self.deficit.get(key, 0.0) - _COST
        if self.deficit[key] < _COST and key in self.ring:
            # Wrap at once (SPEC section 6): a cursor left past the end would point at
            # whichever key the next order() appends, not at the ring's start.
            self.cursor = (self.ring.index(key) + 1) % len(self.ring)

    def state(self) -> DisciplineState:
        cursor_key = self.ring[self.cursor] if self.cursor < len(self.ring) else "-"
        per_key = tuple((key, (("deficit", fmt(self.deficit.get(key, 0.0))),)) for key in self.ring)
        return DisciplineState(self.name, (("cursor", cursor_key),), per_key)
