"""Plain values that cross the line between the Redis layer and the disciplines."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One ckIndex member as read: the CK queue, its concurrency key, and the score Redis holds.

    After a rescore the score is the rescored value, not the CK queue's true head.
    """

    member: str
    key: str
    score: float


@dataclass(frozen=True, slots=True)
class DisciplineState:
    """What a discipline shows of itself: global fields and, per key, labelled values."""

    name: str
    fields: tuple[tuple[str, str], ...] = ()
    per_key: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
