"""What every discipline is: a door to Redis, an order of the active CK queues, a service hook."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Protocol

from ckviz.disciplines.vtime.values import Version, VtimeDequeue, VtimeState
from ckviz.model.queue import DisciplineState, IndexEntry, columns_of
from ckviz.store.scripts import Door


class Discipline(Protocol):
    """A fairness policy the driver consults before each dequeue call.

    `door` says which scripts its runs go through and whether the driver rescores ckIndex
    from `advance` before each dequeue; a discipline whose state lives in Redis names its
    own scripts and keys there and leaves the ordering to its Lua.
    """

    name: str
    door: Door

    def order(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        """The active CK queue members, best first, as a serve at `now` would rank them.
        Pure: the state is untouched (the app previews the next pick with it)."""
        ...

    def advance(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        """Time moved on to `now` with `active` waiting: commit what ranking them changes
        (SFQ's floor, DRR's deficits, CoDel's clocks) and return `order(active, now)`."""
        ...

    def on_serviced(self, key: str) -> None:
        """The dequeue just handed out a run of `key`."""
        ...

    def state(self, keys: Collection[str] | None = None) -> DisciplineState:
        """What it shows of itself; per key only for `keys` when given (the app's view
        shows a few keys of thousands)."""
        ...


class KeepsStateInRedis(Discipline, Protocol):
    """A discipline whose door names a `reads` script: the driver hands it what its dequeue
    reported and what the read found, and it never writes its keys from Python."""

    version: Version  # which rules its state keeps (the vtime invariants' version)
    traced: bool  # its dequeue reports what it looked at: read its state after every trip

    def on_dequeue_report(self, call: VtimeDequeue) -> None:
        """What a dequeue call reported beyond its runs (passes, floor)."""
        ...

    def on_state_read(self, state: VtimeState) -> None:
        """Its state as read at the end of a trip."""
        ...


def by_priority(active: Sequence[IndexEntry], priority: Callable[[str], float]) -> list[str]:
    """Members sorted by (priority of key, score as read, member): the reference's tie-break."""
    # Members are unique (a sorted set's), so sorting the plain tuples is the same total order
    # without a key function per entry.
    members, keys, scores = columns_of(active)
    ranked = sorted(zip(map(priority, keys), scores, members, strict=True))
    return [member for _, _, member in ranked]


def weight_of(weights: Mapping[str, float], key: str) -> float:
    return weights.get(key, 1.0)
