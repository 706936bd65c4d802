"""What every discipline is: an ordering of the active CK queues plus a service hook."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from ckviz.model.queue import DisciplineState, IndexEntry


class Discipline(Protocol):
    """A fairness policy the driver consults before each dequeue call."""

    name: str
    rescores: bool

    def order(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        """The active CK queue members, best first."""
        ...

    def on_serviced(self, key: str) -> None:
        """The dequeue just handed out a run of `key`."""
        ...

    def reset(self) -> None: ...

    def state(self) -> DisciplineState: ...


def by_priority(active: Sequence[IndexEntry], priority: Callable[[str], float]) -> list[str]:
    """Members sorted by (priority of key, score as read, member): the reference's tie-break."""
    ranked = sorted(active, key=lambda e: (priority(e.key), e.score, e.member))
    return [e.member for e in ranked]


def weight_of(weights: Mapping[str, float], key: str) -> float:
    return weights.get(key, 1.0)


def fmt(value: float) -> str:
    """A number as a pane shows it: integers without a fraction."""
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}"
