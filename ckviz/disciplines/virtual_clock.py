"""SFQ and stride: a per-key virtual clock that a service advances by increment / weight."""

from __future__ import annotations

import heapq
from collections.abc import Collection, Mapping, Sequence
from itertools import repeat
from operator import itemgetter

from ckviz.disciplines.base import weight_of
from ckviz.model.decision import Rank
from ckviz.model.queue import DisciplineState, IndexEntry, columns_of
from ckviz.store.scripts import RESCORED

_LAST = itemgetter(2)  # the member of a (priority, score, member) rank


class VirtualClock:
    """Serve the key whose clock is lowest; an idle key rejoins at the floor, not behind."""

    door = RESCORED

    def __init__(
        self, name: str, increment: float, label: str, weights: Mapping[str, float] | None = None
    ) -> None:
        self.name = name
        self.increment = increment
        self.label = label  # what the clock is called: "clock" (SFQ) or "pass" (stride)
        self.weights = dict(weights or {})
        self.clock: dict[str, float] = {}
        self.floor = 0.0

    def _priority(self, key: str) -> float:
        return max(self.clock.get(key, self.floor), self.floor)

    def _floor_with(self, active: Sequence[IndexEntry]) -> float:
        """The floor once `active` is seen: it rises to the lowest clock among them."""
        if len(self.clock) < len(active):  # a key without a clock sits at the floor (and a
            return self.floor  # ckIndex member is one key), so the lowest is not above it
        lowest = min(map(self.clock.get, columns_of(active)[1], repeat(self.floor)))
        return max(self.floor, lowest)

    def _rank(
        self, active: Sequence[IndexEntry], floor: float, limit: int | None = None
    ) -> list[str]:
        # by_priority's order, spelled out over the columns: this runs over every key on
        # every serve attempt. Ranks are unique (a member is one entry), so the `limit`
        # smallest are the sort's first `limit`.
        members, keys, scores = columns_of(active)
        clocks = map(max, map(self.clock.get, keys, repeat(floor)), repeat(floor))
        ranks = zip(clocks, scores, members, strict=True)
        return list(map(_LAST, sorted(ranks) if limit is None else heapq.nsmallest(limit, ranks)))

    def order(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        return self._rank(active, self._floor_with(active))

    def first(self, active: Sequence[IndexEntry], now: int, limit: int) -> list[str]:
        return self._rank(active, self._floor_with(active), limit)

    def advance(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        self.floor = self._floor_with(active)
        return self._rank(active, self.floor)

    def rank_of(self, key: str) -> Rank:
        return ((self.label, self._priority(key)),)

    def on_serviced(self, key: str) -> None:
        self.clock[key] = self._priority(key) + self.increment / weight_of(self.weights, key)

    def state(self, keys: Collection[str] | None = None) -> DisciplineState:
        clock = self.clock
        shown = clock.items() if keys is None else [(k, clock[k]) for k in keys if k in clock]
        per_key = tuple((key, ((self.label, value),)) for key, value in sorted(shown))
        return DisciplineState(self.name, (("floor", self.floor),), per_key)


def sfq(weights: Mapping[str, float] | None = None) -> VirtualClock:
    return VirtualClock("sfq", 1.0, "clock", weights)


def stride(weights: Mapping[str, float] | None = None) -> VirtualClock:
    return VirtualClock("stride", 1_000_000.0, "pass", weights)
