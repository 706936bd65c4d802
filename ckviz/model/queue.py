"""Plain values that cross the line between the Redis layer and the disciplines."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal, NamedTuple, Protocol, overload

from ckviz.model.lifecycle import PLAIN, RunLifecycle


class IndexEntry(NamedTuple):
    """One ckIndex member as read: the CK queue, its concurrency key, and the score Redis holds.

    After a rescore the score is the rescored value, not the CK queue's true head. A named
    tuple, built from IndexColumns when a picture or a test asks for entries.
    """

    member: str
    key: str
    score: float


# Builds an IndexEntry from a (member, key, score) tuple without a Python-level call.
index_entry = partial(tuple.__new__, IndexEntry)


class IndexColumns(Sequence[IndexEntry]):
    """ckIndex as three parallel lists: members, their keys and scores, in Redis's order.

    A rescoring discipline ranks all K entries on every serve attempt; it reads the columns
    (`columns_of`), so no per-entry tuple is built for it. Entries are made only when someone
    iterates or indexes (a picture, a test).
    """

    __slots__ = ("keys", "members", "scores")

    def __init__(self, members: list[str], keys: list[str], scores: list[float]) -> None:
        self.members, self.keys, self.scores = members, keys, scores

    def __len__(self) -> int:
        return len(self.members)

    @overload
    def __getitem__(self, i: int) -> IndexEntry: ...
    @overload
    def __getitem__(self, i: slice) -> IndexColumns: ...
    def __getitem__(self, i: int | slice) -> IndexEntry | IndexColumns:
        if isinstance(i, slice):
            return IndexColumns(self.members[i], self.keys[i], self.scores[i])
        return IndexEntry(self.members[i], self.keys[i], self.scores[i])

    def __iter__(self) -> Iterator[IndexEntry]:
        return map(index_entry, zip(self.members, self.keys, self.scores, strict=True))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]  # mutable lists inside

    def __repr__(self) -> str:
        return f"IndexColumns({list(self)!r})"


def columns_of(index: Sequence[IndexEntry]) -> tuple[list[str], list[str], list[float]]:
    """(members, keys, scores) of `index`: its own lists when it is IndexColumns."""
    if isinstance(index, IndexColumns):
        return index.members, index.keys, index.scores
    return [e.member for e in index], [e.key for e in index], [e.score for e in index]


Shown = str | float  # a state value; a pane decides how a number reads

# How a pane draws a piece of a discipline's own lines: as it is, bold, dim, or a key's name in
# the key's colour (bold too when `served`).
Ink = Literal["plain", "bold", "dim", "key", "served"]
PaneLine = tuple[tuple[str, Ink], ...]


def shown_number(value: Shown) -> str:
    """A state value as a pane shows it: numbers without a needless fraction."""
    if isinstance(value, str):
        return value
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}"


class PaneDetail(Protocol):
    """A richer picture of a discipline's state (one in Redis: as read back), as the lines the
    discipline pane draws below its fields."""

    def pane_lines(self) -> list[PaneLine]: ...


class DequeuedRun(NamedTuple):
    """A run a dequeue script handed out (a named tuple: one per run served, and a frozen
    dataclass costs three times as much to build)."""

    run_id: str
    score: float
    key: str


# Builds a DequeuedRun from a (run id, score, key) tuple without a Python-level call.
dequeued_run = partial(tuple.__new__, DequeuedRun)


@dataclass(frozen=True, slots=True)
class DisciplineState:
    """What a discipline shows of itself: global fields and, per key, labelled values, plus
    `detail`: a richer picture the pane draws (a discipline's state in Redis)."""

    name: str
    fields: tuple[tuple[str, Shown], ...] = ()
    per_key: tuple[tuple[str, tuple[tuple[str, Shown], ...]], ...] = ()
    detail: PaneDetail | None = None


@dataclass(frozen=True, slots=True)
class PlannedRun:
    """One run of a workload: who sends it, when it arrives and how long it holds its slot."""

    key: str
    run_id: str
    arrival_ms: int
    hold_ms: int
    life: RunLifecycle = PLAIN  # a delay, a TTL, failed attempts, the fast path (or none)


@dataclass(frozen=True, slots=True)
class RunStream:
    """A workload read as the clock reaches it (a trace's runs, in event order), never held
    whole: how many runs it has, per key, and the runs themselves, once."""

    runs: Iterator[PlannedRun]
    per_key: Mapping[str, int]  # runs per key, every key the stream has
    total: int


def js_string_order(text: str) -> bytes:
    """A sort key that orders strings as JavaScript's `<` does (by UTF-16 code unit)."""
    return text.encode("utf-16-be", "surrogatepass")


def run_id(key: str, index: int) -> str:
    """The reference's run id: `<key>~0#<index>` (ties in a CK queue break on these bytes)."""
    return f"{key}~0#{index}"
