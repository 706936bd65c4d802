"""Age order: the reference's own dequeue, oldest CK queue head first. Never rescores."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ckviz.disciplines.base import by_priority
from ckviz.model.decision import Rank
from ckviz.model.queue import DisciplineState, IndexEntry
from ckviz.store.scripts import LUA_ORDER


class Baseline:
    """The Lua's own order; `order` exists so CoDel can build on it."""

    door = LUA_ORDER

    def __init__(self, name: str = "baseline") -> None:
        self.name = name

    def order(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        return by_priority(active, lambda _key: 0)

    def advance(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        return self.order(active, now)

    def on_serviced(self, key: str) -> None:
        return None

    def rank_of(self, key: str) -> Rank:
        return ()  # the age order is ckIndex's score itself: the tie-break says it

    def state(self, keys: Collection[str] | None = None) -> DisciplineState:
        return DisciplineState(self.name, (("order", "oldest head first (age)"),))
