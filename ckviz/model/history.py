"""A run's past in bounded time buckets: what the app's pictures (sparklines, the key x time
strip) read.

Time is cut into at most BUCKETS buckets of equal width (2**level logical ms). When the clock
passes the last one the width doubles and neighbouring buckets merge, so a run of any length
keeps at most BUCKETS buckets per key. Everything here is immutable: a snapshot's history
stays as it was when stepping back. The recorder that fills it lives in ckviz/sim/engine/history.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

BUCKETS = 64

Value = TypeVar("Value")


def rebucket(
    start: int, values: Sequence[Value], shift: int, combine: Callable[[Value, Value], Value]
) -> tuple[int, list[Value]]:
    """Buckets from absolute index `start`, `shift` levels coarser: neighbours combined."""
    if shift <= 0:
        return start, list(values)
    first = start >> shift
    out: list[Value] = []
    for offset, value in enumerate(values):
        index = ((start + offset) >> shift) - first
        if index == len(out):
            out.append(value)
        else:
            out[index] = combine(out[index], value)
    return first, out


def add(a: int, b: int) -> int:
    return a + b


def add_weight(a: float, b: float) -> float:
    return a + b


def latest(_: Value, b: Value) -> Value:
    return b


@dataclass(frozen=True, slots=True)
class KeyBucket:
    """One key in one bucket: runs served, and the deepest its queue was."""

    served: int
    depth: int


@dataclass(frozen=True, slots=True)
class Track:
    """One key's buckets from absolute index `start` (its first arrival) at `level`."""

    level: int
    start: int
    served: tuple[int, ...]
    counted: tuple[int, ...]  # serves inside the contention window (two or more keys waiting)
    depth: tuple[int, ...]  # deepest queue in the bucket
    queued: int  # queued now: the depth of every bucket after the last one
    contended_at: int | None  # the bucket where the key first waited while another was served

    def at(self, level: int) -> Track:
        """The same track in coarser buckets."""
        shift = level - self.level
        if shift <= 0:
            return self
        start, served = rebucket(self.start, self.served, shift, add)
        _, counted = rebucket(self.start, self.counted, shift, add)
        _, depth = rebucket(self.start, self.depth, shift, max)
        contended = None if self.contended_at is None else self.contended_at >> shift
        return Track(
            level, start, tuple(served), tuple(counted), tuple(depth), self.queued, contended
        )


class TrackLayers(Mapping[str, Track]):
    """Every key's track as a chain of layers, newest first: the tracks of the keys changed
    since the view before, then that view's. A frame shares what did not change with the
    frames before it: copying every key's track into a dict of its own took a few ms a frame
    at 100,000 keys whatever changed. A chain grown past LAYERS is flattened into one dict
    (the keys' count once every LAYERS frames), so a lookup walks at most that many dicts."""

    LAYERS = 16
    __slots__ = ("_below", "_depth", "_top")
    _top: dict[str, Track]
    _below: TrackLayers | None
    _depth: int

    def __init__(self, top: dict[str, Track], below: TrackLayers | None = None) -> None:
        if below is not None and below._depth + 1 >= self.LAYERS:
            flat = below.flat()
            flat.update(top)
            top, below = flat, None
        self._top = top
        self._below = below
        self._depth = 0 if below is None else below._depth + 1

    def get(self, key: str, default: Track | None = None) -> Track | None:  # type: ignore[override]
        layer: TrackLayers | None = self
        while layer is not None:
            track = layer._top.get(key)
            if track is not None:
                return track
            layer = layer._below
        return default

    def __getitem__(self, key: str) -> Track:
        track = self.get(key)
        if track is None:
            raise KeyError(key)
        return track

    def flat(self) -> dict[str, Track]:
        """Every key's latest track, in one dict of its own."""
        layers = []
        layer: TrackLayers | None = self
        while layer is not None:
            layers.append(layer._top)
            layer = layer._below
        flat: dict[str, Track] = {}
        for top in reversed(layers):
            flat.update(top)
        return flat

    def __iter__(self) -> Iterator[str]:
        return iter(self.flat())

    def __len__(self) -> int:
        return len(self.flat())


@dataclass(frozen=True, slots=True)
class History:
    """Every key's buckets up to `now`, and the run's contention window per bucket."""

    level: int
    now: int  # the bucket holding the snapshot's time
    tracks: Mapping[str, Track]  # keys that have had a run arrive
    window: tuple[int, ...]  # serves counted in the contention window, per bucket
    contended_weight: tuple[float, ...]  # weight of the keys first contended in each bucket
    weights: Mapping[str, float]

    @property
    def width_ms(self) -> int:
        """Logical ms per bucket."""
        return 1 << self.level

    @property
    def buckets(self) -> int:
        return self.now + 1

    def track(self, key: str) -> Track | None:
        track = self.tracks.get(key)
        return None if track is None else track.at(self.level)

    def cells(self, key: str) -> list[KeyBucket | None]:
        """Per bucket up to now: the key's cell, None before its first run arrived."""
        track = self.track(key)
        if track is None:
            return [None] * self.buckets
        cells: list[KeyBucket | None] = [None] * min(track.start, self.buckets)
        cells += [KeyBucket(s, d) for s, d in zip(track.served, track.depth, strict=True)]
        cells += [KeyBucket(0, track.queued)] * (self.buckets - len(cells))
        return cells[: self.buckets]

    def shares(self, key: str) -> list[float | None]:
        """Per bucket up to now: the key's share of the contention window so far over its
        weight's share among the keys contended so far (ckviz.metrics' share/weight, as it
        stood at the end of each bucket); None until the key has contended."""
        track = self.track(key)
        out: list[float | None] = [None] * self.buckets
        if track is None or track.contended_at is None:
            return out
        weight = self.weights.get(key, 1.0)
        counted = window = 0
        contended_weight = 0.0
        for b in range(self.buckets):
            window += self.window[b] if b < len(self.window) else 0
            contended_weight += self.contended_weight[b] if b < len(self.contended_weight) else 0
            offset = b - track.start
            if 0 <= offset < len(track.counted):
                counted += track.counted[offset]
            if b >= track.contended_at and window and contended_weight:
                out[b] = (counted / window) / (weight / contended_weight)
        return out


@dataclass(frozen=True, slots=True)
class Trend:
    """A lane's fairness headline per bucket (the last figure in each); None: no contention."""

    level: int
    worst: tuple[float | None, ...]
    jain: tuple[float | None, ...]

    @property
    def width_ms(self) -> int:
        return 1 << self.level


def squeeze(
    values: Sequence[Value], cells: int, combine: Callable[[Value, Value], Value]
) -> list[Value]:
    """At most `cells` values: runs of neighbours combined (the first cells hold one more)."""
    if cells <= 0:
        return []
    if len(values) <= cells:
        return list(values)
    out: list[Value] = []
    size, extra = divmod(len(values), cells)
    index = 0
    for cell in range(cells):
        group = values[index : index + size + (1 if cell < extra else 0)]
        index += len(group)
        value = group[0]
        for other in group[1:]:
            value = combine(value, other)
        out.append(value)
    return out
