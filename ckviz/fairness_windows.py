"""A run cut into WINDOWS stretches of equal time: what each key (or tenant) was owed and got
in each, the samples of the run's own interval (fairness_intervals.py's block bootstrap)."""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from typing import Protocol

WINDOWS = 10  # stretches of equal time a run is cut into for its own interval


class Served(Protocol):
    """What a key (or tenant) was owed and got over the whole run (fairness.KeyService)."""

    @property
    def owed(self) -> float: ...

    @property
    def got(self) -> int: ...


class Cumulative(Protocol):
    """A tally that can tell each of its keys' (or tenants') owed and got up to now."""

    def so_far(self, keys: Sequence[str]) -> tuple[array[float], array[float]]: ...


class Windows:
    """Each key's (or tenant's) cumulative owed and got at the end of each of WINDOWS
    stretches of equal time over a run's instants, read off the tally without changing it (so
    the run's own figures are the same float for float whether windows are kept or not)."""

    def __init__(self, count: int = WINDOWS) -> None:
        self.count = count
        self.keys: list[str] = []
        self.index: dict[str, int] = {}
        self.cuts: list[int] = []  # an instant at or before cuts[j] belongs to stretch j or before
        self.owed: list[array[float]] = []  # cumulative, per cut, in `keys` order
        self.got: list[array[float]] = []

    def start(self, keys: list[str], first: int, last: int) -> None:
        self.keys = keys
        self.index = {k: i for i, k in enumerate(self.keys)}
        span = last - first
        self.cuts = [first + span * j // self.count for j in range(1, self.count)]

    def reach(self, now: int, books: Cumulative) -> None:
        """Before the instant `now` is shared out: close every stretch that ends before it."""
        while len(self.owed) < len(self.cuts) and self.cuts[len(self.owed)] < now:
            owed, got = books.so_far(self.keys)
            self.owed.append(owed)
            self.got.append(got)

    def per_window(self, service: Mapping[str, Served], key: str) -> list[tuple[float, int]]:
        """(owed, got) of `key` in each stretch, the last one ending with the run."""
        i = self.index[key]
        owed = [o[i] for o in self.owed] + [service[key].owed]
        got = [int(g[i]) for g in self.got] + [service[key].got]
        while len(owed) < self.count:  # a run of one instant: the rest are empty
            owed.insert(0, 0.0)
            got.insert(0, 0)
        return [
            (owed[j] - (owed[j - 1] if j else 0.0), got[j] - (got[j - 1] if j else 0))
            for j in range(self.count)
        ]
