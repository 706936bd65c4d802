"""vtime's orders kept from frame to frame (ranking.py) are the full sorts they replace, on
random runs of tag reads, queues filling and draining, and a floor that rises and falls."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from ckviz.disciplines.vtime.ranking import PassOneOrder, TagsInOrder

KEYS = [f"k{i:03d}" for i in range(120)]


class Books:
    """The keys with runs queued, and those moved since each reader asked (the fake of the
    driver's `QueuedKeys`: plain sets, no Redis in a ranking)."""

    def __init__(self) -> None:
        self.waiting: set[str] = set()
        self.unread: dict[int, set[str]] = {}

    def set_queued(self, key: str, queued: bool) -> None:
        if (key in self.waiting) != queued:
            (self.waiting.add if queued else self.waiting.discard)(key)
            for unread in self.unread.values():
                unread.add(key)

    def queued(self, key: str) -> bool:
        return key in self.waiting

    def keys(self) -> Iterable[str]:
        return iter(sorted(self.waiting, key=lambda _: random.random()))  # any order

    def count(self) -> int:
        return len(self.waiting)

    def moved(self, reader: object) -> set[str] | None:
        if id(reader) not in self.unread:
            self.unread[id(reader)] = set()
            return None
        moved, self.unread[id(reader)] = self.unread[id(reader)], set()
        return moved


def pass_one(tags: dict[str, float], floor: float, waiting: set[str]) -> list[str]:
    """The definition: `VirtualTime.order` over the keys with runs queued."""
    return sorted(waiting, key=lambda k: (max(tags.get(k, floor), floor), k))


def in_tag_order(tags: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(tags.items(), key=lambda kv: (kv[1], kv[0]))


@pytest.mark.parametrize("seed", range(40))
def test_the_kept_orders_are_the_full_sorts_on_random_runs(seed: int) -> None:
    rng = random.Random(seed)
    books, tags = Books(), {}
    kept, shown = PassOneOrder(), TagsInOrder()
    floor = 0.0
    tag_values = [float(v) for v in range(12)] + [2.5, 7.25]  # few values: many ties
    for _ in range(300):
        for _ in range(rng.randint(0, 6)):  # a trip: queues move, tags are read
            key = rng.choice(KEYS)
            books.set_queued(key, rng.random() < 0.6)
        read = {rng.choice(KEYS): rng.choice(tag_values) for _ in range(rng.randint(0, 5))}
        if rng.random() < 0.03:  # a listed read: the tags replaced whole
            tags = dict(read)
            kept.forget()
            shown.forget()
        else:
            tags.update(read)
            kept.tags_read(read)
            shown.tags_read(read)
        if rng.random() < 0.2:
            floor = max(0.0, floor + rng.choice([0.5, 1.0, 2.0, 3.0, -4.0]))  # falls: rarely
        if rng.random() < 0.01:
            for key in KEYS:  # the run's first arrivals: every key at once
                books.set_queued(key, True)
        if rng.random() < 0.7:  # a frame (some trips make none)
            limit = rng.choice([1, 5, 12, 48, 200])
            assert (
                kept.first(tags, floor, books, limit)
                == pass_one(tags, floor, books.waiting)[:limit]
            )
            assert shown.first(tags, 64) == in_tag_order(tags)[:64]


def test_a_key_whose_tag_comes_back_to_an_old_value_is_listed_once() -> None:
    books, tags, kept, shown = Books(), {"a": 3.0, "b": 1.0}, PassOneOrder(), TagsInOrder()
    books.set_queued("a", True)
    books.set_queued("b", True)
    assert kept.first(tags, 0.0, books, 5) == ["b", "a"]
    assert shown.first(tags, 5) == [("b", 1.0), ("a", 3.0)]
    for tag in (5.0, 3.0):  # 3 -> 5 -> 3: two entries for (3, a) in each heap
        tags["a"] = tag
        kept.tags_read(["a"])
        shown.tags_read(["a"])
        kept.first(tags, 0.0, books, 5)
        shown.first(tags, 5)
    assert kept.first(tags, 0.0, books, 5) == ["b", "a"]
    assert shown.first(tags, 5) == [("b", 1.0), ("a", 3.0)]


def test_a_rising_floor_puts_the_tags_it_passes_at_the_floor_in_key_order() -> None:
    books, kept = Books(), PassOneOrder()
    tags = {"z": 1.0, "y": 2.0, "x": 9.0}
    for key in ("x", "y", "z", "w"):  # w has no tag: at the floor
        books.set_queued(key, True)
    assert kept.first(tags, 0.0, books, 4) == ["w", "z", "y", "x"]
    assert kept.first(tags, 2.0, books, 4) == ["w", "y", "z", "x"]  # z and y now tie at 2
    assert kept.first(tags, 0.0, books, 4) == ["w", "z", "y", "x"]  # a fall: built afresh
