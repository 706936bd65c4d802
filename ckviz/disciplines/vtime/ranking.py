"""vtime's two orders as the app shows them, kept as the tags and the queues change rather than
sorted every frame: the tags as last read, lowest first (the pane's first line), and the keys
with runs queued in pass 1's order (the next order). At 100,000 keys sorting them for each
frame took 0.4 s; a frame shows a screenful of either.

Both are heaps with lazy deletion: a key whose tag or queue changed is pushed again, and an
entry is checked against the tags (and the books, and the floor) when it reaches the top,
dropped if stale. A frame pops the screenful it shows and pushes it back.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from ckviz.disciplines.base import Waiting

Entry = TypeVar("Entry", str, tuple[float, str])


def _first(
    heap: list[Entry], limit: int, key_of: Callable[[Entry], str], valid: Callable[[Entry], bool]
) -> list[str]:
    """The keys of the first `limit` valid entries of `heap`, each once; the stale entries
    popped on the way are dropped, the valid ones pushed back."""
    taken: list[str] = []
    kept: list[Entry] = []
    seen: set[str] = set()
    while heap and len(taken) < limit:
        entry = heapq.heappop(heap)
        key = key_of(entry)
        if key not in seen and valid(entry):
            seen.add(key)
            taken.append(key)
            kept.append(entry)
    for entry in kept:
        heapq.heappush(heap, entry)
    return taken


def _append(heap: list[Any], entry: Any) -> None:
    heap.append(entry)


def _tag_key(entry: tuple[float, str]) -> str:
    return entry[1]


def _itself(key: str) -> str:
    return key


class TagsInOrder:
    """The tags as last read in ckVtime's order (tag, then key): the first few on demand."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, str]] | None = None  # (tag, key); None: not built
        self._read: set[str] = set()  # keys whose tag was read since the last `first`

    def forget(self) -> None:
        """The tags were replaced whole (a listed read): build afresh when next asked."""
        self._heap = None

    def tags_read(self, keys: Iterable[str]) -> None:
        """These keys' tags were read (maybe changed)."""
        if self._heap is not None:
            self._read.update(keys)

    def first(self, tags: Mapping[str, float], limit: int) -> list[tuple[str, float]]:
        """The first `limit` (key, tag) of `tags` in (tag, key) order."""
        heap, read = self._heap, self._read
        if heap is None or len(read) * 8 > len(tags) or len(heap) > 2 * len(tags) + 64:
            heap = self._heap = [(tag, key) for key, tag in tags.items()]
            heapq.heapify(heap)
        else:
            for key in read:
                tag = tags.get(key)
                if tag is not None:
                    heapq.heappush(heap, (tag, key))
        self._read = set()
        keys = _first(heap, limit, _tag_key, lambda e: tags.get(e[1]) == e[0])
        return [(key, tags[key]) for key in keys]


class PassOneOrder:
    """The keys with runs queued, lowest tag as last read first, a tag at or below the floor (or
    none) counting as the floor, ties by key: `VirtualTime.order` over ckIndex, kept.

    Two heaps: the keys at the floor by key, the others by (tag, key). A rise of the floor
    moves the entries it passes from the second to the first; a fall (the state expired, the
    floor read as none) builds both afresh.
    """

    def __init__(self) -> None:
        self._floor: float | None = None  # the floor the heaps stand for; None: not built
        self._at_floor: list[str] = []
        self._above: list[tuple[float, str]] = []
        self._read: set[str] = set()  # keys whose tag was read since the last `first`

    def forget(self) -> None:
        """The tags were replaced whole (a listed read): build afresh when next asked."""
        self._floor = None

    def tags_read(self, keys: Iterable[str]) -> None:
        """These keys' tags were read (maybe changed)."""
        if self._floor is not None:
            self._read.update(keys)

    def first(
        self, tags: Mapping[str, float], floor: float, waiting: Waiting, limit: int
    ) -> list[str]:
        """The first `limit` keys of `waiting` in this order."""
        moved = waiting.moved(self)
        changed = None if moved is None else moved | self._read
        stale = len(self._at_floor) + len(self._above) > 2 * waiting.count() + 64
        if (
            self._floor is None
            or changed is None
            or floor < self._floor
            or stale
            or len(changed) * 8 > waiting.count()
        ):
            self._build(tags, floor, waiting)
        else:
            self._push(tags, floor, waiting, changed, heapq.heappush)
            self._lift(tags, floor, waiting)
        self._read = set()
        queued = waiting.queued

        def at_floor(key: str) -> bool:
            tag = tags.get(key)
            return queued(key) and (tag is None or tag <= floor)

        def above(entry: tuple[float, str]) -> bool:
            return queued(entry[1]) and tags.get(entry[1]) == entry[0]  # all above the floor

        keys = _first(self._at_floor, limit, _itself, at_floor)
        return keys + _first(self._above, limit - len(keys), _tag_key, above)

    def _build(self, tags: Mapping[str, float], floor: float, waiting: Waiting) -> None:
        self._floor, self._at_floor, self._above = floor, [], []
        self._push(tags, floor, waiting, waiting.keys(), _append)
        heapq.heapify(self._at_floor)
        heapq.heapify(self._above)

    def _push(
        self,
        tags: Mapping[str, float],
        floor: float,
        waiting: Waiting,
        keys: Iterable[str],
        push: Callable[[list[Any], Any], None],
    ) -> None:
        """An entry for each of `keys` with runs queued, in the heap its tag puts it in
        (`push`: onto the heap, or appended for `_build` to heapify)."""
        queued = waiting.queued
        for key in keys:
            if queued(key):
                tag = tags.get(key)
                if tag is None or tag <= floor:
                    push(self._at_floor, key)
                else:
                    push(self._above, (tag, key))

    def _lift(self, tags: Mapping[str, float], floor: float, waiting: Waiting) -> None:
        """The floor rose: the entries it passed join the keys at the floor."""
        above, queued = self._above, waiting.queued
        while above and above[0][0] <= floor:
            tag, key = heapq.heappop(above)
            if queued(key) and tags.get(key) == tag:
                heapq.heappush(self._at_floor, key)
        self._floor = floor
