"""CoDel on top of another discipline: keys waiting too long, for long enough, jump the queue."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ckviz.disciplines.base import Discipline
from ckviz.model.decision import Rank
from ckviz.model.queue import DisciplineState, IndexEntry, columns_of
from ckviz.store.scripts import RESCORED

TARGET_MS = 200
INTERVAL_MS = 100


class CoDel:
    """Escalate a key whose head has been older than `target` for at least `interval`.

    It judges age from the score as read, which after a rescore is not the true head: the
    reference's known blind spot, kept on purpose.
    """

    door = RESCORED

    def __init__(
        self, base: Discipline, target_ms: int = TARGET_MS, interval_ms: int = INTERVAL_MS
    ) -> None:
        self.base = base
        self.name = f"codel-{base.name}"
        self.target_ms = target_ms
        self.interval_ms = interval_ms
        self.above_since: dict[str, int] = {}
        self.escalating: list[str] = []

    def _judge(self, active: Sequence[IndexEntry], now: int) -> tuple[dict[str, int], set[str]]:
        """Since when each key with a head above target has been so, and which escalate."""
        heads: dict[str, float] = {}
        _, keys, scores = columns_of(active)
        for key, score in zip(keys, scores, strict=True):
            heads[key] = min(heads.get(key, score), score)
        above: dict[str, int] = {}
        escalating: set[str] = set()
        for key, head in heads.items():
            if now - head > self.target_ms:
                since = above[key] = self.above_since.get(key, now)
                if now - since >= self.interval_ms:
                    escalating.add(key)
        return above, escalating

    @staticmethod
    def _front_first(
        base_order: list[str], active: Sequence[IndexEntry], escalating: set[str]
    ) -> tuple[list[str], list[str]]:
        """The base order with escalating keys moved to the front; and those keys, in order."""
        members, keys, _ = columns_of(active)
        member_key = dict(zip(members, keys, strict=True))
        front = [m for m in base_order if member_key[m] in escalating]
        back = [m for m in base_order if member_key[m] not in escalating]
        return front + back, [member_key[m] for m in front]

    def order(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        _, escalating = self._judge(active, now)
        return self._front_first(self.base.order(active, now), active, escalating)[0]

    def advance(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        base_order = self.base.advance(active, now)
        self.above_since, escalating = self._judge(active, now)
        order, self.escalating = self._front_first(base_order, active, escalating)
        return order

    def on_serviced(self, key: str) -> None:
        self.base.on_serviced(key)

    def rank_of(self, key: str) -> Rank:
        escalating = "escalating" if key in self.escalating else "not escalating"
        return (("codel", escalating), *self.base.rank_of(key))

    def state(self, keys: Collection[str] | None = None) -> DisciplineState:
        inner = self.base.state(keys)
        fields = (*inner.fields, ("escalating", ", ".join(self.escalating) or "-"))
        per_key = tuple((key, (*values, *self._above_field(key))) for key, values in inner.per_key)
        return DisciplineState(self.name, fields, per_key)

    def _above_field(self, key: str) -> tuple[tuple[str, str], ...]:
        since = self.above_since.get(key)
        return () if since is None else (("above target since", str(since)),)
